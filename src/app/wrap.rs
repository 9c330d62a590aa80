//! Word wrapping by display width, done once per text and width (never per frame).
//!
//! A wrapped text is a list of byte ranges into the text, one per screen line,
//! so a 50 MB message costs one pass and a small index, and drawing a screen
//! slices only the lines it shows.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Splits `text` into screen lines of at most `width` columns, breaking after
/// whitespace where possible and inside a word only when it is longer than a line.
pub fn wrap(text: &str, width: usize) -> Vec<Range<usize>> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut start = 0;
    for paragraph in text.split('\n') {
        wrap_paragraph(paragraph, start, width, &mut lines);
        start += paragraph.len() + 1;
    }
    lines
}

fn wrap_paragraph(paragraph: &str, base: usize, width: usize, lines: &mut Vec<Range<usize>>) {
    if paragraph.is_empty() {
        lines.push(base..base);
        return;
    }
    let mut breaker = LineBreaker {
        base,
        width,
        line_start: 0,
        line_width: 0,
        last_space: None,
        lines,
    };
    if paragraph.is_ascii() {
        // Fast path: one byte, one column (controls are already made inert).
        for (i, b) in paragraph.bytes().enumerate() {
            breaker.push(i, 1, 1, b == b' ');
        }
    } else {
        for (i, g) in paragraph.grapheme_indices(true) {
            breaker.push(i, g.len(), g.width(), g.chars().all(char::is_whitespace));
        }
    }
    breaker.finish(paragraph.len());
}

struct LineBreaker<'a> {
    base: usize,
    width: usize,
    line_start: usize,
    line_width: usize,
    /// Byte offset just past the last whitespace on the current line, and the width up to there.
    last_space: Option<(usize, usize)>,
    lines: &'a mut Vec<Range<usize>>,
}

impl LineBreaker<'_> {
    fn push(&mut self, at: usize, len: usize, cols: usize, space: bool) {
        if self.line_width + cols > self.width && self.line_width > 0 {
            if space {
                // The space that overflows ends the line and is dropped.
                self.emit(at);
                self.line_start = at + len;
                self.line_width = 0;
                self.last_space = None;
                return;
            }
            match self.last_space {
                Some((after_space, used)) if after_space > self.line_start => {
                    self.emit(after_space);
                    self.line_start = after_space;
                    self.line_width -= used;
                }
                _ => {
                    self.emit(at);
                    self.line_start = at;
                    self.line_width = 0;
                }
            }
            self.last_space = None;
        }
        self.line_width += cols;
        if space {
            self.last_space = Some((at + len, self.line_width));
        }
    }

    fn emit(&mut self, end: usize) {
        self.lines
            .push(self.base + self.line_start..self.base + end);
    }

    fn finish(&mut self, end: usize) {
        if end > self.line_start || self.lines.is_empty() {
            self.emit(end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str, width: usize) -> Vec<&str> {
        wrap(text, width).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn breaks_at_spaces() {
        assert_eq!(
            lines("the quick brown fox", 10),
            ["the quick ", "brown fox"]
        );
        assert_eq!(lines("aaaa bbbb", 4), ["aaaa", "bbbb"]);
    }

    #[test]
    fn long_words_are_cut() {
        assert_eq!(lines("abcdefghij", 4), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn keeps_paragraphs_and_blank_lines() {
        assert_eq!(lines("a\n\nb", 10), ["a", "", "b"]);
        assert_eq!(lines("", 10), [""]);
    }

    #[test]
    fn wide_characters_count_double() {
        assert_eq!(lines("漢字漢字漢", 4), ["漢字", "漢字", "漢"]);
        assert_eq!(lines("Müller straße", 7), ["Müller ", "straße"]);
    }

    #[test]
    fn no_line_is_wider_than_the_width() {
        let text = "word ".repeat(50) + &"x".repeat(33) + " é漢 tail";
        for width in 1..30 {
            for r in wrap(&text, width) {
                let line = text[r].trim_end();
                assert!(
                    line.width() <= width || line.chars().count() == 1,
                    "width {width}: {line:?}"
                );
            }
        }
    }
}
