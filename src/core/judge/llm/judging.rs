//! What every LLM judge is given: the model to ask, the episode as far as it is judged, and how
//! to call it. One value, so a judge's signature is one parameter and a new judge adds none.

use crate::core::episode::Event;
use crate::core::llm::{Endpoint, LlmClient};

use super::super::context::JudgeContext;
use super::call::{Expect, JudgeCall, JudgeOptions, call_judge};

#[derive(Clone, Copy)]
pub struct Judging<'a> {
    pub client: &'a LlmClient,
    pub endpoint: &'a Endpoint,
    pub ctx: &'a JudgeContext,
    /// The events up to the judged turn.
    pub events: &'a [&'a Event],
    /// The turn judged (`None`: the whole episode).
    pub turn: Option<u32>,
    pub opts: &'a JudgeOptions,
}

impl Judging<'_> {
    /// Asks the judge model `prompt` (`what` names the evaluation in errors) for a reply that
    /// `expect` takes as a decision.
    pub async fn call(&self, prompt: &str, what: &str, expect: Expect) -> JudgeCall {
        call_judge(self.client, self.endpoint, prompt, what, expect, self.opts).await
    }
}
