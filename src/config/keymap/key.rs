//! A key with its modifiers: parsed from keymap files, read from terminal events, shown in help.

use std::fmt;

use anyhow::bail;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key with its modifiers, normalised so `G` and `Shift-g` are one key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
}

impl Key {
    pub fn from_event(event: &KeyEvent) -> Key {
        let mods = event.modifiers;
        let mut key = Key {
            code: event.code,
            ctrl: mods.contains(KeyModifiers::CONTROL),
            alt: mods.contains(KeyModifiers::ALT),
            shift: mods.contains(KeyModifiers::SHIFT),
        };
        // The character already says whether shift was down.
        if let KeyCode::Char(c) = key.code {
            key.shift = false;
            if key.ctrl {
                key.code = KeyCode::Char(c.to_ascii_lowercase());
            }
        }
        if key.code == KeyCode::BackTab {
            key.code = KeyCode::Tab;
            key.shift = true;
        }
        key
    }

    /// Parses `q`, `Ctrl-c`, `Shift-Tab`, `PageDown`, `F5`, `Space`…
    pub fn parse(text: &str) -> anyhow::Result<Key> {
        let mut key = Key { code: KeyCode::Null, ctrl: false, alt: false, shift: false };
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if rest.len() > 1 && (lower.starts_with("ctrl-") || lower.starts_with("ctrl+")) {
                key.ctrl = true;
                rest = &rest[5..];
            } else if rest.len() > 1 && (lower.starts_with("alt-") || lower.starts_with("alt+")) {
                key.alt = true;
                rest = &rest[4..];
            } else if rest.len() > 1 && (lower.starts_with("shift-") || lower.starts_with("shift+")) {
                key.shift = true;
                rest = &rest[6..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        key.code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(if key.ctrl { c.to_ascii_lowercase() } else { c }),
            _ => match rest.to_ascii_lowercase().as_str() {
                "space" => KeyCode::Char(' '),
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => {
                    key.shift = true;
                    KeyCode::Tab
                }
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                "insert" => KeyCode::Insert,
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" | "pgup" => KeyCode::PageUp,
                "pagedown" | "pgdn" => KeyCode::PageDown,
                f if f.starts_with('f') && f[1..].parse::<u8>().is_ok_and(|n| (1..=24).contains(&n)) => {
                    KeyCode::F(f[1..].parse().unwrap_or(1))
                }
                _ => bail!("unknown key '{text}'"),
            },
        };
        if matches!(key.code, KeyCode::Char(_)) && !key.ctrl && !key.alt {
            key.shift = false;
        }
        Ok(key)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        if self.shift {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("Space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("Enter"),
            KeyCode::Esc => f.write_str("Esc"),
            KeyCode::Tab => f.write_str("Tab"),
            KeyCode::Backspace => f.write_str("Backspace"),
            KeyCode::Up => f.write_str("↑"),
            KeyCode::Down => f.write_str("↓"),
            KeyCode::Left => f.write_str("←"),
            KeyCode::Right => f.write_str("→"),
            KeyCode::PageUp => f.write_str("PgUp"),
            KeyCode::PageDown => f.write_str("PgDn"),
            KeyCode::F(n) => write!(f, "F{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}
