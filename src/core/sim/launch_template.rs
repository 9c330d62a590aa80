//! The placeholders of `--launch 'COMMAND'`, of a `cmd:` agent's command line and of an A2A
//! agent's URL (issue 37): `{port}`, `{mcp_url}`, `{mcp_token}` and `{mcp_authorization}`,
//! filled per slot into words already split like a shell would (never run by one), so a value
//! with a space (`Bearer …`) stays one argument and `env K={mcp_url} …` works.

/// What a slot fills in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fill {
    /// The agent's own port (`{port}`), chosen for the slot.
    pub port: u16,
    pub mcp_url: String,
    pub mcp_token: String,
}

const NAMES: [&str; 4] = ["port", "mcp_url", "mcp_token", "mcp_authorization"];

impl Fill {
    fn value(&self, name: &str) -> Option<String> {
        match name {
            "port" => Some(self.port.to_string()),
            "mcp_url" => Some(self.mcp_url.clone()),
            "mcp_token" => Some(self.mcp_token.clone()),
            "mcp_authorization" => Some(format!("Bearer {}", self.mcp_token)),
            _ => None,
        }
    }

    /// `text` with every placeholder filled.
    pub fn apply(&self, text: &str) -> String {
        let mut out = text.to_string();
        for name in NAMES {
            if let Some(value) = self.value(name) {
                out = out.replace(&format!("{{{name}}}"), &value);
            }
        }
        out
    }

    /// The command split like a shell would, each word filled.
    pub fn words(&self, command: &str) -> Result<Vec<String>, String> {
        Ok(split(command)?.iter().map(|w| self.apply(w)).collect())
    }

    /// The filled command as one line for the journal and the log, the token masked.
    pub fn masked(&self, command: &str) -> Result<String, String> {
        let words = self.words(command)?;
        let line = shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| words.join(" "));
        Ok(mask(&line, &self.mcp_token))
    }
}

/// `text` with every occurrence of `token` masked.
pub fn mask(text: &str, token: &str) -> String {
    if token.is_empty() { text.to_string() } else { text.replace(token, "***") }
}

/// A command line split like a shell would (never run by one); empty words dropped.
pub fn split(command: &str) -> Result<Vec<String>, String> {
    shlex::split(command)
        .map(|words| words.into_iter().filter(|w| !w.is_empty()).collect::<Vec<_>>())
        .filter(|words| !words.is_empty())
        .ok_or_else(|| {
            format!("cannot split the command line {}", crate::core::sanitize::excerpt(command, 200))
        })
}

/// Whether `text` names `{port}`.
pub fn names_port(text: &str) -> bool {
    text.contains("{port}")
}

/// The first `{word}` in `text` that is not a placeholder we fill (a typo like `{mcp-url}`).
pub fn unknown_placeholder(text: &str) -> Option<String> {
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let close = after.find('}')?;
        let name = &after[..close];
        let looks_like_one =
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c));
        if looks_like_one && !NAMES.contains(&name) {
            return Some(format!("{{{name}}}"));
        }
        rest = &after[close + 1..];
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill() -> Fill {
        Fill { port: 9101, mcp_url: "http://127.0.0.1:8765/mcp".into(), mcp_token: "s3cret".into() }
    }

    #[test]
    fn placeholders_fill_words_split_like_a_shell_would() {
        let words = fill()
            .words("env MCP_URL={mcp_url} 'MCP_AUTH={mcp_authorization}' uvicorn app:app --port {port}")
            .unwrap();
        assert_eq!(
            words,
            [
                "env",
                "MCP_URL=http://127.0.0.1:8765/mcp",
                "MCP_AUTH=Bearer s3cret",
                "uvicorn",
                "app:app",
                "--port",
                "9101"
            ]
        );
        // A value with a space stays one word even unquoted in the template.
        assert_eq!(fill().words("agent --auth {mcp_authorization}").unwrap()[2], "Bearer s3cret");
        assert_eq!(fill().apply("http://127.0.0.1:{port}"), "http://127.0.0.1:9101");
    }

    #[test]
    fn the_journal_gets_the_command_with_the_token_masked() {
        let line = fill().masked("env T={mcp_token} A={mcp_authorization} run s3cret-literal").unwrap();
        assert_eq!(line, "env 'T=***' 'A=Bearer ***' run ***-literal");
        assert!(!line.contains("s3cret"));
    }

    #[test]
    fn a_typo_in_a_placeholder_is_named_and_json_is_not_one() {
        assert_eq!(unknown_placeholder("run --url {mcp-url}"), Some("{mcp-url}".into()));
        assert_eq!(unknown_placeholder("run --port {port} {mcp_token}"), None);
        assert_eq!(unknown_placeholder(r#"run --json '{"a": 1}'"#), None);
        assert!(split("run 'unterminated").is_err());
    }
}
