//! TOML files a person edits (config, keymap, themes): parse errors as one line,
//! `path:line:column: problem`, like every other bad input.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::core::sanitize::single_line;

/// Parses `text` (read from `path`, a `what` file such as "config").
pub fn parse<T: DeserializeOwned>(text: &str, path: &Path, what: &str) -> anyhow::Result<T> {
    toml::from_str(text).map_err(|e| {
        let at = e.span().map(|span| position(text, span.start)).unwrap_or_default();
        anyhow::anyhow!("{}{at}: invalid {what}: {}", path.display(), single_line(e.message().trim()))
    })
}

/// `:line:column` (1-based) of byte `offset` in `text`.
pub fn position(text: &str, offset: usize) -> String {
    let mut end = offset.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let before = &text[..end];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!(":{line}:{column}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_syntax_error_is_one_line_with_its_position() {
        let err =
            parse::<toml::Table>("a = 1\nb = = 2\n", Path::new("/c/config.toml"), "config").unwrap_err();
        let text = format!("{err:#}");
        assert!(text.starts_with("/c/config.toml:2:") && text.contains(": invalid config: "), "{text}");
        assert!(!text.contains('\n'), "{text}");
    }
}
