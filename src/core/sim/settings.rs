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
        }
    }
}

impl EpisodeSettings {
    /// The sampling parameters every model request of the episode carries.
    pub fn params(&self) -> GenerationParams {
        GenerationParams {
            temperature: self.temperature,
            seed: self.seed.map(|s| s as i64),
            ..GenerationParams::default()
        }
    }
}
