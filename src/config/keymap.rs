//! Key bindings: every command has a name and a description; keys map to commands.
//!
//! The embedded defaults can be partly overridden by `<config dir>/keymap.toml`:
//!
//! ```toml
//! [bindings]
//! next_event = ["n", "Right", "l"]   # replaces the default keys of that command
//! ```
//!
//! A key the user binds is taken away from whatever default command had it.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;

use super::toml_file;
use anyhow::{Context, bail};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;

/// What a key can do. The names are the ones users write in keymap files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Command {
    NextEvent,
    PrevEvent,
    NextTurn,
    PrevTurn,
    First,
    Last,
    JumpToTurn,
    PlayPause,
    StepCall,
    StepTurn,
    Continue,
    Faster,
    Slower,
    FocusNext,
    FocusPrev,
    ScrollDown,
    ScrollUp,
    PageDown,
    PageUp,
    SelectNext,
    SelectPrev,
    OpenDetail,
    EpisodeInfo,
    GoToEvidence,
    Search,
    Browser,
    Tasks,
    Compose,
    EditPending,
    EndEpisode,
    TakeOver,
    Redact,
    Annotate,
    Annotations,
    CycleDomain,
    CyclePersona,
    CycleSplit,
    Help,
    Close,
    Quit,
}

/// Groups for the help overlay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    Step,
    View,
    Tasks,
    Human,
    General,
}

impl Group {
    pub fn title(self) -> &'static str {
        match self {
            Group::Step => "Step through",
            Group::View => "Panes and views",
            Group::Tasks => "Task picker",
            Group::Human => "Playing the attacker",
            Group::General => "General",
        }
    }
}

impl Command {
    pub const ALL: [Command; 40] = [
        Command::NextEvent,
        Command::PrevEvent,
        Command::NextTurn,
        Command::PrevTurn,
        Command::First,
        Command::Last,
        Command::JumpToTurn,
        Command::PlayPause,
        Command::StepCall,
        Command::StepTurn,
        Command::Continue,
        Command::Faster,
        Command::Slower,
        Command::FocusNext,
        Command::FocusPrev,
        Command::ScrollDown,
        Command::ScrollUp,
        Command::PageDown,
        Command::PageUp,
        Command::SelectNext,
        Command::SelectPrev,
        Command::OpenDetail,
        Command::EpisodeInfo,
        Command::GoToEvidence,
        Command::Search,
        Command::Browser,
        Command::Tasks,
        Command::Compose,
        Command::EditPending,
        Command::EndEpisode,
        Command::TakeOver,
        Command::Redact,
        Command::Annotate,
        Command::Annotations,
        Command::CycleDomain,
        Command::CyclePersona,
        Command::CycleSplit,
        Command::Help,
        Command::Close,
        Command::Quit,
    ];

