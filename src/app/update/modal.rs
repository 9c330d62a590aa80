//! The modal stack: forms and prompts (typed text), questions (yes / no, you / a model) and the
//! overlays (help, detail, annotations panel). Each gets the screen under it and the chrome.

use tui_textarea::{Input, Key};

use crate::config::keymap::Command;
use crate::core::annotate::{Draft, Label};
use crate::core::sim::fork::Resume;

use super::super::action::{Effect, FollowUp};
use super::super::chrome::Chrome;
use super::super::inspector::Inspector;
use super::super::inspector_screen::InspectorScreen;
use super::super::notes::{AnnotateForm, quote_span};
use super::super::overlay::{Overlay, Prompt, PromptKind};
use super::super::screen::Screen;
use super::super::scroll::scroll_delta;

/// The episode of the inspector under the modal stack.
fn inspector(top: &mut Screen) -> Option<&mut InspectorScreen> {
    match top {
        Screen::Inspector(screen) => Some(screen),
        _ => None,
    }
}

/// A command while a form or prompt has the keys.
pub(super) fn form_command(top: &mut Screen, chrome: &mut Chrome, command: Command) {
    match (chrome.overlays.pop(), command) {
        (Some(Overlay::Prompt(prompt)), Command::Close) => {
            if prompt.kind == PromptKind::Filter {
                set_list_filter(top, String::new());
            }
        }
        (Some(Overlay::Prompt(prompt)), Command::Submit) => submit_prompt(top, chrome, prompt),
        (Some(Overlay::Annotate(_)), Command::Close) => {}
        (Some(Overlay::Annotate(mut form)), Command::NextField) => {
            form.next_field();
            chrome.overlays.push(Overlay::Annotate(form));
        }
        (Some(Overlay::Annotate(form)), Command::Submit) => submit_annotation(top, chrome, form),
        (Some(_), Command::Quit) => chrome.quit(),
        (Some(other), _) => chrome.overlays.push(other),
        (None, _) => {}
    }
}

/// Typing in a form or prompt.
pub(super) fn edit(top: &mut Screen, chrome: &mut Chrome, input: Input) {
    // Ctrl-U clears what was typed, as in a shell.
    if input.ctrl && input.key == Key::Char('u') {
        if let Some(Overlay::Prompt(prompt)) = chrome.overlays.last_mut() {
            prompt.input.clear();
            prompt.offered = false;
            live_filter(top, chrome);
        }
        return;
    }
    let typed = match input.key {
        Key::Char(c) if !input.ctrl && !input.alt && !c.is_control() => Some(c),
        Key::Backspace => None,
        _ => return,
    };
    match chrome.overlays.last_mut() {
        Some(Overlay::Prompt(prompt)) => {
            match typed {
                Some(c) if prompt.kind != PromptKind::JumpToTurn || c.is_ascii_digit() => {
                    prompt.type_in(Some(c.encode_utf8(&mut [0; 4])))
                }
                Some(_) => {}
                None => prompt.type_in(None),
            }
            live_filter(top, chrome);
        }
        Some(Overlay::Annotate(form)) => {
            match typed {
                Some(c) => form.field_mut().push(c),
                None => {
                    form.field_mut().pop();
                }
            }
            form.error = None;
        }
        _ => {}
    }
}

/// Pasted into a form or prompt: one line.
pub(super) fn paste(top: &mut Screen, chrome: &mut Chrome, text: &str) {
    // Line breaks (CR, LF) become spaces.
    let text = text.replace("\r\n", " ").replace(['\r', '\n'], " ");
    let clean = text.chars().filter(|c| !c.is_control());
    match chrome.overlays.last_mut() {
        Some(Overlay::Prompt(prompt)) => {
            prompt.type_in(Some(&clean.collect::<String>()));
            live_filter(top, chrome);
        }
        Some(Overlay::Annotate(form)) => form.field_mut().extend(clean),
        _ => {}
    }
}

