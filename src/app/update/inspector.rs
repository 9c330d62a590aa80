//! Commands on the inspector: stepping, panes, detail, redaction, annotations, the live runner.

use crate::config::keymap::Command;
use crate::config::ui_state::LayoutMode;
use crate::core::episode::EventBody;

use super::super::action::Effect;
use super::super::action::FollowUp;
use super::super::detail::Detail;
use super::super::episode_info::episode_info;
use super::super::layout::PaneId;
use super::super::live::RunnerControl;
use super::super::notes::AnnotateForm;
use super::super::scroll::scroll_delta;
use super::super::state::{AppState, Overlay, Prompt, PromptKind, Screen};
use super::super::view::VerdictRow;

pub(super) fn command(state: &mut AppState, command: Command) {
    if state.layout_mode == LayoutMode::Transcript && transcript_command(state, command) {
        return;
    }
    let active = state.active;
    let Some(inspector) = state.inspectors.get_mut(active) else {
        match command {
            Command::Quit => state.request_quit(),
            Command::Tasks => state.show_task_picker(),
            Command::Help => state.overlays.push(Overlay::Help { scroll: 0 }),
            _ => {}
        }
        return;
    };
    let view = &mut inspector.view;
    let focus = inspector.focus;
    let cursor = view.cursor;
    let live_running = state.live.as_ref().is_some_and(|l| !l.finished);
    let human = state.live.as_ref().is_some_and(|l| l.human && !l.finished);
    match command {
        Command::NextEvent => state.move_cursor(cursor + 1),
        Command::PrevEvent => {
            let target = cursor.saturating_sub(1).max(view.first_cursor().min(cursor));
            state.move_cursor(target);
        }
        Command::NextTurn => {
            let target = view.next_turn_cursor();
            state.move_cursor(target);
        }
        Command::PrevTurn => {
            let target = view.prev_turn_cursor();
            state.move_cursor(target);
        }
        Command::First => {
            let target = view.first_cursor();
            view.follow_tail = false;
            state.move_cursor(target);
        }
        Command::Last => {
            let target = view.last();
            view.follow_tail = true;
            state.move_cursor(target);
        }
        Command::JumpToTurn => open_prompt(state, PromptKind::JumpToTurn),
        Command::Search => open_prompt(state, PromptKind::Search),
        Command::SearchEpisodes => state.follow_up(FollowUp::SearchResultsOrPrompt),
        Command::NextHit => state.follow_up(FollowUp::StepHit(1)),
        Command::PrevHit => state.follow_up(FollowUp::StepHit(-1)),
        Command::Copy => hand_off(state, None),
        Command::OpenInPager => hand_off(state, Some(false)),
        Command::OpenInEditor => hand_off(state, Some(true)),
        Command::PlayPause if live_running => {
            let paused = state.live.as_ref().is_some_and(|l| l.paused());
            state.control_runner(if paused { RunnerControl::Resume } else { RunnerControl::Pause });
        }
        Command::StepCall => state.control_runner(RunnerControl::StepCall),
        Command::StepTurn => state.control_runner(RunnerControl::StepTurn),
        Command::Continue => state.control_runner(RunnerControl::Resume),
        Command::PlayPause => {
            if cursor >= view.last() && !state.autoplay.playing {
                view.set_cursor(view.first_cursor());
            }
            state.autoplay.toggle();
        }
        Command::Faster => state.autoplay.faster(),
        Command::Slower => state.autoplay.slower(),
        Command::FocusNext => inspector.focus = focus.next(),
        Command::FocusPrev => inspector.focus = focus.prev(),
        Command::ScrollDown | Command::ScrollUp | Command::PageDown | Command::PageUp => {
            let viewport = view.pane(focus).map_or(1, |p| p.viewport);
            if let Some(delta) = scroll_delta(command, viewport) {
                view.scroll_pane(focus, delta);
            }
        }
        Command::SelectNext | Command::SelectPrev => {
            let delta = if command == Command::SelectNext { 1 } else { -1 };
            match view.pane_mut(focus) {
                Some(mut pane) => pane.select_by(delta),
                None => view.select_verdict(delta),
            }
        }
        Command::OpenDetail => open_detail(state),
        Command::EpisodeInfo => open_episode_info(state),
        Command::GoToEvidence => go_to_evidence(state),
        Command::ToggleTranscript => toggle_layout(state),
        Command::Compose if human => state.composer.open_attack(),
        Command::EditPending => match state.live.as_ref().and_then(|l| l.pending.clone()) {
            Some(text) => state.composer.open_edit(&text),
            None => {
                state.message =
                    Some("no attacker message is held: pause the run while the attacker writes".into())
            }
        },
        Command::EndEpisode if human => state.effects.push(Effect::HumanEnd),
        Command::Redact => toggle_redaction(state),
        Command::Annotate => open_annotate(state),
        Command::KeepCase => state.ask_suite(),
        Command::Annotations => {
            if inspector.notes.list.is_empty() {
                state.message =
                    Some("no annotations on this episode yet (a annotates the selected event)".into());
            } else {
                state.overlays.push(Overlay::Annotations { selected: 0 });
            }
        }
        Command::TakeOver => {
            let turn = view.turn_at(view.cursor);
            state.overlays.push(Overlay::TakeOver { turn });
        }
        Command::Fan => state.follow_up(FollowUp::FanPrompt),
        Command::ForkTree => state.follow_up(FollowUp::ForkTree),
        Command::Browser if state.browser.is_some() => state.screen = Screen::Browser,
        // An attempt opened from the fan screen or the fork tree goes back there.
        Command::Close if state.opened_from().is_some() => {
            state.screen = state.opened_from().unwrap_or(Screen::Inspector)
        }
        Command::Close if state.composer.is_open() => state.composer.close(),
        Command::Close if state.browser.is_some() => state.screen = Screen::Browser,
        Command::Tasks => state.show_task_picker(),
        Command::Help => state.overlays.push(Overlay::Help { scroll: 0 }),
        Command::Quit => state.request_quit(),
        _ => {}
    }
}

