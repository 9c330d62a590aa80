//! Untrusted text (model output, tool output, imported logs) made safe for a terminal cell.
//!
//! Nothing that could drive the terminal survives: ESC and every other C0/C1
//! control byte become visible symbols (`ESC [31m` shows as `␛[31m`), so the
//! raw view still tells the reader what was there. Bidi overrides, which can
//! make text read differently from what it is, are shown as `<U+202E>`.
//! Invisible characters an attacker can hide instructions in are revealed too:
//! zero-width characters, soft hyphens, fillers and line/paragraph separators
//! show as `<U+200B>`, and a run of Unicode tag characters ("ASCII smuggling")
//! is decoded as `⟦hidden: ignore previous…⟧`. Every character left has the
//! width a terminal gives it, so a row is exactly as wide as its pane.
//! Newlines stay (the panes wrap on them); tabs become spaces; `\r\n` becomes `\n`.
//! The output never needs changing again: `inert(inert(x)) == inert(x)`.
//!
//! Every API key the process has read is masked here too (`***`, see
//! [`key_mask::mask_known`]): whatever shows text shows it through this module, so no
//! output channel has a masking step of its own to forget.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::core::llm::key_mask;
use crate::core::markup_chars::is_noncharacter;

/// Spaces a tab expands to. Fixed, because a cell grid has no tab stops.
const TAB: &str = "    ";

/// Unicode tag characters: invisible copies of ASCII (U+E0020..U+E007E are ' '..'~').
const TAGS: std::ops::RangeInclusive<u32> = 0xE0000..=0xE007F;

/// Returns `text` with every control character made inert and visible, and every known
/// API key masked. Borrows when there is nothing to change (the common case).
pub fn inert(text: &str) -> Cow<'_, str> {
    match key_mask::mask_known(text) {
        Cow::Borrowed(text) => visible(text),
        Cow::Owned(masked) => Cow::Owned(visible(&masked).into_owned()),
    }
}

/// [`inert`] without the key masking.
fn visible(text: &str) -> Cow<'_, str> {
    if !any_change(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str(TAB),
            '\r' if chars.peek() == Some(&'\n') => {}
            c if is_tag(c) => {
                out.push_str("⟦hidden: ");
                push_tag(&mut out, c);
                while let Some(&next) = chars.peek().filter(|n| is_tag(**n)) {
                    push_tag(&mut out, next);
                    chars.next();
                }
                out.push('⟧');
            }
            c => push_visible(&mut out, c),
        }
    }
    Cow::Owned(out)
}

/// Like [`inert`], and newlines shown as `⏎` so the text fits one line.
pub fn single_line(text: &str) -> Cow<'_, str> {
    match inert(text) {
        Cow::Borrowed(s) if !s.contains('\n') => Cow::Borrowed(s),
        s => Cow::Owned(s.replace('\n', "⏎ ")),
    }
}

/// At most `max` characters of `text` (`…` when cut), on one line, inert: how an error or a
/// log quotes what an agent or a server sent, whatever its size.
pub fn excerpt(text: &str, max: usize) -> String {
    single_line(&crate::core::text::truncate_chars(text.trim(), max)).into_owned()
}

/// True for a character that must not reach a terminal or a reader as it is:
/// controls (except `\n`), bidi controls, invisible characters, prepended marks and
/// noncharacters (U+FFFE printed raw by `test`'s table, issue 36).
/// JSON writers escape exactly these (see `core::safe_json`).
pub fn is_hazardous(c: char) -> bool {
    c.is_control()
        || is_bidi_control(c)
        || is_invisible(c)
        || is_tag(c)
        || is_prepended_mark(c)
        || is_noncharacter(c)
}

/// Prepended concatenation marks (Arabic number sign, footnote marker…) join the next
/// character into one grapheme, which terminals and the layout measure differently (the
/// `wrap` fuzz target: `"\u{602}:"` took two columns in a line of one).
fn is_prepended_mark(c: char) -> bool {
    matches!(
        c,
        '\u{0600}'
            ..='\u{0605}'
                | '\u{06DD}'
                | '\u{070F}'
                | '\u{0890}'
                | '\u{0891}'
                | '\u{08E2}'
                | '\u{110BD}'
                | '\u{110CD}'
    )
}