/// List filters (browser, task picker) apply as the user types.
fn live_filter(top: &mut Screen, chrome: &Chrome) {
    if let Some(Overlay::Prompt(prompt)) = chrome.overlay()
        && prompt.kind == PromptKind::Filter
    {
        set_list_filter(top, prompt.input.clone());
    }
}

fn set_list_filter(top: &mut Screen, text: String) {
    match top {
        Screen::Tasks(picker) => picker.set_text(text),
        Screen::Browser(browser) => match &mut browser.review {
            Some(review) => review.set_filter(text),
            None => browser.set_filter(text),
        },
        _ => {}
    }
}

fn submit_prompt(top: &mut Screen, chrome: &mut Chrome, prompt: Prompt) {
    let Prompt { kind, input, stopped_fan, .. } = prompt;
    match kind {
        PromptKind::Filter => {}
        PromptKind::SearchEpisodes => chrome.follow_up(FollowUp::Search(input)),
        PromptKind::KeepCase => super::super::keep_case::keep_cases(top, chrome, input.trim()),
        PromptKind::FanAttempts => chrome.follow_up(FollowUp::StartFan { input, stopped: stopped_fan }),
        PromptKind::AttackStart => chrome.follow_up(FollowUp::StartAttack(input)),
        PromptKind::EditNode => chrome.follow_up(FollowUp::EditNode(input)),
        PromptKind::JumpToTurn => {
            let Some(screen) = inspector(top) else { return };
            let Some(view) = screen.view() else { return };
            let max = view.max_turn();
            match input.parse::<u32>().ok().and_then(|t| view.end_of_turn(t).filter(|_| t >= 1)) {
                Some(cursor) => screen.move_cursor(cursor),
                None => chrome.say(format!("no turn '{input}' (turns 1–{max})")),
            }
        }
        PromptKind::Search => {
            let query = if input.is_empty() { chrome.recall.last_search.clone() } else { input };
            if query.is_empty() {
                return;
            }
            chrome.recall.last_search = query.clone();
            let Some(screen) = inspector(top) else { return };
            match screen.view_mut().and_then(|view| view.search(&query)) {
                Some(hit) => {
                    screen.move_cursor(hit.event);
                    let wrapped = if hit.wrapped { " · wrapped to the top" } else { "" };
                    chrome.say(format!("'{query}': match {} of {}{wrapped}", hit.nth, hit.of));
                }
                None => chrome.say(format!("no event contains '{query}'")),
            }
        }
    }
}

/// Label first (a codebook name or a unique prefix), Tab to the note, Enter saves, Esc cancels.
fn submit_annotation(top: &mut Screen, chrome: &mut Chrome, mut form: AnnotateForm) {
    let label = match form.label.trim().parse::<Label>() {
        Ok(label) => label,
        Err(e) => {
            form.error = Some(e.to_string());
            chrome.overlays.push(Overlay::Annotate(form));
            return;
        }
    };
    let Some(inspector) = inspector(top).and_then(|s| s.inspector.as_ref()) else { return };
    let text = inspector.view.events().iter().find(|e| e.seq == form.target_seq).and_then(|e| e.body.text());
    let span = match (form.quote.trim().is_empty(), text) {
        (true, _) => None,
        (false, Some(text)) => match quote_span(text, &form.quote) {
            Some(span) => Some(span),
            None => {
                form.error = Some("the quote is not in this event's text".into());
                chrome.overlays.push(Overlay::Annotate(form));
                return;
            }
        },
        (false, None) => {
            form.error = Some("this event has no text to quote from".into());
            chrome.overlays.push(Overlay::Annotate(form));
            return;
        }
    };
    let Some(path) = inspector.notes.path.clone() else { return };
    let draft = Draft {
        episode: inspector.view.episode.id().to_string(),
        target_seq: form.target_seq,
        span,
        label,
        note: form.note.trim().to_string(),
    };
    chrome.effect(Effect::SaveNote { path, draft, author: chrome.prefs.author.clone() });
}

