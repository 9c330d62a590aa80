//! Keys → commands per layer: the defaults, the user's file merged over them, and lookups both ways.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{Context, bail};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use serde::Deserialize;
use strum::IntoEnumIterator;

use super::command::{Command, Footer, Layer};
use super::key::Key;
use crate::config::toml_file;

/// `[bindings]` and the layer tables; any other table is refused by name in `load`.
#[derive(Deserialize)]
struct KeymapFile {
    #[serde(default)]
    bindings: BTreeMap<String, Vec<String>>,
    #[serde(flatten)]
    layers: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

/// Keys → commands per layer, and back for the help overlay.
#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: HashMap<(Layer, Key), Command>,
}

impl Default for Keymap {
    fn default() -> Self {
        let mut keymap = Keymap { bindings: HashMap::new() };
        for command in Command::all() {
            let spec = command.spec();
            for key in spec.keys {
                keymap.bind(spec.layers, Key::parse(key).expect("default keys parse"), command);
            }
        }
        keymap
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
        let fail = |(word, problem): (String, String)| {
            anyhow::anyhow!("{}{}: invalid keymap: {problem}", path.display(), at(&word))
        };
        for (name, keys) in &file.bindings {
            keymap.apply(None, name, keys).map_err(fail)?;
        }
        for (layer_name, entries) in &file.layers {
            let layer = layer_name.parse::<Layer>().map_err(|_| {
                let known: Vec<&str> = Layer::iter().map(<&str>::from).collect();
                fail((
                    format!("[{layer_name}]"),
                    format!("unknown table [{layer_name}] (bindings, or a layer: {})", known.join(", ")),
                ))
            })?;
            for (name, keys) in entries {
                keymap.apply(Some(layer), name, keys).map_err(fail)?;
            }
        }
        if keymap.keys(Command::Quit).is_empty() {
            bail!(
                "{}: invalid keymap: nothing is bound to quit (keep at least one key, e.g. quit = [\"q\"])",
                path.display()
            );
        }
        // Keys taken by other commands can leave a layer with no way out while the status
        // line still names the default keys (issue 24): every layer keeps a key that quits.
        if let Some(layer) = Command::Quit.spec().layers.iter().find(|l| !keymap.quits_in(**l)) {
            bail!(
                "{}: invalid keymap: nothing quits in [{}] (its quit keys are bound to other commands); keep one, e.g. quit = [\"Ctrl-c\"]",
                path.display(),
                <&str>::from(*layer)
            );
        }
        Ok(keymap)
    }

    /// Binds `keys` to command `name` (in `layer`, or in every layer of the command); on failure
    /// the offending word and the problem.
    fn apply(&mut self, layer: Option<Layer>, name: &str, keys: &[String]) -> Result<(), (String, String)> {
        let Some(command) = Command::from_name(name) else {
            return Err((
                name.to_string(),
                format!("unknown command '{name}' (see the help overlay, `?`, for names)"),
            ));
        };
        let all = command.spec().layers;
        let layers: Vec<Layer> = match layer {
            Some(layer) if all.contains(&layer) => vec![layer],
            Some(layer) => {
                return Err((
                    name.to_string(),
                    format!("'{name}' does nothing in [{}]", <&str>::from(layer)),
                ));
            }
            None => all.to_vec(),
        };
        self.bindings.retain(|(l, _), c| !(*c == command && layers.contains(l)));
        for key in keys {
            let parsed = Key::parse(key).map_err(|e| (format!("\"{key}\""), format!("{e:#}")))?;
            self.bind(&layers, parsed, command);
        }
        Ok(())
    }

    /// Binds `key` in `layers`, except printable characters where they are text.
    fn bind(&mut self, layers: &[Layer], key: Key, command: Command) {
        let printable = matches!(key.code, KeyCode::Char(_)) && !key.ctrl && !key.alt;
        for layer in layers.iter().filter(|l| !(printable && l.takes_text())) {
            self.bindings.insert((*layer, key), command);
        }
    }

    /// The command of a key in a layer.
    pub fn command(&self, layer: Layer, event: &KeyEvent) -> Option<Command> {
        self.bindings.get(&(layer, Key::from_event(event))).copied()
    }

