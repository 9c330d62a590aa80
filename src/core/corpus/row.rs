//! One corpus row: what `ls`, `summary`, `agreement` and the browser need
//! to know of an episode, without its bodies.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::annotate::{Annotation, carried_judgement, human_verdict};
use crate::core::episode::{
    CarriedNote, ControlAction, Episode, EventBody, Judge, JudgeSource, Outcome, Verdict, VerdictMethod,
};
use crate::core::judge::standing::{supersedes, worst_labelled};

/// One episode of a corpus.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CorpusRow {
    /// The file the episode is in.
    pub path: PathBuf,
    pub id: String,
    pub task_id: Option<String>,
    pub domain: Option<String>,
    pub persona: Option<String>,
    /// `privacy`, `security` or `benign`.
    pub attack_type: Option<String>,
    /// The benchmark's category folder (`privacy`, `security`, `benign_easy`, `benign_hard`).
    pub category: Option<String>,
    /// The attack (the benchmark's attack folder name).
    pub attack: Option<String>,
    /// The assistant's model.
    pub model: Option<String>,
    pub defence: Option<String>,
    pub repeat: Option<u64>,
    pub retry: Option<u64>,
    /// The last turn reached. `None` when not known: a sample listed from a large Inspect log's
    /// summary that gives no `turn_count` (Inspect's writer may leave it out).
    pub turns: Option<u32>,
    /// Events after the header, merged sidecar verdicts included: the N of the inspector's
    /// `event k/N`, the same in `ls`, `--where events>…` and the browser (issue 23: `ls` counted
    /// the header too). `None` when not counted: a sample listed from a large Inspect log's
    /// summary, whose events are not read until it is opened (Inspect counts messages, not events).
    pub events: Option<usize>,
    /// The final say of every verdict source: one per (judge, method, model).
    pub verdicts: Vec<SourceVerdict>,
    /// The episode this one was forked from, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// How it ended (`max_turns`, `attacker_done`, `assistant_done`, `aborted`, `error`); `None`
    /// when the file records no end (a benchmark run ends with its last record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<String>,
    /// A person played the attacker (in `play`, or by taking over a turn).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub human: bool,
    /// Its external agent never reached its tools (a `tools_unreached` control event).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tools_unreached: bool,
    /// Tokens every model call of the episode spent, the LLM judges' included.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tokens: u64,
    /// The LLM judges' share of `tokens`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub judge_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The end of one of our journals that has no `end` event (`end=unfinished` in a filter).
pub const UNFINISHED: &str = "unfinished";

/// Why an episode is kept out of rates (it is counted apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, strum::IntoStaticStr)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Excluded {
    /// It never finished: a user stopped it.
    Aborted,
    /// It ended in an error.
    Errored,
    /// One of our journals with no `end`: still running, or killed. Its verdicts are interim.
    Unfinished,
    /// A fork of another episode: not a run of the benchmark's protocol.
    #[strum(serialize = "forks")]
    Fork,
    /// A person played the attacker.
    Human,
    /// Its external agent never reached its tools (issue 37): it was not tested.
    #[strum(serialize = "tools unreached")]
    ToolsUnreached,
}

impl Excluded {
    pub const ALL: [Excluded; 6] = [
        Excluded::Aborted,
        Excluded::Errored,
        Excluded::Unfinished,
        Excluded::Fork,
        Excluded::Human,
        Excluded::ToolsUnreached,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Every judge that gave a verdict among `rows`, by name.
pub fn judges<'a>(rows: impl IntoIterator<Item = &'a CorpusRow>) -> Vec<Judge> {
    let set: std::collections::BTreeSet<&Judge> =
        rows.into_iter().flat_map(|r| r.verdicts.iter().map(|v| &v.judge)).collect();
    set.into_iter().cloned().collect()
}

/// Every verdict source among `rows`, in label order.
pub fn verdict_sources<'a>(rows: impl IntoIterator<Item = &'a CorpusRow>) -> Vec<JudgeSource> {
    let set: std::collections::BTreeSet<JudgeSource> =
        rows.into_iter().flat_map(|r| r.verdicts.iter().map(SourceVerdict::source)).collect();
    set.into_iter().collect()
}