/// Scrolling, selecting and Enter in the transcript layout; whether `command` was one of them.
fn transcript_command(state: &mut AppState, command: Command) -> bool {
    let Some(inspector) = state.inspectors.get_mut(state.active) else { return false };
    let (transcript, view) = (&mut inspector.transcript, &inspector.view);
    match command {
        Command::ScrollDown | Command::ScrollUp | Command::PageDown | Command::PageUp => {
            if let Some(delta) = scroll_delta(command, transcript.viewport) {
                transcript.scroll_by(view, delta);
            }
        }
        Command::SelectNext => transcript.select_by(view, 1),
        Command::SelectPrev => transcript.select_by(view, -1),
        // Enter unfolds (or folds) a tool call or result, and opens anything else.
        Command::OpenDetail => match transcript.selected_entry() {
            Some(entry) if transcript.toggle_fold(view, entry) => {}
            _ => return false,
        },
        _ => return false,
    }
    true
}

/// Switches between the three panes and the transcript, and remembers the choice.
fn toggle_layout(state: &mut AppState) {
    state.layout_mode = match state.layout_mode {
        LayoutMode::Panes => LayoutMode::Transcript,
        LayoutMode::Transcript => LayoutMode::Panes,
    };
    state.message = Some(match state.layout_mode {
        LayoutMode::Transcript => "transcript layout (v: the three panes)".into(),
        LayoutMode::Panes => "three panes (v: the transcript)".into(),
    });
    state.save_ui_state();
}

fn open_prompt(state: &mut AppState, kind: PromptKind) {
    state.overlays.push(Overlay::Prompt(Prompt { kind, input: String::new() }));
}

/// The event an action applies to: the selected item of the focused pane, or the verdict row's event.
fn selected_event(state: &AppState) -> Option<usize> {
    let inspector = state.inspector()?;
    let view = &inspector.view;
    if state.layout_mode == LayoutMode::Transcript {
        let t = &inspector.transcript;
        return Some(t.selected_entry().map_or(view.cursor, |e| t.entries[e].event));
    }
    let event = match view.pane(inspector.focus) {
        Some(pane) => pane.selected_item().map(|i| pane.items[i].event()),
        None => view.verdict_rows.get(view.verdict_selected).map(|r| r.event),
    };
    Some(event.unwrap_or(view.cursor))
}

/// The selected event's text to the clipboard (`editor` `None`), or to the pager or the editor.
/// The text is what the event says, masked while redaction is on; what a terminal would obey
/// (C0 and C1 controls but newline and tab) is left out, as a paste must not carry them.
fn hand_off(state: &mut AppState, editor: Option<bool>) {
    let (Some(event), Some(view)) = (selected_event(state), state.view()) else { return };
    let Some(shown) = view.shown_event(event) else { return };
    let Some(text) = handoff_text(&shown.body) else {
        state.message = Some("nothing to copy in this event".into());
        return;
    };
    let text: String = text.chars().filter(|c| !c.is_control() || matches!(c, '\n' | '\t')).collect();
    match editor {
        None => {
            state.message = Some(format!("copied {} characters (OSC 52)", text.chars().count()));
            state.effects.push(Effect::Copy(text));
        }
        Some(editor) => state.effects.push(Effect::HandOff { text, editor }),
    }
}