    /// Whether some key quits in `layer`.
    fn quits_in(&self, layer: Layer) -> bool {
        self.bindings.iter().any(|((l, _), c)| *l == layer && *c == Command::Quit)
    }

    /// The keys bound to `command` (in any layer), in a stable order.
    pub fn keys(&self, command: Command) -> Vec<Key> {
        let mut keys: Vec<Key> =
            self.bindings.iter().filter(|(_, c)| **c == command).map(|((_, k), _)| *k).collect();
        keys.sort_by_cached_key(Key::to_string);
        keys.dedup();
        keys
    }

    /// The key a hint names for `command`: its first key, defaults first.
    pub fn key_hint(&self, command: Command) -> String {
        let label = self.keys_label(command);
        match label.split('/').next() {
            Some(first) if !first.is_empty() => first.to_string(),
            _ => "(unbound)".to_string(),
        }
    }

    /// `"Enter keep · Esc clear"`: each command's first key and what it does here, for a hint
    /// line that names the keys the user's keymap binds.
    pub fn hints(&self, pairs: &[(Command, &str)]) -> String {
        let hints: Vec<String> =
            pairs.iter().map(|(command, what)| format!("{} {what}", self.key_hint(*command))).collect();
        hints.join(" · ")
    }

    /// A screen's footer: each command it names that `applies` now, with its keys and what it
    /// does (`"Enter open · / filter · n/p turn · Esc back"`: a pair shows each one's first key).
    pub fn footer(&self, footer: Footer, applies: impl Fn(Command) -> bool) -> String {
        let entries = footer.entries().iter().filter(|(commands, _)| commands.iter().all(|c| applies(*c)));
        let keys = |commands: &[Command]| match commands {
            [one] => self.keys_label(*one),
            pair => pair.iter().map(|c| self.key_hint(*c)).collect::<Vec<_>>().join("/"),
        };
        entries.map(|(commands, what)| format!("{} {what}", keys(commands))).collect::<Vec<_>>().join(" · ")
    }

