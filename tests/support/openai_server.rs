//! A scripted OpenAI-compatible HTTP/1.1 server on 127.0.0.1 for tests.
//!
//! Each request gets the next scripted [`Reply`] (a 500 saying so when the script is
//! used up); every request is recorded, so tests can check what was sent and that
//! nothing was sent while it should not have been. Each connection is closed after
//! its reply (`Connection: close`), so clients never reuse a socket we closed.
//!
//! ```ignore
//! #[path = "support/openai_server.rs"]
//! mod openai_server;
//! use openai_server::{OpenAiServer, Reply, chunk};
//! let server = OpenAiServer::start(vec![Reply::text("hi"), Reply::status(429).header("Retry-After", "1")]).await;
//! ```
#![allow(dead_code)]

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use converse_tui::core::llm::{LlmClient, RetryPolicy};

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    pub path: String,
    /// Names lower-cased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON (`Value::Null` if it was not JSON).
    pub body: Value,
    pub raw_body: String,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }

    /// `body.messages`, empty when absent.
    pub fn messages(&self) -> Vec<Value> {
        self.body["messages"].as_array().cloned().unwrap_or_default()
    }
}

#[derive(Debug, Clone)]
enum Body {
    /// A JSON body (kept as a value so `.usage()` can amend it).
    Json(Value),
    Raw(Vec<u8>),
    /// An event stream written in pieces, with a pause between pieces.
    Sse {
        bytes: Vec<u8>,
        split_at: Vec<usize>,
        chunk_delay: Duration,
    },
    /// Read the request, then never answer.
    Hang,
    /// Announce `declared` bytes, send `sent`, close.
    Truncated {
        sent: Vec<u8>,
        declared: usize,
    },
    /// `start`, then `repeat` over and over until the client goes away (no Content-Length).
    Endless {
        start: Vec<u8>,
        repeat: Vec<u8>,
    },
}

/// One scripted answer. Build with the constructors, adjust with the `self -> Self` methods.
#[derive(Debug, Clone)]
pub struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Body,
    delay: Duration,
}

impl Reply {
    fn new(status: u16, body: Body) -> Self {
        Reply { status, headers: Vec::new(), body, delay: Duration::ZERO }
    }

    /// A 200 with this JSON body.
    pub fn json(body: Value) -> Self {
        Self::new(200, Body::Json(body))
    }

    /// A completion whose content is `text` (finish reason `stop`, no usage unless `.usage()`).
    pub fn text(text: &str) -> Self {
        Self::json(completion(json!({"role": "assistant", "content": text}), "stop"))
    }

    /// A completion calling one tool (id `call_0`).
    pub fn tool_call(name: &str, arguments: &str) -> Self {
        Self::tool_calls(&[(name, arguments)])
    }

