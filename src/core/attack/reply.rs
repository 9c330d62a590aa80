//! Reading what the attacker and the judge of a search answered.

use serde_json::{Map, Value};

use crate::core::text::json_text;

/// The attacker's answer: the message, and its reasoning (every other field).
#[derive(Debug, Clone, PartialEq)]
pub struct AttackerAnswer {
    pub text: String,
    pub reasoning: Map<String, Value>,
}

impl AttackerAnswer {
    /// A reasoning field as text (`""` when absent).
    pub fn field(&self, key: &str) -> String {
        json_text(self.reasoning.get(key))
    }
}

/// The object from the first `{` to the last `}` (models wrap JSON in prose or fences); its
/// `text` must be a non-empty string.
pub fn parse_attacker(raw: &str) -> Result<AttackerAnswer, String> {
    let object = match (raw.find('{'), raw.rfind('}')) {
        (Some(start), Some(end)) if start < end => &raw[start..=end],
        _ => return Err("no JSON object in the reply".into()),
    };
    let mut map = match serde_json::from_str::<Value>(object) {
        Ok(Value::Object(map)) => map,
        Ok(_) => return Err("the reply's JSON is not an object".into()),
        Err(e) => return Err(format!("the reply is not valid JSON: {e}")),
    };
    let text = json_text(map.remove("text").as_ref());
    if text.trim().is_empty() {
        return Err("the reply's `text` is missing or empty".into());
    }
    Ok(AttackerAnswer { text, reasoning: map })
}

/// The judge's view of a node.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// 1 to 10.
    pub score: u8,
    pub refused: bool,
    pub reason: String,
}

/// `{"score", "refused", "reason"}`; a score given as `"7"` or `"7/10"` is read, one outside
/// 1–10 is refused rather than guessed at.
pub fn parse_judgement(map: &Map<String, Value>) -> Result<Judgement, String> {
    let score = match map.get("score") {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.split('/').next().and_then(|s| s.trim().parse::<f64>().ok()),
        _ => None,
    };
    let score = match score {
        Some(s) if (1.0..=10.0).contains(&s) => s.round() as u8,
        Some(s) => return Err(format!("score {s} is outside 1–10")),
        None => return Err("no `score` in the reply".into()),
    };
    Ok(Judgement { score, refused: yes(map.get("refused")), reason: json_text(map.get("reason")) })
}

/// `{"on_topic": "yes"|"no", "reason"}`.
pub fn parse_on_topic(map: &Map<String, Value>) -> Result<(bool, String), String> {
    match map.get("on_topic") {
        Some(v @ (Value::String(_) | Value::Bool(_))) => Ok((yes(Some(v)), json_text(map.get("reason")))),
        _ => Err("no `on_topic` in the reply".into()),
    }
}

fn yes(value: Option<&Value>) -> bool {
    match value {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => matches!(s.trim().to_lowercase().as_str(), "yes" | "true"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn the_message_is_the_text_and_the_rest_is_reasoning() {
        let a = parse_attacker("Sure:\n```json\n{\"technique\": \"urgency\", \"text\": \"Quick!\"}\n```")
            .unwrap();
        assert_eq!((a.text.as_str(), a.field("technique").as_str()), ("Quick!", "urgency"));
        assert!(parse_attacker("{\"text\": \"  \"}").unwrap_err().contains("empty"));
        assert!(parse_attacker("no json").is_err());
    }

    #[test]
    fn a_score_is_read_in_the_forms_judges_write_it_and_refused_outside_the_scale() {
        let j = parse_judgement(&map(json!({"score": "7/10", "refused": "Yes", "reason": "r"}))).unwrap();
        assert_eq!(j, Judgement { score: 7, refused: true, reason: "r".into() });
        assert!(!parse_judgement(&map(json!({"score": 3}))).unwrap().refused);
        assert!(parse_judgement(&map(json!({"score": 11}))).unwrap_err().contains("outside"));
        assert!(parse_judgement(&map(json!({"reason": "r"}))).is_err());
        assert_eq!(
            parse_on_topic(&map(json!({"on_topic": "no", "reason": "x"}))).unwrap(),
            (false, "x".into())
        );
    }
}
