//! The episode settings given on the command line, and their resolution
//! over the config file's `[run]` table and the built-in defaults into the
//! one [`EpisodeSettings`] every episode of a launch runs with.

use anyhow::bail;

use crate::config::settings::RunSettings;
use crate::core::sim::settings::EpisodeSettings;

/// The settings flags of `run`, `play` and `batch` (unset: the config file's, else the default).
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct SettingFlags {
    /// Attacker turns as CONVERSE counts them (the user's task is turn 1): N-1 assistant replies.
    #[arg(long)]
    pub max_turns: Option<u32>,
    /// Tool calls the assistant may make per turn.
    #[arg(long)]
    pub max_tool_calls: Option<u32>,
    /// Sampling seed sent with every model request (recorded in the journal).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Sampling temperature sent with every model request (default: the endpoint's).
    #[arg(long)]
    pub temperature: Option<f64>,
    /// Ask for whole replies instead of streams.
    #[arg(long)]
    pub no_stream: bool,
    /// Run the LLM judges after every turn too (they always run at the end when --judge-model is set).
    #[arg(long)]
    pub judge_live: bool,
    /// How an external agent is served and started.
    #[command(flatten)]
    pub agent: AgentFlags,
    /// Start paused: nothing is sent until the user continues or steps (`run --paused`).
    #[arg(skip)]
    pub paused: bool,
}

/// How an external agent (`--assistant a2a:… | cmd:…`) reaches its tools and who starts it:
/// the same flags on every command that runs one (`replay` too, for its forks and fans).
#[derive(Debug, Clone, Default, PartialEq, clap::Args)]
pub struct AgentFlags {
    /// Serve an external agent's tools (MCP) on this address instead of loopback, e.g. the
    /// interface a container reaches; each episode takes a free port, and the token is still required.
    #[arg(long, value_name = "IP")]
    pub mcp_bind: Option<std::net::IpAddr>,
    /// Serve an external agent's tools at this fixed address, so an agent configured once with a
    /// fixed URL and token reaches each episode (one at a time; with --concurrency N, N endpoints
    /// on consecutive ports); the token is CONVERSE_MCP_TOKEN, else made and printed once on stderr.
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "mcp_bind")]
    pub mcp_listen: Option<std::net::SocketAddr>,
    /// Start the A2A agent yourself: one copy per concurrent episode, kept across episodes and
    /// stopped at the end. {port}, {mcp_url}, {mcp_token} and {mcp_authorization} are filled in
    /// (split like a shell would, never run by one; `env K=V …` works).
    #[arg(long, value_name = "COMMAND")]
    pub launch: Option<String>,
    /// Seconds an agent has to serve its card once its tools are served (--mcp-listen, --launch).
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..))]
    pub agent_wait: Option<u64>,
    /// The tools an external agent uses: `mcp` (the episode's MCP server; an episode in which
    /// the agent never reaches it is undecided) or `none` (an agent without tools).
    #[arg(long, value_name = "mcp|none", value_parser = ["mcp", "none"])]
    pub agent_tools: Option<String>,
}

impl AgentFlags {
    /// Whether any of them is given (they need an external agent).
    pub fn any(&self) -> Option<&'static str> {
        [
            (self.mcp_bind.is_some(), "--mcp-bind"),
            (self.mcp_listen.is_some(), "--mcp-listen"),
            (self.launch.is_some(), "--launch"),
            (self.agent_wait.is_some(), "--agent-wait"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

/// Requests per minute per role, shared by every episode a command runs (`batch`, `test`, `fan`,
/// a fan on screen): one limiter per role, however many run at once.
#[derive(Debug, Clone, Copy, Default, PartialEq, clap::Args)]
pub struct RpmFlags {
    /// Attacker requests per minute, shared by all the episodes (0: no limit).
    #[arg(long, value_name = "RPM")]
    pub rpm_attacker: Option<u32>,
    /// Assistant requests per minute, shared by all the episodes (0: no limit).
    #[arg(long, value_name = "RPM")]
    pub rpm_assistant: Option<u32>,
    /// Judge requests per minute, shared by all the episodes (0: no limit).
    #[arg(long, value_name = "RPM")]
    pub rpm_judge: Option<u32>,
}

impl RpmFlags {
    pub fn limits(&self) -> crate::core::llm::RateLimits {
        crate::core::llm::RateLimits::from_rpm(self.rpm_attacker, self.rpm_assistant, self.rpm_judge)
    }
}

impl SettingFlags {
    /// Flags over the config file over the defaults, checked.
    pub fn resolve(&self, file: &RunSettings) -> anyhow::Result<EpisodeSettings> {
        let settings = self.merge(file);
        if settings.max_turns < 2 {
            bail!("--max-turns must be at least 2 (the user's task counts as attacker turn 1)");
        }
        if let Some(listen) = settings.mcp_listen
            && listen.ip().to_canonical().is_unspecified()
        {
            bail!(
                "--mcp-listen {listen}: name the address the agent reaches (it goes into the tools' URL the agent is given), not the unspecified address"
            );
        }
        if settings.mcp_bind.to_canonical().is_unspecified() {
            bail!(
                "--mcp-bind {}: name the address the agent reaches (it goes into the tools' URL the agent is given), not the unspecified address",
                settings.mcp_bind
            );
        }
        Ok(settings)
    }

    /// Flags over the config file over the defaults, as `config show` reports them.
    pub fn merge(&self, file: &RunSettings) -> EpisodeSettings {
        let defaults = EpisodeSettings::default();
        EpisodeSettings {
            max_turns: self.max_turns.or(file.max_turns).unwrap_or(defaults.max_turns),
            max_tool_calls: self.max_tool_calls.or(file.max_tool_calls).unwrap_or(defaults.max_tool_calls),
            seed: self.seed.or(file.seed),
            temperature: self.temperature,
            stream: !self.no_stream && file.stream.unwrap_or(defaults.stream),
            judge_live: self.judge_live,
            start_paused: self.paused,
            mcp_bind: self.agent.mcp_bind.unwrap_or(defaults.mcp_bind),
            agent_tools: self.agent.agent_tools.as_deref() != Some("none"),
            mcp_listen: self.agent.mcp_listen,
            launch: self.agent.launch.clone(),
            agent_wait: self.agent.agent_wait.map_or(defaults.agent_wait, std::time::Duration::from_secs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_beat_the_file_and_the_file_beats_the_defaults() {
        let file =
            RunSettings { max_turns: Some(6), max_tool_calls: Some(4), seed: Some(1), stream: Some(false) };
        let flags =
            SettingFlags { max_tool_calls: Some(9), temperature: Some(0.5), ..SettingFlags::default() };
        let s = flags.resolve(&file).unwrap();
        assert_eq!((s.max_turns, s.max_tool_calls, s.seed, s.temperature), (6, 9, Some(1), Some(0.5)));
        assert!(!s.stream, "the file turned streaming off");
        let s = SettingFlags::default().resolve(&RunSettings::default()).unwrap();
        assert_eq!(s, EpisodeSettings::default());
        assert!(s.stream && s.max_turns == 10 && s.max_tool_calls == 20);
    }

    #[test]
    fn fewer_than_two_turns_is_refused_from_either_source() {
        let one = SettingFlags { max_turns: Some(1), ..SettingFlags::default() };
        assert!(one.resolve(&RunSettings::default()).unwrap_err().to_string().contains("at least 2"));
        let file = RunSettings { max_turns: Some(1), ..RunSettings::default() };
        assert!(SettingFlags::default().resolve(&file).is_err());
    }
}