    /// A completion calling several tools (ids `call_0`, `call_1`…), content `null`.
    pub fn tool_calls(calls: &[(&str, &str)]) -> Self {
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                json!({"id": format!("call_{i}"), "type": "function",
                       "function": {"name": name, "arguments": args}})
            })
            .collect();
        Self::json(completion(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        ))
    }

    /// A model that calls `name` with `arguments` for each user message and answers with the
    /// tool's result word for word (offered no tool, it says [`NO_TOOLS`]); streamed when the
    /// request says `"stream": true`. A responder: it serves any number of turns of any framework.
    pub fn uses_tool(name: &str, arguments: &str) -> Responder {
        let (name, arguments) = (name.to_string(), arguments.to_string());
        Arc::new(move |request: &RecordedRequest| Reply::using_tool(&name, &arguments, request))
    }

    /// The reply of [`Reply::uses_tool`] to `request`.
    fn using_tool(name: &str, arguments: &str, request: &RecordedRequest) -> Self {
        let messages = request.messages();
        let last = messages.last();
        let result = last.filter(|m| m["role"] == "tool").map(|m| match &m["content"] {
            Value::String(text) => text.clone(),
            // A list of content parts: their texts.
            parts => parts.as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect(),
        });
        // Offered no tools (its MCP server unreachable, say), it answers without them.
        let offered = request.body["tools"].as_array().is_some_and(|tools| !tools.is_empty());
        let result = result.or_else(|| (!offered).then(|| NO_TOOLS.to_string()));
        let streamed = request.body["stream"] == true;
        match (result, streamed) {
            (Some(text), false) => Self::text(&text),
            (Some(text), true) => Self::sse(vec![chunk::text(&text), chunk::finish("stop")]),
            (None, false) => Self::tool_call(name, arguments),
            (None, true) => Self::sse(vec![
                chunk::tool(0, Some("call_0"), Some(name), arguments),
                chunk::finish("tool_calls"),
            ]),
        }
    }

    /// This status with an OpenAI-style error body `{"error":{"message":"scripted <status>"}}`.
    pub fn status(status: u16) -> Self {
        Self::new(
            status,
            Body::Json(json!({"error": {"message": format!("scripted {status}"), "type": "scripted"}})),
        )
    }

    /// An event stream: each value as one `data:` event, then `data: [DONE]`.
    pub fn sse(chunks: Vec<Value>) -> Self {
        let mut bytes = Vec::new();
        for c in &chunks {
            bytes.extend_from_slice(format!("data: {c}\n\n").as_bytes());
        }
        bytes.extend_from_slice(b"data: [DONE]\n\n");
        Self::sse_raw(bytes)
    }

    /// An event stream with exactly these bytes (for comments, `\r\n`, missing `[DONE]`…).
    pub fn sse_raw(bytes: impl Into<Vec<u8>>) -> Self {
        let mut reply = Self::new(
            200,
            Body::Sse { bytes: bytes.into(), split_at: Vec::new(), chunk_delay: Duration::from_millis(10) },
        );
        reply.headers.push(("Content-Type".into(), "text/event-stream".into()));
        reply
    }

    /// A body that never ends: `start`, then `repeat` until the client closes the connection.
    pub fn endless(status: u16, start: &str, repeat: &str) -> Self {
        Self::new(status, Body::Endless { start: start.into(), repeat: repeat.repeat(64).into_bytes() })
    }

    /// An event stream of text deltas that never ends.
    pub fn endless_sse(delta: &str) -> Self {
        let event = format!("data: {}\n\n", chunk::text(delta));
        let mut reply = Self::endless(200, "", &event);
        reply.headers.push(("Content-Type".into(), "text/event-stream".into()));
        reply
    }

    /// Never answers (the connection stays open until the server is dropped).
    pub fn hang() -> Self {
        Self::new(200, Body::Hang)
    }

    /// A 200 JSON answer cut off mid-body: `Content-Length` promises more than is sent.
    pub fn drop_mid_body() -> Self {
        let full = completion(json!({"role": "assistant", "content": "never whole"}), "stop");
        let bytes = full.to_string().into_bytes();
        let sent = bytes[..bytes.len() / 2].to_vec();
        Self::new(200, Body::Truncated { sent, declared: bytes.len() })
    }

    /// Replaces the body by raw text (keeps the status; Content-Type stays JSON unless set).
    pub fn body(mut self, text: &str) -> Self {
        self.body = Body::Raw(text.as_bytes().to_vec());
        self
    }

    /// Replaces the body by this JSON.
    pub fn with_json(mut self, body: Value) -> Self {
        self.body = Body::Json(body);
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Adds `usage` to a JSON body.
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        if let Body::Json(Value::Object(map)) = &mut self.body {
            map.insert(
                "usage".into(),
                json!({"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                       "total_tokens": prompt_tokens + completion_tokens}),
            );
        }
        self
    }

    /// For streams: write the body in pieces cut at these byte offsets.
    pub fn split_at(mut self, offsets: &[usize]) -> Self {
        if let Body::Sse { split_at, .. } = &mut self.body {
            *split_at = offsets.to_vec();
        }
        self
    }

    /// For streams: pause between pieces (default 10 ms).
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        if let Body::Sse { chunk_delay, .. } = &mut self.body {
            *chunk_delay = delay;
        }
        self
    }

    /// Wait this long before sending anything.
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// The bytes of a stream body (to compute split offsets).
    pub fn sse_bytes(&self) -> &[u8] {
        match &self.body {
            Body::Sse { bytes, .. } => bytes,
            _ => &[],
        }
    }
}

