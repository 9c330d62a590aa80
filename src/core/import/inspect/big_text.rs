//! Texts too large to be held twice. serde_json gathers every string of a streamed entry in its
//! scratch buffer and copies it out, so a 500 MiB tool result would be in memory twice while its
//! sample parses. Instead, while an entry inflates, every JSON string longer than [`DIVERT_OVER`]
//! bytes is taken out of the stream into a buffer of its own ([`Diverting`]) and a short mark is
//! parsed in its place; once the sample's episodes are built, [`BigTexts::restore`] puts the texts
//! back (see [`super::held`]: a text is held once).

use std::io::{self, Read};

use memchr::{memchr, memchr2, memmem};

use super::held::{BigTexts, END};
use crate::core::episode::journal::describe_json_error;

/// Strings longer than this (escaped, in bytes) are diverted: small enough that the string being
/// read is held in a buffer malloc reuses (a larger one was mapped afresh for every sample, and
/// reading every sample of a 1 GB log spent a third of its time in page faults). The fuzz build
/// diverts nearly every string, so the fuzzer reaches this path.
#[cfg(not(feature = "fuzzing"))]
pub const DIVERT_OVER: usize = 64 << 10;
#[cfg(feature = "fuzzing")]
pub const DIVERT_OVER: usize = 8;

/// How a JSON string holds a NUL, which every mark begins with (JSON has no other way to write one).
const ESCAPED_NUL: &[u8] = br"\u0000";

/// A long text that is not valid JSON (its problem).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BadText(String);

/// Why parsing a stream read through [`Diverting`] failed: a long text's own problem, another I/O
/// error (`io_what`: what failed), or the JSON's problem and where it is.
pub fn parse_problem(e: serde_json::Error, io_what: &str) -> String {
    if !e.is_io() {
        return describe_json_error(&e);
    }
    let error = io::Error::from(e);
    match error.get_ref().and_then(|inner| inner.downcast_ref::<BadText>()) {
        Some(bad) => bad.to_string(),
        None => format!("{io_what}: {error}"),
    }
}

/// A JSON stream with its long strings diverted into a [`BigTexts`] (see the module's comment).
/// Outside strings JSON holds no `"`, so a quote always opens one; the structure around them is
/// followed only to tell an object's keys, which are never diverted, from values.
pub struct Diverting<'a, R> {
    inner: R,
    texts: &'a mut BigTexts,
    over: usize,
    chunk: Box<[u8]>,
    /// Bytes ready for the parser, and how many of them it has read.
    out: Vec<u8>,
    read: usize,
    in_string: bool,
    /// Whether each open container is an object, innermost last.
    objects: Vec<bool>,
    /// The next string is an object's key; the current string is one.
    key_next: bool,
    in_key: bool,
    /// The last byte inside the string was an escaping backslash.
    escaped: bool,
    /// The string being read, from its opening quote, while it is short enough to pass on.
    pending: Vec<u8>,
    /// The string being diverted (without its quotes, still escaped).
    diverted: Option<Vec<u8>>,
    ended: bool,
}

impl<'a, R: Read> Diverting<'a, R> {
    pub fn new(inner: R, texts: &'a mut BigTexts) -> Self {
        Self::diverting_over(inner, texts, DIVERT_OVER)
    }

    fn diverting_over(inner: R, texts: &'a mut BigTexts, over: usize) -> Self {
        Diverting {
            inner,
            texts,
            over,
            chunk: vec![0; 64 * 1024].into_boxed_slice(),
            out: Vec::new(),
            read: 0,
            in_string: false,
            objects: Vec::new(),
            key_next: false,
            in_key: false,
            escaped: false,
            pending: Vec::new(),
            diverted: None,
            ended: false,
        }
    }

    /// Passes the first `len` bytes of the chunk on, diverting what belongs to a long string.
    fn take_in(&mut self, len: usize) -> io::Result<()> {
        let chunk = std::mem::take(&mut self.chunk);
        let done = self.take_in_bytes(&chunk[..len]);
        self.chunk = chunk;
        done
    }