/// What a flag or a filter term naming a source with no verdict here is told: `what` (the flag or
/// term, as typed), and the sources there are (`chart --judge`, `--where`, `summary --judge-model`).
pub fn no_such_source<'a>(what: &str, known: impl IntoIterator<Item = &'a JudgeSource>) -> String {
    // In label order, whatever order the caller keeps them in (the busiest first, for a chart).
    let known: std::collections::BTreeSet<String> = known.into_iter().map(ToString::to_string).collect();
    let known: Vec<String> = known.into_iter().collect();
    let known = if known.is_empty() { "none".to_string() } else { known.join(", ") };
    format!("{}: no verdict of that source here; sources: {known}", crate::core::sanitize::single_line(what))
}

/// The final verdict of one source (a judge file, a judge model, the rule judge, a reviewer)
/// on one question.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceVerdict {
    pub judge: Judge,
    pub method: VerdictMethod,
    pub model: Option<String>,
    pub outcome: Outcome,
    pub score: Option<f64>,
    /// The utility judge's average rating, when it rated something.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    /// The turn the verdict names (the leak's turn for privacy), when it names one; for a leak
    /// whose judge names none, the first turn the assistant said one of the snippets it quotes
    /// (`turn_inferred`, see `leak_turn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<u32>,
    /// `turn` was found from the judge's quoted snippets, not named by the judge.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub turn_inferred: bool,
}

impl SourceVerdict {
    /// Who gave it.
    pub fn source(&self) -> JudgeSource {
        JudgeSource::new(self.method, self.model.as_deref())
    }
}

impl CorpusRow {
    /// The row of a loaded episode (sidecar verdicts merged), with the human
    /// labels of its notes file.
    pub fn of(episode: &Episode, path: PathBuf, annotations: &[&Annotation]) -> Self {
        let header = episode.header();
        let task = &header.task;
        let config = &header.config;
        let text = |v: &Value| v.as_str().map_or_else(|| v.to_string(), str::to_string);
        let number = |key: &str| config.extra.get(key).and_then(Value::as_u64);
        let turn_of_seq = |seq: u64| episode.position_of(seq).and_then(|i| episode.events[i].body.turn());

        let mut folded = Folded::default();
        let mut turns = 0;
        let (mut end_reason, mut human, mut tools_unreached) = (None, false, false);
        let (mut tokens, mut judge_tokens) = (0, 0);
        let spent = |u: &Option<crate::core::llm::Usage>| u.map_or(0, |u| u.input_tokens + u.output_tokens);
        for event in &episode.events {
            match &event.body {
                EventBody::Verdict(v) => {
                    folded.push(v, v.turn.or(evidence_turn(v, &turn_of_seq)));
                    judge_tokens += spent(&v.usage);
                }
                EventBody::End(end) => {
                    turns = turns.max(end.turns);
                    end_reason = Some(end.reason.as_str().to_string());
                }
                EventBody::Message(m) => {
                    human |= m.by.as_deref() == Some("human");
                    tokens += spent(&m.usage);
                }
                EventBody::Control(c) => tools_unreached |= c.action == ControlAction::ToolsUnreached,
                _ => {}
            }
            turns = turns.max(event.body.turn().unwrap_or(0));
        }
        // One of our journals (an import names its source) without an `end` is still running, or
        // was killed: its verdicts are interim.
        if end_reason.is_none() && header.source.is_none() {
            end_reason = Some(UNFINISHED.to_string());
        }
        // An Inspect sample gives its tokens per model, not per message.
        if tokens == 0 {
            tokens = model_usage_tokens(config.extra.get("model_usage"));
        }
        let mut verdicts = folded.0;
        verdicts.extend(human_sources(annotations, &episode.carried_notes, &turn_of_seq));
        let mut events = Some(episode.events.len().saturating_sub(1));
        let mut turns = Some(turns);
        // A sample of an Inspect log indexed from its summary: its messages were not read, so its
        // turns are Inspect's `turn_count` (if it gives one) and its events are not known.
        if header.source.as_ref().is_some_and(|s| s.format == crate::core::import::inspect::SUMMARY_FORMAT) {
            turns = number("inspect_turns").map(|t| t as u32);
            events = None;
        }

        CorpusRow {
            path,
            id: header.id.clone(),
            task_id: task.id.clone(),
            domain: task.domain.clone(),
            persona: task.persona.as_ref().map(text),
            attack_type: task.attack_type.clone(),
            category: task.category.clone(),
            attack: task.extra.get("attack").map(text),
            model: config.models.get("assistant").map(text),
            defence: config.defence.clone(),
            repeat: number("repetition"),
            retry: number("retry"),
            turns,
            events,
            verdicts,
            parent: header.parent.as_ref().map(|p| p.episode.clone()),
            end: end_reason,
            human,
            tools_unreached,
            tokens: tokens + judge_tokens,
            judge_tokens,
        }
    }

