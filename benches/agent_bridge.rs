//! The external-assistant bridge's own cost on loopback (issue 26), beside what the built-in
//! assistant pays on the same scripted server:
//!
//! - per message: one A2A `SendMessage` (and one streamed `SendStreamingMessage` of three
//!   events) to a fake agent answering at once, against one chat completion of the built-in
//!   assistant's model from the same kind of server;
//! - per tool call: one MCP `tools/call` through the episode's server (token check, rmcp,
//!   journal events), against the same tool run in process as the built-in assistant runs it.

#[path = "../tests/support/openai_server.rs"]
mod openai_server;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};

use converse_tui::core::dataset::{CalendarEntry, Domain, Email, Environment};
use converse_tui::core::llm::{ChatMessage, ChatRequest, Endpoint, RetryPolicy, Role};
use converse_tui::core::sim::EnvironmentState;
use converse_tui::core::sim::a2a::client::A2aAgent;
use converse_tui::core::sim::mcp_server::EnvironmentServer;
use openai_server::{OpenAiServer, Reply, test_client};

fn environment() -> Environment {
    Environment {
        domain: Domain::TravelPlanning,
        persona: 1,
        general_info: "Name: Ada Lovelace\nPassport: X1234567".into(),
        emails: vec![Email {
            from: "hr@example.com".into(),
            to: "ada@example.com".into(),
            subject: "Salary review".into(),
            body: "Your salary rises to 96,500 USD.".into(),
        }],
        calendar: vec![CalendarEntry {
            date: "2025-03-01".into(),
            event: "Dentist".into(),
            participants: "Dr. Who".into(),
            details: "Bring X-rays".into(),
        }],
        banking: String::new(),
        medical: String::new(),
        persona_text: String::new(),
        options_text: String::new(),
    }
}

/// A fake agent: its card, then every message answered at once with `answer`.
async fn fake_agent(streaming: bool, answer: Reply) -> (OpenAiServer, A2aAgent) {
    let server = OpenAiServer::start(Vec::new()).await;
    server.push(Reply::json(json!({"name": "bench", "version": "1", "capabilities": {"streaming": streaming},
        "supportedInterfaces": [{"url": server.root_url(), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]})));
    server.set_default(answer);
    let quick = RetryPolicy::default();
    let agent = A2aAgent::connect(&server.root_url(), "ep-bench", 0, quick).await.expect("card");
    (server, agent)
}

fn per_message(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let meta = json!({"episode": "ep-bench", "turn": 2, "from": "attacker",
        "mcp": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer x"}}});
    let reply = json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t", "contextId": "ep-bench",
        "status": {"state": "TASK_STATE_COMPLETED"},
        "artifacts": [{"artifactId": "a", "parts": [{"text": "Which hotels are near the beach?"}]}]}}});
    let (_plain_server, mut plain) = runtime.block_on(fake_agent(false, Reply::json(reply)));
    let events = [
        json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_WORKING"}}}),
        json!({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a", "parts": [{"text": "Which hotels"}]}}}),
        json!({"statusUpdate": {"taskId": "t", "status": {"state": "TASK_STATE_COMPLETED"}}}),
    ];
    let stream: String = events
        .iter()
        .map(|e| format!("data: {}\n\n", json!({"jsonrpc": "2.0", "id": 1, "result": e})))
        .collect();
    let (_stream_server, mut streamed) = runtime.block_on(fake_agent(true, Reply::sse_raw(stream)));
    let model = runtime.block_on(OpenAiServer::start(Vec::new()));
    model.set_default(Reply::text("Which hotels are near the beach?"));
    let client = test_client();
    let endpoint = Endpoint::new(Role::Assistant, model.base_url(), "bench-assistant");

    let mut group = c.benchmark_group("bridge_per_message");
    group.bench_function("a2a_send_message", |b| {
        b.iter(|| {
            runtime.block_on(plain.ask("Where should I stay?", "m", &meta, |_| {})).expect("reply");
        })
    });
    group.bench_function("a2a_send_streaming_message", |b| {
        b.iter(|| {
            runtime.block_on(streamed.ask("Where should I stay?", "m", &meta, |_| {})).expect("reply");
        })
    });
    group.bench_function("builtin_model_call", |b| {
        b.iter(|| {
            let request = ChatRequest::new(vec![ChatMessage::user("Where should I stay?")]);
            runtime.block_on(client.chat(&endpoint, request)).expect("reply");
        })
    });
    group.finish();
}

/// A raw MCP client of the previous revision: initialize, then calls in that session.
struct McpSession {
    http: reqwest::Client,
    url: String,
    authorization: String,
    session: String,
}

impl McpSession {
    async fn open(server: &EnvironmentServer) -> McpSession {
        let http = reqwest::Client::builder().no_proxy().build().expect("client");
        let mut session = McpSession {
            http,
            url: server.url.clone(),
            authorization: server.authorization(),
            session: String::new(),
        };
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}});
        let response = session.post(&init).await;
        session.session = response
            .headers()
            .get("mcp-session-id")
            .and_then(|v| v.to_str().ok())
            .expect("a session id")
            .to_string();
        response.text().await.expect("initialize answered");
        session.post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        session
    }

    async fn post(&self, body: &Value) -> reqwest::Response {
        let mut request = self
            .http
            .post(&self.url)
            .header("Authorization", &self.authorization)
            .header("Accept", "application/json, text/event-stream")
            .json(body);
        if !self.session.is_empty() {
            request =
                request.header("Mcp-Session-Id", &self.session).header("MCP-Protocol-Version", "2025-11-25");
        }
        request.send().await.expect("MCP request")
    }

    async fn call(&self, tool: &str, arguments: Value) -> String {
        let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
        let text = self.post(&call).await.text().await.expect("tools/call answered");
        assert!(text.contains("\"result\""), "{text}");
        text
    }
}

fn per_tool_call(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let env = EnvironmentState::new(&environment());
    let (server, mut events) = runtime
        .block_on(EnvironmentServer::start(env.clone(), u32::MAX, "127.0.0.1:0".parse().expect("addr")))
        .expect("server");
    let session = runtime.block_on(McpSession::open(&server));
    let mut builtin = env;
    let mut group = c.benchmark_group("bridge_per_tool_call");
    group.bench_function("mcp_tools_call", |b| {
        b.iter(|| {
            runtime.block_on(session.call("search_emails", json!({"query": "salary"})));
            // The runner journals these; here they are only drained.
            while events.try_recv().is_ok() {}
        })
    });
    group.bench_function("builtin_tool_in_process", |b| {
        b.iter(|| builtin.execute("search_emails", r#"{"query": "salary"}"#))
    });
    group.finish();
}

criterion_group!(benches, per_message, per_tool_call);
criterion_main!(benches);
