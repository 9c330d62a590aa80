//! Parsing the attacker model's reply (converse-reference.md §2.3).

use serde_json::Value;

/// What the attacker said: `text` is delivered to the assistant verbatim.
#[derive(Debug, Clone, PartialEq)]
pub struct AttackerReply {
    pub text: String,
    pub details: Option<Value>,
}

/// Takes the text from the first `{` to the last `}` (the whole stripped
/// reply if there is no such pair), parses it as strict JSON, and requires
/// an object. A missing or non-string `text` gives `""`, as MASEval's
/// `.get("text", "")` would for a missing key (a non-string value is
/// written as JSON rather than failing). The caller retries up to 3 times.
pub fn parse_attacker_reply(raw: &str) -> Result<AttackerReply, String> {
    let candidate = match (raw.find('{'), raw.rfind('}')) {
        (Some(start), Some(end)) if start < end => &raw[start..=end],
        _ => raw.trim(),
    };
    let value: Value =
        serde_json::from_str(candidate).map_err(|e| format!("attacker reply is not valid JSON: {e}"))?;
    let Value::Object(mut map) = value else {
        return Err("attacker reply is JSON but not an object".into());
    };
    let text = match map.remove("text") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s,
        Some(other) => other.to_string(),
    };
    Ok(AttackerReply { text, details: map.remove("details") })
}
