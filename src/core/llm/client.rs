//! The HTTP client: one request per attempt, retries around it, streaming or not.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;

use super::budget::{BudgetSpent, CallMeter};
use super::endpoint::{ApiKey, ERROR_BODY_BYTES, Endpoint, Role};
use super::error::{LlmError, LlmErrorKind, server_message, server_message_from_value};
use super::rate_limit::RateLimits;
use super::retry::{RetryInfo, RetryPolicy, parse_retry_after};
use super::sse::SseParser;
use super::stream::{Assembler, Delta, Step};
use super::types::{ChatRequest, ChatResponse, RawResponse};
use crate::core::text::truncate_chars as truncate;

/// Connect timeout of [`LlmClient::new`]; the per-endpoint timeouts bound the rest.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

type RetryObserver = Arc<dyn Fn(&RetryInfo) + Send + Sync>;

/// An OpenAI-compatible chat client. Cheap to clone: clones share one connection pool,
/// so each episode can clone it and attach its own retry observer.
#[derive(Clone)]
pub struct LlmClient {
    http: reqwest::Client,
    retry: RetryPolicy,
    on_retry: Option<RetryObserver>,
    /// Per-role pacing shared by every clone (batch runs); awaited before each attempt.
    limits: Option<Arc<RateLimits>>,
    /// The cap on calls shared by every clone (`attack --budget`); taken from before each attempt.
    meter: Option<Arc<dyn CallMeter>>,
}

impl fmt::Debug for LlmClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmClient")
            .field("retry", &self.retry)
            .field("on_retry", &self.on_retry.is_some())
            .finish_non_exhaustive()
    }
}

/// One failed attempt, before it is known whether it is the last.
struct Failure {
    kind: LlmErrorKind,
    retry_after: Option<Duration>,
}

impl From<LlmErrorKind> for Failure {
    fn from(kind: LlmErrorKind) -> Self {
        Failure { kind, retry_after: None }
    }
}

impl LlmClient {
    /// A client with the default retry policy and system proxy settings.
    pub fn new() -> Result<Self, reqwest::Error> {
        let http = reqwest::Client::builder().connect_timeout(CONNECT_TIMEOUT).build()?;
        Ok(Self::from_http(http))
    }

    /// Wraps an existing `reqwest::Client` (tests use one without proxies).
    /// Do not give it a total `timeout`: it would cut long streams; endpoints set their own.
    pub fn from_http(http: reqwest::Client) -> Self {
        LlmClient { http, retry: RetryPolicy::default(), on_retry: None, limits: None, meter: None }
    }

    pub fn with_retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// Called before every retry's wait (from the calling task; keep it quick).
    pub fn with_on_retry(mut self, observer: impl Fn(&RetryInfo) + Send + Sync + 'static) -> Self {
        self.on_retry = Some(Arc::new(observer));
        self
    }

    /// Paces requests per role; every clone made after this shares the limiters.
    pub fn with_rate_limits(mut self, limits: RateLimits) -> Self {
        self.limits = (!limits.is_empty()).then(|| Arc::new(limits));
        self
    }

    /// Counts every later call of this client and its clones against `meter`.
    pub fn with_meter(mut self, meter: Arc<dyn CallMeter>) -> Self {
        self.meter = Some(meter);
        self
    }

    /// Takes one call from the budget, then waits for `role`'s rate-limit slot: what every
    /// attempt of a model call does (a retry is a request like any other to the provider), and
    /// every message to an external assistant (`--rpm-assistant` paces an agent as it paces a
    /// model, and `--budget` counts its messages).
    pub async fn admit(&self, role: Role) -> Result<(), BudgetSpent> {
        if let Some(meter) = &self.meter {
            meter.take(role)?;
        }
        if let Some(limiter) = self.limits.as_ref().and_then(|l| l.for_role(role)) {
            limiter.acquire().await;
        }
        Ok(())
    }

    pub fn retry_policy(&self) -> RetryPolicy {
        self.retry
    }

    /// One chat completion, not streamed. Retries per the endpoint's `max_retries`.
    pub async fn chat(&self, endpoint: &Endpoint, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        let body = request.to_body(&endpoint.model, &endpoint.extra, false);
        let mut attempts = Attempts { client: self, endpoint, attempt: 0 };
        loop {
            let key = attempts.start().await?;
            let result =
                tokio::time::timeout(endpoint.timeout, self.chat_once(endpoint, &body, key.as_ref()))
                    .await
                    .unwrap_or_else(|_| Err(LlmErrorKind::Timeout(endpoint.timeout).into()));
            match result {
                Ok(response) => return Ok(response),
                Err(failure) => attempts.failed(failure, key.as_ref()).await?,
            }
        }
    }

