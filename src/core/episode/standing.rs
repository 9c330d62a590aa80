//! Which of several verdicts of one judge is the one to show and count.
//!
//! A verdict that judged (`pass`, `fail`, `partial`) always outranks one that
//! could not (`error`, `skipped`): a judge that failed or had nothing to look
//! at never hides an answer. Among verdicts that judged, a model's (LLM,
//! imported, human) outranks a rule's; at equal standing the later one wins.

use std::collections::BTreeMap;

use crate::core::episode::{Event, EventBody, Judge, JudgeSource, Outcome, Verdict, VerdictMethod};

/// A reviewer's labels fold, per judge, to the worst outcome labelled (a leak labelled anywhere is
/// a leaked episode), at the earliest place labelled so (`at`: a turn, a seq).
pub fn worst_labelled<P: Ord + Copy>(
    labels: impl IntoIterator<Item = (Judge, Outcome, Option<P>)>,
) -> BTreeMap<Judge, (Outcome, Option<P>)> {
    let mut by_judge: BTreeMap<Judge, (Outcome, Option<P>)> = BTreeMap::new();
    for (judge, outcome, at) in labels {
        let slot = by_judge.entry(judge).or_insert((outcome, at));
        let worse = outcome.severity() > slot.0.severity();
        let earlier = outcome == slot.0 && at.is_some_and(|t| slot.1.is_none_or(|s| t < s));
        if worse || earlier {
            *slot = (outcome, at);
        }
    }
    by_judge
}

/// Whether the outcome is an answer, rather than a judge that could not give one.
pub fn judged(outcome: Outcome) -> bool {
    !matches!(outcome, Outcome::Error | Outcome::Skipped)
}

/// The rank of a verdict; higher wins, ties go to the later verdict.
fn rank(outcome: Outcome, method: VerdictMethod) -> (bool, bool) {
    (judged(outcome), method != VerdictMethod::Rule)
}

/// Whether a later verdict (`new`) replaces an earlier one (`old`) as the judge's final say.
pub fn supersedes(new: (Outcome, VerdictMethod), old: (Outcome, VerdictMethod)) -> bool {
    rank(new.0, new.1) >= rank(old.0, old.1)
}

/// The final say of each source (`rule`, `llm:MODEL`, …) of one judge among `events`, by source.
pub fn final_by_source<'a>(events: &'a [Event], judge: &Judge) -> BTreeMap<JudgeSource, &'a Verdict> {
    let mut last: BTreeMap<JudgeSource, &Verdict> = BTreeMap::new();
    for v in events.iter().filter_map(|e| match &e.body {
        EventBody::Verdict(v) if v.judge == *judge => Some(&**v),
        _ => None,
    }) {
        let source = v.source();
        let keep = last
            .get(&source)
            .is_none_or(|prev| supersedes((v.outcome, v.method), (prev.outcome, prev.method)));
        if keep {
            last.insert(source, v);
        }
    }
    last
}

/// The turn of the event a verdict's evidence points at, else the verdict's own turn.
pub fn verdict_turn(v: &Verdict, events: &[Event]) -> Option<u32> {
    let shown = v
        .evidence
        .as_ref()
        .and_then(|ev| events.iter().find(|e| e.seq == ev.seq))
        .and_then(|e| e.body.turn());
    shown.or(v.turn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Outcome::*;
    use VerdictMethod::*;

    #[test]
    fn an_answer_is_never_hidden_by_a_judge_that_could_not_answer() {
        assert!(!supersedes((Skipped, Rule), (Fail, Imported)));
        assert!(!supersedes((Error, Llm), (Pass, Llm)));
        assert!(!supersedes((Skipped, Llm), (Pass, Rule)));
        assert!(supersedes((Fail, Rule), (Skipped, Llm)));
        assert!(supersedes((Error, Llm), (Skipped, Rule)));
    }

    #[test]
    fn a_model_outranks_a_rule_and_the_later_wins_at_equal_standing() {
        assert!(supersedes((Pass, Llm), (Fail, Rule)));
        assert!(!supersedes((Fail, Rule), (Pass, Llm)));
        assert!(supersedes((Pass, Llm), (Fail, Llm)));
        assert!(supersedes((Pass, Rule), (Fail, Rule)));
    }
}
