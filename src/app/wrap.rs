//! Word wrapping by display width, lazily: a text is wrapped one screen line
//! at a time, only as far as somebody looks, and the lines found are kept.
//!
//! A wrapped text is a list of byte ranges into the text, one per screen line,
//! so a 50 MB message costs a small index for what was seen, and drawing a
//! screen slices only the lines it shows.

use std::ops::Range;

use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

/// Splits `text` into screen lines of at most `width` columns, breaking after
/// whitespace where possible and inside a word only when it is longer than a line.
pub fn wrap(text: &str, width: usize) -> Vec<Range<usize>> {
    let mut cursor = LineCursor::default();
    std::iter::from_fn(|| cursor.next_line(text, width)).collect()
}

/// Where wrapping a text stands: every line starts afresh at `pos`, so
/// wrapping can stop after any line and resume later.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LineCursor {
    /// Byte offset where the next line starts.
    pos: usize,
    /// End of the paragraph (`\n` or the end of the text) `pos` is in.
    paragraph_end: Option<usize>,
    /// `pos` is the first byte of its paragraph (an empty paragraph is one blank line).
    paragraph_start: bool,
    done: bool,
}

impl Default for LineCursor {
    fn default() -> Self {
        LineCursor { pos: 0, paragraph_end: None, paragraph_start: true, done: false }
    }
}

impl LineCursor {
    fn next_line(&mut self, text: &str, width: usize) -> Option<Range<usize>> {
        let width = width.max(1);
        while !self.done {
            let end = *self
                .paragraph_end
                .get_or_insert_with(|| text[self.pos..].find('\n').map_or(text.len(), |i| self.pos + i));
            if self.pos == end {
                let blank = self.paragraph_start.then_some(end..end);
                if end < text.len() {
                    *self = LineCursor { pos: end + 1, ..LineCursor::default() };
                } else {
                    self.done = true;
                }
                if blank.is_some() {
                    return blank;
                }
                continue;
            }
            let (line_end, next) = break_line(&text[self.pos..end], width);
            let line = self.pos..self.pos + line_end;
            self.pos += next;
            self.paragraph_start = false;
            return Some(line);
        }
        None
    }
}

/// The first screen line of `segment` (no `\n` in it): where it ends and where the next begins.
/// A space that overflows ends the line and is dropped.
fn break_line(segment: &str, width: usize) -> (usize, usize) {
    let bytes = segment.as_bytes();
    let mut used = 0;
    // Byte offset just past the last whitespace on the line.
    let mut after_space = None;
    let mut at = 0;
    while at < bytes.len() {
        // Fast path: an ASCII byte not followed by a combining mark is one column
        // (controls are already made inert, so the only ASCII whitespace is ' ').
        let (len, cols, space) = if bytes[at].is_ascii() && bytes.get(at + 1).is_none_or(u8::is_ascii) {
            (1, 1, bytes[at] == b' ')
        } else {
            let g = segment[at..].graphemes(true).next().unwrap_or_default();
            (g.len().max(1), g.width(), g.chars().all(char::is_whitespace))
        };
        if used + cols > width && used > 0 {
            return match (space, after_space) {
                (true, _) => (at, at + len),
                (false, Some(after)) => (after, after),
                (false, None) => (at, at),
            };
        }
        used += cols;
        if space {
            after_space = Some(at + len);
        }
        at += len;
    }
    (bytes.len(), bytes.len())
}

/// A text's screen lines at one width, wrapped as far as anyone asked.
#[derive(Debug, Clone)]
pub struct LazyWrap {
    width: usize,
    lines: Vec<Range<usize>>,
    cursor: LineCursor,
}

impl LazyWrap {
    pub fn new(width: usize) -> Self {
        LazyWrap { width: width.max(1), lines: Vec::new(), cursor: LineCursor::default() }
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// Wraps `text` (always the same text) until it has `count` lines or ends; returns the lines known.
    pub fn ensure(&mut self, text: &str, count: usize) -> usize {
        while self.lines.len() < count {
            match self.cursor.next_line(text, self.width) {
                Some(line) => self.lines.push(line),
                None => break,
            }
        }
        self.lines.len()
    }

    /// Every line is known.
    pub fn complete(&self) -> bool {
        self.cursor.done
    }

    pub fn lines(&self) -> &[Range<usize>] {
        &self.lines
    }

    /// Bytes of the text not wrapped yet.
    pub fn remaining(&self, text: &str) -> usize {
        self.remaining_of(text.len())
    }

    /// Bytes not wrapped yet of a text `len` bytes long.
    pub fn remaining_of(&self, len: usize) -> usize {
        len - self.cursor.pos.min(len)
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
        assert_eq!(lines("the quick brown fox", 10), ["the quick ", "brown fox"]);
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
        assert_eq!(lines("a\n", 10), ["a", ""]);
        assert_eq!(lines("aaaa \nb", 4), ["aaaa", "b"]);
    }

    #[test]
    fn wide_characters_count_double() {
        assert_eq!(lines("漢字漢字漢", 4), ["漢字", "漢字", "漢"]);
        assert_eq!(lines("Müller straße", 7), ["Müller ", "straße"]);
    }

    /// Issue 16 item 4: the word carried after a break plus a wide character overflowed and was clipped.
    #[test]
    fn a_wide_character_after_a_carried_word_is_kept() {
        let text = format!(" {}全", "a".repeat(39));
        let got = lines(&text, 40);
        assert_eq!(got, [" ", &"a".repeat(39), "全"]);
        assert!(got.iter().all(|l| l.width() <= 40));
    }

    #[test]
    fn no_line_is_wider_than_the_width() {
        let text = "word ".repeat(50) + &"x".repeat(33) + " é漢 tail";
        for width in 1..30 {
            for r in wrap(&text, width) {
                let line = text[r].trim_end();
                assert!(line.width() <= width || line.chars().count() == 1, "width {width}: {line:?}");
            }
        }
    }

    #[test]
    fn lazy_wrapping_resumes_where_it_stopped() {
        let text = "one two three four five six\n\nseven eight nine 漢字 ten eleven twelve";
        let whole = wrap(text, 7);
        let mut lazy = LazyWrap::new(7);
        assert_eq!(lazy.ensure(text, 3), 3);
        assert!(!lazy.complete());
        assert_eq!(lazy.lines(), &whole[..3]);
        assert_eq!(lazy.ensure(text, usize::MAX), whole.len());
        assert!(lazy.complete());
        assert_eq!(lazy.lines(), &whole[..]);
        assert_eq!(lazy.remaining(text), 0);
    }
}
