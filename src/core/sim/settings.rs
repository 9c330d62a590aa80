//! How an episode runs, resolved once from the command line, the config
//! file and these defaults (see `session::settings`), then handed down as
//! one value to the runner and the assistant.

use crate::core::llm::GenerationParams;

pub const DEFAULT_MAX_TURNS: u32 = 10;
pub const DEFAULT_MAX_TOOL_CALLS: u32 = 20;

#[derive(Debug, Clone, PartialEq)]
pub struct EpisodeSettings {
    /// Attacker turns as CONVERSE counts them (the user's task is turn 1); at least 2.
    pub max_turns: u32,
    /// Tool calls the assistant may make per turn.
    pub max_tool_calls: u32,
    /// Sampling seed sent with every model request (recorded in the journal).
    pub seed: Option<u64>,
    /// Sampling temperature sent with every model request (`None`: the endpoint's).
    pub temperature: Option<f64>,
    /// Stream model replies.
    pub stream: bool,
    /// Run the LLM judges after every turn too, not only at the end.
    pub judge_live: bool,
    /// Start held at the gate (the user presses continue or step).
    pub start_paused: bool,
    /// Where an external agent's tools are served over MCP: loopback unless the user names an
    /// address (`--mcp-bind`); each episode takes a free port there.
    pub mcp_bind: std::net::IpAddr,
    /// A fixed endpoint for the tools instead (`--mcp-listen HOST:PORT`): an agent configured
    /// once, with a fixed URL and token, reaches each episode there in turn.
    pub mcp_listen: Option<std::net::SocketAddr>,
    /// An external agent is expected to reach its tools: an episode in which it never did is
    /// marked (`--agent-tools none` says the agent has none).
    pub agent_tools: bool,
    /// `--launch 'COMMAND'`: converse-tui starts the agent, one copy per concurrent episode.
    pub launch: Option<String>,
    /// `--agent-wait`: how long an agent has to serve its card once the tools are served.
    pub agent_wait: std::time::Duration,
}

impl Default for EpisodeSettings {
    fn default() -> Self {
        EpisodeSettings {
            max_turns: DEFAULT_MAX_TURNS,
            max_tool_calls: DEFAULT_MAX_TOOL_CALLS,
            seed: None,
            temperature: None,
            stream: true,
            judge_live: false,
            start_paused: false,
            mcp_bind: std::net::Ipv4Addr::LOCALHOST.into(),
            agent_tools: true,
            mcp_listen: None,
            launch: None,
            agent_wait: DEFAULT_AGENT_WAIT,
        }
    }
}

impl EpisodeSettings {
    /// The fixed endpoints and launched agents asked for (`--mcp-listen`, `--launch`).
    pub fn slots(&self) -> SlotsConfig {
        SlotsConfig {
            listen: self.mcp_listen,
            bind: self.mcp_bind,
            launch: self.launch.clone(),
            wait: self.agent_wait,
        }
    }

    /// The sampling parameters every model request of the episode carries.
    pub fn params(&self) -> GenerationParams {
        GenerationParams {
            temperature: self.temperature,
            seed: self.seed.map(|s| s as i64),
            ..GenerationParams::default()
        }
    }
}

/// How long `--agent-wait` waits for an agent's card by default.
pub const DEFAULT_AGENT_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// The fixed MCP endpoints and launched agents a command asked for (`core::sim::agent_slots`).
#[derive(Debug, Clone, PartialEq)]
pub struct SlotsConfig {
    /// `--mcp-listen HOST:PORT`: the first slot's endpoint (the next ones on the next ports).
    pub listen: Option<std::net::SocketAddr>,
    /// Where the endpoints of `--launch` alone are served (`--mcp-bind`, loopback by default).
    pub bind: std::net::IpAddr,
    /// `--launch 'COMMAND'`, its placeholders unfilled.
    pub launch: Option<String>,
    /// `--agent-wait`: how long an agent has to serve its card.
    pub wait: std::time::Duration,
}

impl SlotsConfig {
    /// Whether the command serves fixed endpoints at all.
    pub fn wanted(&self) -> bool {
        self.listen.is_some() || self.launch.is_some()
    }
}
