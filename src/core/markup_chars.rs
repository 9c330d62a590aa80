//! Characters a markup document must not hold (issue 36 F7). XML 1.0 cannot carry the C0
//! controls other than tab, line feed and carriage return, nor U+FFFE and U+FFFF, not even as a
//! character reference: a JUnit report holding one is rejected whole by xmllint and junitparser.
//! HTML's parser calls every other control (DEL, C1) and every noncharacter an error too. The
//! JUnit, HTML and SVG writers pass their finished text through [`fit_for_markup`], which puts
//! U+FFFD in place of each such character; the markup they write is ASCII, so only text changes.

use std::borrow::Cow;

/// Whether `c` may not stand in an XML 1.0 or HTML document.
pub fn is_unfit_for_markup(c: char) -> bool {
    let control = c.is_control() && !matches!(c, '\t' | '\n' | '\r');
    control || is_noncharacter(c)
}

/// U+FDD0..U+FDEF and the last two code points of every plane (U+FFFE, U+1FFFF, …): never a
/// character of a text, so a writer, a terminal or a reader may treat them as it likes.
pub fn is_noncharacter(c: char) -> bool {
    let code = c as u32;
    (0xFDD0..=0xFDEF).contains(&code) || code & 0xFFFE == 0xFFFE
}

/// `text` with every character [unfit](is_unfit_for_markup) for markup replaced by U+FFFD;
/// borrowed when there is none (the common case).
pub fn fit_for_markup(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unfit_for_markup) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| if is_unfit_for_markup(c) { '\u{FFFD}' } else { c }).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_xml_and_html_cannot_carry_becomes_the_replacement_character() {
        let text = "a\u{0}b\u{1}\u{8}\u{b}\u{c}\u{1b}\u{7f}\u{85}\u{9f}\u{FDD0}\u{FDEF}\u{FFFE}\u{FFFF}\u{1FFFE}\u{10FFFF}z";
        assert_eq!(fit_for_markup(text), format!("a\u{FFFD}b{}z", "\u{FFFD}".repeat(14)));
        // Tab, newline, carriage return, BOM, bidi marks, private use and astral text stay.
        let kept = "\t\n\r\u{FEFF}\u{202E}\u{E000}\u{FFFD}\u{FDCF}\u{FDF0}🙂 <&>";
        assert!(matches!(fit_for_markup(kept), Cow::Borrowed(_)));
    }
}