    /// `"n/→"`: the keys of a command as shown in help and hints.
    pub fn keys_label(&self, command: Command) -> String {
        let default_order: Vec<Key> = command.spec().keys.iter().filter_map(|k| Key::parse(k).ok()).collect();
        let mut keys = self.keys(command);
        // Defaults first, in the order written above, then the user's extras.
        keys.sort_by_key(|k| default_order.iter().position(|d| d == k).unwrap_or(usize::MAX));
        keys.iter().map(Key::to_string).collect::<Vec<_>>().join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyModifiers;

    fn press(code: KeyCode, mods: KeyModifiers) -> KeyEvent {
        KeyEvent::new(code, mods)
    }

    #[test]
    fn defaults_match_the_documented_keys() {
        let k = Keymap::default();
        assert_eq!(
            k.command(Layer::Inspector, &press(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            Some(Command::Last)
        );
        assert_eq!(
            k.command(Layer::Inspector, &press(KeyCode::BackTab, KeyModifiers::SHIFT)),
            Some(Command::FocusPrev)
        );
        assert_eq!(
            k.command(Layer::Inspector, &press(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            Some(Command::Quit)
        );
        assert_eq!(
            k.command(Layer::Inspector, &press(KeyCode::Char(' '), KeyModifiers::NONE)),
            Some(Command::PlayPause)
        );
        assert_eq!(
            k.command(Layer::Inspector, &press(KeyCode::Char('?'), KeyModifiers::SHIFT)),
            Some(Command::Help)
        );
        assert_eq!(k.keys_label(Command::NextEvent), "n/→");
    }

    #[test]
    fn every_command_has_a_key_and_names_are_unique() {
        let k = Keymap::default();
        for c in Command::all() {
            assert!(!k.keys(c).is_empty(), "{c:?}");
            assert_eq!(Command::from_name(c.name()), Some(c));
        }
    }

    #[test]
    fn user_bindings_replace_defaults_and_steal_keys() {
        let mut k = Keymap::default();
        k.apply(None, "next_event", &["l".to_string(), "j".to_string()]).unwrap();
        assert_eq!(k.command(Layer::Inspector, &press(KeyCode::Char('n'), KeyModifiers::NONE)), None);
        assert_eq!(
            k.command(Layer::Inspector, &press(KeyCode::Char('j'), KeyModifiers::NONE)),
            Some(Command::NextEvent)
        );
        // `j` was taken from scroll_down where next_event lives; overlays (no next_event) keep it.
        let j = press(KeyCode::Char('j'), KeyModifiers::NONE);
        assert_eq!(k.command(Layer::Browser, &j), Some(Command::NextEvent));
        assert_eq!(k.command(Layer::Overlay, &j), Some(Command::ScrollDown));
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

    /// Issue 24: `q`, `Esc` and `Ctrl-c` bound to other commands left no way to quit.
    #[test]
    fn a_keymap_that_takes_every_quit_key_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keymap.toml");
        std::fs::write(&path, "[bindings]\nfirst = [\"q\", \"Ctrl-c\"]\nlast = [\"Esc\"]\n").unwrap();
        let err = format!("{:#}", Keymap::load(&path).unwrap_err());
        assert!(err.contains("nothing quits in [inspector]"), "{err}");
        std::fs::write(&path, "[bindings]\nfirst = [\"q\", \"Ctrl-c\"]\nquit = [\"Ctrl-q\"]\n").unwrap();
        assert!(Keymap::load(&path).is_ok(), "another key quits");
    }

    #[test]
    fn layers_keep_their_own_keys_and_text_stays_text() {
        let k = Keymap::default();
        let y = press(KeyCode::Char('y'), KeyModifiers::NONE);
        assert_eq!(Keymap::command(&k, Layer::Confirm, &y), Some(Command::Confirm));
        assert_eq!(Keymap::command(&k, Layer::TakeOver, &y), Some(Command::TakeOverHuman));
        // `q` quits on screens but is a letter in the composer; Ctrl-c quits everywhere.
        let q = press(KeyCode::Char('q'), KeyModifiers::NONE);
        assert_eq!(Keymap::command(&k, Layer::Browser, &q), Some(Command::Quit));
        assert_eq!(Keymap::command(&k, Layer::Composer, &q), None);
        let ctrl_c = press(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(Keymap::command(&k, Layer::Form, &ctrl_c), Some(Command::Quit));
    }

    #[test]
    fn a_layer_table_rebinds_only_that_layer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keymap.toml");
        std::fs::write(&path, "[confirm]\nconfirm = [\"o\"]\n[take_over]\ntake_over_human = [\"u\"]\n")
            .unwrap();
        let k = Keymap::load(&path).unwrap();
        let key = |c| press(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(Keymap::command(&k, Layer::Confirm, &key('o')), Some(Command::Confirm));
        assert_eq!(Keymap::command(&k, Layer::Confirm, &key('y')), None);
        assert_eq!(Keymap::command(&k, Layer::TakeOver, &key('u')), Some(Command::TakeOverHuman));
        std::fs::write(&path, "[confirm]\nnext_event = [\"o\"]\n").unwrap();
        let err = format!("{:#}", Keymap::load(&path).unwrap_err());
        assert!(err.contains("'next_event' does nothing in [confirm]") && !err.contains('\n'), "{err}");
        std::fs::write(&path, "[dialogs]\nconfirm = [\"o\"]\n").unwrap();
        let err = format!("{:#}", Keymap::load(&path).unwrap_err());
        assert!(err.contains("unknown table [dialogs]"), "{err}");
    }

    #[test]
    fn hints_name_the_keys_the_user_bound() {
        let mut k = Keymap::default();
        assert_eq!(
            k.hints(&[(Command::Submit, "keep"), (Command::Close, "clear")]),
            "Enter keep · Esc clear"
        );
        k.apply(None, "submit", &["Ctrl-s".to_string()]).unwrap();
        assert_eq!(
            k.hints(&[(Command::Submit, "keep"), (Command::Close, "clear")]),
            "Ctrl-s keep · Esc clear"
        );
    }
}
