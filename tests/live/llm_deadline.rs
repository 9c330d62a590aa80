//! A streamed reply has a whole-request deadline, not only a stall timeout: a server
//! dripping a byte now and then cannot hold a turn (issue 16, item 8).

use crate::support::openai_server;

use std::time::Duration;

use converse_tui::core::llm::*;
use openai_server::{OpenAiServer, Reply, chunk};

fn client() -> LlmClient {
    openai_server::test_client()
}

fn hello() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::user("hello")])
}

/// `body` sent `step` bytes at a time, `every` apart: never silent for long, never done soon.
fn drip(body: &[u8], step: usize, every: Duration) -> Reply {
    let cuts: Vec<usize> = (step..body.len()).step_by(step).collect();
    Reply::sse_raw(body.to_vec()).split_at(&cuts).chunk_delay(every)
}

#[tokio::test]
async fn a_dripping_stream_that_delivered_output_ends_with_a_clear_error() {
    let text = "data: {\"choices\":[{\"delta\":{\"content\":\"drip\"}}]}\n\n".repeat(40);
    let server = OpenAiServer::start(vec![drip(text.as_bytes(), 8, Duration::from_millis(40))]).await;
    let ep = Endpoint::new(Role::Assistant, server.base_url(), "m")
        .with_timeout(Duration::from_millis(700))
        .with_idle_timeout(Duration::from_secs(5))
        .with_max_retries(2);
    let mut deltas = Vec::new();
    let err = client().chat_stream(&ep, hello(), |d| deltas.push(d)).await.unwrap_err();
    assert!(!deltas.is_empty(), "output had begun");
    assert!(matches!(&err.kind, LlmErrorKind::Interrupted(why) if why.contains("timed out")), "{err:?}");
    assert_eq!(server.request_count(), 1, "output was shown: not retried");
}

#[tokio::test]
async fn a_dripping_stream_with_no_output_yet_is_retried() {
    let keepalive = ": keepalive\n".repeat(60);
    let server = OpenAiServer::start(vec![
        drip(keepalive.as_bytes(), 12, Duration::from_millis(30)),
        Reply::sse(vec![chunk::text("fine"), chunk::finish("stop")]),
    ])
    .await;
    let ep = Endpoint::new(Role::Attacker, server.base_url(), "m")
        .with_timeout(Duration::from_millis(600))
        .with_idle_timeout(Duration::from_secs(5))
        .with_max_retries(1);
    let reply = client().chat_stream(&ep, hello(), |_| {}).await.unwrap();
    assert_eq!(reply.text(), "fine");
    assert_eq!(server.request_count(), 2);
}

#[test]
fn the_stall_timeout_is_configurable_and_the_deadline_is_timeout_secs() {
    use converse_tui::config::settings::{ConfigFile, EffectiveRole, RoleFlags};
    let file: ConfigFile =
        toml::from_str("[assistant]\ntimeout_secs = 30\nstall_secs = 7\nmodel = \"m\"\n").unwrap();
    let role = EffectiveRole::resolve(Role::Assistant, &file.roles.assistant, &RoleFlags::default(), None);
    let ep = role.endpoint(std::path::Path::new("config.toml")).unwrap();
    assert_eq!((ep.timeout, ep.idle_timeout), (Duration::from_secs(30), Duration::from_secs(7)));
}
