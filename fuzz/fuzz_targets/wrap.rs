//! Word wrap: lines in order, on char boundaries, covering the text, each within the width.
#![no_main]

use libfuzzer_sys::fuzz_target;
use unicode_width_check::{graphemes, width};

use converse_tui::app::wrap::wrap;

mod unicode_width_check {
    /// Display width as the panes measure it (after sanitizing, as the panes do).
    pub fn width(text: &str) -> usize {
        ratatui::text::Line::raw(text).width()
    }

    /// Visible grapheme clusters (those that take cells), as the panes draw them.
    pub fn graphemes(text: &str) -> usize {
        ratatui::text::Line::raw(text)
            .styled_graphemes(ratatui::style::Style::default())
            .filter(|g| width(g.symbol) > 0)
            .count()
    }
}

fuzz_target!(|input: (u8, &str)| {
    let (width_byte, text) = input;
    let width_cols = usize::from(width_byte % 120) + 1;
    let text = converse_tui::core::sanitize::inert(text);
    let lines = wrap(&text, width_cols);
    let mut end = 0;
    for line in &lines {
        assert!(line.start >= end, "lines out of order");
        assert!(text.is_char_boundary(line.start) && text.is_char_boundary(line.end));
        let slice = &text[line.clone()];
        // A single visible grapheme wider than the line (a wide character, or one with a
        // spacing mark: "␀\u{17C0}") is the only excuse for overflowing: it cannot be split.
        // Zero-width graphemes beside it take no cell ("\u{118D}\u{110D}": a lone Hangul
        // vowel, drawn as nothing, before a two-column consonant).
        assert!(width(slice) <= width_cols || graphemes(slice) == 1, "{slice:?} wider than {width_cols}");
        end = line.end;
    }
});
