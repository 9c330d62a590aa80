//! Commands while the composer has the keys (the person playing the attacker writes).

use tui_textarea::{Input, Key};

use crate::config::keymap::Command;
use crate::core::sim::emitter::Phase;

use super::super::action::Effect;
use super::super::chrome::Chrome;
use super::super::composer::{Purpose, Shown};
use super::super::inspector_screen::InspectorScreen;

pub(super) fn command(screen: &mut InspectorScreen, chrome: &mut Chrome, command: Command) {
    let composer = &mut screen.composer;
    match command {
        Command::Send => send(screen, chrome),
        Command::NewLine => composer.new_line(),
        Command::HistoryPrev => composer.history_prev(Input { key: Key::Up, ..Input::default() }),
        Command::HistoryNext => composer.history_next(Input { key: Key::Down, ..Input::default() }),
        // Esc gives the keys back to the panes; the composer stays on screen.
        Command::Close => composer.shown = Shown::Open,
        Command::Quit => chrome.quit(),
        _ => {}
    }
}

/// What the status line says of an attacker message sent on the human's move, or queued before it.
pub(super) const SENT: &str = "sent; the assistant is answering";
pub(super) const QUEUED: &str = "queued: delivered once the assistant has answered";

fn send(screen: &mut InspectorScreen, chrome: &mut Chrome) {
    let purpose = screen.composer.purpose;
    let Some(text) = screen.composer.take_message() else { return };
    match purpose {
        Purpose::Attack => {
            chrome.effect(Effect::HumanSay(text));
            let your_move = screen.live.as_ref().is_some_and(|l| l.phase == Some(Phase::AwaitingHuman));
            chrome.say(if your_move { SENT } else { QUEUED });
        }
        Purpose::Edit => {
            if let Some(live) = &mut screen.live {
                live.pending = None;
            }
            chrome.effect(Effect::EditAttacker(text));
            chrome.say("edited message released; continue (c) or step (.) to go on");
            screen.composer.close();
        }
    }
}