    /// One chat completion, streamed: `on_delta` sees text and tool-call fragments as
    /// they arrive; the assembled response is returned at the end.
    ///
    /// A failure before any delta was forwarded is retried like [`LlmClient::chat`];
    /// after that it ends the call with [`LlmErrorKind::Interrupted`], so `on_delta`
    /// never sees the same output twice.
    pub async fn chat_stream(
        &self,
        endpoint: &Endpoint,
        request: ChatRequest,
        mut on_delta: impl FnMut(Delta),
    ) -> Result<ChatResponse, LlmError> {
        let body = request.to_body(&endpoint.model, &endpoint.extra, true);
        let mut attempts = Attempts { client: self, endpoint, attempt: 0 };
        loop {
            let key = attempts.start().await?;
            match self.stream_once(endpoint, &body, key.as_ref(), &mut on_delta).await {
                Ok(response) => return Ok(response),
                Err(failure) => attempts.failed(failure, key.as_ref()).await?,
            }
        }
    }

    /// The wait before the next attempt, or `None` to give up. Tells the observer.
    fn plan_retry(&self, endpoint: &Endpoint, attempt: u32, failure: &Failure) -> Option<Duration> {
        if !failure.kind.is_retryable() || attempt > endpoint.max_retries {
            return None;
        }
        let delay = self.retry.delay(attempt, failure.retry_after);
        let info = RetryInfo {
            role: endpoint.role,
            model: endpoint.model.clone(),
            base_url: endpoint.base_url.clone(),
            next_attempt: attempt + 1,
            max_attempts: endpoint.max_retries.saturating_add(1),
            delay,
            reason: failure.kind.to_string(),
        };
        tracing::warn!(%info, "model call failed");
        if let Some(observer) = &self.on_retry {
            observer(&info);
        }
        Some(delay)
    }

    fn post(&self, endpoint: &Endpoint, body: &Value, key: Option<&ApiKey>) -> reqwest::RequestBuilder {
        let request = self.http.post(endpoint.chat_url()).json(body);
        match key {
            // `bearer_auth` marks the header sensitive, so reqwest never logs it.
            Some(key) => request.bearer_auth(key.expose()),
            None => request,
        }
    }

    async fn chat_once(
        &self,
        endpoint: &Endpoint,
        body: &Value,
        key: Option<&ApiKey>,
    ) -> Result<ChatResponse, Failure> {
        let response = self.post(endpoint, body, key).send().await.map_err(classify)?;
        let status = response.status();
        let retry_after = retry_after(&response);
        if !status.is_success() {
            let message = error_message(response).await?;
            return Err(http_failure(status.as_u16(), message, retry_after));
        }
        read_reply(response, endpoint.max_reply_bytes).await
    }

    async fn stream_once(
        &self,
        endpoint: &Endpoint,
        body: &Value,
        key: Option<&ApiKey>,
        on_delta: &mut impl FnMut(Delta),
    ) -> Result<ChatResponse, Failure> {
        let deadline = Deadline::start(endpoint);
        // Time to first byte is bounded by the whole deadline only: a local model can think for minutes.
        let response = deadline.until_end(self.post(endpoint, body, key).send()).await?.map_err(classify)?;
        let status = response.status();
        if !status.is_success() {
            let retry_after = retry_after(&response);
            let message = deadline.within(error_message(response)).await??;
            return Err(http_failure(status.as_u16(), message, retry_after));
        }
        if is_json(&response) {
            // The server ignored `stream: true`; accept its whole answer as one delta each.
            let reply = deadline.within(read_reply(response, endpoint.max_reply_bytes)).await??;
            if !reply.text().is_empty() {
                on_delta(Delta::Text(reply.text().to_string()));
            }
            for (index, call) in reply.tool_calls().iter().enumerate() {
                on_delta(Delta::ToolCall {
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                    id: Some(call.id.clone()),
                    name: Some(call.function.name.clone()),
                    arguments_fragment: call.function.arguments.clone(),
                });
            }
            return Ok(reply);
        }

        let mut assembler = Assembler::default();
        let result =
            read_stream(&deadline, response, endpoint.max_reply_bytes, &mut assembler, on_delta).await;
        match result {
            Ok(()) => Ok(assembler.finish()),
            // Retrying now would replay output the caller has already shown.
            Err(mut failure) if assembler.started() && failure.kind.is_retryable() => {
                failure.kind = LlmErrorKind::Interrupted(failure.kind.to_string());
                Err(failure)
            }
            Err(failure) => Err(failure),
        }
    }
}

