//! The agent card (`/.well-known/agent-card.json`): who the agent is, where its JSON-RPC endpoint
//! is and which dialect it speaks there. The interface is chosen as the official client chooses
//! it: one that says 1.0, else one that says 0.3 or later; a card of the 0.3 era
//! (`url`, `protocolVersion`, no `supportedInterfaces`) is 0.3 unless it says otherwise.

use serde_json::Value;

use super::wire::Dialect;

pub const CARD_PATH: &str = "/.well-known/agent-card.json";

/// What converse-tui needs of a card.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentCard {
    pub name: String,
    pub version: String,
    /// The JSON-RPC endpoint messages are posted to.
    pub rpc_url: String,
    pub dialect: Dialect,
    /// The card says the agent streams (`SendStreamingMessage` / `message/stream`).
    pub streaming: bool,
}

impl AgentCard {
    /// Reads a card; the problem in one line when it is not one we can talk to.
    pub fn parse(card: &Value) -> Result<AgentCard, String> {
        let name =
            card.get("name").and_then(Value::as_str).ok_or("it has no `name`: not an A2A agent card")?;
        let version = card.get("version").and_then(Value::as_str).unwrap_or("").to_string();
        let streaming = card.pointer("/capabilities/streaming").and_then(Value::as_bool).unwrap_or(false);
        let (rpc_url, dialect) = match card.get("supportedInterfaces").and_then(Value::as_array) {
            Some(interfaces) => choose(interfaces)?,
            None => {
                let url = card.get("url").and_then(Value::as_str).ok_or("it names no endpoint (`url`)")?;
                let version = card.get("protocolVersion").and_then(Value::as_str).unwrap_or("0.3.0");
                let dialect = dialect_of(version).ok_or_else(|| unsupported(version))?;
                (url.to_string(), dialect)
            }
        };
        Ok(AgentCard { name: name.to_string(), version, rpc_url, dialect, streaming })
    }

    /// How the journal header names the agent: name, version, protocol and URL.
    pub fn label(&self, url: &str) -> String {
        let version = if self.version.is_empty() { String::new() } else { format!(" {}", self.version) };
        format!("{}{version} (A2A {} at {url})", self.name, self.dialect.version())
    }
}

fn choose(interfaces: &[Value]) -> Result<(String, Dialect), String> {
    let jsonrpc: Vec<(&str, Option<&str>)> = interfaces
        .iter()
        .filter(|i| i.get("protocolBinding").and_then(Value::as_str).is_none_or(|b| b == "JSONRPC"))
        .filter_map(|i| Some((i.get("url")?.as_str()?, i.get("protocolVersion").and_then(Value::as_str))))
        .collect();
    if jsonrpc.is_empty() {
        let offered: Vec<&str> =
            interfaces.iter().filter_map(|i| i.get("protocolBinding").and_then(Value::as_str)).collect();
        return Err(format!("it offers no JSON-RPC interface (only {})", offered.join(", ")));
    }
    for wanted in [Dialect::V1_0, Dialect::V0_3] {
        if let Some((url, _)) =
            jsonrpc.iter().find(|(_, version)| dialect_of(version.unwrap_or("1.0")) == Some(wanted))
        {
            return Ok((url.to_string(), wanted));
        }
    }
    Err(unsupported(jsonrpc[0].1.unwrap_or("")))
}

/// 1.x is the 1.0 dialect, 0.3.x the 0.3 one; earlier versions are not spoken.
fn dialect_of(version: &str) -> Option<Dialect> {
    let mut numbers = version.split('.').map(|n| n.trim().parse::<u32>().ok());
    match (numbers.next().flatten(), numbers.next().flatten()) {
        (Some(1..), _) => Some(Dialect::V1_0),
        (Some(0), Some(3..)) => Some(Dialect::V0_3),
        _ => None,
    }
}

fn unsupported(version: &str) -> String {
    format!("it speaks A2A {version:?}; converse-tui speaks 1.0 and 0.3")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_1_0_interface_wins_over_a_0_3_one() {
        let card = json!({"name": "a", "version": "2", "capabilities": {"streaming": true},
            "supportedInterfaces": [
                {"url": "http://h/old", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
                {"url": "http://h/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
                {"url": "http://h/new", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]});
        let card = AgentCard::parse(&card).unwrap();
        assert_eq!(
            (card.rpc_url.as_str(), card.dialect, card.streaming),
            ("http://h/new", Dialect::V1_0, true)
        );
        assert_eq!(card.label("http://h"), "a 2 (A2A 1.0 at http://h)");
    }

    #[test]
    fn a_card_of_the_0_3_era_is_0_3() {
        let card = AgentCard::parse(&json!({"name": "old", "url": "http://h/rpc"})).unwrap();
        assert_eq!((card.dialect, card.streaming), (Dialect::V0_3, false));
        let card = json!({"name": "x", "supportedInterfaces": [{"url": "u", "protocolVersion": "0.3.0"}]});
        assert_eq!(AgentCard::parse(&card).unwrap().dialect, Dialect::V0_3);
    }

    #[test]
    fn what_cannot_be_spoken_is_said_in_one_line() {
        let grpc = json!({"name": "g", "supportedInterfaces": [{"url": "u", "protocolBinding": "GRPC"}]});
        assert_eq!(AgentCard::parse(&grpc).unwrap_err(), "it offers no JSON-RPC interface (only GRPC)");
        let ancient = json!({"name": "o", "url": "u", "protocolVersion": "0.2.5"});
        assert!(AgentCard::parse(&ancient).unwrap_err().contains("\"0.2.5\""));
        assert!(AgentCard::parse(&json!({"hello": 1})).unwrap_err().contains("not an A2A agent card"));
    }
}