    /// (name, group, description, default keys)
    fn spec(self) -> (&'static str, Group, &'static str, &'static [&'static str]) {
        use Command::*;
        match self {
            NextEvent => ("next_event", Group::Step, "Reveal the next event", &["n", "Right"]),
            PrevEvent => ("prev_event", Group::Step, "Step back one event", &["p", "Left"]),
            NextTurn => ("next_turn", Group::Step, "Reveal up to the end of the next turn", &["]"]),
            PrevTurn => ("prev_turn", Group::Step, "Step back to the end of the previous turn", &["["]),
            First => ("first", Group::Step, "Go to the first event", &["g", "Home"]),
            Last => ("last", Group::Step, "Go to the last event (follows the live tail)", &["G", "End"]),
            JumpToTurn => ("jump_to_turn", Group::Step, "Jump to turn N", &[":"]),
            PlayPause => {
                ("play_pause", Group::Step, "Play / pause (autoplay on replays, the runner live)", &["Space"])
            }
            StepCall => ("step_call", Group::Step, "Live: let one model call through, then pause", &["."]),
            StepTurn => ("step_turn", Group::Step, "Live: run to the end of the turn, then pause", &[">"]),
            Continue => ("continue", Group::Step, "Live: continue running", &["c"]),
            Faster => ("faster", Group::Step, "Autoplay faster", &["+", "="]),
            Slower => ("slower", Group::Step, "Autoplay slower", &["-"]),
            FocusNext => ("focus_next", Group::View, "Focus the next pane", &["Tab"]),
            FocusPrev => ("focus_prev", Group::View, "Focus the previous pane", &["Shift-Tab"]),
            ScrollDown => ("scroll_down", Group::View, "Scroll the focused pane down", &["j"]),
            ScrollUp => ("scroll_up", Group::View, "Scroll the focused pane up", &["k"]),
            PageDown => ("page_down", Group::View, "Scroll down a page", &["PageDown", "Ctrl-d"]),
            PageUp => ("page_up", Group::View, "Scroll up a page", &["PageUp", "Ctrl-u"]),
            SelectNext => ("select_next", Group::View, "Select the next item in the pane or list", &["Down"]),
            SelectPrev => ("select_prev", Group::View, "Select the previous item", &["Up"]),
            OpenDetail => {
                ("open_detail", Group::View, "Open the selected event: raw text and JSON", &["Enter"])
            }
            EpisodeInfo => {
                ("episode_info", Group::View, "Episode info: task, models, defence, run log", &["I"])
            }
            GoToEvidence => (
                "go_to_evidence",
                Group::View,
                "Go to the selected verdict's evidence (the leak, the offending call)",
                &["v"],
            ),
            Search => ("search", Group::View, "Search the episode (filter in the browser)", &["/"]),
            Browser => ("browser", Group::View, "Episode browser", &["b"]),
            Tasks => ("tasks", Group::Tasks, "CONVERSE task picker", &["t"]),
            Compose => ("compose", Group::Human, "Open the composer (when you play the attacker)", &["i"]),
            EditPending => {
                ("edit_pending", Group::Human, "Edit the attacker's held message (live, paused)", &["e"])
            }
            EndEpisode => {
                ("end_episode", Group::Human, "End the episode (when you play the attacker)", &["E"])
            }
            TakeOver => ("take_over", Group::Human, "Take over here: fork and continue live", &["T"]),
            Redact => {
                ("redact", Group::View, "Mask the persona's private values (screenshots, demos)", &["R"])
            }
            Annotate => ("annotate", Group::Human, "Annotate the selected event (label, note)", &["a"]),
            Annotations => {
                ("annotations", Group::Human, "Annotations panel (Enter jumps, x deletes)", &["N"])
            }
            CycleDomain => ("cycle_domain", Group::Tasks, "Picker: next domain filter", &["D"]),
            CyclePersona => ("cycle_persona", Group::Tasks, "Picker: next persona filter", &["P"]),
            CycleSplit => {
                ("cycle_split", Group::Tasks, "Picker: next split filter (privacy/security)", &["S"])
            }
            Help => ("help", Group::General, "Show this help", &["?"]),
            Close => ("close", Group::General, "Close the overlay / go back", &["Esc"]),
            Quit => ("quit", Group::General, "Quit", &["q", "Ctrl-c"]),
        }
    }

    pub fn name(self) -> &'static str {
        self.spec().0
    }

    pub fn group(self) -> Group {
        self.spec().1
    }

    pub fn description(self) -> &'static str {
        self.spec().2
    }

    pub fn from_name(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name)
    }
}

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

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KeymapFile {
    #[serde(default)]
    bindings: BTreeMap<String, Vec<String>>,
}

/// Keys → commands, and back for the help overlay.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: HashMap<Key, Command>,
}

impl Default for Keymap {
    fn default() -> Self {
        let mut bindings = HashMap::new();
        for command in Command::ALL {
            for key in command.spec().3 {
                bindings.insert(Key::parse(key).expect("default keys parse"), command);
            }
        }
        Keymap { bindings }
    }
}

