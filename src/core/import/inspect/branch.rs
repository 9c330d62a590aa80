//! Inspect's branched trajectories, read as forks.
//!
//! A branch (`inspect_ai.event.timeline_branch`) is a span of `type: "branch"` holding a
//! `BranchEvent` whose `from_anchor` names an `AnchorEvent` of the trajectory it left. Its model
//! calls replay the parent's conversation up to the branch point and go on from there, so the
//! branch's conversation is its last model call's input and output, and where it leaves the
//! parent is where the two conversations part (the anchor names the point, not a message).
//! Scores given inside the span are the branch's own.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::schema::{ChatMessage, Content, EventsData, ModelEvent, Sample, SampleEvent, SpanBegin};

/// One branch of a sample.
pub struct Branch {
    /// The span's name (unique within the sample once read: a repeated name gets `-2`, `-3`…).
    pub name: String,
    pub span: String,
    pub from_anchor: String,
    /// The span of the branch it leaves, when it leaves a branch (its anchor lies in that span);
    /// `None` when it leaves the sample's own trajectory.
    pub leaves: Option<String>,
    /// The branch's conversation, the replayed prefix included.
    pub messages: Vec<ChatMessage>,
    /// The scores given inside the span, by scorer.
    pub scores: Map<String, Value>,
    /// The span's metadata (ours when we wrote it: the fork's episode and notes).
    pub metadata: Map<String, Value>,
}

/// A sample's spans: which are branches, and the span each lies in.
pub struct Spans<'a> {
    parents: HashMap<&'a str, Option<&'a str>>,
    branches: Vec<&'a SpanBegin>,
    /// The ids of `branches` (looked up for every event).
    branch_ids: HashSet<&'a str>,
    /// Each branch span's `from_anchor`.
    anchors: HashMap<&'a str, &'a str>,
    /// The span each anchor was set in.
    anchored_in: HashMap<&'a str, Option<&'a str>>,
}

impl<'a> Spans<'a> {
    pub fn of(sample: &'a Sample) -> Self {
        let mut parents = HashMap::new();
        let mut spans = Vec::new();
        let mut anchors = HashMap::new();
        let mut anchored_in = HashMap::new();
        for event in &sample.events {
            match event {
                SampleEvent::SpanBegin(span) => {
                    parents.insert(span.id.as_str(), span.parent_id.as_deref());
                    if span.kind.as_deref() == Some("branch") {
                        spans.push(span);
                    }
                }
                SampleEvent::Branch(mark) => {
                    if let Some(span) = mark.span_id.as_deref() {
                        anchors.insert(span, mark.from_anchor.as_str());
                    }
                }
                SampleEvent::Anchor(anchor) => {
                    anchored_in.insert(anchor.anchor_id.as_str(), anchor.span_id.as_deref());
                }
                _ => {}
            }
        }
        // A `branch` span without a BranchEvent is ordinary content (as Inspect's timeline reads it).
        spans.retain(|s| anchors.contains_key(s.id.as_str()));
        let branch_ids = spans.iter().map(|s| s.id.as_str()).collect();
        Spans { parents, branches: spans, branch_ids, anchors, anchored_in }
    }

    /// The innermost branch the span `span` lies in (a nested branch's calls are its own).
    pub fn branch_of(&self, span: Option<&str>) -> Option<&'a str> {
        let mut at = span;
        for _ in 0..=self.parents.len() {
            let id = at?;
            if let Some(branch) = self.branch_ids.get(id) {
                return Some(branch);
            }
            at = self.parents.get(id).copied().flatten();
        }
        None
    }
}

/// The most a sample's branches' conversations may weigh in all (see [`weight`]): a condensed
/// sample can have thousands of branches each replaying its whole message pool (issue 36). The
/// fuzz build makes it small, so the fuzzer reaches the branches left out.
#[cfg(not(feature = "fuzzing"))]
pub const BRANCHES_WEIGH: usize = 256 << 20;
#[cfg(feature = "fuzzing")]
pub const BRANCHES_WEIGH: usize = 16 << 10;

/// The branches of a sample read as forks, and how many were left out as too heavy.
pub struct Branches {
    pub read: Vec<Branch>,
    pub left_out: usize,
}

