//! Where the persona's tools are served over MCP: the front every server has (the official Rust
//! SDK's streamable HTTP service behind our bounded HTTP front, `mcp_http`), and the fixed
//! endpoints of issue 37 (`--mcp-listen`, `--launch`): one listener, one token and one MCP
//! service for the whole command, owned by one episode at a time.
//!
//! An agent configured once keeps its MCP session across the episodes of a command (the service
//! outlives them); a session left over from an earlier command is unknown to this one and is
//! answered 404, so the client initializes again, as the MCP spec says.

use std::net::SocketAddr;
use std::sync::Arc;

use base64::Engine as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::watch;

use super::mcp_http::{Front, Limits, Serving, accept_loop};
use super::mcp_tools::{Owner, Shared, Tools};

/// Where the token of the fixed endpoints comes from, when set (else one is made for the command).
pub const TOKEN_VAR: &str = "CONVERSE_MCP_TOKEN";

/// Ends every session of a service.
pub(super) type EndSessions = Box<dyn Fn() + Send + Sync>;

/// The MCP service of `owner`'s tools at `local`, behind a front that wants `token`.
pub(super) fn serve_tools(
    local: SocketAddr,
    owner: Arc<Owner>,
    token: &str,
    limits: Limits,
) -> (Arc<Front<Tools>>, EndSessions) {
    let handler = Tools { owner: owner.clone() };
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(vec!["localhost".to_string(), local.ip().to_string(), local.to_string()])
        // A browser's request must come from a page on this machine (the MCP spec's rule).
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"])
        .enforce_origin_validation();
    let cancel = config.cancellation_token.clone();
    let sessions = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(move || Ok(handler.clone()), sessions.clone(), config);
    let on_token = Box::new(move || owner.mark_reached());
    let end_sessions = Box::new(move || cancel.cancel());
    (Front::new(service, sessions, format!("Bearer {token}"), limits, on_token), end_sessions)
}

/// A fixed endpoint: its listener, token and MCP service live as long as the command; its
/// calls go to the episode that owns it.
pub struct FixedEndpoint {
    pub addr: SocketAddr,
    token: String,
    owner: Arc<Owner>,
    front: Arc<Front<Tools>>,
    accept: tokio::task::JoinHandle<()>,
    _shutdown: watch::Sender<bool>,
}

impl FixedEndpoint {
    /// Binds `addr` (port 0: a free port) and serves the tools there with `token`. Call within
    /// a tokio runtime.
    pub fn bind(addr: SocketAddr, token: &str) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind(addr)?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let owner = Arc::new(Owner::default());
        let limits = Limits::default();
        let (front, _sessions) = serve_tools(addr, owner.clone(), token, limits);
        let (shutdown, stopped) = watch::channel(false);
        let serving = Serving { limits, shutdown: stopped };
        let accept =
            tokio::spawn(accept_loop(tokio::net::TcpListener::from_std(listener)?, front.clone(), serving));
        Ok(FixedEndpoint { addr, token: token.to_string(), owner, front, accept, _shutdown: shutdown })
    }

    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The header the agent must send: `Bearer TOKEN`.
    pub fn authorization(&self) -> String {
        format!("Bearer {}", self.token)
    }

    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether an MCP session opened at this endpoint is still open (an agent that initialized
    /// once and keeps its session between episodes).
    pub async fn has_sessions(&self) -> bool {
        !self.front.sessions.sessions.read().await.is_empty()
    }

    pub(super) fn own(&self, shared: &Arc<Shared>) -> bool {
        self.owner.take(shared)
    }

    pub(super) fn release(&self, shared: &Arc<Shared>) {
        self.owner.release(shared);
    }
}

impl Drop for FixedEndpoint {
    fn drop(&mut self) {
        self.accept.abort();
    }
}

/// The token of the command's fixed endpoints: `CONVERSE_MCP_TOKEN` when set, else a new one
/// (`true`: made here, so whoever needs it must be told).
pub fn command_token() -> std::io::Result<(String, bool)> {
    match std::env::var(TOKEN_VAR) {
        Ok(token) if !token.trim().is_empty() => Ok((token.trim().to_string(), false)),
        _ => Ok((new_token()?, true)),
    }
}

/// 32 random bytes from the kernel, URL-safe base64.
pub(super) fn new_token() -> std::io::Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}