impl Keymap {
    /// The defaults with the user's file (if any) applied.
    pub fn load(path: &Path) -> anyhow::Result<Keymap> {
        let mut keymap = Keymap::default();
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(keymap),
            Err(e) => return Err(e).with_context(|| format!("{}: cannot read", path.display())),
        };
        let file: KeymapFile = toml_file::parse(&text, path, "keymap")?;
        // The file's words are found again in its text for the error's position.
        let at =
            |word: &str| text.find(word).map(|offset| toml_file::position(&text, offset)).unwrap_or_default();
        for (name, keys) in &file.bindings {
            keymap.apply(name, keys).map_err(|(word, problem)| {
                anyhow::anyhow!("{}{}: invalid keymap: {problem}", path.display(), at(&word))
            })?;
        }
        if keymap.keys(Command::Quit).is_empty() {
            bail!(
                "{}: invalid keymap: nothing is bound to quit (keep at least one key, e.g. quit = [\"q\"])",
                path.display()
            );
        }
        Ok(keymap)
    }

    /// Binds `keys` to command `name`; on failure the offending word and the problem.
    fn apply(&mut self, name: &str, keys: &[String]) -> Result<(), (String, String)> {
        let Some(command) = Command::from_name(name) else {
            return Err((
                name.to_string(),
                format!("unknown command '{name}' (see the help overlay, `?`, for names)"),
            ));
        };
        self.bindings.retain(|_, c| *c != command);
        for key in keys {
            let parsed = Key::parse(key).map_err(|e| (format!("\"{key}\""), format!("{e:#}")))?;
            self.bindings.insert(parsed, command);
        }
        Ok(())
    }

    pub fn command(&self, event: &KeyEvent) -> Option<Command> {
        self.bindings.get(&Key::from_event(event)).copied()
    }

    /// The keys bound to `command`, in a stable order.
    pub fn keys(&self, command: Command) -> Vec<Key> {
        let mut keys: Vec<Key> =
            self.bindings.iter().filter(|(_, c)| **c == command).map(|(k, _)| *k).collect();
        keys.sort_by_cached_key(Key::to_string);
        keys
    }

    /// `"n/→"`: the keys of a command as shown in help and hints.
    pub fn keys_label(&self, command: Command) -> String {
        let default_order: Vec<Key> = command.spec().3.iter().filter_map(|k| Key::parse(k).ok()).collect();
        let mut keys = self.keys(command);
        // Defaults first, in the order written above, then the user's extras.
        keys.sort_by_key(|k| default_order.iter().position(|d| d == k).unwrap_or(usize::MAX));
        keys.iter().map(Key::to_string).collect::<Vec<_>>().join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn defaults_match_the_documented_keys() {
        let k = Keymap::default();
        assert_eq!(k.command(&press(KeyCode::Char('G'), KeyModifiers::SHIFT)), Some(Command::Last));
        assert_eq!(k.command(&press(KeyCode::BackTab, KeyModifiers::SHIFT)), Some(Command::FocusPrev));
        assert_eq!(k.command(&press(KeyCode::Char('c'), KeyModifiers::CONTROL)), Some(Command::Quit));
        assert_eq!(k.command(&press(KeyCode::Char(' '), KeyModifiers::NONE)), Some(Command::PlayPause));
        assert_eq!(k.command(&press(KeyCode::Char('?'), KeyModifiers::SHIFT)), Some(Command::Help));
        assert_eq!(k.keys_label(Command::NextEvent), "n/→");
    }

    #[test]
    fn every_command_has_a_key_and_names_are_unique() {
        let k = Keymap::default();
        for c in Command::ALL {
            assert!(!k.keys(c).is_empty(), "{c:?}");
            assert_eq!(Command::from_name(c.name()), Some(c));
        }
    }

    #[test]
    fn user_bindings_replace_defaults_and_steal_keys() {
        let mut k = Keymap::default();
        k.apply("next_event", &["l".to_string(), "j".to_string()]).unwrap();
        assert_eq!(k.command(&press(KeyCode::Char('n'), KeyModifiers::NONE)), None);
        assert_eq!(k.command(&press(KeyCode::Char('j'), KeyModifiers::NONE)), Some(Command::NextEvent));
        assert!(
            k.keys(Command::ScrollDown).is_empty()
                || k.keys(Command::ScrollDown) != vec![Key::parse("j").unwrap()]
        );
    }

    #[test]
    fn bad_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keymap.toml");
        std::fs::write(&path, "[bindings]\nfly = [\"x\"]\n").unwrap();
        let err = format!("{:#}", Keymap::load(&path).unwrap_err());
        assert!(err.contains("unknown command 'fly'"), "{err}");
        std::fs::write(&path, "[bindings]\nquit = [\"Hyper-x\"]\n").unwrap();
        let err = format!("{:#}", Keymap::load(&path).unwrap_err());
        assert!(err.contains("unknown key 'Hyper-x'"), "{err}");
        assert!(Keymap::load(&dir.path().join("absent.toml")).is_ok());
    }

    #[test]
    fn keymap_errors_are_one_line_with_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keymap.toml");
        std::fs::write(&path, "[bindings]\n# mine\nquit = [\"Hyper-x\"]\n").unwrap();
        let err = format!("{:#}", Keymap::load(&path).unwrap_err());
        assert!(err.starts_with(&format!("{}:3:", path.display())) && !err.contains('\n'), "{err}");
        std::fs::write(&path, "[bindings]\nquit = [\n").unwrap();
        let err = format!("{:#}", Keymap::load(&path).unwrap_err());
        assert!(err.contains("keymap.toml:") && !err.contains('\n'), "{err}");
    }

    #[test]
    fn a_keymap_without_a_way_to_quit_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keymap.toml");
        std::fs::write(&path, "[bindings]\nquit = []\n").unwrap();
        let err = format!("{:#}", Keymap::load(&path).unwrap_err());
        assert!(err.contains("nothing is bound to quit"), "{err}");
    }
}