    fn take_in_bytes(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            if !self.in_string {
                let Some(quote) = memchr(b'"', bytes) else {
                    self.follow(bytes);
                    return Ok(());
                };
                self.follow(&bytes[..quote]);
                self.in_string = true;
                self.in_key = self.key_next;
                self.pending.clear();
                self.pending.push(b'"');
                bytes = &bytes[quote + 1..];
                continue;
            }
            if self.escaped {
                self.escaped = false;
                self.push(&bytes[..1]);
                bytes = &bytes[1..];
                continue;
            }
            match memchr2(b'"', b'\\', bytes) {
                None => {
                    self.push(bytes);
                    return Ok(());
                }
                Some(stop) if bytes[stop] == b'\\' => {
                    self.push(&bytes[..=stop]);
                    self.escaped = true;
                    bytes = &bytes[stop + 1..];
                }
                Some(quote) => {
                    self.push(&bytes[..quote]);
                    self.end_string()?;
                    bytes = &bytes[quote + 1..];
                }
            }
        }
        Ok(())
    }

    /// Passes on bytes outside any string, following the structure.
    fn follow(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            match byte {
                b'{' | b'[' => {
                    self.objects.push(byte == b'{');
                    self.key_next = byte == b'{';
                }
                b'}' | b']' => {
                    self.objects.pop();
                }
                b',' => self.key_next = self.objects.last() == Some(&true),
                b':' => self.key_next = false,
                _ => {}
            }
        }
        self.out.extend_from_slice(bytes);
    }

    /// Adds bytes of the current string where they go.
    fn push(&mut self, bytes: &[u8]) {
        if let Some(diverted) = &mut self.diverted {
            diverted.extend_from_slice(bytes);
            return;
        }
        self.pending.extend_from_slice(bytes);
        if self.pending.len() > self.over && !self.in_key {
            let mut diverted = Vec::with_capacity(2 * self.pending.len());
            diverted.extend_from_slice(&self.pending[1..]);
            self.pending.clear();
            self.diverted = Some(diverted);
        }
    }

    fn end_string(&mut self) -> io::Result<()> {
        self.in_string = false;
        let raw = match self.diverted.take() {
            Some(raw) => raw,
            // A short text that could hold a mark is kept aside as well, so that it comes back as
            // itself instead of as the long text its mark would name.
            None if !self.in_key && memmem::find(&self.pending, ESCAPED_NUL).is_some() => {
                self.pending[1..].to_vec()
            }
            None => {
                self.out.extend_from_slice(&self.pending);
                self.out.push(b'"');
                return Ok(());
            }
        };
        let text =
            unescape(raw).map_err(|problem| io::Error::new(io::ErrorKind::InvalidData, BadText(problem)))?;
        let mark = self.texts.keep(text);
        // The mark as a JSON string: its NULs escaped.
        self.out.push(b'"');
        self.out.extend_from_slice(mark.replace(END, "\\u0000").as_bytes());
        self.out.push(b'"');
        Ok(())
    }
}

impl<R: Read> Read for Diverting<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.read == self.out.len() {
            self.out.clear();
            self.read = 0;
            if self.ended {
                return Ok(0);
            }
            let n = self.inner.read(&mut self.chunk)?;
            if n == 0 {
                // A string still open at the end: the parser finds it unterminated.
                self.ended = true;
                if let Some(raw) = self.diverted.take() {
                    self.out.push(b'"');
                    self.out.extend_from_slice(&raw[..raw.len().min(self.over)]);
                } else if self.in_string {
                    self.out.append(&mut self.pending);
                }
                continue;
            }
            self.take_in(n)?;
        }
        let n = buf.len().min(self.out.len() - self.read);
        buf[..n].copy_from_slice(&self.out[self.read..self.read + n]);
        self.read += n;
        Ok(n)
    }
}

/// The text a JSON string's escaped bytes stand for, unescaped in place: an escape is never shorter
/// than what it stands for, so writing never overtakes reading and no second buffer is needed.
fn unescape(mut raw: Vec<u8>) -> Result<String, String> {
    let len = raw.len();
    let first = memchr(b'\\', &raw).unwrap_or(len);
    let (mut from, mut to) = (first, first);
    while from < raw.len() {
        if raw[from] != b'\\' {
            let run_end = memchr(b'\\', &raw[from..]).map_or(raw.len(), |i| from + i);
            raw.copy_within(from..run_end, to);
            to += run_end - from;
            from = run_end;
            continue;
        }
        let escape = *raw.get(from + 1).ok_or("a text ends inside an escape")?;
        from += 2;
        let byte = match escape {
            b'"' | b'\\' | b'/' => escape,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let (c, used) = unicode_escape(&raw[from - 2..])?;
                from += used - 2;
                let mut utf8 = [0u8; 4];
                let encoded = c.encode_utf8(&mut utf8).as_bytes();
                raw[to..to + encoded.len()].copy_from_slice(encoded);
                to += encoded.len();
                continue;
            }
            other => return Err(format!("an unknown escape \\{} in a text", other.escape_ascii())),
        };
        raw[to] = byte;
        to += 1;
    }
    raw.truncate(to);
    // Grown by doubling: up to half of it spare (shrinking in place, as the allocator does for a
    // block this size, copies nothing).
    if raw.capacity() - raw.len() > raw.len() / 8 {
        raw.shrink_to_fit();
    }
    String::from_utf8(raw).map_err(|_| format!("a text of {len} bytes is not UTF-8"))
}

