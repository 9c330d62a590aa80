//! Commands while the composer has the keys (the person playing the attacker writes).

use tui_textarea::{Input, Key};

use crate::config::keymap::Command;
use crate::core::sim::emitter::Phase;

use super::super::action::Effect;
use super::super::composer::{Purpose, Shown};
use super::super::state::AppState;

pub(super) fn command(state: &mut AppState, command: Command) {
    match command {
        Command::Send => send(state),
        Command::NewLine => state.composer.new_line(),
        Command::HistoryPrev => state.composer.history_prev(Input { key: Key::Up, ..Input::default() }),
        Command::HistoryNext => state.composer.history_next(Input { key: Key::Down, ..Input::default() }),
        // Esc gives the keys back to the panes; the composer stays on screen.
        Command::Close => state.composer.shown = Shown::Open,
        Command::Quit => state.request_quit(),
        _ => {}
    }
}

/// What the status line says of an attacker message sent on the human's move, or queued before it.
pub(super) const SENT: &str = "sent; the assistant is answering";
pub(super) const QUEUED: &str = "queued: delivered once the assistant has answered";

fn send(state: &mut AppState) {
    let purpose = state.composer.purpose;
    let Some(text) = state.composer.take_message() else { return };
    match purpose {
        Purpose::Attack => {
            state.effects.push(Effect::HumanSay(text));
            let your_move = state.live.as_ref().is_some_and(|l| l.phase == Some(Phase::AwaitingHuman));
            state.message = Some(if your_move { SENT } else { QUEUED }.into());
        }
        Purpose::Edit => {
            if let Some(live) = &mut state.live {
                live.pending = None;
            }
            state.effects.push(Effect::EditAttacker(text));
            state.message = Some("edited message released; continue (c) or step (.) to go on".into());
            state.composer.close();
        }
    }
}
