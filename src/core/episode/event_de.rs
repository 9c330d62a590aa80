//! Reading an [`Event`] without buffering it.
//!
//! A derived `Deserialize` for `seq`, `at` and a flattened, internally tagged body buffers every
//! field of every event (serde's `Content`) before it knows the kind, so each text is copied
//! once more and each event allocates a map. Writers put `seq`, `at` and `kind` first: then
//! the rest of the object is read directly as the body of that kind. Any other order is read
//! as before, through a buffered map (the same result and the same messages, less fast).

use std::fmt;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::event::{
    Control, End, EpisodeHeader, ErrorEvent, Event, EventBody, Message, ToolCall, ToolResult, Verdict,
};

/// The derived reading, for events whose keys come in another order.
#[derive(serde::Deserialize)]
struct Buffered {
    seq: u64,
    at: String,
    #[serde(flatten)]
    body: EventBody,
}

#[derive(serde::Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
enum Kind {
    Episode,
    Message,
    ToolCall,
    ToolResult,
    Verdict,
    Control,
    Error,
    End,
}

enum Key {
    Seq,
    At,
    Kind,
    Other(String),
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(match v {
                    "seq" => Key::Seq,
                    "at" => Key::At,
                    "kind" => Key::Kind,
                    other => Key::Other(other.to_string()),
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

impl Key {
    fn name(&self) -> &str {
        match self {
            Key::Seq => "seq",
            Key::At => "at",
            Key::Kind => "kind",
            Key::Other(name) => name,
        }
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(EventVisitor)
    }
}

struct EventVisitor;

impl<'de> Visitor<'de> for EventVisitor {
    type Value = Event;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a journal event")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Event, A::Error> {
        let (mut seq, mut at) = (None, None);
        loop {
            let Some(key) = map.next_key::<Key>()? else {
                return buffered(Map::new(), seq, at, None, map);
            };
            match key {
                Key::Seq if seq.is_none() => seq = Some(map.next_value::<u64>()?),
                Key::At if at.is_none() => at = Some(map.next_value::<String>()?),
                Key::Kind if seq.is_some() && at.is_some() => {
                    let (Some(seq), Some(at)) = (seq, at) else { unreachable!() };
                    let kind = map.next_value::<Kind>()?;
                    let body = body(kind, MapAccessDeserializer::new(map))?;
                    return Ok(Event { seq, at, body });
                }
                other => return buffered(Map::new(), seq, at, Some(other), map),
            }
        }
    }
}

/// The rest of the object, read as the body of `kind`.
fn body<'de, D: Deserializer<'de>>(kind: Kind, rest: D) -> Result<EventBody, D::Error> {
    Ok(match kind {
        Kind::Episode => EventBody::Episode(Box::new(EpisodeHeader::deserialize(rest)?)),
        Kind::Message => EventBody::Message(Message::deserialize(rest)?),
        Kind::ToolCall => EventBody::ToolCall(Box::new(ToolCall::deserialize(rest)?)),
        Kind::ToolResult => EventBody::ToolResult(ToolResult::deserialize(rest)?),
        Kind::Verdict => EventBody::Verdict(Box::new(Verdict::deserialize(rest)?)),
        Kind::Control => EventBody::Control(Control::deserialize(rest)?),
        Kind::Error => EventBody::Error(ErrorEvent::deserialize(rest)?),
        Kind::End => EventBody::End(End::deserialize(rest)?),
    })
}

/// The event from everything read so far and the rest of the object, buffered.
fn buffered<'de, A: MapAccess<'de>>(
    mut fields: Map<String, Value>,
    seq: Option<u64>,
    at: Option<String>,
    pending: Option<Key>,
    mut map: A,
) -> Result<Event, A::Error> {
    if let Some(seq) = seq {
        fields.insert("seq".into(), seq.into());
    }
    if let Some(at) = at {
        fields.insert("at".into(), at.into());
    }
    if let Some(key) = pending {
        let value = map.next_value::<Value>()?;
        fields.insert(key.name().to_string(), value);
    }
    while let Some(key) = map.next_key::<Key>()? {
        let value = map.next_value::<Value>()?;
        fields.insert(key.name().to_string(), value);
    }
    let Buffered { seq, at, body } =
        Buffered::deserialize(Value::Object(fields)).map_err(de::Error::custom)?;
    Ok(Event { seq, at, body })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The direct reading and the buffered one agree, in any key order.
    #[test]
    fn any_key_order_reads_the_same_event() {
        let lines = [
            r#"{"seq":3,"at":"t","kind":"message","turn":1,"from":"attacker","to":"assistant","text":"hi\nthere"}"#,
            r#"{"kind":"message","seq":3,"at":"t","turn":1,"from":"attacker","to":"assistant","text":"hi\nthere"}"#,
            r#"{"text":"hi\nthere","to":"assistant","from":"attacker","turn":1,"kind":"message","at":"t","seq":3}"#,
            r#"{"seq":3,"kind":"message","turn":1,"from":"attacker","at":"t","to":"assistant","text":"hi\nthere"}"#,
        ];
        let events: Vec<Event> = lines.iter().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert!(events.windows(2).all(|w| w[0] == w[1]));
        let EventBody::Message(m) = &events[0].body else { panic!() };
        assert_eq!((events[0].seq, m.text.as_str()), (3, "hi\nthere"));
        // Every kind goes through the direct reading and back.
        for line in [
            r#"{"seq":0,"at":"t","kind":"episode","format":"converse-tui/1","id":"e","task":{"id":"x","extra":1},"config":{}}"#,
            r#"{"seq":1,"at":"t","kind":"tool_call","turn":1,"call_id":"c","tool":"send","args":{"to":"a"}}"#,
            r#"{"seq":2,"at":"t","kind":"tool_result","turn":1,"call_id":"c","tool":"send","output":"ok","ok":true}"#,
            r#"{"seq":3,"at":"t","kind":"verdict","judge":"j","method":"rule","outcome":"fail","details":{"a":1}}"#,
            r#"{"seq":4,"at":"t","kind":"control","action":"pause"}"#,
            r#"{"seq":5,"at":"t","kind":"error","source":"s","message":"m","turn":2}"#,
            r#"{"seq":6,"at":"t","kind":"end","reason":"max_turns","turns":3}"#,
        ] {
            let event: Event = serde_json::from_str(line).unwrap();
            let back = serde_json::to_string(&event).unwrap();
            assert_eq!(
                serde_json::from_str::<Value>(&back).unwrap(),
                serde_json::from_str::<Value>(line).unwrap()
            );
            assert_eq!(serde_json::from_str::<Event>(&back).unwrap(), event);
        }
    }

    #[test]
    fn bad_events_are_refused_in_either_reading() {
        for line in [
            r#"{"seq":1,"at":"t","kind":"bogus","turn":1}"#,
            r#"{"kind":"bogus","seq":1,"at":"t"}"#,
            r#"{"seq":1,"at":"t","kind":"message","turn":1,"from":"attacker","to":"assistant"}"#,
            r#"{"seq":1,"at":"t"}"#,
            r#"{"at":"t","kind":"end","reason":"max_turns","turns":3}"#,
            r#"{"seq":"one","at":"t","kind":"end","reason":"max_turns","turns":3}"#,
            r#"[1,2]"#,
        ] {
            assert!(serde_json::from_str::<Event>(line).is_err(), "{line}");
        }
        let e = serde_json::from_str::<Event>(r#"{"seq":1,"at":"t","kind":"bogus"}"#).unwrap_err();
        assert!(e.to_string().contains("unknown variant `bogus`"), "{e}");
    }
}
