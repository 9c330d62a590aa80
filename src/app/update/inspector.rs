//! Commands on the inspector: stepping, panes, detail, redaction, annotations, the live runner.

use crate::config::keymap::Command;
use crate::config::ui_state::LayoutMode;
use crate::core::episode::EventBody;

use super::super::action::{Effect, FollowUp};
use super::super::chrome::Chrome;
use super::super::detail::Detail;
use super::super::episode_info::episode_info;
use super::super::inspector::Inspector;
use super::super::inspector_screen::InspectorScreen;
use super::super::layout::PaneId;
use super::super::live::RunnerControl;
use super::super::notes::AnnotateForm;
use super::super::overlay::{Overlay, PromptKind};
use super::super::scroll::scroll_delta;
use super::super::view::VerdictRow;
use crate::config::keymap::Layer;

pub(super) fn command(screen: &mut InspectorScreen, chrome: &mut Chrome, command: Command) {
    if chrome.layout_mode() == LayoutMode::Transcript && transcript_command(screen, command) {
        return;
    }
    let live_running = screen.running();
    let human = live_running && screen.live.as_ref().is_some_and(|l| l.human);
    let Some(inspector) = &mut screen.inspector else {
        if command == Command::Tasks {
            chrome.follow_up(FollowUp::Tasks);
        }
        return;
    };
    let view = &mut inspector.view;
    let focus = inspector.focus;
    let cursor = view.cursor;
    match command {
        Command::NextEvent => screen.move_cursor(cursor + 1),
        Command::PrevEvent => {
            let target = cursor.saturating_sub(1).max(view.first_cursor().min(cursor));
            screen.move_cursor(target);
        }
        Command::NextTurn => {
            let target = view.next_turn_cursor();
            screen.move_cursor(target);
        }
        Command::PrevTurn => {
            let target = view.prev_turn_cursor();
            screen.move_cursor(target);
        }
        Command::First => {
            let target = view.first_cursor();
            view.follow_tail = false;
            screen.move_cursor(target);
        }
        Command::Last => {
            let target = view.last();
            view.follow_tail = true;
            screen.move_cursor(target);
        }
        Command::JumpToTurn => chrome.prompt(PromptKind::JumpToTurn, ""),
        Command::Search => chrome.prompt(PromptKind::Search, ""),
        Command::SearchEpisodes => chrome.follow_up(FollowUp::SearchResultsOrPrompt),
        Command::NextHit => chrome.follow_up(FollowUp::StepHit(1)),
        Command::PrevHit => chrome.follow_up(FollowUp::StepHit(-1)),
        Command::Copy => hand_off(screen, chrome, None),
        Command::OpenInPager => hand_off(screen, chrome, Some(false)),
        Command::OpenInEditor => hand_off(screen, chrome, Some(true)),
        Command::PlayPause if live_running => {
            let paused = screen.live.as_ref().is_some_and(|l| l.paused());
            screen.control_runner(if paused { RunnerControl::Resume } else { RunnerControl::Pause }, chrome);
        }
        Command::StepCall => screen.control_runner(RunnerControl::StepCall, chrome),
        Command::StepTurn => screen.control_runner(RunnerControl::StepTurn, chrome),
        Command::Continue => screen.control_runner(RunnerControl::Resume, chrome),
        Command::PlayPause => {
            if cursor >= view.last() && !screen.autoplay.playing {
                view.set_cursor(view.first_cursor());
            }
            screen.autoplay.toggle();
        }
        Command::Faster => screen.autoplay.faster(),
        Command::Slower => screen.autoplay.slower(),
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
        Command::OpenDetail => open_detail(screen, chrome),
        Command::EpisodeInfo => open_episode_info(screen, chrome),
        Command::GoToEvidence => go_to_evidence(inspector, chrome),
        Command::ToggleTranscript => toggle_layout(chrome),
        Command::Compose if human => screen.composer.open_attack(),
        Command::EditPending => match screen.live.as_ref().and_then(|l| l.pending.clone()) {
            Some(text) => screen.composer.open_edit(&text),
            None => chrome.say("no attacker message is held: pause the run while the attacker writes"),
        },
        Command::EndEpisode if human => chrome.effect(Effect::HumanEnd),
        Command::Redact => toggle_redaction(inspector, chrome),
        Command::Annotate => open_annotate(screen, chrome),
        Command::KeepCase => chrome.ask_suite(),
        Command::Annotations => {
            if inspector.notes.list.is_empty() {
                chrome.say("no annotations on this episode yet (a annotates the selected event)");
            } else {
                chrome.overlays.push(Overlay::Annotations { selected: 0 });
            }
        }
        Command::TakeOver => {
            let turn = view.turn_at(view.cursor);
            chrome.overlays.push(Overlay::TakeOver { turn, aborts: live_running });
        }
        Command::Browser => chrome.follow_up(FollowUp::Show(Layer::Browser)),
        // An attempt opened from the fan screen or the fork tree goes back there.
        Command::Close if screen.over => chrome.follow_up(FollowUp::Back),
        Command::Close if screen.composer.is_open() => screen.composer.close(),
        Command::Close => chrome.follow_up(FollowUp::Show(Layer::Browser)),
        Command::Tasks => chrome.follow_up(FollowUp::Tasks),
        _ => {}
    }
}

