//! Per-role rate limits in the LLM client: one limiter shared by every clone
//! (every episode of a batch), so concurrent requests of a role are spaced out.

use crate::support::openai_server;

use std::time::{Duration, Instant};

use converse_tui::core::llm::{ChatMessage, ChatRequest, Endpoint, LlmClient, RateLimits, Role};
use openai_server::{OpenAiServer, Reply};

fn client(limits: RateLimits) -> LlmClient {
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    LlmClient::from_http(http).with_rate_limits(limits)
}

fn request() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("hello")])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clones_share_the_role_limit() {
    let server = OpenAiServer::start(Vec::new()).await;
    server.set_default(Reply::text("ok"));
    // 600/min: one assistant request per 100 ms across every clone.
    let client = client(RateLimits::from_rpm(None, Some(600), None));
    let assistant = Endpoint::new(Role::Assistant, server.base_url(), "m");

    let start = Instant::now();
    let calls = (0..3).map(|_| {
        let (c, e) = (client.clone(), assistant.clone());
        tokio::spawn(async move { c.chat(&e, request()).await })
    });
    for call in calls.collect::<Vec<_>>() {
        call.await.unwrap().unwrap();
    }
    // Three concurrent episodes' requests went out one slot apart: the last at ≥ 200 ms.
    assert!(start.elapsed() >= Duration::from_millis(200), "{:?}", start.elapsed());
}
