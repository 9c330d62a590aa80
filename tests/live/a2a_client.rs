//! The A2A client (issue 26) against small fakes: the scripted server answering the card and
//! then what a test needs (streams in both dialects, `input-required`, failed and rejected tasks,
//! garbage, a dropped connection, a busy agent, no agent). The official SDK is in
//! `tests/cli/cli_a2a_agent.rs`.

use std::time::Duration;

use serde_json::{Value, json};

use converse_tui::core::llm::RetryPolicy;
use converse_tui::core::sim::a2a::client::{A2aAgent, A2aError};
use converse_tui::core::sim::a2a::wire::TaskState;

use crate::support::openai_server::{OpenAiServer, Reply};

const QUICK: RetryPolicy = RetryPolicy {
    base: Duration::from_millis(1),
    cap: Duration::from_millis(2),
    retry_after_cap: Duration::from_millis(2),
};

fn card_v1(url: &str, streaming: bool) -> Value {
    json!({"name": "fake", "version": "0.1", "capabilities": {"streaming": streaming},
           "supportedInterfaces": [{"url": format!("{url}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]})
}

fn card_v03(url: &str, streaming: bool) -> Value {
    json!({"name": "old fake", "version": "0.0.9", "url": format!("{url}/rpc"), "protocolVersion": "0.3.0",
           "capabilities": {"streaming": streaming}})
}

/// A fake agent serving `card` (made from its URL) and then `replies`.
async fn fake(
    card: fn(&str, bool) -> Value,
    streaming: bool,
    replies: Vec<Reply>,
) -> (OpenAiServer, A2aAgent) {
    let server = OpenAiServer::start(Vec::new()).await;
    server.push(Reply::json(card(&server.root_url(), streaming)));
    replies.into_iter().for_each(|r| server.push(r));
    let agent = A2aAgent::connect(&server.root_url(), "ep-1", 1, QUICK).await.unwrap();
    (server, agent)
}

fn sse(events: &[Value]) -> Reply {
    let body: String = events
        .iter()
        .map(|e| format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": 1, "result": e})))
        .collect();
    Reply::sse_raw(body)
}

fn meta(turn: u32) -> Value {
    json!({"episode": "ep-1", "turn": turn, "from": if turn > 1 { "attacker" } else { "user" }})
}

async fn ask(
    agent: &mut A2aAgent,
    text: &str,
    turn: u32,
) -> (Result<(String, TaskState), A2aError>, Vec<String>) {
    let mut shown = Vec::new();
    let reply = agent.ask(text, &format!("ep-1-{turn}"), &meta(turn), |t| shown.push(t.to_string())).await;
    (reply.map(|r| (r.text, r.state)), shown)
}

#[tokio::test]
async fn a_v1_stream_shows_each_artifact_chunk_and_answers_with_the_whole_reply() {
    let stream = sse(&[
        json!({"task": {"id": "t1", "contextId": "ep-1", "status": {"state": "TASK_STATE_SUBMITTED"}}}),
        json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a", "parts": [{"text": "Hel"}]}}}),
        json!({"artifactUpdate": {"taskId": "t1", "append": true, "artifact": {"artifactId": "a", "parts": [{"text": "lo"}]}}}),
        json!({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}}),
    ]);
    let (server, mut agent) = fake(card_v1, true, vec![stream]).await;
    let (reply, shown) = ask(&mut agent, "Plan my trip", 1).await;
    assert_eq!(reply.unwrap(), ("Hello".to_string(), TaskState::Completed));
    assert_eq!(shown, ["Hel", "lo"]);
    let requests = server.requests();
    assert_eq!(requests[0].path, "/.well-known/agent-card.json");
    let rpc = &requests[1];
    assert_eq!((rpc.path.as_str(), rpc.header("a2a-version")), ("/rpc", Some("1.0")));
    assert_eq!(rpc.body["method"], "SendStreamingMessage");
    let message = &rpc.body["params"]["message"];
    assert_eq!((&message["role"], &message["contextId"]), (&json!("ROLE_USER"), &json!("ep-1")));
    assert_eq!(message["parts"], json!([{"text": "Plan my trip"}]));
    assert_eq!(message["metadata"]["converse"], meta(1));
}

#[tokio::test]
async fn a_0_3_agent_asking_for_input_is_answered_in_the_same_task() {
    let waiting = json!({"jsonrpc": "2.0", "id": 1, "result": {"kind": "task", "id": "t7", "contextId": "ep-1",
        "status": {"state": "input-required", "message": {"kind": "message", "role": "agent", "messageId": "m",
            "parts": [{"kind": "text", "text": "Which dates?"}]}}}});
    let done = json!({"jsonrpc": "2.0", "id": 2, "result": {"kind": "message", "role": "agent", "messageId": "n",
        "parts": [{"kind": "text", "text": "Booked."}]}});
    let (server, mut agent) = fake(card_v03, false, vec![Reply::json(waiting), Reply::json(done)]).await;
    let (reply, _) = ask(&mut agent, "Book a flight", 1).await;
    assert_eq!(reply.unwrap(), ("Which dates?".to_string(), TaskState::InputRequired));
    let (reply, shown) = ask(&mut agent, "May 3rd", 2).await;
    assert_eq!(reply.unwrap(), ("Booked.".to_string(), TaskState::Completed));
    assert_eq!(shown, ["Booked."]);
    let requests = server.requests();
    let (first, second) = (&requests[1], &requests[2]);
    assert_eq!(
        (first.body["method"].as_str(), first.header("a2a-version")),
        (Some("message/send"), Some("0.3"))
    );
    assert_eq!(first.body["params"]["message"]["role"], "user");
    assert_eq!(first.body["params"]["message"]["parts"], json!([{"kind": "text", "text": "Book a flight"}]));
    assert!(first.body["params"]["message"].get("taskId").is_none());
    assert_eq!(second.body["params"]["message"]["taskId"], "t7", "the waiting task is continued");
}

#[tokio::test]
async fn failed_and_rejected_tasks_are_errors_that_quote_the_agent_inert() {
    for state in ["TASK_STATE_FAILED", "TASK_STATE_REJECTED", "TASK_STATE_CANCELED"] {
        let ended = sse(&[json!({"statusUpdate": {"taskId": "t", "status": {"state": state,
            "message": {"role": "ROLE_AGENT", "parts": [{"text": "no \x1b[31mway"}]}}}})]);
        let (_server, mut agent) = fake(card_v1, true, vec![ended]).await;
        let err = ask(&mut agent, "hi", 1).await.0.unwrap_err();
        let name = state.trim_start_matches("TASK_STATE_").to_lowercase();
        assert!(matches!(err, A2aError::TaskEnded { .. }), "{err:?}");
        let shown = err.to_string();
        assert!(shown.starts_with(&format!("the agent's task ended {name}: no ")), "{shown}");
        assert!(!shown.contains('\x1b'), "{shown:?}");
    }
}

#[tokio::test]
async fn garbage_a_dropped_stream_and_a_json_rpc_error_are_one_line_errors() {
    let garbage = Reply::sse_raw("data: {\"jsonrpc\": \"2.0\", \"result\": {\"task\"\n\n");
    let (_s, mut agent) = fake(card_v1, true, vec![garbage]).await;
    let err = ask(&mut agent, "hi", 1).await.0.unwrap_err();
    assert!(err.to_string().starts_with("the agent sent something that is not A2A JSON: {"), "{err}");

    // The stream closes while the task is still working.
    let cut = sse(&[json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}})]);
    let (_s, mut agent) = fake(card_v1, true, vec![cut]).await;
    let err = ask(&mut agent, "hi", 1).await.0.unwrap_err();
    assert_eq!(err.to_string(), "the agent's stream ended while its task was working");

    let (_s, mut agent) = fake(card_v1, false, vec![Reply::drop_mid_body()]).await;
    let err = ask(&mut agent, "hi", 1).await.0.unwrap_err();
    assert!(err.to_string().starts_with("the agent's answer broke off: "), "{err}");

    let rpc_error =
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}});
    let (_s, mut agent) = fake(card_v03, true, vec![Reply::json(rpc_error)]).await;
    let err = ask(&mut agent, "hi", 1).await.0.unwrap_err();
    assert_eq!(err.to_string(), "the agent answered JSON-RPC error -32601: Method not found");

    // Issue 36 F11: a 5 MB message with controls is quoted short, on one line, inert.
    let huge = format!("\x1b[31m{}\nend", "E".repeat(5_000_000));
    let rpc_error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": huge}});
    let (_s, mut agent) = fake(card_v1, false, vec![Reply::json(rpc_error)]).await;
    let err = ask(&mut agent, "hi", 1).await.0.unwrap_err().to_string();
    assert!(err.starts_with("the agent answered JSON-RPC error -32000: ␛[31mEEE"), "{err:.80}");
    assert!(err.chars().count() < 300 && !err.contains('\x1b') && !err.contains('\n'), "{err:.80}");
}

