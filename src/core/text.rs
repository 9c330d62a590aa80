//! Cutting text to fit: by terminal cells (tables, status lines) or by characters (messages).

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// At most `width` terminal cells, the cut marked with `…` (wide characters count twice).
pub fn truncate_cells(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
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

/// At most `max` characters, with `…` when cut.
pub fn truncate_chars(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_by_cells_and_by_characters() {
        assert_eq!(truncate_cells("abcdef", 4), "abc…");
        assert_eq!(truncate_cells("全全全", 5), "全全…");
        assert_eq!(truncate_cells("abc", 3), "abc");
        assert_eq!(truncate_chars("全全全", 2), "全全…");
        assert_eq!(truncate_chars("abc", 3), "abc");
    }
}
