//! The external agents of one command (issue 37): one slot per episode that may run at once,
//! each a fixed MCP endpoint (`--mcp-listen HOST:PORT`, the next slots on the next ports; with
//! `--launch` alone, a free port) and, with `--launch 'COMMAND'`, one copy of the agent started
//! for the slot, kept across its episodes and stopped at the end of the command.
//!
//! The endpoints are served before any agent is started or its card read: an agent that opens
//! its MCP session at start-up finds it there. An episode leases a free slot for its whole life.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::a2a::card::CARD_PATH;
use super::agent_process::{AgentProcess, Stdout};
use super::agent_spec::AgentSpec;
use super::launch_template::{self, Fill};
use super::mcp_endpoint::{FixedEndpoint, TOKEN_VAR, command_token};

pub use super::settings::SlotsConfig;

/// Between two looks for a card.
const POLL: Duration = Duration::from_millis(200);

/// The slots of a command; see the module's doc.
pub struct AgentSlots {
    slots: Vec<Slot>,
    free: std::sync::Mutex<Vec<usize>>,
    permits: Arc<Semaphore>,
    config: SlotsConfig,
}

struct Slot {
    endpoint: Arc<FixedEndpoint>,
    /// `{port}`: where the slot's agent listens.
    port: u16,
    /// The launched agent, once started.
    process: tokio::sync::Mutex<Option<AgentProcess>>,
}

impl AgentSlots {
    /// Binds `count` endpoints (call within a tokio runtime). The token is `CONVERSE_MCP_TOKEN`,
    /// else made now; made with `--mcp-listen`, it is printed once on `notice` (the user
    /// configures the agent with it).
    pub fn serve(
        config: SlotsConfig,
        count: usize,
        notice: &mut dyn std::io::Write,
    ) -> anyhow::Result<Arc<Self>> {
        let count = count.max(1);
        let (token, made) = command_token()?;
        let mut slots = Vec::with_capacity(count);
        for i in 0..count {
            let addr = match config.listen {
                Some(first) if first.port() == 0 => first,
                Some(first) => {
                    let port = u16::try_from(usize::from(first.port()) + i).map_err(|_| {
                        anyhow::anyhow!("--mcp-listen {first}: {count} endpoints do not fit below port 65536")
                    })?;
                    SocketAddr::new(first.ip(), port)
                }
                None => SocketAddr::new(config.bind, 0),
            };
            let endpoint = FixedEndpoint::bind(addr, &token).map_err(|e| {
                let flag = if config.listen.is_some() { "--mcp-listen" } else { "--launch" };
                anyhow::anyhow!("{flag}: cannot serve the tools at {addr}: {e}")
            })?;
            let port = free_port()?;
            slots.push(Slot { endpoint: Arc::new(endpoint), port, process: tokio::sync::Mutex::new(None) });
        }
        if made && config.listen.is_some() {
            let more = match count {
                1 => String::new(),
                n => format!(" (and {} more on the next ports)", n - 1),
            };
            writeln!(
                notice,
                "MCP endpoint {}{more}: Authorization: Bearer {token} (set {TOKEN_VAR} to choose it)",
                slots[0].endpoint.url()
            )?;
        }
        let free = std::sync::Mutex::new((0..count).rev().collect());
        Ok(Arc::new(AgentSlots { permits: Arc::new(Semaphore::new(count)), slots, free, config }))
    }

    /// Waits for a free slot and holds it until the lease is dropped.
    pub async fn lease(self: &Arc<Self>) -> Lease {
        let permit = self.permits.clone().acquire_owned().await.expect("the semaphore is never closed");
        let index = self.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner).pop();
        Lease { slots: self.clone(), index: index.expect("a permit means a free slot"), _permit: permit }
    }

    /// The endpoints' URLs, in slot order.
    pub fn urls(&self) -> Vec<String> {
        self.slots.iter().map(|s| s.endpoint.url()).collect()
    }

    /// Stops every launched agent (stdin closed, SIGTERM to its group, SIGKILL after a grace).
    pub async fn stop(&self) {
        let stops = self.slots.iter().map(|slot| async move {
            if let Some(process) = slot.process.lock().await.take() {
                process.stop().await;
            }
        });
        futures_util::future::join_all(stops).await;
    }
}

/// One slot held by one episode.
pub struct Lease {
    slots: Arc<AgentSlots>,
    index: usize,
    _permit: OwnedSemaphorePermit,
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.slots.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(self.index);
    }
}

impl Lease {
    fn slot(&self) -> &Slot {
        &self.slots.slots[self.index]
    }

    pub fn endpoint(&self) -> &Arc<FixedEndpoint> {
        &self.slot().endpoint
    }

    /// What this slot fills into placeholders.
    pub fn fill(&self) -> Fill {
        let slot = self.slot();
        Fill { port: slot.port, mcp_url: slot.endpoint.url(), mcp_token: slot.endpoint.token().to_string() }
    }

