//! The LLM client against a scripted OpenAI-compatible server on 127.0.0.1.

use crate::support::openai_server;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use converse_tui::core::llm::*;
use openai_server::{OpenAiServer, Reply, chunk};
use serde_json::json;

/// Backoff in milliseconds so retry tests stay fast.
fn client() -> LlmClient {
    openai_server::test_client()
}

/// A client that records every retry notice.
fn observed_client() -> (LlmClient, Arc<Mutex<Vec<RetryInfo>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let client = client().with_on_retry(move |info| sink.lock().unwrap().push(info.clone()));
    (client, seen)
}

fn endpoint(server: &OpenAiServer, role: Role) -> Endpoint {
    Endpoint::new(role, server.base_url(), "test-model")
        .with_timeout(Duration::from_secs(5))
        .with_idle_timeout(Duration::from_secs(5))
        .with_max_retries(2)
}

fn hello() -> ChatRequest {
    ChatRequest::new(vec![ChatMessage::system("be brief"), ChatMessage::user("hello")])
}

/// Collects deltas and returns them with the response.
async fn stream(
    client: &LlmClient,
    ep: &Endpoint,
    req: ChatRequest,
) -> (Vec<Delta>, Result<ChatResponse, LlmError>) {
    let mut deltas = Vec::new();
    let result = client.chat_stream(ep, req, |d| deltas.push(d)).await;
    (deltas, result)
}

fn texts(deltas: &[Delta]) -> Vec<String> {
    deltas
        .iter()
        .filter_map(|d| match d {
            Delta::Text(t) => Some(t.clone()),
            Delta::ToolCall { .. } => None,
        })
        .collect()
}