/// A yes/no question: `confirm` is yes, anything else no.
pub(super) fn confirm(top: &mut Screen, chrome: &mut Chrome, command: Command) {
    let question = chrome.overlays.pop();
    if command != Command::Confirm {
        return;
    }
    match question {
        Some(Overlay::ConfirmQuit { .. }) => chrome.follow_up(FollowUp::QuitConfirmed),
        Some(Overlay::ConfirmDelete) => delete_selected_note(top, chrome),
        _ => {}
    }
}

fn delete_selected_note(top: &mut Screen, chrome: &mut Chrome) {
    let Some(Overlay::Annotations { selected }) = chrome.overlays.pop() else { return };
    let Some(inspector) = inspector(top).and_then(|s| s.inspector.as_ref()) else { return };
    let (Some(path), Some(note)) = (inspector.notes.path.clone(), inspector.notes.list.get(selected)) else {
        return;
    };
    let id = note.id.clone();
    chrome.effect(Effect::DeleteNote { path, id, author: chrome.prefs.author.clone() });
}

/// "Take over: you or a model?": anything else cancels.
pub(super) fn take_over(top: &mut Screen, chrome: &mut Chrome, command: Command) {
    chrome.overlays.pop();
    let human = match command {
        Command::TakeOverHuman => true,
        Command::TakeOverModel => false,
        _ => return,
    };
    let Some(view) = inspector(top).and_then(|s| s.view()) else { return };
    let Some(task_id) = view.episode.header().task.id.clone() else {
        return chrome.say("this episode names no task, so it cannot be continued");
    };
    let beside = view.episode.file().and_then(std::path::Path::parent).map(std::path::Path::to_path_buf);
    match Resume::at(view.events(), view.cursor, view.episode.id()) {
        Ok(resume) => {
            let max_turns_at_least = resume.max_turns_to_continue(view.episode.turns());
            chrome.effect(Effect::Fork { task_id, resume, human, beside, max_turns_at_least })
        }
        Err(e) => chrome.say(e.to_string()),
    }
}

/// A command while help, a detail or the annotations panel is open.
pub(super) fn overlay_command(top: &mut Screen, chrome: &mut Chrome, command: Command) {
    let viewport = chrome.detail_viewport();
    let episode = inspector(top).and_then(|s| s.inspector.as_mut());
    let notes = episode.as_ref().map_or(0, |i| i.notes.list.len());
    match (chrome.overlays.last_mut(), command) {
        (_, Command::Quit) => chrome.quit(),
        (Some(Overlay::Annotations { selected }), Command::OpenDetail) => {
            let selected = *selected;
            chrome.overlays.pop();
            if let Some(inspector) = episode {
                jump_to_note(inspector, selected);
            }
        }
        (Some(Overlay::Annotations { selected }), Command::SelectNext | Command::ScrollDown) => {
            *selected = (*selected + 1).min(notes.saturating_sub(1))
        }
        (Some(Overlay::Annotations { selected }), Command::SelectPrev | Command::ScrollUp) => {
            *selected = selected.saturating_sub(1)
        }
        (Some(Overlay::Annotations { .. }), Command::DeleteNote) if notes > 0 => {
            chrome.overlays.push(Overlay::ConfirmDelete)
        }
        (Some(Overlay::Annotations { .. }), Command::Close | Command::Annotations) => {
            chrome.overlays.pop();
        }
        (_, Command::Close | Command::Help | Command::OpenDetail) => {
            chrome.overlays.pop();
        }
        (Some(Overlay::Detail(d)), c) => {
            if let Some(delta) = scroll_delta(c, viewport) {
                d.scroll_by(delta, viewport);
            }
        }
        (Some(Overlay::Help { scroll }), c) => {
            if let Some(delta) = scroll_delta(c, viewport) {
                *scroll = (*scroll as isize + delta).max(0) as usize;
            }
        }
        _ => {}
    }
}

/// Selects the event annotation `selected` is on.
fn jump_to_note(inspector: &mut Inspector, selected: usize) {
    let target = inspector.notes.list.get(selected).map(|a| a.target_seq);
    // `seq` is the event's identity, not its index (merged verdicts are out of `seq` order).
    if let Some(event) = target.and_then(|seq| inspector.view.episode.position_of(seq)) {
        inspector.jump_to_event(event);
    }
}
