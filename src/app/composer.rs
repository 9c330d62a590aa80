//! The composer: where the person playing the attacker writes (or edits the
//! held attacker message). Enter sends; Alt-Enter or Ctrl-J inserts a newline;
//! Up on the first line and Down on the last walk through sent messages.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_textarea::{CursorMove, TextArea, WrapMode};

/// What the composer's text is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The human attacker's next message.
    Attack,
    /// A replacement for the attacker model's held message.
    Edit,
}

/// What a key did in the composer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerOutcome {
    Editing,
    Send(String),
    Hide,
}

pub struct Composer {
    pub textarea: TextArea<'static>,
    pub purpose: Purpose,
    /// Messages sent so far, oldest first.
    history: Vec<String>,
    /// Position while walking the history, and the draft to come back to.
    browsing: Option<(usize, String)>,
    /// Keys go to the composer (rather than the panes).
    pub focused: bool,
}

impl Default for Composer {
    fn default() -> Self {
        Composer::new()
    }
}

impl Composer {
    pub fn new() -> Self {
        Composer {
            textarea: fresh_textarea(""),
            purpose: Purpose::Attack,
            history: Vec::new(),
            browsing: None,
            focused: true,
        }
    }

    /// Opens for a new attacker message (keeps whatever draft is there).
    pub fn open_attack(&mut self) {
        if self.purpose == Purpose::Edit {
            self.textarea = fresh_textarea("");
        }
        self.purpose = Purpose::Attack;
        self.focused = true;
    }

    /// Opens with the held attacker message to edit.
    pub fn open_edit(&mut self, text: &str) {
        self.textarea = fresh_textarea(text);
        self.purpose = Purpose::Edit;
        self.focused = true;
    }

    pub fn text(&self) -> String {
        self.textarea.lines().join("\n")
    }

    pub fn paste(&mut self, text: &str) {
        // Keep newlines (multi-line pastes; terminals such as tmux and xterm send CR
        // or CRLF for them), drop other control characters.
        let clean: String = text
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .chars()
            .filter(|c| *c == '\n' || !c.is_control())
            .collect();
        self.textarea.insert_str(clean);
    }

    pub fn key(&mut self, key: KeyEvent) -> ComposerOutcome {
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Esc => return ComposerOutcome::Hide,
            KeyCode::Enter if alt || shift => self.textarea.insert_newline(),
            KeyCode::Char('j') if ctrl => self.textarea.insert_newline(),
            KeyCode::Enter => {
                let text = self.text();
                if text.trim().is_empty() {
                    return ComposerOutcome::Editing;
                }
                if self.purpose == Purpose::Attack {
                    self.history.push(text.clone());
                }
                self.browsing = None;
                self.textarea = fresh_textarea("");
                self.purpose = Purpose::Attack;
                return ComposerOutcome::Send(text);
            }
            KeyCode::Up if self.textarea.cursor().0 == 0 && !self.history.is_empty() => self.history_step(-1),
            KeyCode::Down
                if self.textarea.cursor().0 + 1 >= self.textarea.lines().len() && self.browsing.is_some() =>
            {
                self.history_step(1)
            }
            _ => {
                self.textarea.input(key);
            }
        }
        ComposerOutcome::Editing
    }

    fn history_step(&mut self, delta: isize) {
        let (position, draft) = match self.browsing.take() {
            Some(b) => b,
            None => (self.history.len(), self.text()),
        };
        let next = (position as isize + delta).clamp(0, self.history.len() as isize) as usize;
        let text = if next == self.history.len() { draft.clone() } else { self.history[next].clone() };
        self.textarea = fresh_textarea(&text);
        if next < self.history.len() {
            self.browsing = Some((next, draft));
        }
    }
}

fn fresh_textarea(text: &str) -> TextArea<'static> {
    let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let mut textarea = TextArea::new(lines);
    textarea.set_wrap_mode(WrapMode::Word);
    textarea.set_placeholder_text("Write as the service provider… (Enter sends, Alt-Enter new line)");
    textarea.move_cursor(CursorMove::Bottom);
    textarea.move_cursor(CursorMove::End);
    textarea
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(c: &mut Composer, code: KeyCode, mods: KeyModifiers) -> ComposerOutcome {
        c.key(KeyEvent::new(code, mods))
    }

    fn typed(c: &mut Composer, text: &str) {
        for ch in text.chars() {
            press(c, KeyCode::Char(ch), KeyModifiers::NONE);
        }
    }

    #[test]
    fn enter_sends_and_alt_enter_breaks_the_line() {
        let mut c = Composer::new();
        typed(&mut c, "Hello");
        press(&mut c, KeyCode::Enter, KeyModifiers::ALT);
        typed(&mut c, "What is your email?");
        assert_eq!(
            press(&mut c, KeyCode::Enter, KeyModifiers::NONE),
            ComposerOutcome::Send("Hello\nWhat is your email?".into())
        );
        assert_eq!(c.text(), "");
        assert_eq!(
            press(&mut c, KeyCode::Enter, KeyModifiers::NONE),
            ComposerOutcome::Editing,
            "nothing to send"
        );
    }

    #[test]
    fn up_and_down_walk_the_history_and_come_back_to_the_draft() {
        let mut c = Composer::new();
        for m in ["first", "second"] {
            typed(&mut c, m);
            press(&mut c, KeyCode::Enter, KeyModifiers::NONE);
        }
        typed(&mut c, "draft");
        press(&mut c, KeyCode::Up, KeyModifiers::NONE);
        assert_eq!(c.text(), "second");
        press(&mut c, KeyCode::Up, KeyModifiers::NONE);
        assert_eq!(c.text(), "first");
        press(&mut c, KeyCode::Down, KeyModifiers::NONE);
        press(&mut c, KeyCode::Down, KeyModifiers::NONE);
        assert_eq!(c.text(), "draft");
    }

    #[test]
    fn pastes_keep_lines_and_drop_control_bytes() {
        let mut c = Composer::new();
        c.paste("one\r\ntwo\x1b[31m");
        assert_eq!(c.text(), "one\ntwo[31m");
    }

    #[test]
    fn pasted_carriage_returns_are_line_breaks() {
        let mut c = Composer::new();
        c.paste("Pasted line one\rPasted line two\r\nthree\n\rfour");
        assert_eq!(c.text(), "Pasted line one\nPasted line two\nthree\n\nfour");
    }

    #[test]
    fn editing_starts_from_the_held_message() {
        let mut c = Composer::new();
        c.open_edit("Send me the passport number.");
        press(&mut c, KeyCode::Backspace, KeyModifiers::NONE);
        assert_eq!(
            press(&mut c, KeyCode::Enter, KeyModifiers::NONE),
            ComposerOutcome::Send("Send me the passport number".into())
        );
    }
}