    /// Why this episode is not counted in rates by default, if it is not: it was aborted, ended
    /// in an error, has not ended, is a fork, a person played the attacker, or its agent never
    /// reached its tools.
    pub fn excluded(&self) -> Option<Excluded> {
        match self.end.as_deref() {
            Some("aborted") => Some(Excluded::Aborted),
            Some("error") => Some(Excluded::Errored),
            Some(UNFINISHED) => Some(Excluded::Unfinished),
            _ if self.parent.is_some() => Some(Excluded::Fork),
            _ if self.human => Some(Excluded::Human),
            _ if self.tools_unreached => Some(Excluded::ToolsUnreached),
            _ => None,
        }
    }

    /// A verdict cell of this row as a list shows it: `cell`, marked when the episode has not
    /// ended (one of our journals cut short), whose verdicts are interim, never a bare pass.
    pub fn verdict_cell(&self, cell: String) -> String {
        if self.end.as_deref() == Some(UNFINISHED) && cell != "-" {
            format!("{cell} (unfinished)")
        } else {
            cell
        }
    }

    /// An attack run (privacy or security) with no verdict of its kind from any source: the
    /// judge it lacks. Never in a rate's n; counted apart as `unjudged`.
    pub fn unjudged(&self) -> Option<Judge> {
        let kind = Judge::from(self.attack_type.as_deref()?);
        (kind.is_attack() && !self.verdicts.iter().any(|v| v.judge == kind)).then_some(kind)
    }

    /// The verdicts of one judge.
    pub fn verdicts_of<'a>(&'a self, judge: &'a Judge) -> impl Iterator<Item = &'a SourceVerdict> + 'a {
        self.verdicts.iter().filter(move |v| v.judge == *judge)
    }
}

/// The tokens of Inspect's `model_usage` (`{model: {input_tokens, output_tokens, …}}`), in all.
fn model_usage_tokens(usage: Option<&Value>) -> u64 {
    let per_model = usage.and_then(Value::as_object).into_iter().flat_map(|m| m.values());
    let count = |u: &Value, key: &str| u.get(key).and_then(Value::as_u64).unwrap_or(0);
    per_model.map(|u| count(u, "input_tokens") + count(u, "output_tokens")).sum()
}

/// The turn of the event a verdict's evidence points at.
fn evidence_turn(v: &Verdict, turn_of_seq: &impl Fn(u64) -> Option<u32>) -> Option<u32> {
    v.evidence.as_ref().and_then(|e| turn_of_seq(e.seq))
}

/// The final say of each source among `verdicts`, folded as [`CorpusRow::of`] folds an episode's
/// (`judge` counts only the verdicts it just gave).
pub fn source_verdicts<'a>(verdicts: impl IntoIterator<Item = &'a Verdict>) -> Vec<SourceVerdict> {
    let mut folded = Folded::default();
    for v in verdicts {
        folded.push(v, v.turn);
    }
    folded.0
}

/// One verdict per (judge, method, model), folded as everywhere else ([`supersedes`]).
#[derive(Default)]
struct Folded(Vec<SourceVerdict>);

impl Folded {
    fn push(&mut self, v: &Verdict, turn: Option<u32>) {
        let new = SourceVerdict {
            judge: v.judge.clone(),
            method: v.method,
            model: v.model.clone(),
            outcome: v.outcome,
            score: v.score,
            rating: utility_rating(&v.details),
            turn,
            turn_inferred: false,
        };
        let same = |s: &&mut SourceVerdict| s.judge == v.judge && s.method == v.method && s.model == v.model;
        match self.0.iter_mut().find(same) {
            Some(slot) if supersedes((v.outcome, v.method), (slot.outcome, slot.method)) => *slot = new,
            Some(_) => {}
            None => self.0.push(new),
        }
    }
}

