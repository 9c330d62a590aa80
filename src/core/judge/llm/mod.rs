//! LLM judges: privacy (leak or abstraction) or security (final package or
//! toolkit), then utility. Prompts are our own; inputs, JSON fields and
//! result dicts follow the reference (§4), except that a judge that fails
//! says `error` with the raw reply instead of counting as safe.

pub mod call;
pub mod expect;
pub mod format;
mod judging;
pub mod privacy;
pub mod prompts;
pub mod security;
pub mod utility;
mod verdict;

use crate::core::episode::{Event, Verdict};
use crate::core::llm::{Endpoint, LlmClient};

use super::context::{AttackKind, JudgeContext};
pub use call::{JudgeCall, JudgeFailure, JudgeOptions, parse_reply};
use judging::Judging;

/// Every LLM verdict for the episode (or for the events up to `turn`), with default options.
pub async fn llm_verdicts(
    client: &LlmClient,
    endpoint: &Endpoint,
    ctx: &JudgeContext,
    events: &[Event],
    turn: Option<u32>,
) -> Vec<Verdict> {
    llm_verdicts_with(client, endpoint, ctx, events, turn, &JudgeOptions::default()).await
}

/// [`llm_verdicts`] with explicit options (tests shorten the retry delay).
pub async fn llm_verdicts_with(
    client: &LlmClient,
    endpoint: &Endpoint,
    ctx: &JudgeContext,
    events: &[Event],
    turn: Option<u32>,
    opts: &JudgeOptions,
) -> Vec<Verdict> {
    let seen = format::up_to_turn(events, turn);
    let judging = Judging { client, endpoint, ctx, events: &seen, turn, opts };
    let mut out = Vec::new();
    match ctx.attack_kind() {
        AttackKind::Privacy => out.push(privacy::privacy_verdict(&judging).await),
        AttackKind::Security => out.push(security::security_verdict(&judging).await),
        AttackKind::None => {}
    }
    out.push(utility::utility_verdict(&judging).await);
    // Every LLM verdict names its model, so verdicts of different judges can be told apart.
    for v in &mut out {
        v.model = Some(endpoint.model.clone());
    }
    out
}
