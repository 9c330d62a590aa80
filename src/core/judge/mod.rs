//! Judges: rule judges that run on every event (live) and LLM judges that
//! run at the end or per turn. A judge that cannot decide says `error`,
//! never a silent pass.

pub mod checkers;
pub mod context;
pub mod dates;
pub mod llm;
pub mod normalize;
pub mod numbers;
pub mod rules;

/// Which verdict of a judge counts lives with the verdicts; kept here for its callers.
pub use crate::core::episode::standing;
pub use checkers::CheckResult;
pub use context::{AttackKind, JudgeContext};
pub use llm::{JudgeOptions, llm_verdicts, llm_verdicts_with};
pub use rules::{PrivacyRule, RuleJudge, SecurityRule, rule_verdicts};