/// Whether any character of `text` [needs a change](needs_change). Printable ASCII and `\n`
/// never do, and are checked 32 bytes at a time (a 50 MB text in milliseconds, issue 14); any
/// other byte goes through the character check.
fn any_change(text: &str) -> bool {
    let bytes = text.as_bytes();
    let plain = |b: &u8| (0x20..0x7F).contains(b) || *b == b'\n';
    // 64 bytes at a time, without stopping at the first: vectorized (1 GiB in 0.1 s, where a
    // check stopping at each byte took 0.7 s: a sample's 1.2 GiB text is checked when it opens).
    let special = |any: bool, b: &u8| any | ((*b < 0x20) & (*b != b'\n')) | (*b >= 0x7F);
    let mut at = 0;
    while at < bytes.len() {
        if let Some(chunk) = bytes.get(at..at + 64)
            && !chunk.iter().fold(false, special)
        {
            at += 64;
            continue;
        }
        let b = bytes[at];
        if plain(&b) {
            at += 1;
        } else if b.is_ascii() {
            return true;
        } else {
            // `at` is always at a character boundary: it only moves by whole characters.
            let c = text[at..].chars().next().unwrap_or_default();
            if needs_change(c) {
                return true;
            }
            at += c.len_utf8();
        }
    }
    false
}

fn needs_change(c: char) -> bool {
    c != '\n' && is_hazardous(c)
}

fn push_visible(out: &mut String, c: char) {
    let code = c as u32;
    match code {
        // C0 controls have their own symbols in the Control Pictures block.
        0x00..=0x1F => out.push(char::from_u32(0x2400 + code).unwrap_or('\u{FFFD}')),
        0x7F => out.push('\u{2421}'),
        // C1 (includes the 8-bit CSI 0x9B), bidi, invisible characters, prepended marks: no symbol exists.
        _ if needs_change(c) => push_code(out, c),
        _ => out.push(c),
    }
}

fn push_code(out: &mut String, c: char) {
    let _ = write!(out, "<U+{:04X}>", c as u32);
}

/// A tag character decoded to the ASCII it hides; the few that hide no ASCII shown by code.
fn push_tag(out: &mut String, c: char) {
    match char::from_u32(c as u32 - 0xE0000) {
        Some(ascii @ ' '..='~') => out.push(ascii),
        _ => push_code(out, c),
    }
}

fn is_tag(c: char) -> bool {
    TAGS.contains(&(c as u32))
}

/// Bidirectional formatting characters (Trojan Source, CVE-2021-42574).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Characters that draw nothing (or a blank a reader takes for a space) and so can hide text,
/// shift a pane's border (zero width in one terminal, one column in another) or leave stale
/// cells (U+2028/U+2029, which some terminals treat as line breaks). With the bidi controls,
/// tags and prepended marks this is every Default_Ignorable_Code_Point and every format
/// character (Cf) of Unicode 16 (issue 24: U+13430 took one column here and none in a terminal).
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'                      // soft hyphen
            | '\u{034F}'                // combining grapheme joiner
            | '\u{115F}' | '\u{1160}'   // Hangul choseong/jungseong fillers
            | '\u{17B4}' | '\u{17B5}'   // Khmer inherent vowels
            | '\u{180B}'..='\u{180F}'   // Mongolian variation selectors, vowel separator
            | '\u{200B}'..='\u{200D}'   // zero-width space, non-joiner, joiner
            | '\u{2028}' | '\u{2029}'   // line and paragraph separators
            | '\u{2060}'..='\u{2065}'   // word joiner, invisible operators, reserved U+2065
            | '\u{206A}'..='\u{206F}'   // deprecated format characters
            | '\u{3164}'                // Hangul filler
            | '\u{FE00}'..='\u{FE0F}'   // variation selectors 1-16 (emoji presentation too)
            | '\u{FEFF}'                // zero-width no-break space (BOM)
            | '\u{FFA0}'                // halfwidth Hangul filler
            | '\u{FFF0}'..='\u{FFF8}'   // reserved, default ignorable
            | '\u{FFF9}'..='\u{FFFB}'   // interlinear annotation
            | '\u{13430}'..='\u{1343F}' // Egyptian hieroglyph format controls
            | '\u{1BCA0}'..='\u{1BCA3}' // shorthand format controls
            | '\u{1D173}'..='\u{1D17A}' // musical formatting
            | '\u{E0080}'..='\u{E0FFF}' // reserved after the tags, variation selectors 17-256 (byte smuggling)
    )
}

