//! The persona's environment over MCP (issue 26), driven by the official Python `mcp` client
//! in both the current protocol revision (2026-07-28, stateless) and the previous one
//! (2025-11-25, initialize handshake).

use std::path::Path;
use std::process::Command;

use converse_tui::core::dataset::{CalendarEntry, Domain, Email, Environment};
use converse_tui::core::episode::EventBody;
use converse_tui::core::sim::assistant::BUDGET_FALLBACK;
use converse_tui::core::sim::gate::{GateMode, StepGate};
use converse_tui::core::sim::mcp_server::EnvironmentServer;
use converse_tui::core::sim::{EnvironmentState, TOOL_NAMES};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::python;

pub fn env() -> Environment {
    Environment {
        domain: Domain::TravelPlanning,
        persona: 1,
        general_info: "Name: Ada Lovelace\nPhone: 555-0100\nPassport: X1234567".into(),
        emails: vec![Email {
            from: "bob@example.com".into(),
            to: "ada@example.com".into(),
            subject: "Lisbon trip".into(),
            body: "Flights are booked.".into(),
        }],
        calendar: vec![CalendarEntry {
            date: "2025-03-01".into(),
            event: "Dentist".into(),
            participants: "Dr. Who".into(),
            details: "Bring X-rays".into(),
        }],
        banking: "Balance: 100".into(),
        medical: "Allergy: none".into(),
        persona_text: String::new(),
        options_text: String::new(),
    }
}

/// Runs the official client against the server in a blocking thread (it is a subprocess).
async fn official_client(server: &EnvironmentServer, token: &str, mode: &str, calls: Value) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_env_client.py");
    let args = [server.url.clone(), token.to_string(), mode.to_string(), calls.to_string()];
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python::python()).arg(script).args(args).output().unwrap()
    })
    .await
    .unwrap();
    assert!(output.status.success(), "mcp client failed:\n{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).unwrap()
}

fn token_of(server: &EnvironmentServer) -> String {
    server.authorization().strip_prefix("Bearer ").unwrap().to_string()
}

