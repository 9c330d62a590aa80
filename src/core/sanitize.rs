//! Untrusted text (model output, tool output, imported logs) made safe for a terminal cell.
//!
//! Nothing that could drive the terminal survives: ESC and every other C0/C1
//! control byte become visible symbols (`ESC [31m` shows as `␛[31m`), so the
//! raw view still tells the reader what was there. Bidi overrides, which can
//! make text read differently from what it is, are shown as `<U+202E>`.
//! Newlines stay (the panes wrap on them); tabs become spaces; `\r\n` becomes `\n`.

use std::borrow::Cow;

/// Spaces a tab expands to. Fixed, because a cell grid has no tab stops.
const TAB: &str = "    ";

/// Returns `text` with every control character made inert and visible.
/// Borrows when there is nothing to change (the common case).
pub fn inert(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_change) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => out.push('\n'),
            '\t' => out.push_str(TAB),
            '\r' if chars.peek() == Some(&'\n') => {}
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

fn needs_change(c: char) -> bool {
    c != '\n' && (c.is_control() || is_bidi_control(c))
}

fn push_visible(out: &mut String, c: char) {
    let code = c as u32;
    match code {
        // C0 controls have their own symbols in the Control Pictures block.
        0x00..=0x1F => out.push(char::from_u32(0x2400 + code).unwrap_or('\u{FFFD}')),
        0x7F => out.push('\u{2421}'),
        // C1 (includes the 8-bit CSI 0x9B) and bidi overrides: no symbol exists.
        _ if needs_change(c) => out.push_str(&format!("<U+{code:04X}>")),
        _ => out.push(c),
    }
}

/// Bidirectional formatting characters (Trojan Source, CVE-2021-42574).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
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
    fn bidi_overrides_are_shown() {
        assert_eq!(inert("x\u{202E}y"), "x<U+202E>y");
    }
}