/// A writer that makes everything written through it inert: for logs, whose lines carry
/// server error bodies and model text. Each `write` is expected to hold whole lines (the
/// log formatter writes one event at a time); a split UTF-8 sequence would show as `�`.
pub struct InertWriter<W>(pub W);

impl<W: std::io::Write> std::io::Write for InertWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.0.write_all(inert(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// The last guard of an output channel (stdout and stderr of the headless commands, the
/// files they export): every line written through it is [`inert`], keys masked, before it
/// reaches `W`, so a line a command forgot to make safe is made safe here. Lines are
/// gathered whole (a key is never split between two writes); `\r\n` endings stay (CSV).
pub struct SafeWriter<W: std::io::Write> {
    inner: W,
    pending: Vec<u8>,
}

impl<W: std::io::Write> SafeWriter<W> {
    pub fn new(inner: W) -> Self {
        SafeWriter { inner, pending: Vec::new() }
    }
}

/// One line (without its end) made inert, then its end.
fn write_inert_line(out: &mut impl std::io::Write, line: &[u8], end: &[u8]) -> std::io::Result<()> {
    out.write_all(inert(&String::from_utf8_lossy(line)).as_bytes())?;
    out.write_all(end)
}

impl<W: std::io::Write> std::io::Write for SafeWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // What is pending holds no line end: only the new bytes are searched (a line of megabytes
        // written in small pieces would otherwise be searched again at every piece).
        let searched = self.pending.len();
        self.pending.extend_from_slice(buf);
        let mut start = 0;
        let mut from = searched;
        while let Some(at) = memchr::memchr(b'\n', &self.pending[from..]).map(|i| from + i) {
            let line = &self.pending[start..at];
            match line.strip_suffix(b"\r") {
                Some(text) => write_inert_line(&mut self.inner, text, b"\r\n")?,
                None => write_inert_line(&mut self.inner, line, b"\n")?,
            }
            start = at + 1;
            from = start;
        }
        self.pending.drain(..start);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            write_inert_line(&mut self.inner, &self.pending, b"")?;
            self.pending.clear();
        }
        self.inner.flush()
    }
}

impl<W: std::io::Write> Drop for SafeWriter<W> {
    fn drop(&mut self) {
        let _ = std::io::Write::flush(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(inert("hello\nworld ü 漢字"), Cow::Borrowed(_)));
    }

    #[test]
    fn escape_sequences_become_visible_and_inert() {
        let text = "a\x1b[31mred\x1b[0m\x1b]0;title\x07\x1bP1$r\x1b\\\u{9b}2J";
        let safe = inert(text);
        assert_eq!(safe, "a␛[31mred␛[0m␛]0;title␇␛P1$r␛\\<U+009B>2J");
        assert!(!safe.chars().any(|c| c.is_control() && c != '\n'));
    }

    #[test]
    fn whitespace_is_normalised() {
        assert_eq!(inert("a\tb\r\nc\rd"), "a    b\nc␍d");
        assert_eq!(single_line("one\ntwo"), "one⏎ two");
    }

    #[test]
    fn noncharacters_are_shown_by_code() {
        assert_eq!(
            inert("passport\u{FFFE}\u{FFFF}\u{FDD0}\u{10FFFF}"),
            "passport<U+FFFE><U+FFFF><U+FDD0><U+10FFFF>"
        );
    }

    #[test]
    fn bidi_overrides_are_shown() {
        assert_eq!(inert("x\u{202E}y"), "x<U+202E>y");
    }

    #[test]
    fn tag_characters_are_decoded() {
        let hidden: String =
            "ignore previous".chars().map(|c| char::from_u32(0xE0000 + c as u32).unwrap()).collect();
        let text = format!("Nice hotel.{hidden}\u{E007F} Book it?");
        assert_eq!(inert(&text), "Nice hotel.⟦hidden: ignore previous<U+E007F>⟧ Book it?");
    }

    /// Issue 24, defect 9: these drew nothing (`A` + ten of them + `B` showed `AB`) or were
    /// measured differently by us and the terminal (U+13430).
    #[test]
    fn format_and_default_ignorable_characters_are_shown() {
        use unicode_width::UnicodeWidthStr;
        for c in [
            '\u{13430}',
            '\u{1343F}',
            '\u{1BCA0}',
            '\u{1BCA3}',
            '\u{2065}',
            '\u{FFF0}',
            '\u{FFF8}',
            '\u{E0080}',
            '\u{E00FF}',
            '\u{E0FFF}',
            '\u{FE00}',
            '\u{FE0F}',
        ] {
            let text = format!("A{}B", c.to_string().repeat(10));
            let safe = inert(&text);
            assert_eq!(safe, format!("A{}B", format!("<U+{:04X}>", c as u32).repeat(10)));
            assert_eq!(safe.width(), safe.chars().count());
            assert!(is_hazardous(c));
        }
    }