/// What [`Reply::uses_tool`] answers when it is offered no tool.
pub const NO_TOOLS: &str = "I have no tools at hand, but I would never share your private details.";

fn completion(message: Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "scripted",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}]
    })
}

/// Stream chunk builders (`chat.completion.chunk` values).
pub mod chunk {
    use serde_json::{Value, json};

    fn wrap(delta: Value, finish_reason: Value) -> Value {
        json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "model": "scripted",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
    }

    pub fn text(text: &str) -> Value {
        wrap(json!({"content": text}), Value::Null)
    }

    /// A tool-call fragment; `id`/`name` normally only on the first fragment of a call.
    pub fn tool(index: u32, id: Option<&str>, name: Option<&str>, arguments: &str) -> Value {
        let mut call = json!({"index": index, "function": {"arguments": arguments}});
        if let Some(id) = id {
            call["id"] = json!(id);
            call["type"] = json!("function");
        }
        if let Some(name) = name {
            call["function"]["name"] = json!(name);
        }
        wrap(json!({"tool_calls": [call]}), Value::Null)
    }

    pub fn finish(reason: &str) -> Value {
        wrap(json!({}), json!(reason))
    }

    /// The usage-only last chunk sent with `stream_options.include_usage`.
    pub fn usage(prompt_tokens: u64, completion_tokens: u64) -> Value {
        json!({"id": "chatcmpl-test", "object": "chat.completion.chunk", "choices": [],
               "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}})
    }
}

/// A reply computed from the request (a scripted party that reads what it is sent).
pub type Responder = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

#[derive(Default)]
struct Shared {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<RecordedRequest>>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
    /// Answers every request once the script is used up (instead of a 500).
    default: Mutex<Option<Reply>>,
    /// Answers every request from what it asks, once the script is used up (before `default`).
    responder: Mutex<Option<Responder>>,
    /// Requests being answered now, and the most there were at once.
    in_flight: std::sync::atomic::AtomicUsize,
    peak: std::sync::atomic::AtomicUsize,
}

/// The running server; stops (and drops every open connection) when dropped.
pub struct OpenAiServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: JoinHandle<()>,
}

impl OpenAiServer {
    pub async fn start(replies: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let shared = Arc::new(Shared::default());
        shared.replies.lock().unwrap().extend(replies);
        let accept_shared = shared.clone();
        let accept = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                let conn_shared = accept_shared.clone();
                let task = tokio::spawn(serve(socket, conn_shared));
                accept_shared.tasks.lock().unwrap().push(task);
            }
        });
        OpenAiServer { addr, shared, accept }
    }

    /// `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.root_url())
    }

    /// `http://127.0.0.1:<port>` (no `/v1`).
    pub fn root_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Appends replies to the script.
    pub fn push(&self, reply: Reply) {
        self.shared.replies.lock().unwrap().push_back(reply);
    }

    /// Once the script is used up, answer every request with this (for batches of episodes).
    pub fn set_default(&self, reply: Reply) {
        *self.shared.default.lock().unwrap() = Some(reply);
    }

    /// Once the script is used up, answer every request with what `responder` makes of it.
    pub fn set_responder(&self, responder: Responder) {
        *self.shared.responder.lock().unwrap() = Some(responder);
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// The most requests the server was answering at once.
    pub fn peak_in_flight(&self) -> usize {
        self.shared.peak.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// How many requests named each model (the body's `model`), sorted by model.
    pub fn requests_per_model(&self) -> std::collections::BTreeMap<String, usize> {
        let mut counts = std::collections::BTreeMap::new();
        for r in self.shared.requests.lock().unwrap().iter() {
            let model = r.body["model"].as_str().unwrap_or("(none)").to_string();
            *counts.entry(model).or_insert(0) += 1;
        }
        counts
    }

    pub fn request_count(&self) -> usize {
        self.shared.requests.lock().unwrap().len()
    }

    /// Scripted replies not yet used.
    pub fn remaining_replies(&self) -> usize {
        self.shared.replies.lock().unwrap().len()
    }

    /// Waits until at least `n` requests arrived; false on timeout.
    pub async fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        while self.request_count() < n {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        true
    }
}

impl Drop for OpenAiServer {
    fn drop(&mut self) {
        self.accept.abort();
        for task in self.shared.tasks.lock().unwrap().drain(..) {
            task.abort();
        }
    }
}

async fn serve(mut socket: TcpStream, shared: Arc<Shared>) {
    let Some(request) = read_request(&mut socket).await else {
        return;
    };
    let responder = shared.responder.lock().unwrap().clone();
    let answered = responder.map(|r| r(&request));
    shared.requests.lock().unwrap().push(request);
    let now = shared.in_flight.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
    shared.peak.fetch_max(now, std::sync::atomic::Ordering::SeqCst);
    let scripted = shared.replies.lock().unwrap().pop_front();
    let reply =
        scripted.or(answered).or_else(|| shared.default.lock().unwrap().clone()).unwrap_or_else(|| {
            Reply::status(500).with_json(json!({"error": {"message": "no scripted reply left"}}))
        });
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    let _ = write_reply(&mut socket, reply).await;
    shared.in_flight.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    let _ = socket.shutdown().await;
}

async fn read_request(socket: &mut TcpStream) -> Option<RecordedRequest> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split_whitespace();
    let method = request_line.next()?.to_string();
    let path = request_line.next()?.to_string();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize =
        headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    let raw_body = String::from_utf8_lossy(&body).into_owned();
    Some(RecordedRequest {
        method,
        path,
        headers,
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        raw_body,
    })
}