/// Every branch of `sample` holding a model call, in the order their spans began, while their
/// conversations weigh at most [`BRANCHES_WEIGH`] in all. `role` picks whose calls make the
/// conversation (an audit's `target`); `None` takes any call.
pub fn branches(sample: &Sample, role: Option<&str>) -> Branches {
    let spans = Spans::of(sample);
    if spans.branches.is_empty() {
        return Branches { read: Vec::new(), left_out: 0 };
    }
    let branch_of = |span: Option<&str>| spans.branch_of(span);
    let mut last_call = HashMap::new();
    let mut scores: HashMap<&str, Map<String, Value>> = HashMap::new();
    for event in &sample.events {
        match event {
            SampleEvent::Model(call) if role.is_none() || call.role.as_deref() == role => {
                if let Some(branch) = branch_of(call.span_id.as_deref()) {
                    last_call.insert(branch, call);
                }
            }
            SampleEvent::Score(score) => {
                if let Some(branch) = branch_of(score.span_id.as_deref()) {
                    let scorer = score.scorer.clone().unwrap_or_else(|| "score".into());
                    scores.entry(branch).or_default().insert(scorer, score.score.clone());
                }
            }
            _ => {}
        }
    }
    let mut names: HashMap<String, u32> = HashMap::new();
    let (mut weighed, mut left_out) = (0usize, 0usize);
    let pool = PoolWeights::of(sample.events_data.as_ref());
    let read = spans
        .branches
        .iter()
        .filter_map(|span| {
            let call = last_call.get(span.id.as_str())?;
            let weighs = pool.call(call);
            if weighed + weighs > BRANCHES_WEIGH {
                left_out += 1;
                return None;
            }
            weighed += weighs;
            let messages = conversation_of(call, sample.events_data.as_ref());
            let from_anchor = spans.anchors.get(span.id.as_str()).copied().unwrap_or_default();
            // The branch it leaves: the one its anchor lies in, else the one its span lies in.
            let anchor_span =
                spans.anchored_in.get(from_anchor).copied().unwrap_or(span.parent_id.as_deref());
            let leaves = spans.branch_of(anchor_span).filter(|b| *b != span.id).map(str::to_string);
            let base = name_of(&span.name, &span.id);
            let seen = names.entry(base.clone()).or_insert(0);
            *seen += 1;
            let name = if *seen == 1 { base } else { format!("{base}-{seen}") };
            Some(Branch {
                name,
                span: span.id.clone(),
                from_anchor: from_anchor.to_string(),
                leaves,
                messages,
                scores: scores.remove(span.id.as_str()).unwrap_or_default(),
                metadata: span.metadata.clone().unwrap_or_default(),
            })
        })
        .collect();
    Branches { read, left_out }
}

/// The weights of a sample's message pool, summed from its start (a branch's condensed input is
/// ranges of it: weighed in a step per range, however long).
struct PoolWeights(Vec<usize>);

impl PoolWeights {
    fn of(pool: Option<&EventsData>) -> Self {
        let mut sums = vec![0];
        for message in pool.map(|p| p.messages.as_slice()).unwrap_or_default() {
            sums.push(sums[sums.len() - 1] + weight(message));
        }
        PoolWeights(sums)
    }

    /// What the conversation of `call` costs to build, without building it.
    fn call(&self, call: &ModelEvent) -> usize {
        let len = self.0.len() - 1;
        let input: usize = match &call.input_refs {
            Some(refs) => refs
                .iter()
                .map(|&(start, end)| {
                    let start = start.min(len);
                    self.0[end.clamp(start, len)] - self.0[start]
                })
                .fold(0, usize::saturating_add),
            None => call.input.iter().map(weight).sum(),
        };
        let output = call.output.iter().flat_map(|o| o.choices.first()).map(|c| weight(&c.message));
        input.saturating_add(output.sum())
    }
}

/// What a message costs copied: its parts and texts (a long text is a mark of a few bytes, held once).
fn weight(message: &ChatMessage) -> usize {
    let content = match &message.content {
        Content::Text(text) => text.len(),
        Content::Parts(parts) => parts.iter().map(|p| 64 + p.text.as_ref().map_or(0, String::len)).sum(),
    };
    let calls = message.tool_calls.iter().flatten().map(|c| 128 + value_weight(&c.arguments)).sum::<usize>();
    256 + content + calls
}

fn value_weight(value: &Value) -> usize {
    match value {
        Value::String(text) => 32 + text.len(),
        Value::Array(items) => 32 + items.iter().map(value_weight).sum::<usize>(),
        Value::Object(map) => 32 + map.iter().map(|(k, v)| 32 + k.len() + value_weight(v)).sum::<usize>(),
        _ => 32,
    }
}

/// A span's name as part of an episode id: no space, slash or control character (ids are typed,
/// shown and make file names).
pub fn name_of(name: &str, id: &str) -> String {
    let name = if name.trim().is_empty() { id } else { name.trim() };
    let plain = |c: char| !(c.is_whitespace() || c.is_control() || c == '/' || c == '\\' || c == '~');
    name.chars().map(|c| if plain(c) { c } else { '_' }).collect()
}

/// The conversation a model call saw and what it answered: its input (resolved from the sample's
/// message pool when condensed) and its first choice.
pub fn conversation_of(call: &ModelEvent, pool: Option<&EventsData>) -> Vec<ChatMessage> {
    let mut messages = match &call.input_refs {
        Some(refs) => resolve_refs(refs, pool),
        None => call.input.clone(),
    };
    messages.extend(call.output.iter().flat_map(|o| o.choices.first()).map(|c| c.message.clone()));
    messages
}

/// A condensed input: half-open ranges of the sample's message pool. A range past the pool's end
/// keeps what the pool holds.
fn resolve_refs(refs: &[(usize, usize)], pool: Option<&EventsData>) -> Vec<ChatMessage> {
    let pool = pool.map(|p| p.messages.as_slice()).unwrap_or_default();
    let mut messages = Vec::new();
    for &(start, end) in refs {
        let start = start.min(pool.len());
        messages.extend_from_slice(&pool[start..end.clamp(start, pool.len())]);
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::name_of;

    #[test]
    fn a_branch_name_makes_a_plain_id() {
        assert_eq!(name_of("retry", "s1"), "retry");
        assert_eq!(name_of("  ", "s1"), "s1");
        assert_eq!(name_of("a b/c\\d~e\u{1b}[31m", "s1"), "a_b_c_d_e_[31m");
    }
}