    #[test]
    fn invisible_characters_are_shown() {
        assert_eq!(inert("a\u{200B}b\u{200D}c\u{00AD}d\u{3164}e"), "a<U+200B>b<U+200D>c<U+00AD>d<U+3164>e");
        assert_eq!(inert("one\u{2028}two\u{2029}"), "one<U+2028>two<U+2029>");
        assert_eq!(inert("\u{FEFF}x\u{2060}"), "<U+FEFF>x<U+2060>");
    }

    #[test]
    fn prepended_marks_are_shown_and_join_nothing() {
        use unicode_width::UnicodeWidthStr;
        let safe = inert("\u{602}:\u{600}12");
        assert_eq!(safe, "<U+0602>:<U+0600>12");
        assert_eq!(safe.width(), safe.chars().count());
    }

    #[test]
    fn output_is_as_wide_as_unicode_width_says() {
        use unicode_width::UnicodeWidthStr;
        // Three zero-width joiners used to shift a pane's border by one column.
        let safe = inert("ab\u{200D}\u{200D}\u{200D}cd");
        assert_eq!(safe.width(), safe.chars().count());
    }

    #[test]
    fn sanitizing_twice_changes_nothing() {
        let text = "x\x1b]52;c;aGk=\x07\u{9b}\t\r\n\r\u{E0041}\u{200B}\u{202E}\u{7f}";
        let once = inert(text).into_owned();
        assert_eq!(inert(&once), once.as_str());
        assert!(!once.chars().any(|c| c != '\n' && is_hazardous(c)));
    }

    #[test]
    fn the_channel_guard_makes_every_line_inert_and_keeps_crlf() {
        use std::io::Write;
        let mut bytes = Vec::new();
        {
            let mut out = SafeWriter::new(&mut bytes);
            out.write_all(b"a,\x1b]52;c;aGk=\x07\r\nsecond \xc2").unwrap();
            // The rest of U+009B, split between two writes.
            out.write_all(b"\x9b2J line\nlast \xef\xb8\x8f").unwrap();
        }
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "a,␛]52;c;aGk=␇\r\nsecond <U+009B>2J line\nlast <U+FE0F>"
        );
    }

    #[test]
    fn the_channel_guard_finds_every_line_end_when_written_a_byte_at_a_time() {
        use std::io::Write;
        let text = "one \x1b line\r\ntwo\n\nthree\x07";
        let mut bytes = Vec::new();
        {
            let mut out = SafeWriter::new(&mut bytes);
            text.bytes().for_each(|b| out.write_all(&[b]).unwrap());
        }
        assert_eq!(String::from_utf8(bytes).unwrap(), "one ␛ line\r\ntwo\n\nthree␇");
    }

    #[test]
    fn log_writer_makes_lines_inert() {
        use std::io::Write;
        let mut out = InertWriter(Vec::new());
        out.write_all("HTTP 500: \x1b]0;pwned\x07\u{202E}\n".as_bytes()).unwrap();
        assert_eq!(String::from_utf8(out.0).unwrap(), "HTTP 500: ␛]0;pwned␇<U+202E>\n");
    }
}

#[cfg(test)]
mod fast_path_tests {
    use super::*;

    /// The chunked scan agrees with the character check on every position of a hazard.
    #[test]
    fn the_fast_scan_finds_what_the_character_check_finds() {
        let hazards =
            ['\u{1b}', '\t', '\r', '\u{7f}', '\u{9b}', '\u{202e}', '\u{200b}', '\u{e0041}', '\u{600}'];
        let plain = ["a", "é", "漢", "\n", " ", "~"];
        for len in [0, 1, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129] {
            for p in plain {
                let base: String = p.repeat(len);
                assert!(!any_change(&base));
                assert_eq!(any_change(&base), base.chars().any(needs_change));
                for h in hazards {
                    for cut in [0, len / 2, len] {
                        let text: String = p.repeat(cut) + &h.to_string() + &p.repeat(len - cut);
                        assert!(any_change(&text), "{text:?}");
                        assert_eq!(any_change(&text), text.chars().any(needs_change));
                    }
                }
            }
        }
    }
}