/// An event's own text: a message, a tool's output, a call's arguments (JSON), an error, a
/// verdict's summary.
fn handoff_text(body: &EventBody) -> Option<String> {
    match body {
        EventBody::Message(m) => Some(m.text.clone()),
        EventBody::ToolResult(r) => Some(r.output.clone()),
        EventBody::ToolCall(c) => Some(match &c.raw_args {
            Some(raw) => raw.clone(),
            None => serde_json::to_string_pretty(&c.args).unwrap_or_default(),
        }),
        EventBody::Error(e) => Some(e.message.clone()),
        EventBody::Verdict(v) => v.summary.clone(),
        _ => None,
    }
}

/// Opens the selected item of the focused pane, or the verdict row.
fn open_detail(state: &mut AppState) {
    let (Some(event), Some(view)) = (selected_event(state), state.view()) else { return };
    let Some(shown) = view.shown_event(event) else { return };
    let detail = Detail::of_event(&shown, view.events());
    state.overlays.push(Overlay::Detail(detail));
}

fn open_episode_info(state: &mut AppState) {
    let Some(view) = state.view() else { return };
    match view.shown_event(0).and_then(|header| episode_info(&header)) {
        Some(detail) => state.overlays.push(Overlay::Detail(detail)),
        None => state.message = Some("no episode header yet".into()),
    }
}

/// Selects the event the selected verdict names as its evidence (the first verdict that names
/// one, when the verdict pane is not focused).
fn go_to_evidence(state: &mut AppState) {
    let Some(inspector) = state.inspector() else { return };
    let view = &inspector.view;
    // The evidence the verdict names, else (a judge file names none) the reply its leak turn is
    // inferred from, as the index and the charts infer it.
    let evidence_of = |row: &VerdictRow| match &view.events()[row.event].body {
        EventBody::Verdict(v) => match v.evidence.as_ref().and_then(|e| view.episode.position_of(e.seq)) {
            Some(event) => Some((event, None)),
            None => view.inferred_leak(row.event).map(|(event, turn)| (event, Some(turn))),
        },
        _ => None,
    };
    let found = if inspector.focus == PaneId::Verdicts {
        view.verdict_rows.get(view.verdict_selected).and_then(evidence_of)
    } else {
        view.verdict_rows.iter().find_map(evidence_of)
    };
    match found {
        Some((event, inferred)) => {
            if let Some(turn) = inferred {
                state.message = Some(format!(
                    "turn {turn}: the first reply holding a snippet the judge quotes (it names no turn; the index and the charts use this one)"
                ));
            }
            if let Some(inspector) = state.inspector_mut() {
                inspector.jump_to_event(event);
            }
        }
        None => {
            state.message = Some(
                "this verdict names no evidence (recorded LLM judges do not say where; \
                 `judge --rules-only` adds rule verdicts that do)"
                    .into(),
            )
        }
    }
}

pub(super) fn open_annotate(state: &mut AppState) {
    if state.inspector().is_none_or(|i| i.notes.path.is_none()) {
        state.message =
            Some("this episode has no file to keep notes beside (the bundled demos are read-only)".into());
        return;
    }
    let (Some(event), Some(view)) = (selected_event(state), state.view()) else { return };
    let seq = view.events()[event].seq;
    if crate::core::episode::sidecar::is_provisional_seq(seq) {
        state.message = Some("this verdict is numbered once the journal has loaded: annotate it then".into());
        return;
    }
    state.overlays.push(Overlay::Annotate(AnnotateForm::new(seq)));
}

/// Masks (or unmasks) the persona's private values everywhere on screen,
/// keeping the cursor where it was.
fn toggle_redaction(state: &mut AppState) {
    // The masker is built only when masking starts (it reads the persona's profile).
    let mask = match state.view() {
        Some(view) if view.mask().is_none() => Some(state.redactor_for(&view.episode)),
        Some(_) => None,
        None => return,
    };
    let masked = mask.is_some();
    if let Some(view) = state.view_mut() {
        view.set_mask(mask);
    }
    state.message = Some(if masked { "private values masked (R shows them)" } else { "unmasked" }.into());
}
