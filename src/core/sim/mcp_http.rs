//! The HTTP front of an episode's MCP server (issue 36): what any local process can reach
//! before the token is checked, so everything here is bounded.
//!
//! - A connection must send each request's head within [`Limits::header_timeout`] (an idle
//!   keep-alive connection included), and an episode holds at most [`Limits::max_connections`]:
//!   past it, the oldest connection that never showed the token is closed to make room (so a
//!   flood of idle connections cannot lock the agent out), or the new one when all have shown it.
//! - A request without the episode's bearer token is refused (401) before MCP sees it; a browser
//!   `Origin` other than loopback is refused (403, the MCP spec's DNS-rebinding rule), as is a
//!   `Host` that is not the server's.
//! - A streaming GET may stay open while its episode lives, [`Limits::max_streams`] at once; new
//!   sessions past [`Limits::max_sessions`] are refused (503).
//! - When the episode's server is dropped, every connection ends (a fixed endpoint's live as long
//!   as the process: an agent's keep-alive connection outlives episodes).

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http_body_util::BodyExt as _;
use http_body_util::combinators::BoxBody;
use hyper::body::{Bytes, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::transport::streamable_http_server::StreamableHttpService;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Semaphore, watch};

/// What MCP serves behind the front: the episode's tools.
pub(super) trait Handler: rmcp::ServerHandler + Clone + Send + Sync + 'static {}
impl<T: rmcp::ServerHandler + Clone + Send + Sync + 'static> Handler for T {}

/// How much of the server one episode's neighbours and agent may hold.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Longest wait for a request's head, and so for an idle connection.
    pub header_timeout: Duration,
    pub max_connections: usize,
    /// Streaming GETs (server-to-client SSE) open at once.
    pub max_streams: usize,
    /// MCP sessions (the pre-2026 revisions' `Mcp-Session-Id`) open at once.
    pub max_sessions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            max_connections: 64,
            max_streams: 8,
            max_sessions: 16,
        }
    }
}

/// The MCP service of a handler `H` (the episode's tools).
pub(super) type Service<H> = StreamableHttpService<H, LocalSessionManager>;
type Response = hyper::Response<BoxBody<Bytes, Infallible>>;

/// What every connection of one episode's server shares.
pub(super) struct Front<H> {
    pub(super) service: Service<H>,
    pub(super) sessions: Arc<LocalSessionManager>,
    /// `Bearer TOKEN`.
    pub(super) expected: String,
    pub(super) limits: Limits,
    streams: Arc<Semaphore>,
    /// Told of every request with the token: the agent reached the episode's tools.
    on_token: Box<dyn Fn() + Send + Sync>,
}

impl<H: Handler> Front<H> {
    pub(super) fn new(
        service: Service<H>,
        sessions: Arc<LocalSessionManager>,
        expected: String,
        limits: Limits,
        on_token: Box<dyn Fn() + Send + Sync>,
    ) -> Arc<Self> {
        let streams = Arc::new(Semaphore::new(limits.max_streams));
        Arc::new(Front { service, sessions, expected, limits, streams, on_token })
    }
}

/// How a listener's connections are bounded and when they all end.
#[derive(Clone)]
pub(super) struct Serving {
    pub(super) limits: Limits,
    pub(super) shutdown: watch::Receiver<bool>,
}

pub(super) async fn accept_loop<H: Handler>(
    listener: tokio::net::TcpListener,
    front: Arc<Front<H>>,
    serving: Serving,
) {
    let connections = Arc::new(Connections::default());
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                // Small JSON-RPC answers: without this, Nagle and delayed ACKs add tens of ms per call.
                let _ = stream.set_nodelay(true);
                stream
            }
            Err(e) => {
                // Out of descriptors and the like: wait rather than spin on the same error.
                tracing::warn!(error = %e, "the MCP server could not accept a connection");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        // At the cap, the oldest connection that never showed the token makes room; when every
        // one has shown it, the new one is closed.
        let Some(slot) = connections.admit(serving.limits.max_connections) else { continue };
        let (front, serving, connections) = (front.clone(), serving.clone(), connections.clone());
        tokio::spawn(async move {
            let id = slot.id;
            serve_connection(front, serving, stream, slot).await;
            connections.leave(id);
        });
    }
}

