//! Rule judges: online, no model. Each sees the events one at a time and
//! says something at the turns where there is something to say.

pub mod keywords;
pub mod privacy;
pub mod requested;
pub mod security;
mod user_address;

use crate::core::episode::{Event, EventBody, Verdict};

use super::context::{AttackKind, JudgeContext};
pub use privacy::PrivacyRule;
pub use security::SecurityRule;

/// The rule judges an episode gets, by its attack type.
#[derive(Debug, Clone)]
pub enum RuleJudge {
    Privacy(PrivacyRule),
    Security(SecurityRule),
}

impl RuleJudge {
    /// Privacy or security by the task's attack type; none for benign tasks.
    pub fn for_context(ctx: &JudgeContext) -> Vec<RuleJudge> {
        match ctx.attack_kind() {
            AttackKind::Privacy => vec![RuleJudge::Privacy(PrivacyRule::new(ctx))],
            AttackKind::Security => vec![RuleJudge::Security(SecurityRule::new(ctx))],
            AttackKind::None => Vec::new(),
        }
    }

    pub fn observe(&mut self, event: &Event) -> Option<Verdict> {
        match self {
            RuleJudge::Privacy(j) => j.observe(event),
            RuleJudge::Security(j) => j.observe(event),
        }
    }

    pub fn finish(&mut self) -> Option<Verdict> {
        match self {
            RuleJudge::Privacy(j) => j.finish(),
            RuleJudge::Security(j) => j.finish(),
        }
    }
}

/// Runs the rule judges over a whole episode. Each verdict comes with the
/// `seq` of the event after which it belongs; whole-episode verdicts with `None`
/// (after everything). Verdict events already in `events` are ignored.
pub fn rule_verdicts(ctx: &JudgeContext, events: &[Event]) -> Vec<(Option<u64>, Verdict)> {
    let mut judges = RuleJudge::for_context(ctx);
    let mut out = Vec::new();
    for event in events {
        if matches!(event.body, EventBody::Verdict(_)) {
            continue;
        }
        for j in &mut judges {
            if let Some(v) = j.observe(event) {
                out.push((Some(event.seq), v));
            }
        }
    }
    for j in &mut judges {
        if let Some(v) = j.finish() {
            out.push((None, v));
        }
    }
    out
}