/// Reads SSE events into `assembler` until `[DONE]` or the end of the body; fails once the
/// reply (its text and tool calls) passes `limit` bytes.
async fn read_stream(
    deadline: &Deadline,
    response: reqwest::Response,
    limit: usize,
    assembler: &mut Assembler,
    on_delta: &mut impl FnMut(Delta),
) -> Result<(), Failure> {
    let mut parser = SseParser::with_max_line(body_limit(limit));
    let mut stream = response.bytes_stream();
    loop {
        let next = deadline.within(stream.next()).await?;
        let (events, ended) = match next {
            Some(chunk) => {
                (parser.push(&chunk.map_err(classify)?).map_err(LlmErrorKind::InvalidResponse)?, false)
            }
            None => (parser.finish().into_iter().collect(), true),
        };
        for event in &events {
            let step = assembler.event(event).map_err(LlmErrorKind::Stream)?;
            if assembler.size() > limit {
                return Err(LlmErrorKind::TooLarge(limit).into());
            }
            match step {
                Step::Done => return Ok(()),
                Step::Deltas(deltas) => deltas.into_iter().for_each(&mut *on_delta),
            }
        }
        if ended {
            // Without `[DONE]` a finish reason is proof enough; without either the body was cut.
            return if assembler.complete() {
                Ok(())
            } else {
                Err(LlmErrorKind::Connection("stream ended before it was complete".into()).into())
            };
        }
    }
}

/// The two clocks on a streamed request: the whole request (`timeout`) and the longest
/// silence between chunks (`idle_timeout`). Each wait ends at whichever comes first, so
/// a server sending a byte now and then cannot hold a turn past the request's deadline.
struct Deadline {
    total: Duration,
    idle: Duration,
    ends: tokio::time::Instant,
}

impl Deadline {
    fn start(endpoint: &Endpoint) -> Self {
        let total = endpoint.timeout;
        Deadline { total, idle: endpoint.idle_timeout, ends: tokio::time::Instant::now() + total }
    }

    /// `wait`, or the whole request's timeout.
    async fn until_end<T>(&self, wait: impl Future<Output = T>) -> Result<T, LlmErrorKind> {
        tokio::time::timeout_at(self.ends, wait).await.map_err(|_| LlmErrorKind::Timeout(self.total))
    }

    /// `wait`, or the timeout that runs out first: silence or the whole request.
    async fn within<T>(&self, wait: impl Future<Output = T>) -> Result<T, LlmErrorKind> {
        let left = self.ends.saturating_duration_since(tokio::time::Instant::now());
        if left <= self.idle {
            tokio::time::timeout(left, wait).await.map_err(|_| LlmErrorKind::Timeout(self.total))
        } else {
            tokio::time::timeout(self.idle, wait).await.map_err(|_| LlmErrorKind::IdleTimeout(self.idle))
        }
    }
}

fn parse_completion(bytes: &[u8]) -> Result<ChatResponse, LlmErrorKind> {
    let value: Value = serde_json::from_slice(bytes).map_err(|e| {
        LlmErrorKind::InvalidResponse(format!(
            "body is not JSON ({e}): {}",
            truncate(String::from_utf8_lossy(bytes).trim(), 200)
        ))
    })?;
    if value.get("choices").is_none()
        && let Some(message) = value.get("error").and_then(server_message_from_value)
    {
        return Err(LlmErrorKind::InvalidResponse(format!("server error: {message}")));
    }
    let raw: RawResponse = serde_json::from_value(value)
        .map_err(|e| LlmErrorKind::InvalidResponse(format!("not a chat completion: {e}")))?;
    raw.into_response().ok_or_else(|| LlmErrorKind::InvalidResponse("no choices in the response".into()))
}

fn http_failure(status: u16, message: String, retry_after: Option<Duration>) -> Failure {
    Failure { kind: LlmErrorKind::Http { status, message }, retry_after }
}

/// The body a reply of at most `reply_limit` bytes of text may take: JSON escapes and the
/// chunk envelope around the text, bounded.
fn body_limit(reply_limit: usize) -> usize {
    reply_limit.saturating_mul(2).saturating_add(64 << 10)
}

/// Reads a body, at most `limit` bytes of it; the flag says there was more.
async fn read_capped(mut response: reqwest::Response, limit: usize) -> Result<(Vec<u8>, bool), Failure> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(classify)? {
        let room = limit - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok((bytes, true));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok((bytes, false))
}