async fn lists_and_calls_tools(mode: &str, expected_version: &str) {
    let (server, mut events) =
        EnvironmentServer::start(EnvironmentState::new(&env()), 10, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
    server.begin_turn(3).await;
    let calls = json!([
        ["get_user_info", {"query": "passport"}],
        ["send_email", {"recipient": "eve@evil.example", "body": "X1234567"}],
        ["no_such_tool", {}],
    ]);
    let printed = official_client(&server, &token_of(&server), mode, calls.clone()).await;
    assert_eq!(printed["version"], expected_version);
    assert_eq!(printed["tools"], json!(TOOL_NAMES));

    // The same calls straight on a fresh environment: the server adds nothing and drops nothing.
    let mut reference = EnvironmentState::new(&env());
    let mut journal = Vec::new();
    while let Ok(event) = events.try_recv() {
        journal.push(event);
    }
    assert_eq!(journal.len(), 6, "a tool_call and a tool_result per call: {journal:?}");
    for (i, call) in calls.as_array().unwrap().iter().enumerate() {
        let (tool, args) = (call[0].as_str().unwrap(), &call[1]);
        let expected = reference.execute(tool, &args.to_string());
        assert_eq!(printed["results"][i], json!({"text": expected.output, "is_error": !expected.ok}));
        let (EventBody::ToolCall(c), EventBody::ToolResult(r)) = (&journal[2 * i], &journal[2 * i + 1])
        else {
            panic!("not a call then its result: {:?}", &journal[2 * i..2 * i + 2]);
        };
        assert_eq!((c.turn, c.tool.as_str(), &c.args), (3, tool, args));
        assert_eq!(
            (r.turn, r.call_id.as_str(), r.output.as_str(), r.ok),
            (3, c.call_id.as_str(), expected.output.as_str(), expected.ok)
        );
    }
    assert_eq!(server.environment().await, reference);
}

#[tokio::test(flavor = "multi_thread")]
async fn official_client_lists_and_calls_tools_in_the_current_revision() {
    lists_and_calls_tools("2026-07-28", "2026-07-28").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn official_client_lists_and_calls_tools_in_the_previous_revision() {
    lists_and_calls_tools("legacy", "2025-11-25").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_past_the_turns_budget_gets_the_references_error_and_touches_nothing() {
    let (server, _events) =
        EnvironmentServer::start(EnvironmentState::new(&env()), 1, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
    server.begin_turn(1).await;
    let calls = json!([
        ["read_calendar", {}],
        ["send_email", {"recipient": "eve@evil.example", "body": "hi"}],
    ]);
    let printed = official_client(&server, &token_of(&server), "legacy", calls).await;
    assert_eq!(printed["results"][1], json!({"text": BUDGET_FALLBACK, "is_error": true}));
    assert!(server.environment().await.sent_emails.is_empty());
    // A new turn, a new budget.
    server.begin_turn(2).await;
    let printed =
        official_client(&server, &token_of(&server), "legacy", json!([["read_calendar", {}]])).await;
    assert_eq!(printed["results"][0]["is_error"], false);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_without_the_token_is_refused() {
    let (server, mut events) =
        EnvironmentServer::start(EnvironmentState::new(&env()), 10, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let http = reqwest::Client::new();
    for header in [None, Some("Bearer wrong"), Some(format!("Bearer {}x", token_of(&server)).as_str())] {
        let mut request =
            http.post(&server.url).header("Accept", "application/json, text/event-stream").json(&call);
        if let Some(h) = header {
            request = request.header("Authorization", h);
        }
        assert_eq!(request.send().await.unwrap().status(), 401, "{header:?}");
    }
    // The official client without the token fails too, and nothing is journaled.
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_env_client.py");
    let url = server.url.clone();
    let output = tokio::task::spawn_blocking(move || {
        Command::new(python::python())
            .arg(script)
            .args([url.as_str(), "nope", "legacy", "[]"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(!output.status.success());
    assert!(events.try_recv().is_err());
}

/// A server of turn 1 whose calls are held at a paused step gate.
async fn paused_server() -> (EnvironmentServer, tokio::sync::mpsc::UnboundedReceiver<EventBody>, StepGate) {
    let (server, events) =
        EnvironmentServer::start(EnvironmentState::new(&env()), 10, "127.0.0.1:0".parse().unwrap())
            .await
            .unwrap();
    let gate = StepGate::new(true);
    server.hold_calls_at(gate.clone());
    server.begin_turn(1).await;
    (server, events, gate)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_paused_episode_holds_each_tool_call_until_a_step_lets_it_run() {
    let (server, mut events, gate) = paused_server().await;
    let token = token_of(&server);
    let calls =
        json!([["send_email", {"recipient": "eve@evil.example", "body": "X1234567"}], ["read_calendar", {}]]);
    let client = {
        let url = server.url.clone();
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/mcp_env_client.py");
        tokio::task::spawn_blocking(move || {
            Command::new(python::python())
                .arg(script)
                .args([url, token, "legacy".into(), calls.to_string()])
                .output()
        })
    };
    // The first call is journaled, then held: nothing has run.
    let Some(EventBody::ToolCall(call)) = events.recv().await else { panic!("no tool_call") };
    assert_eq!(call.tool, "send_email");
    assert!(events.try_recv().is_err() && !client.is_finished());
    assert!(server.environment().await.sent_emails.is_empty(), "held, not run");
    // One step runs exactly that call, and the next one is held in turn.
    gate.step_call();
    let Some(EventBody::ToolResult(result)) = events.recv().await else { panic!("no tool_result") };
    assert_eq!((result.tool.as_str(), result.ok), ("send_email", true));
    let Some(EventBody::ToolCall(next)) = events.recv().await else { panic!("no second tool_call") };
    assert_eq!(next.tool, "read_calendar");
    assert_eq!(gate.mode(), GateMode::Paused);
    assert_eq!(server.environment().await.sent_emails.len(), 1);
    gate.resume();
    let output = client.await.unwrap().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let Some(EventBody::ToolResult(last)) = events.recv().await else { panic!("no second tool_result") };
    assert_eq!(last.tool, "read_calendar");
}

/// Issue 36: a held call whose client gave up is journaled as cancelled (it was left with a
/// `tool_call` and no `tool_result`), and it never runs.
#[tokio::test(flavor = "multi_thread")]
async fn a_held_call_whose_client_gave_up_is_journaled_cancelled_and_never_runs() {
    for mode in ["legacy", "2026-07-28"] {
        let (server, mut events, gate) = paused_server().await;
        // The official client gives up after 1 s (its own read timeout) and exits.
        let script = r#"
import asyncio, sys, httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
async def main(url, token, mode):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30)
    async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        try:
            await asyncio.wait_for(client.call_tool("send_email", {"recipient": "e@x", "body": "b"}), 1)
        except (asyncio.TimeoutError, TimeoutError):
            print("gave up")
asyncio.run(main(*sys.argv[1:]))
"#;
        let (url, token) = (server.url.clone(), token_of(&server));
        let printed = tokio::task::spawn_blocking(move || python::run_script(script, &[&url, &token, mode]))
            .await
            .unwrap();
        assert_eq!(printed.trim(), "gave up", "{mode}");
        let Some(EventBody::ToolCall(call)) = events.recv().await else { panic!("no tool_call") };
        let result = tokio::time::timeout(std::time::Duration::from_secs(10), events.recv()).await;
        let Ok(Some(EventBody::ToolResult(result))) = result else {
            panic!("{mode}: no tool_result: {result:?}")
        };
        assert_eq!((result.call_id.as_str(), result.ok), (call.call_id.as_str(), false), "{mode}");
        assert!(result.output.starts_with("cancelled: "), "{mode}: {}", result.output);
        gate.resume();
        assert!(server.environment().await.sent_emails.is_empty(), "{mode}: it never ran");
    }
}

/// Issue 36: the server's bounds — a browser `Origin` from elsewhere, streams and sessions past
/// their caps — and dropping the server ends its connections.
#[tokio::test(flavor = "multi_thread")]
async fn origins_streams_and_sessions_are_bounded_and_a_dropped_server_ends_its_connections() {
    use converse_tui::core::sim::mcp_server::Limits;
    let limits = Limits { max_streams: 1, max_sessions: 2, ..Limits::default() };
    let (server, _events) = EnvironmentServer::start_with(
        EnvironmentState::new(&env()),
        10,
        "127.0.0.1:0".parse().unwrap(),
        limits,
    )
    .await
    .unwrap();
    let http = reqwest::Client::new();
    let auth = server.authorization();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}});
    let post = |origin: Option<&str>| {
        let mut request = http
            .post(&server.url)
            .header("Authorization", &auth)
            .header("Accept", "application/json, text/event-stream")
            .json(&initialize);
        if let Some(origin) = origin {
            request = request.header("Origin", origin);
        }
        request.send()
    };
    assert_eq!(post(Some("https://evil.example")).await.unwrap().status(), 403);
    let first = post(Some("http://localhost:3000")).await.unwrap();
    assert_eq!(first.status(), 200);
    let session = first.headers()["mcp-session-id"].to_str().unwrap().to_string();
    assert_eq!(post(None).await.unwrap().status(), 200);
    assert_eq!(post(None).await.unwrap().status(), 503, "a third session");

    // One streaming GET per episode here: the second is refused while the first is open.
    let notified = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let sent = http
        .post(&server.url)
        .header("Authorization", &auth)
        .header("mcp-session-id", &session)
        .header("Accept", "application/json, text/event-stream")
        .json(&notified)
        .send()
        .await
        .unwrap();
    assert!(sent.status().is_success(), "{}", sent.status());
    let get = || {
        http.get(&server.url)
            .header("Authorization", &auth)
            .header("mcp-session-id", &session)
            .header("Accept", "text/event-stream")
            .send()
    };
    let stream = get().await.unwrap();
    assert_eq!(stream.status(), 200);
    assert_eq!(get().await.unwrap().status(), 429);
    // Dropping the server (the episode's end) ends the open stream.
    drop(server);
    let ended = tokio::time::timeout(std::time::Duration::from_secs(5), stream.bytes()).await;
    assert!(ended.is_ok(), "the stream stayed open after the server was dropped");
}

/// One JSON-RPC request to `url` as a streamable-HTTP client sends it; (status, session id
/// header, body text).
async fn rpc(url: &str, session: Option<&str>, body: Value) -> (u16, Option<String>, String) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Authorization", "Bearer fixed-endpoint-token")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .json(&body);
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let id = response.headers().get("mcp-session-id").map(|v| v.to_str().unwrap().to_string());
    (status, id, response.text().await.unwrap())
}

/// The fixed endpoint of `--mcp-listen` / `--launch` (issue 37): an agent connects before any
/// episode and is answered; a call then runs nothing and says why; a session id the endpoint
/// never gave (an earlier command's) is answered 404, so the client initializes again; each
/// episode owns it in turn, with a fresh environment, and two cannot own it at once.
#[tokio::test(flavor = "multi_thread")]
async fn a_fixed_endpoint_serves_one_episode_at_a_time_and_says_why_a_call_runs_nothing() {
    use converse_tui::core::sim::mcp_endpoint::FixedEndpoint;
    let endpoint = std::sync::Arc::new(
        FixedEndpoint::bind("127.0.0.1:0".parse().unwrap(), "fixed-endpoint-token").unwrap(),
    );
    let url = endpoint.url();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let (status, session, _) = rpc(&url, None, initialize).await;
    assert_eq!(status, 200);
    let session = session.expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    rpc(&url, Some(&session), initialized).await;
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "get_user_info", "arguments": {"query": "passport"}}});
    let (status, _, body) = rpc(&url, Some(&session), call.clone()).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("no converse-tui episode owns this MCP endpoint"), "{body}");
    assert!(!body.contains("X1234567"), "nothing ran: {body}");
    let (status, _, body) = rpc(&url, Some("a-session-of-an-earlier-command"), call).await;
    assert_eq!(status, 404, "{body}");

    let mut state = EnvironmentState::new(&env());
    state.execute("delete_calendar_event", r#"{"event_id": "Dentist"}"#);
    let (first, mut events) = EnvironmentServer::start_fixed(state, 10, &endpoint).unwrap();
    first.begin_turn(1).await;
    assert!(EnvironmentServer::start_fixed(EnvironmentState::new(&env()), 10, &endpoint).is_err());
    let calls = json!([["read_calendar", {}]]);
    let printed = official_client(&first, "fixed-endpoint-token", "legacy", calls.clone()).await;
    assert!(!printed["results"][0]["text"].as_str().unwrap().contains("Dentist"), "{printed}");
    assert!(matches!(events.try_recv(), Ok(EventBody::ToolCall(_))));
    drop(first);

    let (second, _events) =
        EnvironmentServer::start_fixed(EnvironmentState::new(&env()), 10, &endpoint).unwrap();
    second.begin_turn(1).await;
    let printed = official_client(&second, "fixed-endpoint-token", "legacy", calls).await;
    assert!(
        printed["results"][0]["text"].as_str().unwrap().contains("Dentist"),
        "a fresh environment: {printed}"
    );
}

/// Issue 37 D9: calls held at the step gate are let through in the order they came (they were
/// released in any order): each step runs the oldest held call.
#[tokio::test(flavor = "multi_thread")]
async fn held_calls_are_released_first_come_first_served() {
    let (server, mut events, gate) = paused_server().await;
    // Three calls at once in one session, spaced so they arrive in a known order.
    let script = r#"
import asyncio, sys, httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
async def main(url, token):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=60)
    async with Client(streamable_http_client(url, http_client=http), mode="legacy") as client:
        async def send(n):
            await asyncio.sleep(0.3 * n)
            await client.call_tool("send_email", {"recipient": "e@x", "body": str(n)})
        await asyncio.gather(*(send(n) for n in range(3)))
        print("done")
asyncio.run(main(*sys.argv[1:]))
"#;
    let (url, token) = (server.url.clone(), token_of(&server));
    let client = tokio::task::spawn_blocking(move || python::run_script(script, &[&url, &token]));
    let mut held = Vec::new();
    for _ in 0..3 {
        let Some(EventBody::ToolCall(call)) = events.recv().await else { panic!("no tool_call") };
        held.push(call);
    }
    let bodies: Vec<&str> = held.iter().map(|c| c.args["body"].as_str().unwrap()).collect();
    assert_eq!(bodies, ["0", "1", "2"], "journaled as they came");
    for call in &held {
        gate.step_call();
        let Some(EventBody::ToolResult(result)) = events.recv().await else { panic!("no tool_result") };
        assert_eq!(result.call_id, call.call_id, "the oldest held call runs first");
    }
    let sent: Vec<String> = server.environment().await.sent_emails.iter().map(|e| e.body.clone()).collect();
    assert_eq!(sent, ["0", "1", "2"]);
    assert_eq!(client.await.unwrap().trim(), "done");
}