    /// `spec` with the slot's port in its URL (`a2a:http://127.0.0.1:{port}`); a `cmd:` agent's
    /// command is filled word by word when it starts.
    pub fn agent(&self, spec: &AgentSpec) -> AgentSpec {
        match spec {
            AgentSpec::A2a(url) => AgentSpec::A2a(self.fill().apply(url)),
            command => command.clone(),
        }
    }

    /// The launch command as the journal records it (filled, the token masked).
    pub fn launch_line(&self) -> Option<String> {
        let command = self.slots.config.launch.as_ref()?;
        self.fill().masked(command).ok()
    }

    /// Makes the slot's agent ready to be sent `spec`'s episode: with `--launch`, starts it
    /// if it is not running; then, for an A2A agent, waits up to `--agent-wait` for its card.
    pub async fn ready(&self, spec: &AgentSpec) -> Result<(), String> {
        let started = self.start_launched().await?;
        let AgentSpec::A2a(url) = self.agent(spec) else { return Ok(()) };
        let card_url = format!("{}{CARD_PATH}", url.trim_end_matches('/'));
        let deadline = Instant::now() + self.slots.config.wait;
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(2))
            .timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| e.to_string())?;
        loop {
            let last = match http.get(&card_url).send().await {
                Ok(response) if response.status().is_success() => return Ok(()),
                Ok(response) => format!("HTTP {}", response.status().as_u16()),
                Err(e) => crate::core::sanitize::excerpt(&e.to_string(), 200),
            };
            if let Some(exit) = self.exited().await {
                return Err(format!(
                    "the agent started by --launch exited ({exit}) before serving its card at {card_url}: its output is in the log"
                ));
            }
            if Instant::now() >= deadline {
                let wait = self.slots.config.wait.as_secs();
                let since = if started { " of starting it" } else { "" };
                return Err(format!(
                    "no agent card at {card_url} within {wait}s{since} (--agent-wait; last: {last})"
                ));
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Starts the launched agent of the slot unless it runs; true when it was started now.
    async fn start_launched(&self) -> Result<bool, String> {
        let Some(command) = &self.slots.config.launch else { return Ok(false) };
        let mut process = self.slot().process.lock().await;
        if let Some(running) = process.as_mut() {
            if !running.has_exited() {
                return Ok(false);
            }
            // It died between episodes: said, and started again.
            tracing::warn!(target: "agent", "agent {}: exited; starting it again", self.index + 1);
        }
        let fill = self.fill();
        let words = fill.words(command)?;
        let name = format!("agent {}", self.index + 1);
        tracing::info!(target: "agent", "{name}: starting {}", fill.masked(command)?);
        let spawned = AgentProcess::spawn_as(&name, &words, &[], Stdout::Log).map_err(|e| {
            format!("--launch: cannot start {}: {e}", crate::core::sanitize::single_line(&words[0]))
        })?;
        *process = Some(spawned);
        Ok(true)
    }

    /// How the launched agent exited, if it has.
    async fn exited(&self) -> Option<String> {
        let mut process = self.slot().process.lock().await;
        process.as_mut().and_then(AgentProcess::exit_status)
    }
}

/// A free TCP port of loopback, for an agent's `{port}`.
fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// What is wrong with `--launch` / `--mcp-listen` for `spec` and `slots` episodes at once.
pub fn check(config: &SlotsConfig, spec: &AgentSpec, slots: usize) -> Result<(), String> {
    if let Some(command) = &config.launch {
        if let Some(name) = launch_template::unknown_placeholder(command) {
            return Err(format!(
                "--launch: {name} is not a placeholder (known: {{port}}, {{mcp_url}}, {{mcp_token}}, {{mcp_authorization}})"
            ));
        }
        launch_template::split(command).map_err(|e| format!("--launch: {e}"))?;
        match spec {
            AgentSpec::Command(_) => {
                return Err("--launch starts an A2A agent (--assistant a2a:URL); a cmd: agent is started by converse-tui already, one per episode: put {mcp_url}, {mcp_authorization}… in its command".into());
            }
            AgentSpec::A2a(url) if slots > 1 && !launch_template::names_port(url) => {
                return Err(format!(
                    "--launch starts {slots} agents (one per concurrent episode): give each its port with {{port}} in the agent's URL (a2a:http://127.0.0.1:{{port}}) and in the command"
                ));
            }
            AgentSpec::A2a(_) => {}
        }
    }
    let text = match spec {
        AgentSpec::Command(command) => command,
        AgentSpec::A2a(url) => url,
    };
    if let Some(name) = launch_template::unknown_placeholder(text) {
        return Err(format!(
            "--assistant: {name} is not a placeholder (known: {{port}}, {{mcp_url}}, {{mcp_token}}, {{mcp_authorization}})"
        ));
    }
    Ok(())
}
