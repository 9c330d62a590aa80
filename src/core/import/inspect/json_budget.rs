//! How much free-form JSON one read of a `.eval` may hold (issue 36). Inside an entry's inflation
//! cap (see [`super::caps`]), free-form fields — metadata, scores, store, tool arguments,
//! attachments — are where JSON grows most once parsed (`[0,0,…]` is 2 bytes a value in the
//! file, 32 in memory): their values are counted as they are parsed, at most
//! [`VALUES_PER_READ`] per read (a header, the summaries, a sample with its chunks), and a list
//! of summaries holds at most twice as many rows as the log holds samples (each summary names
//! one; a retried sample may be listed twice).

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// Free-form JSON values one read may hold: about 256 MiB parsed.
pub const VALUES_PER_READ: u64 = 4 << 20;

thread_local! {
    /// What the read under way may still parse (`u64::MAX` outside a read: no limit).
    static LEFT: Cell<u64> = const { Cell::new(u64::MAX) };
}

/// Runs `read` with at most [`VALUES_PER_READ`] free-form values to parse.
pub fn within<R>(read: impl FnOnce() -> R) -> R {
    let before = LEFT.replace(VALUES_PER_READ);
    let read = read();
    LEFT.set(before);
    read
}

fn count<E: de::Error>() -> Result<(), E> {
    let left = LEFT.get();
    if left == 0 {
        return Err(E::custom(format_args!(
            "more than {VALUES_PER_READ} values in its free-form fields (metadata, scores, store, tool \
             arguments): refused as a bomb"
        )));
    }
    LEFT.set(left - 1);
    Ok(())
}

/// A free-form JSON value parsed on its own (an item of an attachments chunk), counted.
#[derive(serde::Deserialize)]
#[serde(transparent)]
pub struct Free(#[serde(deserialize_with = "value")] pub Value);

/// A free-form JSON object parsed on its own (a chunked sample's `metadata.json`), counted.
#[derive(serde::Deserialize)]
#[serde(transparent)]
pub struct FreeMap(#[serde(deserialize_with = "map")] pub Map<String, Value>);

/// A free-form JSON value, counted.
pub fn value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Value, D::Error> {
    Counted.deserialize(deserializer)
}

/// A free-form JSON object (`null` is an empty one), counted.
pub fn map<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Map<String, Value>, D::Error> {
    match value(deserializer)? {
        Value::Object(map) => Ok(map),
        Value::Null => Ok(Map::new()),
        other => Err(de::Error::invalid_type(unexpected(&other), &"an object")),
    }
}

/// An optional free-form JSON object, counted.
pub fn opt_map<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Map<String, Value>>, D::Error> {
    match value(deserializer)? {
        Value::Object(map) => Ok(Some(map)),
        Value::Null => Ok(None),
        other => Err(de::Error::invalid_type(unexpected(&other), &"an object")),
    }
}

/// An optional free-form JSON value (`null` is none), counted.
pub fn opt_value<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Ok(Some(value(deserializer)?).filter(|v| !v.is_null()))
}

fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(_) => de::Unexpected::Other("a number"),
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Null | Value::Object(_) => de::Unexpected::Map,
    }
}

/// Builds a [`Value`] as serde_json does, counting every value.
struct Counted;

impl<'de> DeserializeSeed<'de> for Counted {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counted {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        count()?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        count()?;
        Ok(Value::from(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        count()?;
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        count()?;
        Ok(Value::from(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        count()?;
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        count()?;
        Ok(Value::String(v))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        count()?;
        Ok(Value::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        count()?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Counted)? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        count()?;
        let mut map = Map::new();
        while let Some(key) = access.next_key::<String>()? {
            let value = access.next_value_seed(Counted)?;
            map.insert(key, value);
        }
        Ok(Value::Object(map))
    }
}

/// A JSON list of at most `max` items of `T`; more is an error naming `what` the bound is.
pub struct AtMost<T> {
    pub max: usize,
    pub what: &'static str,
    pub items: PhantomData<T>,
}

impl<'de, T: de::Deserialize<'de>> DeserializeSeed<'de> for AtMost<T> {
    type Value = Vec<T>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<T>, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de, T: de::Deserialize<'de>> Visitor<'de> for AtMost<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            if items.len() == self.max {
                return Err(de::Error::custom(format_args!(
                    "more than {} items, {}: refused as a bomb",
                    self.max, self.what
                )));
            }
            items.push(item);
        }
        Ok(items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    struct Holder {
        #[serde(deserialize_with = "value")]
        v: Value,
    }

    #[test]
    fn values_are_counted_within_a_read_only() {
        let json = r#"{"v": {"a": [1, 2.5, "x", null, true, {"b": -1}]}}"#;
        let parsed: Holder = within(|| serde_json::from_str(json)).unwrap();
        assert_eq!(
            parsed.v,
            serde_json::from_str::<Value>(r#"{"a": [1, 2.5, "x", null, true, {"b": -1}]}"#).unwrap()
        );
        LEFT.set(8);
        let error = serde_json::from_str::<Holder>(json).unwrap_err().to_string();
        LEFT.set(u64::MAX);
        assert!(error.contains("more than") && error.contains("refused as a bomb"), "{error}");
    }

    #[test]
    fn a_list_over_its_bound_is_refused() {
        let seed = || AtMost::<u8> { max: 2, what: "twice the samples", items: PhantomData };
        let mut de = serde_json::Deserializer::from_str("[1, 2]");
        assert_eq!(seed().deserialize(&mut de).unwrap(), [1, 2]);
        let mut de = serde_json::Deserializer::from_str("[1, 2, 3]");
        let error = seed().deserialize(&mut de).unwrap_err().to_string();
        assert!(error.starts_with("more than 2 items, twice the samples"), "{error}");
    }
}