#[tokio::test]
async fn text_reply_with_usage_and_the_request_sent() {
    let server = OpenAiServer::start(vec![Reply::text("Hi there").usage(12, 3)]).await;
    let ep = endpoint(&server, Role::Attacker).with_extra("top_p", json!(0.5));
    let params = GenerationParams {
        temperature: Some(0.0),
        seed: Some(42),
        max_tokens: Some(100),
        ..Default::default()
    };
    let resp = client().chat(&ep, hello().with_params(params)).await.unwrap();
    assert_eq!(resp.text(), "Hi there");
    assert!(resp.tool_calls().is_empty());
    assert_eq!(resp.finish_reason.as_deref(), Some("stop"));
    assert_eq!(resp.usage, Some(Usage { input_tokens: 12, output_tokens: 3 }));

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let req = &reqs[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/v1/chat/completions");
    assert!(req.header("authorization").is_none(), "no key configured");
    assert_eq!(
        req.body,
        json!({
            "top_p": 0.5, "temperature": 0.0, "seed": 42, "max_tokens": 100, "model": "test-model",
            "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}]
        })
    );
}

#[tokio::test]
async fn missing_usage_is_none() {
    let server = OpenAiServer::start(vec![Reply::text("x")]).await;
    let resp = client().chat(&endpoint(&server, Role::Judge), hello()).await.unwrap();
    assert_eq!(resp.usage, None);
}

#[tokio::test]
async fn base_url_without_v1_or_with_trailing_slash() {
    let server = OpenAiServer::start(vec![Reply::text("a"), Reply::text("b")]).await;
    let c = client();
    let bare = Endpoint::new(Role::Judge, server.root_url(), "m");
    let slash = Endpoint::new(Role::Judge, format!("{}/", server.base_url()), "m");
    assert_eq!(c.chat(&bare, hello()).await.unwrap().text(), "a");
    assert_eq!(c.chat(&slash, hello()).await.unwrap().text(), "b");
    for r in server.requests() {
        assert_eq!(r.path, "/v1/chat/completions");
    }
}

#[tokio::test]
async fn tool_call_reply_and_tool_history_sent() {
    let server = OpenAiServer::start(vec![Reply::tool_call("get_user_info", r#"{"query":"email"}"#)]).await;
    let tools = vec![ToolDefinition::function(
        "get_user_info",
        "Look up the user's data",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    )];
    let history = vec![
        ChatMessage::system("sys"),
        ChatMessage::user("book a hotel"),
        ChatMessage::assistant_tool_calls(
            "",
            vec![ToolCall::function("call_a", "search_calendar", r#"{"day":"mon"}"#)],
        ),
        ChatMessage::tool("call_a", "free all day"),
    ];
    let resp = client()
        .chat(&endpoint(&server, Role::Assistant), ChatRequest::new(history).with_tools(tools))
        .await
        .unwrap();
    assert_eq!(resp.message.content, None);
    assert_eq!(resp.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(resp.tool_calls(), &[ToolCall::function("call_0", "get_user_info", r#"{"query":"email"}"#)]);

    let body = &server.requests()[0].body;
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "get_user_info");
    assert_eq!(body["tools"][0]["function"]["parameters"]["required"][0], "query");
    assert_eq!(
        body["messages"][2],
        json!({"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "search_calendar", "arguments": "{\"day\":\"mon\"}"}}
        ]})
    );
    assert_eq!(
        body["messages"][3],
        json!({"role": "tool", "content": "free all day", "tool_call_id": "call_a"})
    );
}

#[tokio::test]
async fn stream_split_at_awkward_byte_boundaries() {
    let parts = ["Grüß ", "dich, ", "Welt 🌍", "!"];
    let mut chunks: Vec<_> = parts.iter().map(|p| chunk::text(p)).collect();
    chunks.push(chunk::finish("stop"));
    chunks.push(chunk::usage(20, 4));
    let reply = Reply::sse(chunks);
    let bytes = reply.sse_bytes().to_vec();
    let find = |needle: &[u8], from: usize| {
        from + bytes[from..].windows(needle.len()).position(|w| w == needle).unwrap()
    };
    let inside_umlaut = find("ü".as_bytes(), 0) + 1;
    let inside_emoji = find("🌍".as_bytes(), 0) + 2;
    let inside_json_string = find(b"dich", 0) + 2;
    let second_data = find(b"data:", inside_umlaut);
    let after_data_colon = second_data + 5;
    let between_newlines = find(b"\n\n", 0) + 1;
    let reply = reply.split_at(&[
        inside_umlaut,
        between_newlines,
        inside_json_string,
        after_data_colon,
        inside_emoji,
    ]);
    let server = OpenAiServer::start(vec![reply]).await;
    let (deltas, resp) = stream(&client(), &endpoint(&server, Role::Attacker), hello()).await;
    let resp = resp.unwrap();
    assert_eq!(texts(&deltas), parts);
    assert_eq!(resp.text(), "Grüß dich, Welt 🌍!");
    assert_eq!(resp.finish_reason.as_deref(), Some("stop"));
    assert_eq!(resp.usage, Some(Usage { input_tokens: 20, output_tokens: 4 }));
    let body = &server.requests()[0].body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn stream_with_crlf_comments_and_multiline_data() {
    let raw = ": keep-alive\r\n\r\n\
               data: {\"choices\":[{\"delta\":{\"content\":\"one \"}}]}\r\n\r\n\
               :ping\r\n\
               data: {\"choices\":[{\"delta\":\r\n\
               data: {\"content\":\"two\"}}]}\r\n\r\n\
               event: message\r\n\
               data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\r\n\r\n\
               data: [DONE]\r\n\r\n";
    let cut_crlf = raw.find("\r\n\r\n").unwrap() + 1;
    let server = OpenAiServer::start(vec![Reply::sse_raw(raw).split_at(&[cut_crlf, 40, 90])]).await;
    let (deltas, resp) = stream(&client(), &endpoint(&server, Role::Attacker), hello()).await;
    assert_eq!(texts(&deltas), ["one ", "two"]);
    assert_eq!(resp.unwrap().text(), "one two");
}

#[tokio::test]
async fn streamed_tool_call_arguments_are_assembled() {
    let chunks = vec![
        chunk::tool(0, Some("call_x"), Some("get_user_info"), ""),
        chunk::tool(0, None, None, "{\"que"),
        chunk::tool(1, Some("call_y"), Some("send_email"), "{\"to\":"),
        chunk::tool(0, None, None, "ry\":\"em"),
        chunk::tool(0, None, None, "ail\"}"),
        chunk::tool(1, None, None, "\"a@b.c\"}"),
        chunk::finish("tool_calls"),
        chunk::usage(7, 11),
    ];
    let reply = Reply::sse(chunks);
    let n = reply.sse_bytes().len();
    let reply = reply.split_at(&(1..n).step_by(37).collect::<Vec<_>>()).chunk_delay(Duration::from_millis(1));
    let server = OpenAiServer::start(vec![reply]).await;
    let (deltas, resp) = stream(&client(), &endpoint(&server, Role::Assistant), hello()).await;
    let resp = resp.unwrap();
    assert_eq!(
        deltas[0],
        Delta::ToolCall {
            index: 0,
            id: Some("call_x".into()),
            name: Some("get_user_info".into()),
            arguments_fragment: String::new(),
        }
    );
    let frags0: String = deltas
        .iter()
        .filter_map(|d| match d {
            Delta::ToolCall { index: 0, arguments_fragment, .. } => Some(arguments_fragment.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(frags0, r#"{"query":"email"}"#);
    assert_eq!(
        resp.tool_calls(),
        &[
            ToolCall::function("call_x", "get_user_info", r#"{"query":"email"}"#),
            ToolCall::function("call_y", "send_email", r#"{"to":"a@b.c"}"#),
        ]
    );
    assert_eq!(resp.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(resp.usage.map(|u| u.output_tokens), Some(11));
}

#[tokio::test]
async fn server_ignoring_stream_true_still_works() {
    let server = OpenAiServer::start(vec![Reply::text("whole").usage(1, 1)]).await;
    let (deltas, resp) = stream(&client(), &endpoint(&server, Role::Judge), hello()).await;
    assert_eq!(texts(&deltas), ["whole"]);
    assert_eq!(resp.unwrap().text(), "whole");
}

#[tokio::test]
async fn rate_limited_then_success_honours_retry_after() {
    let server = OpenAiServer::start(vec![
        Reply::status(429)
            .header("Retry-After", "1")
            .with_json(json!({"error": {"message": "Rate limit reached"}})),
        Reply::text("ok"),
    ])
    .await;
    let (client, seen) = observed_client();
    let resp = client.chat(&endpoint(&server, Role::Attacker), hello()).await.unwrap();
    assert_eq!(resp.text(), "ok");
    assert_eq!(server.request_count(), 2);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let info = &seen[0];
    assert_eq!(info.role, Role::Attacker);
    assert_eq!(info.model, "test-model");
    assert_eq!((info.next_attempt, info.max_attempts), (2, 3));
    // Retry-After: 1 s, capped by the policy's 20 ms.
    assert_eq!(info.delay, Duration::from_millis(20));
    assert!(info.reason.contains("HTTP 429"), "{}", info.reason);
    assert!(info.reason.contains("Rate limit reached"), "{}", info.reason);
    assert!(info.to_string().contains("retrying in 0.0s (attempt 2/3)"));
}

#[tokio::test]
async fn server_errors_are_retried_then_reported() {
    let boom = || {
        Reply::status(500)
            .with_json(json!({"error": {"message": "model overloaded", "type": "server_error"}}))
    };
    let server = OpenAiServer::start(vec![boom(), boom(), boom(), Reply::text("too late")]).await;
    let (client, seen) = observed_client();
    let ep = endpoint(&server, Role::Assistant);
    let err = client.chat(&ep, hello()).await.unwrap_err();
    assert_eq!(server.request_count(), 3);
    assert_eq!(seen.lock().unwrap().len(), 2);
    assert_eq!(err.attempts, 3);
    assert_eq!(err.status(), Some(500));
    let text = err.to_string();
    for needle in
        ["assistant", "test-model", server.base_url().as_str(), "HTTP 500", "model overloaded", "3 attempts"]
    {
        assert!(text.contains(needle), "{needle:?} missing from {text:?}");
    }
}

#[tokio::test]
async fn client_errors_are_not_retried() {
    let server = OpenAiServer::start(vec![
        Reply::status(400).with_json(json!({"error": {"message": "Unknown model 'x'"}})),
        Reply::text("unused"),
    ])
    .await;
    let err = client().chat(&endpoint(&server, Role::Judge), hello()).await.unwrap_err();
    assert_eq!(server.request_count(), 1);
    assert_eq!(err.attempts, 1);
    assert_eq!(
        err.to_string(),
        format!(
            "judge model `test-model` at {} failed after 1 attempt: HTTP 400: Unknown model 'x'",
            server.base_url()
        )
    );
}

#[tokio::test]
async fn plain_text_error_body_is_reported() {
    let server = OpenAiServer::start(vec![
        Reply::status(404).header("Content-Type", "text/plain").body("404 page not found\n"),
    ])
    .await;
    let err = client().chat(&endpoint(&server, Role::Judge), hello()).await.unwrap_err();
    assert!(err.to_string().ends_with("HTTP 404: 404 page not found"), "{err}");
}

#[tokio::test]
async fn a_request_that_never_answers_times_out() {
    let server = OpenAiServer::start(vec![Reply::hang(), Reply::hang()]).await;
    let ep = endpoint(&server, Role::Attacker).with_timeout(Duration::from_millis(150)).with_max_retries(1);
    let started = Instant::now();
    let err = client().chat(&ep, hello()).await.unwrap_err();
    assert!(matches!(err.kind, LlmErrorKind::Timeout(_)), "{err:?}");
    assert_eq!(err.attempts, 2);
    assert_eq!(server.request_count(), 2);
    assert!(err.to_string().contains("timed out"));
    // The server never answers: only the client's timeout ends the call, far below this bound.
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
}

#[tokio::test]
async fn a_stream_that_never_starts_times_out() {
    let server = OpenAiServer::start(vec![Reply::hang()]).await;
    let ep = endpoint(&server, Role::Attacker).with_timeout(Duration::from_millis(150)).with_max_retries(0);
    let (deltas, resp) = stream(&client(), &ep, hello()).await;
    assert!(deltas.is_empty());
    let err = resp.unwrap_err();
    assert!(matches!(err.kind, LlmErrorKind::Timeout(_)), "{err:?}");
}

#[tokio::test]
async fn a_stalled_stream_hits_the_idle_timeout_and_is_retried_before_output() {
    let stalled =
        Reply::sse_raw(": warming up\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"late\"}}]}\n\n")
            .split_at(&[14])
            .chunk_delay(Duration::from_secs(2));
    let server =
        OpenAiServer::start(vec![stalled, Reply::sse(vec![chunk::text("fine"), chunk::finish("stop")])])
            .await;
    let ep = endpoint(&server, Role::Attacker).with_idle_timeout(Duration::from_millis(150));
    let (client, seen) = observed_client();
    let (deltas, resp) = stream(&client, &ep, hello()).await;
    assert_eq!(resp.unwrap().text(), "fine");
    assert_eq!(texts(&deltas), ["fine"]);
    assert_eq!(server.request_count(), 2);
    assert!(seen.lock().unwrap()[0].reason.contains("stalled"));
}

#[tokio::test]
async fn a_stream_cut_after_output_is_not_retried() {
    // No finish reason, no [DONE]: the connection just closes.
    let server = OpenAiServer::start(vec![
        Reply::sse_raw("data: {\"choices\":[{\"delta\":{\"content\":\"par\"}}]}\n\n"),
        Reply::text("unused"),
    ])
    .await;
    let (deltas, resp) = stream(&client(), &endpoint(&server, Role::Assistant), hello()).await;
    assert_eq!(texts(&deltas), ["par"]);
    let err = resp.unwrap_err();
    assert!(matches!(err.kind, LlmErrorKind::Interrupted(_)), "{err:?}");
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn a_connection_dropped_mid_body_is_retried() {
    let server = OpenAiServer::start(vec![Reply::drop_mid_body(), Reply::text("second try")]).await;
    let (client, seen) = observed_client();
    let resp = client.chat(&endpoint(&server, Role::Assistant), hello()).await.unwrap();
    assert_eq!(resp.text(), "second try");
    assert_eq!(server.request_count(), 2);
    assert!(seen.lock().unwrap()[0].reason.contains("connection error"));

    // Same for a stream cut before any output.
    let server = OpenAiServer::start(vec![
        Reply::sse_raw(": hello\n\n"),
        Reply::sse(vec![chunk::text("ok"), chunk::finish("stop")]),
    ])
    .await;
    let (deltas, resp) = stream(&client, &endpoint(&server, Role::Assistant), hello()).await;
    assert_eq!(resp.unwrap().text(), "ok");
    assert_eq!(texts(&deltas), ["ok"]);
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn connection_refused_names_the_endpoint() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let ep = Endpoint::new(Role::Judge, format!("http://127.0.0.1:{port}/v1"), "m").with_max_retries(1);
    let err = client().chat(&ep, hello()).await.unwrap_err();
    assert!(matches!(err.kind, LlmErrorKind::Connection(_)), "{err:?}");
    assert_eq!(err.attempts, 2);
    let text = err.to_string();
    assert!(text.contains(&format!("127.0.0.1:{port}")), "{text}");
    assert!(text.contains("judge model `m`"), "{text}");
}

#[tokio::test]
async fn invalid_json_is_a_clear_error_and_not_retried() {
    let server = OpenAiServer::start(vec![
        Reply::json(json!({})).body("{\"choices\": [oops"),
        Reply::json(json!({"object": "chat.completion", "choices": []})),
    ])
    .await;
    let c = client();
    let ep = endpoint(&server, Role::Judge);
    let err = c.chat(&ep, hello()).await.unwrap_err();
    assert!(matches!(err.kind, LlmErrorKind::InvalidResponse(_)), "{err:?}");
    assert!(err.to_string().contains("body is not JSON"), "{err}");
    assert!(err.to_string().contains("{\"choices\": [oops"), "{err}");
    assert_eq!(server.request_count(), 1);

    let err = c.chat(&ep, hello()).await.unwrap_err();
    assert!(err.to_string().contains("no choices"), "{err}");
}

#[tokio::test]
async fn an_error_event_inside_a_stream_is_reported() {
    let server =
        OpenAiServer::start(vec![Reply::sse(vec![json!({"error": {"message": "context length exceeded"}})])])
            .await;
    let (_, resp) = stream(&client(), &endpoint(&server, Role::Assistant), hello()).await;
    let err = resp.unwrap_err();
    assert!(err.to_string().contains("context length exceeded"), "{err}");
    assert_eq!(server.request_count(), 1);
}

#[tokio::test]
async fn api_key_is_sent_only_when_set_and_never_shown() {
    let var = "CONVERSE_TUI_TEST_LLM_KEY_7f3a9c";
    let key = "sk-test-SECRET-4242";
    let echo = format!(
        "{{\"error\":{{\"message\":\"Invalid key: Bearer {key} (header Authorization: Bearer {key})\"}}}}"
    );
    let server = OpenAiServer::start(vec![
        Reply::text("anonymous"),
        Reply::text("authorised"),
        Reply::status(401).body(&echo),
        Reply::status(500).body(&echo),
    ])
    .await;
    let ep = endpoint(&server, Role::Attacker).with_api_key_env(var).with_max_retries(0);
    let c = client();

    // Unset: no header.
    assert_eq!(c.chat(&ep, hello()).await.unwrap().text(), "anonymous");
    // SAFETY: a variable only this test uses; std serializes its own env access and
    // nothing here reads the environment through libc.
    unsafe { std::env::set_var(var, key) };
    assert_eq!(c.chat(&ep, hello()).await.unwrap().text(), "authorised");
    let reqs = server.requests();
    assert!(reqs[0].header("authorization").is_none());
    assert_eq!(reqs[1].header("authorization"), Some(format!("Bearer {key}").as_str()));

    let err = c.chat(&ep, hello()).await.unwrap_err();
    let (client, seen) = observed_client();
    let ep_retry = ep.clone().with_max_retries(1);
    let err_retry = {
        server.push(Reply::status(500).body(&echo));
        client.chat(&ep_retry, hello()).await.unwrap_err()
    };
    unsafe { std::env::remove_var(var) };

    for shown in [
        err.to_string(),
        format!("{err:?}"),
        err_retry.to_string(),
        format!("{ep:?}"),
        format!("{c:?}"),
        seen.lock().unwrap()[0].to_string(),
    ] {
        assert!(!shown.contains(key), "key leaked in {shown:?}");
    }
    assert!(err.to_string().contains("Invalid key: Bearer ***"), "{err}");
    assert_eq!(err.status(), Some(401));
    assert!(format!("{ep:?}").contains(var));
}

#[test]
fn the_default_client_builds_and_calls_can_be_spawned() {
    fn is_send<T: Send>(_: &T) {}
    let c = LlmClient::new().expect("default client (rustls) builds");
    assert_eq!(c.retry_policy(), RetryPolicy::default());
    let ep = Endpoint::new(Role::Assistant, "http://127.0.0.1:9/v1", "m");
    // Runners spawn these on tokio, so they must be Send.
    is_send(&c.chat(&ep, hello()));
    is_send(&c.chat_stream(&ep, hello(), |_delta| {}));
}
