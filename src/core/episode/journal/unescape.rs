//! A huge line (a 50 MB tool output) decoded without a second copy of its text: the line's own
//! buffer is unescaped in place and becomes the string.

use super::super::event::{Event, EventBody};

/// Lines at least this long are read without a second copy of their text (see [`decode_huge`]).
pub(super) const HUGE_LINE: usize = 1 << 20;

/// A complete line whose text is most of it (a 50 MB tool output), decoded with the line's own
/// buffer becoming the text: the rest of the event is read with that string left empty, then
/// the string is unescaped in place. `None` (the buffer untouched) for anything unusual, which
/// [`decode`] then reads as every other line, with the same result or message.
pub(super) fn decode_huge(line: &mut Vec<u8>) -> Option<Event> {
    use serde_json::value::RawValue;
    if line.last() != Some(&b'\n') {
        return None;
    }
    let text = std::str::from_utf8(line).ok()?;
    let fields: Vec<(&str, &RawValue)> =
        serde_json::from_str::<std::collections::BTreeMap<&str, &RawValue>>(text)
            .ok()
            .filter(|map| map.len() < 64)?
            .into_iter()
            .collect();
    let (key, raw) =
        fields.iter().filter(|(_, raw)| raw.get().starts_with('"')).max_by_key(|(_, raw)| raw.get().len())?;
    let raw = raw.get();
    if raw.len() < line.len() / 2 || has_surrogate_escape(raw.as_bytes()) {
        return None;
    }
    let start = raw.as_ptr() as usize - line.as_ptr() as usize;
    let stop = start + raw.len();
    let mut rest = Vec::with_capacity(line.len() - raw.len() + 2);
    rest.extend_from_slice(&line[..start]);
    rest.extend_from_slice(b"\"\"");
    rest.extend_from_slice(&line[stop..]);
    let mut event: Event = serde_json::from_slice(&rest).ok()?;
    let slot: &mut String = match (&mut event.body, *key) {
        (EventBody::Message(m), "text") => &mut m.text,
        (EventBody::ToolResult(r), "output") => &mut r.output,
        (EventBody::Error(e), "message") => &mut e.message,
        _ => return None,
    };
    let len = unescape_in_place(line, start + 1, stop - 1);
    line.truncate(len);
    line.shrink_to_fit();
    // Valid JSON unescaped without surrogates is UTF-8; should it not be, nothing is lost.
    *slot = String::from_utf8(std::mem::take(line))
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    Some(event)
}

/// Whether a JSON string's escapes include a UTF-16 surrogate (`\ud83d`), which
/// [`unescape_in_place`] leaves to serde_json (a lone one is an error). Errs on the side of yes.
fn has_surrogate_escape(raw: &[u8]) -> bool {
    memchr::memchr_iter(b'\\', raw).any(|i| match raw.get(i + 1..i + 4) {
        Some([b'u', d, x]) => {
            matches!(d, b'd' | b'D') && matches!(x, b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F')
        }
        _ => false,
    })
}

/// Unescapes the JSON string body `buf[from..to]` (valid JSON, no surrogate escapes) into the
/// start of `buf`; returns its length. Unescaping only shortens, so writing never overtakes reading.
fn unescape_in_place(buf: &mut [u8], from: usize, to: usize) -> usize {
    let (mut read, mut write) = (from, 0);
    while read < to {
        let Some(slash) = memchr::memchr(b'\\', &buf[read..to]) else {
            buf.copy_within(read..to, write);
            return write + (to - read);
        };
        buf.copy_within(read..read + slash, write);
        write += slash;
        read += slash;
        let escaped = buf[read + 1];
        read += 2;
        let byte = match escaped {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'b' => 0x08,
            b'f' => 0x0c,
            b'u' => {
                let hex = std::str::from_utf8(&buf[read..read + 4]).unwrap_or("fffd");
                let c = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32).unwrap_or('\u{FFFD}');
                read += 4;
                let mut utf8 = [0; 4];
                let encoded = c.encode_utf8(&mut utf8).as_bytes();
                buf[write..write + encoded.len()].copy_from_slice(encoded);
                write += encoded.len();
                continue;
            }
            other => other,
        };
        buf[write] = byte;
        write += 1;
    }
    write
}