/// A reviewer's labels as one `human` source per judge ([`worst_labelled`]).
fn human_sources(
    annotations: &[&Annotation],
    carried: &[CarriedNote],
    turn_of_seq: &impl Fn(u64) -> Option<u32>,
) -> Vec<SourceVerdict> {
    let labels = annotations.iter().filter_map(|a| human_verdict(a)).map(|v| {
        let turn = evidence_turn(&v, turn_of_seq);
        (v.judge, v.outcome, turn)
    });
    // The notes the episode's file carries count as its notes file's do.
    let carried = carried.iter().filter_map(|n| {
        carried_judgement(n).map(|(judge, outcome)| (judge, outcome, turn_of_seq(n.target_seq)))
    });
    let labels = labels.chain(carried);
    worst_labelled(labels)
        .into_iter()
        .map(|(judge, (outcome, turn))| SourceVerdict {
            judge,
            method: VerdictMethod::Human,
            model: None,
            outcome,
            score: None,
            rating: None,
            turn,
            turn_inferred: false,
        })
        .collect()
}

/// The utility judge's average rating: ours write `details.rating`, the
/// benchmark's judge files `ratings_evaluation.average_rating`. An average over
/// no rated items (`num_items_rated: 0`) is no rating.
fn utility_rating(details: &Value) -> Option<f64> {
    let ratings = details.get("ratings_evaluation");
    let rated = ratings.and_then(|r| r.get("num_items_rated")).and_then(Value::as_u64);
    let average = details
        .get("rating")
        .and_then(Value::as_f64)
        .or_else(|| ratings.and_then(|r| r.get("average_rating")).and_then(Value::as_f64));
    average.filter(|_| rated != Some(0))
}

/// The longest folder all paths are in (empty when they share none).
pub fn common_dir<'a>(mut paths: impl Iterator<Item = &'a Path>) -> PathBuf {
    let Some(first) = paths.next() else { return PathBuf::new() };
    let mut common = first.parent().map(Path::to_path_buf).unwrap_or_default();
    for path in paths {
        while !path.starts_with(&common) {
            if !common.pop() {
                return PathBuf::new();
            }
        }
    }
    common
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::episode::{
        EpisodeConfig, EpisodeHeader, Message, Party, SourceRef, TaskInfo, stamp_events,
    };

    /// A header, `messages` messages of turn 1, and where it was read from.
    fn episode(format: &str, messages: usize) -> Episode {
        let mut config = EpisodeConfig::default();
        config.extra.insert("inspect_turns".into(), Value::from(4));
        config.extra.insert("inspect_messages".into(), Value::from(9));
        let mut header = EpisodeHeader::new("s_epoch_1", TaskInfo::default(), config);
        header.source = Some(SourceRef { format: format.into(), path: "log.eval".into() });
        let mut bodies = vec![EventBody::Episode(Box::new(header))];
        bodies.extend(
            (0..messages).map(|_| EventBody::Message(Message::new(1, Party::User, Party::Assistant, "hi"))),
        );
        Episode::new(stamp_events(bodies, "2026-11-27T00:00:00Z"), "log.eval".to_string())
    }

    #[test]
    fn a_sample_listed_from_its_summary_has_no_event_count() {
        let summary =
            CorpusRow::of(&episode(crate::core::import::inspect::SUMMARY_FORMAT, 0), "log.eval".into(), &[]);
        // Inspect's turn count stands; its message count is not an event count.
        assert_eq!((summary.turns, summary.events), (Some(4), None));
        let read = CorpusRow::of(&episode(crate::core::import::inspect::FORMAT, 3), "log.eval".into(), &[]);
        assert_eq!((read.turns, read.events), (Some(1), Some(3)));
        // A summary without Inspect's turn count: not known either.
        let mut bare = episode(crate::core::import::inspect::SUMMARY_FORMAT, 0);
        let EventBody::Episode(header) = &mut bare.events[0].body else { unreachable!() };
        header.config.extra.remove("inspect_turns");
        assert_eq!(CorpusRow::of(&bare, "log.eval".into(), &[]).turns, None);
    }
}
