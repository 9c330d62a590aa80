//! The modal stack: forms and prompts (typed text), questions (yes / no, you / a model) and the
//! overlays (help, detail, annotations panel).

use tui_textarea::{Input, Key};

use crate::config::keymap::Command;
use crate::core::annotate::{Draft, Label};

use super::super::action::Effect;
use super::super::action::FollowUp;
use super::super::live::RunnerControl;
use super::super::notes::quote_span;
use super::super::scroll::scroll_delta;
use super::super::state::{AppState, Overlay, Prompt, PromptKind, Screen};
use crate::core::sim::fork::Resume;

/// A command while a form or prompt has the keys.
pub(super) fn form_command(state: &mut AppState, command: Command) {
    match (state.overlays.pop(), command) {
        (Some(Overlay::Prompt(prompt)), Command::Close) => {
            if prompt.kind == PromptKind::Filter {
                set_list_filter(state, String::new());
            }
        }
        (Some(Overlay::Prompt(prompt)), Command::Submit) => submit_prompt(state, prompt),
        (Some(Overlay::Annotate(_)), Command::Close) => {}
        (Some(Overlay::Annotate(mut form)), Command::NextField) => {
            form.next_field();
            state.overlays.push(Overlay::Annotate(form));
        }
        (Some(Overlay::Annotate(form)), Command::Submit) => submit_annotation(state, form),
        (Some(_), Command::Quit) => state.request_quit(),
        (Some(other), _) => state.overlays.push(other),
        (None, _) => {}
    }
}

