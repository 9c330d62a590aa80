//! Plain text tables for the headless commands: columns as wide as their
//! content, narrowed to fit a terminal, cells sanitized by the caller.

use std::io::Write;

use unicode_width::UnicodeWidthStr;

/// A table whose columns are as wide as their content. The last column keeps its end when
/// clipped (a path keeps its file name), the others their start.
pub struct Table {
    header: Vec<String>,
    cells: Vec<Vec<String>>,
    widths: Vec<usize>,
}

impl Table {
    pub fn new(header: Vec<String>, cells: Vec<Vec<String>>) -> Self {
        let mut widths: Vec<usize> = header.iter().map(|h| h.width()).collect();
        for row in &cells {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.width());
            }
        }
        Table { header, cells, widths }
    }

    /// Narrows the `shrinkable` columns (the widest first) until a line fits `width`.
    pub fn fit(&mut self, width: usize, shrinkable: &[usize]) {
        let total = |w: &[usize]| w.iter().sum::<usize>() + 2 * w.len().saturating_sub(1);
        while total(&self.widths) > width {
            let Some(&widest) = shrinkable
                .iter()
                .filter(|&&i| self.widths[i] > self.header[i].width().max(8))
                .max_by_key(|&&i| self.widths[i])
            else {
                return;
            };
            self.widths[widest] -= 1;
        }
    }

    pub fn write(&self, out: &mut dyn Write) -> std::io::Result<()> {
        self.line(&self.header, out)?;
        for row in &self.cells {
            self.line(row, out)?;
        }
        Ok(())
    }

    fn line(&self, cells: &[String], out: &mut dyn Write) -> std::io::Result<()> {
        let last = cells.len() - 1;
        let mut line = String::new();
        for (i, (cell, &w)) in cells.iter().zip(&self.widths).enumerate() {
            // The path keeps its end (the file name), the others their start.
            let text = if i == last { clip_start(cell, w) } else { clip_end(cell, w) };
            line.push_str(&text);
            if i < last {
                line.push_str(&" ".repeat(w.saturating_sub(text.width()) + 2));
            }
        }
        writeln!(out, "{}", line.trim_end())
    }
}

fn clip_end(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if out.width() + c.to_string().width() + 1 > width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

fn clip_start(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for c in text.chars().rev() {
        let w = c.to_string().width();
        if used + w > width {
            break;
        }
        used += w;
        kept.push(c);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clipping_keeps_within_the_width() {
        assert_eq!(clip_end("abcdef", 4), "abc…");
        assert_eq!(clip_start("abcdef", 4), "…def");
        assert_eq!(clip_end("abc", 4), "abc");
        let mut t = Table::new(
            vec!["a".into(), "path".into()],
            vec![vec!["x".repeat(30), "/very/long/path/to/output_1.json".into()]],
        );
        t.fit(30, &[0, 1]);
        assert!(t.widths.iter().sum::<usize>() + 2 <= 30, "{:?}", t.widths);
    }
}
