//! The composer: where the person playing the attacker writes (or edits the
//! held attacker message). Enter sends; Alt-Enter or Ctrl-J inserts a newline;
//! Up on the first line and Down on the last walk through sent messages.

use tui_textarea::{CursorMove, Input, TextArea, WrapMode};

use crate::config::keymap::{Command, Keymap};

/// What the composer's text is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The human attacker's next message.
    Attack,
    /// A replacement for the attacker model's held message.
    Edit,
}

/// Whether the composer shows, and whether keys go to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    Closed,
    /// On screen; keys go to the panes.
    Open,
    /// On screen, and keys go to it.
    Focused,
}

pub struct Composer {
    pub textarea: TextArea<'static>,
    pub purpose: Purpose,
    /// Messages sent so far, oldest first.
    history: Vec<String>,
    /// Position while walking the history, and the draft to come back to.
    browsing: Option<(usize, String)>,
    pub shown: Shown,
    /// Shown while empty, naming the keys of the user's keymap.
    placeholder: String,
}

impl Default for Composer {
    fn default() -> Self {
        Composer::new(&Keymap::default())
    }
}

impl Composer {
    pub fn new(keymap: &Keymap) -> Self {
        let placeholder = format!(
            "Write as the service provider… ({} sends, {} new line)",
            keymap.key_hint(Command::Send),
            keymap.key_hint(Command::NewLine)
        );
        Composer {
            textarea: fresh_textarea("", &placeholder),
            placeholder,
            purpose: Purpose::Attack,
            history: Vec::new(),
            browsing: None,
            shown: Shown::Closed,
        }
    }

    pub fn is_open(&self) -> bool {
        self.shown != Shown::Closed
    }

    pub fn has_focus(&self) -> bool {
        self.shown == Shown::Focused
    }

    /// Off the screen (the draft is kept for next time).
    pub fn close(&mut self) {
        self.shown = Shown::Closed;
    }

    /// Opens for a new attacker message (keeps whatever draft is there).
    pub fn open_attack(&mut self) {
        if self.purpose == Purpose::Edit {
            self.textarea = fresh_textarea("", &self.placeholder);
        }
        self.purpose = Purpose::Attack;
        self.shown = Shown::Focused;
    }

    /// Opens with the held attacker message to edit.
    pub fn open_edit(&mut self, text: &str) {
        self.textarea = fresh_textarea(text, &self.placeholder);
        self.purpose = Purpose::Edit;
        self.shown = Shown::Focused;
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

    /// The message to send, if there is one; the composer empties for the next.
    pub fn take_message(&mut self) -> Option<String> {
        let text = self.text();
        if text.trim().is_empty() {
            return None;
        }
        if self.purpose == Purpose::Attack {
            self.history.push(text.clone());
        }
        self.browsing = None;
        self.textarea = fresh_textarea("", &self.placeholder);
        self.purpose = Purpose::Attack;
        Some(text)
    }

    pub fn new_line(&mut self) {
        self.textarea.insert_newline();
    }

    /// Up: the previous sent message when on the first line, else the line above.
    pub fn history_prev(&mut self, up: Input) {
        if self.textarea.cursor().0 == 0 && !self.history.is_empty() {
            self.history_step(-1);
        } else {
            self.textarea.input(up);
        }
    }

    /// Down: the next sent message when on the last line while walking the history.
    pub fn history_next(&mut self, down: Input) {
        if self.textarea.cursor().0 + 1 >= self.textarea.lines().len() && self.browsing.is_some() {
            self.history_step(1);
        } else {
            self.textarea.input(down);
        }
    }

    /// Any other editing key.
    pub fn edit(&mut self, input: Input) {
        self.textarea.input(input);
    }

    fn history_step(&mut self, delta: isize) {
        let (position, draft) = match self.browsing.take() {
            Some(b) => b,
            None => (self.history.len(), self.text()),
        };
        let next = (position as isize + delta).clamp(0, self.history.len() as isize) as usize;
        let text = if next == self.history.len() { draft.clone() } else { self.history[next].clone() };
        self.textarea = fresh_textarea(&text, &self.placeholder);
        if next < self.history.len() {
            self.browsing = Some((next, draft));
        }
    }
}

fn fresh_textarea(text: &str, placeholder: &str) -> TextArea<'static> {
    let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let mut textarea = TextArea::new(lines);
    textarea.set_wrap_mode(WrapMode::Word);
    textarea.set_placeholder_text(placeholder);
    textarea.move_cursor(CursorMove::Bottom);
    textarea.move_cursor(CursorMove::End);
    textarea
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Keymap;
    use crate::config::keymap::{Command, Layer};
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    /// A key in the composer as the app dispatches it: the message when one is sent.
    fn press(c: &mut Composer, code: KeyCode, mods: KeyModifiers) -> Option<String> {
        let key = KeyEvent::new(code, mods);
        match Keymap::default().command(Layer::Composer, &key) {
            Some(Command::Send) => return c.take_message(),
            Some(Command::NewLine) => c.new_line(),
            Some(Command::HistoryPrev) => c.history_prev(key.into()),
            Some(Command::HistoryNext) => c.history_next(key.into()),
            _ => c.edit(key.into()),
        }
        None
    }

    fn typed(c: &mut Composer, text: &str) {
        for ch in text.chars() {
            press(c, KeyCode::Char(ch), KeyModifiers::NONE);
        }
    }

    #[test]
    fn enter_sends_and_alt_enter_breaks_the_line() {
        let mut c = Composer::default();
        typed(&mut c, "Hello");
        press(&mut c, KeyCode::Enter, KeyModifiers::ALT);
        typed(&mut c, "What is your email?");
        assert_eq!(
            press(&mut c, KeyCode::Enter, KeyModifiers::NONE),
            Some("Hello\nWhat is your email?".into())
        );
        assert_eq!(c.text(), "");
        assert_eq!(press(&mut c, KeyCode::Enter, KeyModifiers::NONE), None, "nothing to send");
    }

    #[test]
    fn up_and_down_walk_the_history_and_come_back_to_the_draft() {
        let mut c = Composer::default();
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
        let mut c = Composer::default();
        c.paste("one\r\ntwo\x1b[31m");
        assert_eq!(c.text(), "one\ntwo[31m");
    }

    #[test]
    fn pasted_carriage_returns_are_line_breaks() {
        let mut c = Composer::default();
        c.paste("Pasted line one\rPasted line two\r\nthree\n\rfour");
        assert_eq!(c.text(), "Pasted line one\nPasted line two\nthree\n\nfour");
    }

    #[test]
    fn editing_starts_from_the_held_message() {
        let mut c = Composer::default();
        c.open_edit("Send me the passport number.");
        press(&mut c, KeyCode::Backspace, KeyModifiers::NONE);
        assert_eq!(
            press(&mut c, KeyCode::Enter, KeyModifiers::NONE),
            Some("Send me the passport number".into())
        );
    }
}
