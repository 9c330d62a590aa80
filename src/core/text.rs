//! Cutting text to fit: by terminal cells (tables, status lines) or by characters (messages).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// A JSON field as text: a string as it is, anything else as JSON, nothing (or `null`) as `""`.
pub fn json_text(value: Option<&serde_json::Value>) -> String {
    match value {
        None | Some(serde_json::Value::Null) => String::new(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// At most `width` terminal cells, the cut marked with `…` (wide characters count twice).
pub fn truncate_cells(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// At most `width` terminal cells, the start cut and marked with `…` (a path's end tells it apart).
pub fn truncate_cells_left(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        tail.push(c);
        used += w;
    }
    let mut out = String::from("…");
    out.extend(tail.into_iter().rev());
    out
}

/// `text` in lines of at most `width` cells, broken between words (a word wider than a line is
/// cut with `…`); never an empty list.
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let word = truncate_cells(word, width);
        if !line.is_empty() && line.width() + 1 + word.width() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    lines.push(line);
    lines
}

/// At most `max` characters, with `…` when cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// The byte offset of character `chars` of `text` (its length past the end): evidence and
/// annotation spans are in characters (ARCHITECTURE.md, "The journal"), Rust slices in bytes.
pub fn byte_of_char(text: &str, chars: usize) -> usize {
    text.char_indices().nth(chars).map_or(text.len(), |(byte, _)| byte)
}

/// The character offset of byte `byte` (a char boundary) of `text`.
pub fn char_of_byte(text: &str, byte: usize) -> usize {
    text[..byte].chars().count()
}

/// Characters `start..end` of `text`, clamped to its end.
pub fn char_slice(text: &str, start: usize, end: usize) -> &str {
    let from = byte_of_char(text, start);
    &text[from..from + byte_of_char(&text[from..], end.saturating_sub(start))]
}

#[cfg(test)]
mod tests {

    #[test]
    fn words_wrap_between_words_and_a_long_word_is_cut() {
        assert_eq!(
            wrap_words("1/1 events · median turn 2 [2, 3]", 12),
            ["1/1 events ·", "median turn", "2 [2, 3]"]
        );
        assert_eq!(wrap_words("abcdefghij xy", 5), ["abcd…", "xy"]);
        assert_eq!(wrap_words("", 5), [""]);
    }

    use super::*;

    #[test]
    fn cuts_by_cells_and_by_characters() {
        assert_eq!(truncate_cells("abcdef", 4), "abc…");
        assert_eq!(truncate_cells("全全全", 5), "全全…");
        assert_eq!(truncate_cells("abc", 3), "abc");
        assert_eq!(truncate_chars("全全全", 2), "全全…");
        assert_eq!(truncate_chars("abc", 3), "abc");
    }

    #[test]
    fn character_spans_map_to_bytes_and_back() {
        let text = "é全 leak";
        assert_eq!(byte_of_char(text, 2), 5);
        assert_eq!(byte_of_char(text, 99), text.len());
        assert_eq!(char_of_byte(text, 5), 2);
        assert_eq!(char_slice(text, 3, 7), "leak");
        assert_eq!(char_slice(text, 5, 99), "ak");
    }
}