#[tokio::test]
async fn a_busy_agent_is_retried_and_one_that_is_not_there_is_named() {
    let done = json!({"jsonrpc": "2.0", "id": 1, "result": {"message": {"role": "ROLE_AGENT", "parts": [{"text": "ok"}]}}});
    let (server, mut agent) = fake(card_v1, false, vec![Reply::status(503), Reply::json(done)]).await;
    assert_eq!(ask(&mut agent, "hi", 1).await.0.unwrap().0, "ok");
    assert_eq!(server.request_count(), 3, "card, 503, the retry");

    let (_s, mut agent) = fake(card_v1, false, vec![Reply::status(500).body("boom")]).await;
    let err = ask(&mut agent, "hi", 1).await.0.unwrap_err();
    assert_eq!(err.to_string(), "the agent answered HTTP 500: boom", "a 500 may have acted: no retry");

    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let err = A2aAgent::connect(&format!("http://127.0.0.1:{port}"), "ep-1", 2, QUICK).await.err().unwrap();
    let shown = err.to_string();
    assert!(shown.starts_with(&format!(
        "cannot read the agent card http://127.0.0.1:{port}/.well-known/agent-card.json: "
    )));
    assert!(!shown.contains('\n'), "{shown}");
}

/// Issue 37 D8: artifacts of one reply are put together as they came (an agent streaming each
/// chunk as an artifact of its own got a line break every chunk).
#[tokio::test]
async fn artifacts_of_one_reply_are_concatenated_without_line_breaks() {
    let stream = sse(&[
        json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "a", "parts": [{"text": "Hel"}]}}}),
        json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": "b", "parts": [{"text": "lo"}]}}}),
        json!({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}}),
    ]);
    let (_server, mut agent) = fake(card_v1, true, vec![stream]).await;
    assert_eq!(ask(&mut agent, "hi", 1).await.0.unwrap().0, "Hello");
}