/// The character a `\uXXXX` escape at the start of `raw` stands for (a surrogate pair read as one;
/// a lone surrogate read as U+FFFD), and how many bytes it took.
fn unicode_escape(raw: &[u8]) -> Result<(char, usize), String> {
    let hex = |at: usize| -> Result<u32, String> {
        let digits = raw.get(at..at + 4).ok_or("a text ends inside a \\u escape")?;
        std::str::from_utf8(digits)
            .ok()
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .ok_or_else(|| format!("a bad \\u escape in a text: \\u{}", digits.escape_ascii()))
    };
    let high = hex(2)?;
    if (0xD800..0xDC00).contains(&high) && raw.get(6..8) == Some(b"\\u") {
        let low = hex(8)?;
        if (0xDC00..0xE000).contains(&low) {
            let c = char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00));
            return Ok((c.unwrap_or(char::REPLACEMENT_CHARACTER), 12));
        }
    }
    Ok((char::from_u32(high).unwrap_or(char::REPLACEMENT_CHARACTER), 6))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn through(json: &str, over: usize, chunk: usize) -> Result<Value, String> {
        let mut texts = BigTexts::default();
        let mut reader = Diverting::diverting_over(json.as_bytes(), &mut texts, over);
        reader.chunk = vec![0; chunk].into_boxed_slice();
        let mut value: Value =
            serde_json::from_reader(io::BufReader::new(reader)).map_err(|e| e.to_string())?;
        texts.restore_value(&mut value);
        Ok(value)
    }

    #[test]
    fn long_strings_come_back_as_they_were_written() {
        let json = r#"{"a": "short", "long \"key\"": ["a text with \\ and \n and \u00e9 and \ud83d\ude00 and \/", "\u00001"], "n": 1}"#;
        let direct: Value = serde_json::from_str(json).unwrap();
        for over in [0, 3, 8, 1000] {
            for chunk in [1, 2, 7, 4096] {
                assert_eq!(through(json, over, chunk).unwrap(), direct, "over {over}, chunk {chunk}");
            }
        }
    }

    #[test]
    fn a_text_that_looks_like_a_mark_comes_back_as_itself() {
        let json = r#"{"long": "0123456789", "fake": "\u0000converse-text:0\u0000", "escaped": "<\u0000\u0063onverse-text:0\u0000>", "\u0000converse-text:0\u0000": 1}"#;
        let direct: Value = serde_json::from_str(json).unwrap();
        assert_eq!(through(json, 8, 4096).unwrap(), direct);
    }

    #[test]
    fn a_lone_surrogate_is_the_replacement_character() {
        let value = through(r#"["abc\ud800def\udc00"]"#, 0, 64).unwrap();
        assert_eq!(value[0], "abc\u{FFFD}def\u{FFFD}");
    }

    #[test]
    fn a_bad_long_string_is_an_error_naming_it() {
        let error = through(r#"["abcdefgh\q"]"#, 2, 64).unwrap_err();
        assert!(error.contains("unknown escape \\q"), "{error}");
        let error = through("[\"abcdefgh\\u12zz\"]", 2, 64).unwrap_err();
        assert!(error.contains("bad \\u escape"), "{error}");
        let error = through("[\"abcdefgh\\u12\"]", 2, 64).unwrap_err();
        assert!(error.contains("ends inside a \\u escape"), "{error}");
        assert!(through(r#"["abcdefgh"#, 2, 64).is_err());
    }

    proptest! {
        #[test]
        fn any_json_reads_the_same_diverted(value in json_value(), over in 0usize..12, chunk in 1usize..40) {
            let json = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(through(&json, over, chunk).unwrap(), value);
        }
    }

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i32>().prop_map(Value::from),
            "(\\PC|[\"\\\\\n\t\u{0}\u{1f}]){0,24}".prop_map(Value::String),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[a-z\"\\\\]{0,12}", inner), 0..4)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }
}
