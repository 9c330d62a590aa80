//! JSON for output a person may read in a terminal: `dump --json`, JSON exports, `--json` listings.
//!
//! serde_json escapes only C0 controls, `"` and `\`; a C1 control (the 8-bit CSI `\u009b`),
//! DEL, a bidi override or an invisible character would reach the reader's terminal raw.
//! Here every character [`sanitize::is_hazardous`] names is written as a `\uXXXX` escape,
//! which any JSON reader decodes back to the same text: nothing is lost.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};

use crate::core::sanitize;

/// Compact JSON with hazardous characters escaped.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::with_capacity(128);
    to_writer(&mut out, value)?;
    // Only ASCII escapes were added to serde_json's valid UTF-8.
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

/// Writes compact JSON with hazardous characters escaped.
pub fn to_writer<W: Write, T: Serialize + ?Sized>(writer: W, value: &T) -> serde_json::Result<()> {
    value.serialize(&mut Serializer::with_formatter(writer, EscapeHazards))
}

/// serde_json's compact output (the trait's defaults), strings escaped further.
struct EscapeHazards;

impl Formatter for EscapeHazards {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if sanitize::is_hazardous(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hazards_are_escaped_and_round_trip() {
        let text = "a\u{9b}2J\u{7f}\u{202E}\u{200B}\u{E0041}\x1b ü 漢";
        let json = to_string(&serde_json::json!({ "text": text })).unwrap();
        assert_eq!(json, r#"{"text":"a\u009b2J\u007f\u202e\u200b\udb40\udc41\u001b ü 漢"}"#);
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["text"], text);
    }

    #[test]
    fn plain_values_match_serde_json() {
        let value = serde_json::json!({ "a": [1, 2.5, null, true], "b": { "c": "d\"e\\f\n" } });
        assert_eq!(to_string(&value).unwrap(), serde_json::to_string(&value).unwrap());
    }
}
