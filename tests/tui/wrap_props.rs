//! Properties of word wrap (issue 16 item 4): every line fits the width, lines
//! break on char boundaries, and together they keep the text in order.

use converse_tui::app::wrap::{LazyWrap, wrap};
use proptest::prelude::*;
use unicode_width::UnicodeWidthStr;

/// Text made of the pieces that make wrapping hard: spaces, newlines, wide and combining characters.
fn text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just(" ".to_string()),
        Just("\n".to_string()),
        Just("全".to_string()),
        Just("e\u{301}".to_string()),
        Just("漢字".to_string()),
        "[a-z]{1,12}",
        "[ -~]{1,6}",
    ];
    prop::collection::vec(piece, 0..60).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn wrapped_lines_fit_break_on_boundaries_and_keep_order(text in text(), width in 2usize..50) {
        let lines = wrap(&text, width);
        let mut at = 0;
        for range in &lines {
            prop_assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
            prop_assert!(range.start >= at, "lines keep order");
            // Only spaces (dropped at a break) and newlines lie between lines.
            prop_assert!(text[at..range.start].chars().all(|c| c == ' ' || c == '\n'), "{:?}", &text[at..range.start]);
            let line = &text[range.clone()];
            prop_assert!(line.width() <= width, "width {}: {:?} is {} wide", width, line, line.width());
            at = range.end;
        }
        prop_assert!(text[at..].chars().all(|c| c == ' ' || c == '\n'));
        let kept: String = lines.iter().map(|r| &text[r.clone()]).collect::<String>().replace(' ', "");
        prop_assert_eq!(kept, text.replace([' ', '\n'], ""), "no visible character is lost");
    }

    #[test]
    fn lazy_wrapping_gives_the_same_lines(text in text(), width in 1usize..30, step in 1usize..5) {
        let whole = wrap(&text, width);
        let mut lazy = LazyWrap::new(width);
        let mut wanted = 0;
        while !lazy.complete() {
            wanted += step;
            lazy.ensure(&text, wanted);
        }
        prop_assert_eq!(lazy.lines(), &whole[..]);
    }
}

proptest! {
    /// A streamed reply is wrapped incrementally, delta by delta: the lines must be exactly the
    /// whole text's, wherever the deltas cut it (mid-word, mid-line, between combining marks).
    #[test]
    fn streamed_text_wraps_as_the_whole_text(text in text(), cuts in prop::collection::vec(0usize..400, 0..12), width in 2usize..50) {
        use converse_tui::app::live::LiveState;
        use converse_tui::core::llm::Role;
        use converse_tui::core::sim::emitter::RunnerUpdate;
        let mut bounds: Vec<usize> = cuts.into_iter().map(|c| c.min(text.len())).filter(|c| text.is_char_boundary(*c)).collect();
        bounds.extend([0, text.len()]);
        bounds.sort_unstable();
        bounds.dedup();
        let mut live = LiveState::new("journal", false);
        for pair in bounds.windows(2) {
            let delta = RunnerUpdate::Delta { role: Role::Assistant, text: text[pair[0]..pair[1]].to_string() };
            live.apply(&delta, width);
        }
        if let Some(streaming) = &live.streaming {
            prop_assert_eq!(&streaming.lines, &wrap(&streaming.text, width));
        }
    }
}

/// Found by the `wrap` fuzz target: a prepended concatenation mark (U+0602) joins the
/// next character into one grapheme two columns wide, so a line of width 1 overflowed.
/// Sanitized text (as every pane draws it) shows the mark by code, and fits.
#[test]
fn a_prepended_mark_does_not_overflow_a_line() {
    let text = converse_tui::core::sanitize::inert("\u{602}: \u{600}12 \u{6DD}x");
    for width in 1..12 {
        for range in wrap(&text, width) {
            let line = ratatui::text::Line::raw(&text[range]);
            assert!(line.width() <= width, "{line:?} wider than {width}");
        }
    }
}

/// Found by the `wrap` fuzz target: a lone Hangul vowel (zero columns, drawn as nothing) before a
/// two-column consonant in a one-column line. The line holds one visible grapheme, too wide for
/// the line and impossible to split: the only overflow wrap allows.
#[test]
fn a_zero_width_grapheme_before_a_wide_one_overflows_only_as_that_wide_one() {
    let text = converse_tui::core::sanitize::inert("\u{118D}\u{110D}");
    for range in wrap(&text, 1) {
        let line = &text[range];
        let visible: Vec<&str> = unicode_segmentation::UnicodeSegmentation::graphemes(line, true)
            .filter(|g| unicode_width::UnicodeWidthStr::width(*g) > 0)
            .collect();
        assert!(
            ratatui::text::Line::raw(line).width() <= 1 || visible.len() == 1,
            "{line:?}: more than one visible grapheme in an overflowing line"
        );
    }
}