fn head(status: u16, headers: &[(String, String)], content_length: Option<usize>) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status));
    let has = |name: &str| headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    if !has("content-type") {
        out.push_str("Content-Type: application/json\r\n");
    }
    if let Some(len) = content_length {
        out.push_str(&format!("Content-Length: {len}\r\n"));
    }
    out.push_str("Connection: close\r\n");
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    out.into_bytes()
}

async fn write_reply(socket: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    match reply.body {
        Body::Json(value) => {
            let body = value.to_string().into_bytes();
            socket.write_all(&head(reply.status, &reply.headers, Some(body.len()))).await?;
            socket.write_all(&body).await
        }
        Body::Raw(body) => {
            socket.write_all(&head(reply.status, &reply.headers, Some(body.len()))).await?;
            socket.write_all(&body).await
        }
        Body::Truncated { sent, declared } => {
            socket.write_all(&head(reply.status, &reply.headers, Some(declared))).await?;
            socket.write_all(&sent).await?;
            socket.flush().await
        }
        Body::Sse { bytes, split_at, chunk_delay } => {
            // No Content-Length: the body runs until we close, as streaming servers do.
            socket.write_all(&head(reply.status, &reply.headers, None)).await?;
            socket.flush().await?;
            let mut start = 0;
            let mut cuts: Vec<usize> = split_at.into_iter().filter(|&c| c > 0 && c < bytes.len()).collect();
            cuts.sort_unstable();
            cuts.dedup();
            cuts.push(bytes.len());
            for cut in cuts {
                socket.write_all(&bytes[start..cut]).await?;
                socket.flush().await?;
                start = cut;
                if start < bytes.len() {
                    tokio::time::sleep(chunk_delay).await;
                }
            }
            Ok(())
        }
        Body::Hang => std::future::pending().await,
        Body::Endless { start, repeat } => {
            socket.write_all(&head(reply.status, &reply.headers, None)).await?;
            socket.write_all(&start).await?;
            // Ends when a write fails: the client has closed the connection.
            loop {
                socket.write_all(&repeat).await?;
            }
        }
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// A client for the scripted server: no proxy (a machine's HTTP_PROXY must not capture
/// 127.0.0.1) and retries a few milliseconds apart.
pub fn test_client() -> LlmClient {
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    LlmClient::from_http(http).with_retry_policy(RetryPolicy {
        base: Duration::from_millis(1),
        cap: Duration::from_millis(5),
        retry_after_cap: Duration::from_millis(20),
    })
}
