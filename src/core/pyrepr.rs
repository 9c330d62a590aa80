//! Python's `repr()`/`str()` of the values the environment tools touch.
//!
//! MASEval's `search_emails` matches against `str(email_dict)`, and Python
//! formats non-string tool arguments with `str()`; reproducing both keeps
//! what the assistant model sees identical to the reference.

use serde_json::Value;

/// `repr(s)` for a Python `str`: single quotes unless the text holds a single
/// quote and no double quote; `\\`, the quote, `\n`, `\r`, `\t` escaped;
/// other non-printable characters as `\xNN`, `\uNNNN` or `\UNNNNNNNN`.
///
/// Python decides printability from the Unicode database; we cover the
/// controls, separators and format characters that occur in real text. An
/// unassigned code point (which Python escapes) is kept as is.
pub fn repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let n = c as u32;
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else if n <= 0xffff {
                    out.push_str(&format!("\\u{n:04x}"));
                } else {
                    out.push_str(&format!("\\U{n:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `str.isprintable()` for one character, approximately (see [`repr_str`]).
fn is_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() {
        return false;
    }
    let n = c as u32;
    !matches!(n,
        // Zs other than space, Zl, Zp.
        0xa0 | 0x1680 | 0x2000..=0x200a | 0x2028 | 0x2029 | 0x202f | 0x205f | 0x3000
        // Cf.
        | 0xad | 0x600..=0x605 | 0x61c | 0x6dd | 0x70f | 0x180e | 0x200b..=0x200f | 0x202a..=0x202e
        | 0x2060..=0x2064 | 0x2066..=0x206f | 0xfeff | 0xfff9..=0xfffb | 0x110bd | 0xe0001
        | 0xe0020..=0xe007f
        // Co (private use) and Cs cannot occur in a Rust char except private use.
        | 0xe000..=0xf8ff | 0xf0000..=0xffffd | 0x100000..=0x10fffd
        // Noncharacters are Cn.
        | 0xfdd0..=0xfdef | 0xfffe | 0xffff)
}

/// `repr()` of a dict whose values are strings, keys in the given order.
pub fn repr_str_dict<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let items: Vec<String> =
        pairs.into_iter().map(|(k, v)| format!("{}: {}", repr_str(k), repr_str(v))).collect();
    format!("{{{}}}", items.join(", "))
}

/// `repr()` of a value parsed from JSON (as Python's `json.loads` would make it).
pub fn repr_value(v: &Value) -> String {
    match v {
        Value::String(s) => repr_str(s),
        Value::Array(items) => format!("[{}]", items.iter().map(repr_value).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            let items: Vec<String> =
                map.iter().map(|(k, v)| format!("{}: {}", repr_str(k), repr_value(v))).collect();
            format!("{{{}}}", items.join(", "))
        }
        other => str_value(other),
    }
}

/// `str()` of a value parsed from JSON: strings as they are, `None`, `True`,
/// `False`, numbers as JSON writes them (Python writes `1e10` as `10000000000.0`;
/// close enough for an f-string in a tool reply), containers as their repr.
pub fn str_value(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Array(_) | Value::Object(_) => repr_value(v),
    }
}

/// Python's type name of a JSON value, for `AttributeError` messages.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "NoneType",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_f64() => "float",
        Value::Number(_) => "int",
        Value::String(_) => "str",
        Value::Array(_) => "list",
        Value::Object(_) => "dict",
    }
}

/// Python's `json.dumps(x, indent=2)`: non-ASCII escaped as `\uXXXX` (`ensure_ascii`),
/// so prompts show models the same text the reference does.
pub fn json_dumps_indent2(v: &Value) -> String {
    let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
    let mut out = String::with_capacity(pretty.len());
    for c in pretty.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let mut buf = [0u16; 2];
            for unit in c.encode_utf16(&mut buf) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        }
    }
    out
}