/// Typing in a form or prompt.
pub(super) fn edit(state: &mut AppState, input: Input) {
    // Ctrl-U clears what was typed, as in a shell.
    if input.ctrl && input.key == Key::Char('u') {
        if let Some(Overlay::Prompt(prompt)) = state.overlay_mut() {
            prompt.input.clear();
            live_filter(state);
        }
        return;
    }
    let typed = match input.key {
        Key::Char(c) if !input.ctrl && !input.alt && !c.is_control() => Some(c),
        Key::Backspace => None,
        _ => return,
    };
    match state.overlay_mut() {
        Some(Overlay::Prompt(prompt)) => {
            match typed {
                Some(c) if prompt.kind != PromptKind::JumpToTurn || c.is_ascii_digit() => {
                    prompt.input.push(c)
                }
                Some(_) => {}
                None => {
                    prompt.input.pop();
                }
            }
            live_filter(state);
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
pub(super) fn paste(state: &mut AppState, text: &str) {
    // Line breaks (CR, LF) become spaces.
    let text = text.replace("\r\n", " ").replace(['\r', '\n'], " ");
    let clean = text.chars().filter(|c| !c.is_control());
    match state.overlay_mut() {
        Some(Overlay::Prompt(prompt)) => {
            prompt.input.extend(clean);
            live_filter(state);
        }
        Some(Overlay::Annotate(form)) => form.field_mut().extend(clean),
        _ => {}
    }
}

/// List filters (browser, task picker) apply as the user types.
fn live_filter(state: &mut AppState) {
    if let Some(Overlay::Prompt(prompt)) = state.overlay()
        && prompt.kind == PromptKind::Filter
    {
        let text = prompt.input.clone();
        set_list_filter(state, text);
    }
}

fn set_list_filter(state: &mut AppState, text: String) {
    match (state.screen, &mut state.picker, &mut state.browser) {
        (Screen::Tasks, Some(picker), _) => picker.set_text(text),
        (_, _, Some(browser)) => match &mut browser.review {
            Some(review) => review.set_filter(text),
            None => browser.set_filter(text),
        },
        _ => {}
    }
}

fn submit_prompt(state: &mut AppState, prompt: Prompt) {
    match prompt.kind {
        PromptKind::Filter => {}
        PromptKind::SearchEpisodes => state.follow_up(FollowUp::Search(prompt.input.clone())),
        PromptKind::KeepCase => state.keep_cases(prompt.input.trim()),
        PromptKind::FanAttempts => state.follow_up(FollowUp::StartFan(prompt.input.clone())),
        PromptKind::JumpToTurn => {
            let Some(view) = state.view() else { return };
            let max = view.max_turn();
            match prompt.input.parse::<u32>().ok().and_then(|t| view.end_of_turn(t).filter(|_| t >= 1)) {
                Some(cursor) => state.move_cursor(cursor),
                None => state.message = Some(format!("no turn '{}' (turns 1–{max})", prompt.input)),
            }
        }
        PromptKind::Search => {
            let query = if prompt.input.is_empty() { state.last_search.clone() } else { prompt.input };
            if query.is_empty() {
                return;
            }
            state.last_search = query.clone();
            let found = state.view_mut().and_then(|view| view.search(&query));
            match found {
                Some(hit) => {
                    state.move_cursor(hit.event);
                    let wrapped = if hit.wrapped { " · wrapped to the top" } else { "" };
                    state.message = Some(format!("'{query}': match {} of {}{wrapped}", hit.nth, hit.of));
                }
                None => state.message = Some(format!("no event contains '{query}'")),
            }
        }
    }
}

/// Label first (a codebook name or a unique prefix), Tab to the note, Enter saves, Esc cancels.
fn submit_annotation(state: &mut AppState, mut form: super::super::notes::AnnotateForm) {
    let label = match form.label.trim().parse::<Label>() {
        Ok(label) => label,
        Err(e) => {
            form.error = Some(e.to_string());
            state.overlays.push(Overlay::Annotate(form));
            return;
        }
    };
    let Some(inspector) = state.inspector() else { return };
    let text = inspector.view.events().iter().find(|e| e.seq == form.target_seq).and_then(|e| e.body.text());
    let span = match (form.quote.trim().is_empty(), text) {
        (true, _) => None,
        (false, Some(text)) => match quote_span(text, &form.quote) {
            Some(span) => Some(span),
            None => {
                form.error = Some("the quote is not in this event's text".into());
                state.overlays.push(Overlay::Annotate(form));
                return;
            }
        },
        (false, None) => {
            form.error = Some("this event has no text to quote from".into());
            state.overlays.push(Overlay::Annotate(form));
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
    state.effects.push(Effect::SaveNote { path, draft, author: state.author.clone() });
}

/// A yes/no question: `confirm` is yes, anything else no.
pub(super) fn confirm(state: &mut AppState, command: Command) {
    let question = state.overlays.pop();
    if command != Command::Confirm {
        return;
    }
    match question {
        Some(Overlay::ConfirmQuit) => {
            state.control_runner(RunnerControl::Abort);
            state.quit = true;
        }
        Some(Overlay::ConfirmDelete) => delete_selected_note(state),
        _ => {}
    }
}

fn delete_selected_note(state: &mut AppState) {
    let Some(Overlay::Annotations { selected }) = state.overlays.pop() else { return };
    let Some(inspector) = state.inspector() else { return };
    let (Some(path), Some(note)) = (inspector.notes.path.clone(), inspector.notes.list.get(selected)) else {
        return;
    };
    let id = note.id.clone();
    state.effects.push(Effect::DeleteNote { path, id, author: state.author.clone() });
}

/// "Take over: you or a model?": anything else cancels.
pub(super) fn take_over(state: &mut AppState, command: Command) {
    state.overlays.pop();
    let human = match command {
        Command::TakeOverHuman => true,
        Command::TakeOverModel => false,
        _ => return,
    };
    let Some(view) = state.view() else { return };
    let Some(task_id) = view.episode.header().task.id.clone() else {
        state.message = Some("this episode names no task, so it cannot be continued".into());
        return;
    };
    let beside = view.episode.file().and_then(std::path::Path::parent).map(std::path::Path::to_path_buf);
    match Resume::at(view.events(), view.cursor, view.episode.id()) {
        Ok(resume) => state.effects.push(Effect::Fork { task_id, resume, human, beside }),
        Err(e) => state.message = Some(e.to_string()),
    }
}

/// A command while help, a detail or the annotations panel is open.
pub(super) fn overlay_command(state: &mut AppState, command: Command) {
    let viewport = state.detail_viewport();
    let notes = state.inspector().map_or(0, |i| i.notes.list.len());
    match (state.overlays.last_mut(), command) {
        (_, Command::Quit) => state.request_quit(),
        (Some(Overlay::Annotations { selected }), Command::OpenDetail) => {
            let selected = *selected;
            state.overlays.pop();
            let target = state.inspector().and_then(|i| i.notes.list.get(selected)).map(|a| a.target_seq);
            // `seq` is the event's identity, not its index (merged verdicts are out of `seq` order).
            let event = target.and_then(|seq| state.view()?.episode.position_of(seq));
            if let (Some(event), Some(inspector)) = (event, state.inspector_mut()) {
                inspector.jump_to_event(event);
            }
        }
        (Some(Overlay::Annotations { selected }), Command::SelectNext | Command::ScrollDown) => {
            *selected = (*selected + 1).min(notes.saturating_sub(1))
        }
        (Some(Overlay::Annotations { selected }), Command::SelectPrev | Command::ScrollUp) => {
            *selected = selected.saturating_sub(1)
        }
        (Some(Overlay::Annotations { .. }), Command::DeleteNote) if notes > 0 => {
            state.overlays.push(Overlay::ConfirmDelete)
        }
        (Some(Overlay::Annotations { .. }), Command::Close | Command::Annotations) => {
            state.overlays.pop();
        }
        (_, Command::Close | Command::Help | Command::OpenDetail) => {
            state.overlays.pop();
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