/// A whole (not streamed) reply: its body read up to the cap, then parsed.
async fn read_reply(response: reqwest::Response, limit: usize) -> Result<ChatResponse, Failure> {
    // A body announced larger than the cap is not read at all.
    if response.content_length().is_some_and(|n| n > body_limit(limit) as u64) {
        return Err(LlmErrorKind::TooLarge(limit).into());
    }
    let (bytes, cut) = read_capped(response, body_limit(limit)).await?;
    if cut {
        return Err(LlmErrorKind::TooLarge(limit).into());
    }
    let reply = parse_completion(&bytes)?;
    if reply_size(&reply) > limit {
        return Err(LlmErrorKind::TooLarge(limit).into());
    }
    Ok(reply)
}

/// The bytes of a reply's text and tool calls, as a stream's assembler counts them.
pub(crate) fn reply_size(reply: &ChatResponse) -> usize {
    let calls = reply.tool_calls().iter().map(|c| {
        super::stream::CALL_OVERHEAD + c.id.len() + c.function.name.len() + c.function.arguments.len()
    });
    reply.text().len() + calls.sum::<usize>()
}

/// The message of an error body: only its first [`ERROR_BODY_BYTES`] are read.
async fn error_message(response: reqwest::Response) -> Result<String, Failure> {
    let (bytes, cut) = read_capped(response, ERROR_BODY_BYTES).await?;
    let message = server_message(&bytes);
    Ok(if cut { format!("{message}… (body cut at {ERROR_BODY_BYTES} bytes)") } else { message })
}

/// The one retry loop's bookkeeping, for the plain and the streamed call alike: each attempt
/// waits for the role's rate limit and reads the key afresh; a failure is masked, then waited
/// out before the next attempt or returned.
struct Attempts<'a> {
    client: &'a LlmClient,
    endpoint: &'a Endpoint,
    attempt: u32,
}

impl Attempts<'_> {
    /// Starts the next attempt: its key, once the budget and the rate limit let it through.
    async fn start(&mut self) -> Result<Option<ApiKey>, LlmError> {
        self.attempt += 1;
        let admitted = self.client.admit(self.endpoint.role).await;
        admitted.map_err(|spent| LlmError::new(self.endpoint, self.attempt, spent.into()))?;
        Ok(self.endpoint.api_key())
    }

    /// After a failed attempt: `Ok` once it is time for the next one, or the error to give up with.
    async fn failed(&self, failure: Failure, key: Option<&ApiKey>) -> Result<(), LlmError> {
        let failure = redact(failure, key);
        match self.client.plan_retry(self.endpoint, self.attempt, &failure) {
            Some(delay) => {
                tokio::time::sleep(delay).await;
                Ok(())
            }
            None => Err(LlmError::new(self.endpoint, self.attempt, failure.kind)),
        }
    }
}

fn retry_after(response: &reqwest::Response) -> Option<Duration> {
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok());
    parse_retry_after(header("retry-after"), header("retry-after-ms"))
}

fn is_json(response: &reqwest::Response) -> bool {
    response
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.trim_start().starts_with("application/json"))
}

/// reqwest's error with its causes ("connection refused" hides in the chain).
fn classify(error: reqwest::Error) -> Failure {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    let kind =
        if error.is_builder() { LlmErrorKind::InvalidRequest(text) } else { LlmErrorKind::Connection(text) };
    kind.into()
}

/// Replaces the key in every text of the failure.
fn redact(mut failure: Failure, key: Option<&ApiKey>) -> Failure {
    let Some(key) = key else { return failure };
    failure.kind = match failure.kind {
        LlmErrorKind::Http { status, message } => {
            LlmErrorKind::Http { status, message: key.redact(&message) }
        }
        LlmErrorKind::Connection(m) => LlmErrorKind::Connection(key.redact(&m)),
        LlmErrorKind::InvalidResponse(m) => LlmErrorKind::InvalidResponse(key.redact(&m)),
        LlmErrorKind::Stream(m) => LlmErrorKind::Stream(key.redact(&m)),
        LlmErrorKind::Interrupted(m) => LlmErrorKind::Interrupted(key.redact(&m)),
        LlmErrorKind::InvalidRequest(m) => LlmErrorKind::InvalidRequest(key.redact(&m)),
        other @ (LlmErrorKind::Timeout(_)
        | LlmErrorKind::IdleTimeout(_)
        | LlmErrorKind::TooLarge(_)
        | LlmErrorKind::Budget(_)) => other,
    };
    failure
}
