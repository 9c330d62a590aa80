//! What one aligned turn holds on each side: its events, and its verdicts paired judge by judge.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::core::episode::{EventBody, Judge, Outcome};
use crate::core::sanitize::single_line;

use super::super::view::EpisodeView;

/// One judge's verdict on one side: outcome, score, and the judge's model.
#[derive(Debug, Clone, PartialEq)]
pub struct SideVerdict {
    pub outcome: Outcome,
    pub score: Option<f64>,
    pub model: Option<String>,
}

/// A judge's verdicts in one turn, on each side.
#[derive(Debug, Clone, PartialEq)]
pub struct VerdictPair {
    /// The judge's name (verdicts of two judge models of one judge are paired).
    pub judge: String,
    pub sides: [Option<SideVerdict>; 2],
}

impl VerdictPair {
    /// The two sides do not say the same (one has no verdict, or another outcome).
    pub fn differs(&self) -> bool {
        let [a, b] = &self.sides;
        a.as_ref().map(|v| v.outcome) != b.as_ref().map(|v| v.outcome)
    }
}

/// One aligned turn.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnRow {
    /// The turn number; `None` is the row of whole-episode verdicts (after the last turn).
    pub turn: Option<u32>,
    /// Event indices of the turn's messages and tool events, per side (empty: that side has no
    /// such turn).
    pub events: [Vec<usize>; 2],
    /// Both sides hold the same messages and calls in this turn.
    pub same: bool,
    pub verdicts: Vec<VerdictPair>,
}

impl TurnRow {
    pub fn label(&self) -> String {
        match self.turn {
            Some(0) => "before turn 1".into(),
            Some(t) => format!("turn {t}"),
            None => "end".into(),
        }
    }
}

/// One screen line of a row's column.
#[derive(Debug, Clone, PartialEq)]
pub enum CellLine {
    /// A verdict of the row: index into `verdicts`.
    Verdict(usize),
    /// The header of an event (party and direction, or the tool's one-line summary).
    Header(usize),
    /// A body line of an event: the byte range of its text.
    Body(usize, Range<usize>),
    /// "no turn k".
    Missing,
}

/// What a turn holds, for comparing the two sides: (party or tool tag, text).
pub(super) fn signature(body: &EventBody) -> Option<(String, String)> {
    match body {
        EventBody::Message(m) => Some((format!("{}>{}", m.from.as_str(), m.to.as_str()), m.text.clone())),
        EventBody::ToolCall(c) => Some((format!("call {}", c.tool), c.args.to_string())),
        EventBody::ToolResult(r) => Some((format!("result {}", r.tool), r.output.clone())),
        EventBody::Error(e) => Some(("error".into(), e.message.clone())),
        _ => None,
    }
}

/// A verdict source: judge, method and model.
pub(super) type JudgeKey = (Judge, &'static str, Option<String>);

/// Per turn: the events shown, and the latest verdict of each source.
pub(super) type Turns = BTreeMap<Option<u32>, (Vec<usize>, BTreeMap<JudgeKey, SideVerdict>)>;

pub(super) fn turns_of(view: &EpisodeView) -> Turns {
    let mut turns: Turns = BTreeMap::new();
    let max_turn = view.max_turn();
    for (i, event) in view.events().iter().enumerate() {
        match &event.body {
            EventBody::Verdict(v) => {
                let turn = v.turn.filter(|t| (1..=max_turn).contains(t));
                let side = SideVerdict { outcome: v.outcome, score: v.score, model: v.model.clone() };
                let key = (v.judge.clone(), v.method.as_str(), v.model.clone());
                turns.entry(turn).or_default().1.insert(key, side);
            }
            body if signature(body).is_some() => {
                turns.entry(Some(view.turn_at(i))).or_default().0.push(i);
            }
            _ => {}
        }
    }
    turns
}

/// Pairs the two sides' verdicts of one turn: the same judge, method and model first, then what is
/// left of the same judge in order (a baseline judged by gpt-5 against a firewall run judged by
/// gpt-5-chat), then the rest alone.
pub(super) fn pair_verdicts(
    a: &BTreeMap<JudgeKey, SideVerdict>,
    b: &BTreeMap<JudgeKey, SideVerdict>,
) -> Vec<VerdictPair> {
    let mut rest_b: Vec<(&JudgeKey, &SideVerdict)> = b.iter().collect();
    let mut pairs: Vec<VerdictPair> = Vec::new();
    let mut unpaired: Vec<(&JudgeKey, &SideVerdict)> = Vec::new();
    let pair = |judge: &Judge, a: Option<&SideVerdict>, b: Option<&SideVerdict>| VerdictPair {
        judge: single_line(judge.as_str()).into_owned(),
        sides: [a.cloned(), b.cloned()],
    };
    for (key, va) in a {
        match rest_b.iter().position(|(k, _)| *k == key) {
            Some(at) => pairs.push(pair(&key.0, Some(va), Some(rest_b.remove(at).1))),
            None => unpaired.push((key, va)),
        }
    }
    for (key, va) in unpaired {
        match rest_b.iter().position(|(k, _)| k.0 == key.0) {
            Some(at) => pairs.push(pair(&key.0, Some(va), Some(rest_b.remove(at).1))),
            None => pairs.push(pair(&key.0, Some(va), None)),
        }
    }
    pairs.extend(rest_b.into_iter().map(|(key, vb)| pair(&key.0, None, Some(vb))));
    let model = |p: &VerdictPair| p.sides.iter().flatten().find_map(|v| v.model.clone());
    pairs.sort_by_cached_key(|p| (p.judge.clone(), model(p)));
    pairs
}