/// Serves `io` as one more connection of `front` (the fuzz target's way in).
#[cfg(feature = "fuzzing")]
pub(super) async fn serve_one<H: Handler, I>(front: Arc<Front<H>>, serving: Serving, io: I)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    if let Some(slot) = Connections::default().admit(1) {
        serve_connection(front, serving, io, slot).await;
    }
}

/// The connections of one server, oldest first.
#[derive(Default)]
struct Connections {
    open: std::sync::Mutex<Vec<Open>>,
    next_id: std::sync::atomic::AtomicU64,
}

/// One connection's place: whether it has shown the token, and how to end it.
pub(super) struct Slot {
    id: u64,
    trusted: Arc<AtomicBool>,
    evicted: watch::Receiver<bool>,
}

struct Open {
    id: u64,
    trusted: Arc<AtomicBool>,
    evict: watch::Sender<bool>,
}

impl Connections {
    fn admit(&self, max: usize) -> Option<Slot> {
        let mut open = self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if open.len() >= max {
            let stranger = open.iter().position(|c| !c.trusted.load(Ordering::Relaxed))?;
            open.remove(stranger).evict.send_replace(true);
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let trusted = Arc::new(AtomicBool::new(false));
        let (evict, evicted) = watch::channel(false);
        open.push(Open { id, trusted: trusted.clone(), evict });
        Some(Slot { id, trusted, evicted })
    }

    fn leave(&self, id: u64) {
        self.open.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|c| c.id != id);
    }
}

/// Serves one connection until it closes, times out or the server is dropped.
pub(super) async fn serve_connection<H: Handler, I>(front: Arc<Front<H>>, serving: Serving, io: I, slot: Slot)
where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let Serving { limits, mut shutdown } = serving;
    let Slot { trusted, mut evicted, .. } = slot;
    let serve = service_fn(move |request: hyper::Request<Incoming>| {
        let (front, trusted) = (front.clone(), trusted.clone());
        async move { Ok::<_, Infallible>(handle(&front, request, &trusted).await) }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .serve_connection(TokioIo::new(io), serve);
    tokio::select! {
        result = connection => {
            if let Err(e) = result {
                tracing::debug!(error = %e, "MCP connection ended");
            }
        }
        _ = shutdown.wait_for(|done| *done) => {}
        _ = evicted.wait_for(|out| *out) => {}
    }
}

/// Checks what MCP does not (token, stream and session caps), then hands the request to MCP.
async fn handle<H: Handler>(
    front: &Front<H>,
    request: hyper::Request<Incoming>,
    trusted: &AtomicBool,
) -> Response {
    let given = request.headers().get(hyper::header::AUTHORIZATION).map(|v| v.as_bytes());
    if given != Some(front.expected.as_bytes()) {
        return refusal(hyper::StatusCode::UNAUTHORIZED, "missing or wrong bearer token\n");
    }
    trusted.store(true, Ordering::Relaxed);
    (front.on_token)();
    let method = request.method().clone();
    let stream = if method == hyper::Method::GET {
        match front.streams.clone().try_acquire_owned() {
            Ok(permit) => Some(permit),
            Err(_) => return refusal(hyper::StatusCode::TOO_MANY_REQUESTS, "too many open streams\n"),
        }
    } else {
        None
    };
    let opens_session = method == hyper::Method::POST && !request.headers().contains_key("mcp-session-id");
    if opens_session && front.sessions.sessions.read().await.len() >= front.limits.max_sessions {
        return refusal(hyper::StatusCode::SERVICE_UNAVAILABLE, "too many MCP sessions for this episode\n");
    }
    let mut response = match tower_service::Service::call(&mut front.service.clone(), request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    // rmcp answers a session's DELETE with 202; the official clients expect 200 or 204 and
    // warn on anything else ("Session termination failed: 202").
    if method == hyper::Method::DELETE && response.status() == hyper::StatusCode::ACCEPTED {
        *response.status_mut() = hyper::StatusCode::NO_CONTENT;
    }
    match stream {
        // The stream's place is held as long as its body is.
        Some(permit) => response.map(|body| {
            body.map_frame(move |frame| {
                let _held = &permit;
                frame
            })
            .boxed()
        }),
        None => response,
    }
}

fn refusal(status: hyper::StatusCode, text: &'static str) -> Response {
    let body = http_body_util::Full::new(Bytes::from_static(text.as_bytes()));
    let mut response = hyper::Response::new(body.boxed());
    *response.status_mut() = status;
    response
}
