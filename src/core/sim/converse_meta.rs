//! What an external assistant is told with each message (issue 26): the episode, the turn, who
//! speaks, and where its tools are. One shape for A2A's `metadata.converse` and the command
//! adapter's `converse` field.

use serde_json::{Value, json};

/// `{"episode", "turn", "from", "mcp": {"url", "headers": {"Authorization"}}}`.
pub fn converse_meta(
    episode: &str,
    turn: u32,
    from_attacker: bool,
    mcp_url: &str,
    authorization: &str,
) -> Value {
    json!({
        "episode": episode,
        "turn": turn,
        "from": if from_attacker { "attacker" } else { "user" },
        "mcp": {"url": mcp_url, "headers": {"Authorization": authorization}},
    })
}
