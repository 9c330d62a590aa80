//! Which external agent plays the assistant (`--assistant`, issue 26): a command on stdio
//! (`cmd:COMMAND`) or an A2A agent (`a2a:URL`).

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentSpec {
    /// The command line after `cmd:`.
    Command(String),
    /// The agent's base URL after `a2a:` (its card is under it).
    A2a(String),
}

impl AgentSpec {
    /// `cmd:COMMAND` or `a2a:http(s)://…`; the problem in one line otherwise.
    pub fn parse(spec: &str) -> Result<AgentSpec, String> {
        if let Some(command) = spec.strip_prefix("cmd:")
            && !command.trim().is_empty()
        {
            return Ok(AgentSpec::Command(command.to_string()));
        }
        if let Some(url) = spec.strip_prefix("a2a:") {
            if url.starts_with("http://") || url.starts_with("https://") {
                return Ok(AgentSpec::A2a(url.to_string()));
            }
            return Err(format!(
                "--assistant {spec:?}: expected a2a:http://HOST:PORT (the agent's base URL)"
            ));
        }
        Err(format!("--assistant {spec:?}: expected cmd:COMMAND or a2a:URL"))
    }

    /// As the user wrote it (`cmd:…`, `a2a:…`).
    pub fn spec(&self) -> String {
        match self {
            AgentSpec::Command(command) => format!("cmd:{command}"),
            AgentSpec::A2a(url) => format!("a2a:{url}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_kinds_parse_and_others_are_named() {
        assert_eq!(AgentSpec::parse("cmd:python a.py"), Ok(AgentSpec::Command("python a.py".into())));
        assert_eq!(AgentSpec::parse("a2a:http://h:9/"), Ok(AgentSpec::A2a("http://h:9/".into())));
        assert!(AgentSpec::parse("a2a:localhost:9").unwrap_err().contains("a2a:http://HOST:PORT"));
        assert!(AgentSpec::parse("cmd: ").unwrap_err().contains("expected cmd:COMMAND or a2a:URL"));
        assert_eq!(AgentSpec::parse("a2a:https://x").unwrap().spec(), "a2a:https://x");
    }
}