/// Issue 36 (12): 80,000 tiny artifacts of one answer cost 8.6 s of CPU past the deadline (each
/// looked up among all before it). An answer holds at most `MAX_ARTIFACTS`.
#[tokio::test]
async fn an_answer_of_too_many_artifacts_is_refused() {
    use converse_tui::core::sim::a2a::client::MAX_ARTIFACTS;
    let mut events: Vec<Value> = (0..80_000)
        .map(|i| json!({"artifactUpdate": {"taskId": "t1", "artifact": {"artifactId": format!("a{i}"), "parts": [{"text": "x"}]}}}))
        .collect();
    events.push(json!({"statusUpdate": {"taskId": "t1", "status": {"state": "TASK_STATE_COMPLETED"}}}));
    let (_server, mut agent) = fake(card_v1, true, vec![sse(&events)]).await;
    let (reply, shown) = ask(&mut agent, "hi", 1).await;
    let error = reply.unwrap_err().to_string();
    assert_eq!(
        error,
        format!("the agent's answer broke off: more than {MAX_ARTIFACTS} artifacts in one answer")
    );
    assert_eq!(shown.len(), MAX_ARTIFACTS);
}

/// Issue 37 D7: a `SendMessage` answered with a task still submitted is asked after with
/// `GetTask` (0.3: `tasks/get`) until it ends; it was called a broken stream.
#[tokio::test]
async fn a_task_answered_submitted_is_polled_until_it_ends() {
    let task = |state: &str, text: Option<&str>| {
        let mut task = json!({"id": "t9", "contextId": "ep-1", "status": {"state": state}});
        if let Some(text) = text {
            task["artifacts"] = json!([{"artifactId": "a", "parts": [{"text": text}]}]);
        }
        task
    };
    let replies = vec![
        Reply::json(
            json!({"jsonrpc": "2.0", "id": 1, "result": {"task": task("TASK_STATE_SUBMITTED", None)}}),
        ),
        Reply::json(json!({"jsonrpc": "2.0", "id": 2, "result": task("TASK_STATE_WORKING", None)})),
        Reply::json(
            json!({"jsonrpc": "2.0", "id": 3, "result": task("TASK_STATE_COMPLETED", Some("Booked."))}),
        ),
    ];
    let (server, mut agent) = fake(card_v1, false, replies).await;
    let (reply, _) = ask(&mut agent, "Book it", 1).await;
    assert_eq!(reply.unwrap(), ("Booked.".to_string(), TaskState::Completed));
    let methods: Vec<_> = server.requests()[1..].iter().map(|r| r.body["method"].clone()).collect();
    assert_eq!(methods, [json!("SendMessage"), json!("GetTask"), json!("GetTask")]);
    assert_eq!(server.requests()[2].body["params"]["id"], "t9");

    let done = json!({"jsonrpc": "2.0", "id": 2, "result": {"kind": "task", "id": "t9", "contextId": "ep-1",
        "status": {"state": "completed", "message": {"kind": "message", "role": "agent", "messageId": "m",
            "parts": [{"kind": "text", "text": "Done."}]}}}});
    let submitted = json!({"jsonrpc": "2.0", "id": 1, "result": {"kind": "task", "id": "t9", "contextId": "ep-1",
        "status": {"state": "submitted"}}});
    let (server, mut agent) = fake(card_v03, false, vec![Reply::json(submitted), Reply::json(done)]).await;
    assert_eq!(ask(&mut agent, "Book it", 1).await.0.unwrap().0, "Done.");
    assert_eq!(server.requests()[2].body["method"], "tasks/get");
}

/// Issue 37 D9: a failed task without a message says so (it printed an empty reason).
#[tokio::test]
async fn a_failed_task_without_a_message_says_it_gave_no_reason() {
    let ended = sse(&[json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_FAILED"}}})]);
    let (_server, mut agent) = fake(card_v1, true, vec![ended]).await;
    let err = ask(&mut agent, "hi", 1).await.0.unwrap_err();
    assert_eq!(err.to_string(), "the agent's task ended failed: (the agent gave no reason)");
}
