//! The key reference of `docs/keys.md`, generated from the command catalogue so the page cannot
//! drift from the keys the program binds (a test compares the two).

use std::fmt::Write;

use strum::IntoEnumIterator;

use super::command::{Command, Group};
use super::key::Key;

/// The default bindings as Markdown tables, one per help group.
pub fn markdown_reference() -> String {
    let mut out = String::new();
    for group in Group::iter() {
        let _ = writeln!(out, "### {}\n", group.title());
        out.push_str("| keys | what it does | command | where |\n|---|---|---|---|\n");
        for command in Command::all().filter(|c| c.group() == group) {
            let spec = command.spec();
            let keys: Vec<String> = spec
                .keys
                .iter()
                .map(|k| code_span(&Key::parse(k).map(|k| k.to_string()).unwrap_or_else(|_| k.to_string())))
                .collect();
            let layers: Vec<&str> = spec.layers.iter().map(|l| <&str>::from(*l)).collect();
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {} |",
                keys.join(" "),
                spec.description.replace('|', "\\|"),
                command.name(),
                layers.join(", ")
            );
        }
        out.push('\n');
    }
    out
}

/// A Markdown code span that holds any key, a backtick or a pipe included.
fn code_span(text: &str) -> String {
    let text = text.replace('|', "\\|");
    if text.contains('`') { format!("`` {text} ``") } else { format!("`{text}`") }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Marks the generated part of `docs/keys.md`.
    const BEGIN: &str = "<!-- keys:begin (generated from src/config/keymap; `UPDATE_DOCS=1 cargo test --lib keymap` rewrites it) -->";
    const END: &str = "<!-- keys:end -->";

    /// The page's generated part equals what the catalogue generates today.
    #[test]
    fn docs_keys_md_lists_the_bound_keys() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/keys.md");
        let page = std::fs::read_to_string(path).expect("docs/keys.md");
        let (Some(begin), Some(end)) = (page.find(BEGIN), page.find(END)) else {
            panic!("docs/keys.md lacks the markers {BEGIN} … {END}");
        };
        let current = &page[begin + BEGIN.len()..end];
        let generated = format!("\n\n{}", markdown_reference());
        if current != generated {
            if std::env::var_os("UPDATE_DOCS").is_some() {
                let page = format!("{}{BEGIN}{generated}{}", &page[..begin], &page[end..]);
                std::fs::write(path, page).expect("rewrite docs/keys.md");
            } else {
                panic!("docs/keys.md is stale: run `UPDATE_DOCS=1 cargo test --lib keymap` and commit it");
            }
        }
    }

    #[test]
    fn every_command_is_in_the_reference_once() {
        let text = markdown_reference();
        for command in Command::all() {
            assert_eq!(text.matches(&format!("| `{}` |", command.name())).count(), 1, "{}", command.name());
        }
    }
}