/// Scrolling, selecting and Enter in the transcript layout; whether `command` was one of them.
fn transcript_command(screen: &mut InspectorScreen, command: Command) -> bool {
    let Some(inspector) = &mut screen.inspector else { return false };
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
fn toggle_layout(chrome: &mut Chrome) {
    let layout = match chrome.layout_mode() {
        LayoutMode::Panes => LayoutMode::Transcript,
        LayoutMode::Transcript => LayoutMode::Panes,
    };
    chrome.prefs.ui.layout = layout;
    chrome.say(match layout {
        LayoutMode::Transcript => "transcript layout (v: the three panes)",
        LayoutMode::Panes => "three panes (v: the transcript)",
    });
    chrome.save_ui_state();
}

/// The event an action applies to: the selected item of the focused pane, or the verdict row's event.
fn selected_event(screen: &InspectorScreen, chrome: &Chrome) -> Option<usize> {
    let inspector = screen.inspector.as_ref()?;
    let view = &inspector.view;
    if chrome.layout_mode() == LayoutMode::Transcript {
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
fn hand_off(screen: &InspectorScreen, chrome: &mut Chrome, editor: Option<bool>) {
    let (Some(event), Some(view)) = (selected_event(screen, chrome), screen.view()) else { return };
    let Some(shown) = view.shown_event(event) else { return };
    let Some(text) = handoff_text(&shown.body) else {
        return chrome.say("nothing to copy in this event");
    };
    let text: String = text.chars().filter(|c| !c.is_control() || matches!(c, '\n' | '\t')).collect();
    match editor {
        None => {
            chrome.say(format!("copied {} characters (OSC 52)", text.chars().count()));
            chrome.effect(Effect::Copy(text));
        }
        Some(editor) => chrome.effect(Effect::HandOff { text, editor }),
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
fn open_detail(screen: &InspectorScreen, chrome: &mut Chrome) {
    let (Some(event), Some(view)) = (selected_event(screen, chrome), screen.view()) else { return };
    let Some(shown) = view.shown_event(event) else { return };
    let detail = Detail::of_event(&shown, view.events());
    chrome.overlays.push(Overlay::Detail(detail));
}

fn open_episode_info(screen: &InspectorScreen, chrome: &mut Chrome) {
    let Some(view) = screen.view() else { return };
    match view.shown_event(0).and_then(|header| episode_info(&header)) {
        Some(detail) => chrome.overlays.push(Overlay::Detail(detail)),
        None => chrome.say("no episode header yet"),
    }
}

/// Selects the event the selected verdict names as its evidence (the first verdict that names
/// one, when the verdict pane is not focused).
fn go_to_evidence(inspector: &mut Inspector, chrome: &mut Chrome) {
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
                chrome.say(format!(
                    "turn {turn}: the first reply holding a snippet the judge quotes (it names no turn; the index and the charts use this one)"
                ));
            }
            inspector.jump_to_event(event);
        }
        None => chrome.say(
            "this verdict names no evidence (recorded LLM judges do not say where; \
             `judge --rules-only` adds rule verdicts that do)",
        ),
    }
}

pub(super) fn open_annotate(screen: &InspectorScreen, chrome: &mut Chrome) {
    if screen.inspector.as_ref().is_none_or(|i| i.notes.path.is_none()) {
        return chrome.say("this episode has no file to keep notes beside (the bundled demos are read-only)");
    }
    let (Some(event), Some(view)) = (selected_event(screen, chrome), screen.view()) else { return };
    let seq = view.events()[event].seq;
    if crate::core::episode::sidecar::is_provisional_seq(seq) {
        return chrome.say("this verdict is numbered once the journal has loaded: annotate it then");
    }
    chrome.overlays.push(Overlay::Annotate(AnnotateForm::new(seq)));
}

/// Masks (or unmasks) the persona's private values everywhere on screen,
/// keeping the cursor where it was.
fn toggle_redaction(inspector: &mut Inspector, chrome: &mut Chrome) {
    let view = &mut inspector.view;
    // The masker is built only when masking starts (it reads the persona's profile).
    let mask = view.mask().is_none().then(|| chrome.redactor_for(&view.episode));
    let masked = mask.is_some();
    view.set_mask(mask);
    chrome.say(if masked { "private values masked (R shows them)" } else { "unmasked" });
}
