//! `update(state, action) -> effects`: the only place state changes.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind};

use crate::config::keymap::Command;

use crate::core::episode::{Episode, EventBody};
use crate::core::redact::Redactor;
use crate::core::redact_episode::{redact_episode, redactor_from_episode};
use crate::core::sanitize::single_line;
use crate::core::sim::emitter::{Phase, RunnerUpdate};
use crate::core::sim::fork::Resume;

use super::browser::EntrySource;
use super::composer::{ComposerOutcome, Purpose};
use super::notes::{AnnotateForm, quote_span};
use super::view::event_text;
use crate::core::annotate::{Draft, Label, human_verdict};

use super::action::{Action, Effect};
use super::detail::Detail;
use super::episode_info::episode_info;
use super::layout::PaneId;
use super::live::RunnerControl;
use super::state::{AppState, Overlay, Prompt, PromptKind, Screen};
use super::view::{EpisodeView, VerdictRow};

/// Lines one wheel notch scrolls.
const WHEEL_LINES: isize = 3;

pub fn update(state: &mut AppState, action: Action) -> Vec<Effect> {
    match action {
        Action::Key(key) if key.kind != KeyEventKind::Release => on_key(state, key),
        Action::Key(_) => {}
        Action::Mouse(mouse) => on_mouse(state, mouse),
        Action::Paste(text) if state.composer_open && state.composer.focused && state.overlay.is_none() => {
            state.composer.paste(&text)
        }
        Action::Paste(text) => {
            if let Some(Overlay::Prompt(prompt)) = &mut state.overlay {
                // A one-line prompt: line breaks (CR, LF) become spaces.
                let text = text.replace("\r\n", " ").replace(['\r', '\n'], " ");
                prompt.input.extend(text.chars().filter(|c| !c.is_control()));
                live_filter(state);
            }
        }
        Action::Resize(width, height) => state.resize(width, height),
        Action::Tick(dt) => on_tick(state, dt),
        Action::Runner(update) => on_runner(state, update),
        Action::NotesLoaded { path, result } => on_notes_loaded(state, path, result),
        Action::EpisodeLoaded(Ok(episode)) => open_episode(state, *episode),
        Action::EpisodeLoaded(Err(problem)) => state.message = Some(format!("cannot open: {problem}")),
    }
    if state.quit {
        state.effects.push(Effect::Quit);
    }
    std::mem::take(&mut state.effects)
}

fn on_key(state: &mut AppState, key: KeyEvent) {
    if matches!(state.overlay, Some(Overlay::Prompt(_))) {
        return on_prompt_key(state, key);
    }
    if state.live.as_ref().is_some_and(|l| l.confirm_quit) {
        return on_confirm_quit(state, key);
    }
    if let Some(Overlay::TakeOver { .. }) = state.overlay {
        return on_take_over_choice(state, key);
    }
    if let Some(Overlay::Annotate(_)) = state.overlay {
        return on_annotate_key(state, key);
    }
    if let Some(Overlay::Annotations { .. }) = state.overlay {
        // Deleting asks first: `y` deletes, any other key keeps the annotation.
        if state.notes.confirm_delete {
            state.notes.confirm_delete = false;
            if let KeyCode::Char('y') | KeyCode::Char('Y') = key.code {
                delete_selected_note(state);
            }
            return;
        }
        if let KeyCode::Char('x') | KeyCode::Delete = key.code {
            state.notes.confirm_delete = true;
            return;
        }
    }
    if state.composer_open
        && state.composer.focused
        && state.overlay.is_none()
        && state.screen == Screen::Inspector
    {
        let ctrl_c = key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL);
        if !ctrl_c {
            return on_composer_key(state, key);
        }
    }
    let Some(command) = state.keymap.command(&key) else {
        return;
    };
    state.message = None;
    match &state.overlay {
        Some(_) => on_overlay_command(state, command),
        None => match state.screen {
            Screen::Browser => on_browser_command(state, command),
            Screen::Tasks => on_picker_command(state, command),
            Screen::Inspector => on_inspector_command(state, command),
        },
    }
}

fn on_composer_key(state: &mut AppState, key: KeyEvent) {
    let purpose = state.composer.purpose;
    match state.composer.key(key) {
        ComposerOutcome::Editing => {}
        ComposerOutcome::Hide => state.composer.focused = false,
        ComposerOutcome::Send(text) => match purpose {
            Purpose::Attack => {
                state.effects.push(Effect::HumanSay(text));
                let your_move = state.live.as_ref().is_some_and(|l| l.phase == Some(Phase::AwaitingHuman));
                state.message = Some(if your_move {
                    "sent; the assistant is answering".into()
                } else {
                    "queued: delivered once the assistant has answered".into()
                });
            }
            Purpose::Edit => {
                if let Some(live) = &mut state.live {
                    live.pending = None;
                }
                state.effects.push(Effect::EditAttacker(text));
                state.message = Some("edited message released; continue (c) or step (.) to go on".into());
                close_composer(state);
            }
        },
    }
}

/// The event an action applies to: the selected item of the focused pane, or the verdict row's event.
fn selected_event(state: &AppState) -> Option<usize> {
    let view = state.view.as_ref()?;
    let event = match view.pane(state.focus) {
        Some(pane) => pane.selected_item().map(|i| pane.items[i].event),
        None => view.verdict_rows.get(view.verdict_selected).map(|r| r.event),
    };
    Some(event.unwrap_or(view.cursor))
}

fn open_annotate(state: &mut AppState) {
    if state.notes.path.is_none() {
        state.message =
            Some("this episode has no file to keep notes beside (the bundled demos are read-only)".into());
        return;
    }
    let Some(event) = selected_event(state) else { return };
    let seq = state.view.as_ref().map_or(0, |v| v.events()[event].seq);
    state.overlay = Some(Overlay::Annotate(AnnotateForm::new(seq)));
}

/// Label first (a codebook name or a unique prefix), Tab to the note, Enter saves, Esc cancels.
fn on_annotate_key(state: &mut AppState, key: KeyEvent) {
    let Some(Overlay::Annotate(form)) = &mut state.overlay else { return };
    match key.code {
        KeyCode::Esc => state.overlay = None,
        KeyCode::Tab | KeyCode::BackTab => form.next_field(),
        KeyCode::Enter => match form.label.trim().parse::<Label>() {
            Ok(label) => {
                let Some(view) = &state.view else { return };
                let text =
                    view.events().iter().find(|e| e.seq == form.target_seq).and_then(|e| event_text(&e.body));
                let span = match (form.quote.trim().is_empty(), text) {
                    (true, _) => None,
                    (false, Some(text)) => match quote_span(text, &form.quote) {
                        Some(span) => Some(span),
                        None => {
                            form.error = Some("the quote is not in this event's text".into());
                            return;
                        }
                    },
                    (false, None) => {
                        form.error = Some("this event has no text to quote from".into());
                        return;
                    }
                };
                let form = form.clone();
                let episode = view.episode.id().to_string();
                state.overlay = None;
                let Some(path) = state.notes.path.clone() else { return };
                let draft = Draft {
                    episode,
                    target_seq: form.target_seq,
                    span,
                    label,
                    note: form.note.trim().to_string(),
                };
                state.effects.push(Effect::SaveNote { path, draft, author: state.author.clone() });
            }
            Err(e) => form.error = Some(e.to_string()),
        },
        KeyCode::Backspace => {
            form.field_mut().pop();
        }
        KeyCode::Char(c) if !c.is_control() && !key.modifiers.contains(KeyModifiers::CONTROL) => {
            form.field_mut().push(c);
            form.error = None;
        }
        _ => {}
    }
}

fn delete_selected_note(state: &mut AppState) {
    let Some(Overlay::Annotations { selected }) = state.overlay else { return };
    let (Some(path), Some(note)) = (state.notes.path.clone(), state.notes.list.get(selected)) else { return };
    state.effects.push(Effect::DeleteNote { path, id: note.id.clone(), author: state.author.clone() });
    state.overlay = None;
}

fn on_notes_loaded(
    state: &mut AppState,
    path: std::path::PathBuf,
    result: Result<Vec<crate::core::annotate::Annotation>, String>,
) {
    let Some(view) = &mut state.view else { return };
    match result {
        Ok(list) => {
            let id = view.episode.id().to_string();
            state.notes.set(path, list, &id);
            let human = state
                .notes
                .list
                .iter()
                .filter_map(|a| {
                    let verdict = human_verdict(a)?;
                    let index = view.events().iter().position(|e| e.seq == a.target_seq)?;
                    Some((index, verdict))
                })
                .collect();
            view.set_human_verdicts(human);
        }
        Err(problem) => {
            state.notes.path = Some(path);
            state.message = Some(problem);
        }
    }
}

/// Moves the cursor so that `event` is revealed and selects it in its pane.
fn jump_to_event(state: &mut AppState, event: usize) {
    let Some(view) = &mut state.view else { return };
    if event > view.cursor {
        view.set_cursor(event);
        view.follow_tail = false;
    }
    for id in [PaneId::Attacker, PaneId::Assistant, PaneId::Tools] {
        if let Some(pane) = view.pane_mut(id)
            && let Some(item) = pane.item_of_event(event)
        {
            pane.selected = Some(item);
            pane.scroll_to_item(item);
            state.focus = id;
        }
    }
}

/// Masks (or unmasks) the persona's private values everywhere on screen,
/// keeping the cursor where it was.
fn toggle_redaction(state: &mut AppState) {
    let Some(view) = &state.view else { return };
    let (cursor, follow) = (view.cursor, view.follow_tail);
    let episode = match state.redaction.take() {
        Some((_, original)) => original,
        None => {
            let original = view.episode.clone();
            let redactor = redactor_for(state, &original);
            let redacted = redact_episode(&original, &redactor);
            state.redaction = Some((redactor, original));
            redacted
        }
    };
    let mut view = EpisodeView::new(episode);
    view.follow_tail = follow;
    view.set_cursor(cursor);
    state.view = Some(view);
    let (w, h) = (state.area.width, state.area.height);
    state.resize(w, h);
    state.message = Some(
        if state.redaction.is_some() { "private values masked (R shows them)" } else { "unmasked" }.into(),
    );
}

/// The persona's whole profile when the task is in the dataset, else what the journal's task says.
fn redactor_for(state: &AppState, episode: &Episode) -> Redactor {
    let task_id = episode.header().task.id.as_deref();
    let task = state.picker.as_ref().and_then(|p| p.tasks.iter().find(|t| Some(t.id.as_str()) == task_id));
    match task {
        Some(task) => Redactor::from_environment(&task.environment),
        None => redactor_from_episode(episode),
    }
}

fn open_composer(state: &mut AppState) {
    state.composer.focused = true;
    if !state.composer_open {
        state.composer_open = true;
        let (w, h) = (state.area.width, state.area.height);
        state.resize(w, h);
    }
}

fn close_composer(state: &mut AppState) {
    if state.composer_open {
        state.composer_open = false;
        let (w, h) = (state.area.width, state.area.height);
        state.resize(w, h);
    }
}

/// `h`: you play the attacker from here; `l`: a model does; anything else cancels.
fn on_take_over_choice(state: &mut AppState, key: KeyEvent) {
    state.overlay = None;
    let human = match key.code {
        KeyCode::Char('h') | KeyCode::Char('y') => true,
        KeyCode::Char('l') | KeyCode::Char('m') => false,
        _ => return,
    };
    let Some(view) = &state.view else { return };
    let Some(task_id) = view.episode.header().task.id.clone() else {
        state.message = Some("this episode names no task, so it cannot be continued".into());
        return;
    };
    let origin = &view.episode.origin;
    let beside = (!origin.is_empty() && !origin.starts_with("demo:"))
        .then(|| std::path::Path::new(origin).parent().map(std::path::Path::to_path_buf))
        .flatten();
    match Resume::at(view.events(), view.cursor, view.episode.id()) {
        Ok(resume) => state.effects.push(Effect::Fork { task_id, resume, human, beside }),
        Err(e) => state.message = Some(e.to_string()),
    }
}

/// "Abort the running episode?": `y` aborts and quits, anything else goes back.
fn on_confirm_quit(state: &mut AppState, key: KeyEvent) {
    let Some(live) = &mut state.live else { return };
    live.confirm_quit = false;
    if matches!(key.code, KeyCode::Char('y') | KeyCode::Char('Y')) {
        control(state, RunnerControl::Abort);
        state.quit = true;
    }
}

/// Steers the runner (through the loop) and shows the new gate state at once.
fn control(state: &mut AppState, control: RunnerControl) {
    if let Some(live) = &mut state.live
        && !live.finished
    {
        live.control(control);
        state.effects.push(Effect::Control(control));
    }
}

fn on_runner(state: &mut AppState, update: RunnerUpdate) {
    let width = state.stream_width();
    if let Some(live) = &mut state.live {
        live.apply(&update, width);
    }
    if update == RunnerUpdate::Phase(Phase::AwaitingHuman) {
        state.message = None;
        state.composer.open_attack();
        open_composer(state);
    }
    if let RunnerUpdate::Event(event) = &update
        && matches!(event.body, crate::core::episode::EventBody::End(_))
    {
        close_composer(state);
    }
    let RunnerUpdate::Event(event) = update else { return };
    // While masked, the screen gets the masked event and the original is kept aside.
    let event = match &mut state.redaction {
        Some((redactor, original)) => {
            original.events.push((*event).clone());
            let one = Episode { events: vec![(*event).clone()], origin: String::new(), warnings: Vec::new() };
            Box::new(redact_episode(&one, redactor).events.remove(0))
        }
        None => event,
    };
    match &mut state.view {
        Some(view) => view.push(*event),
        None => {
            let origin = state.live.as_ref().map(|l| l.journal.clone()).unwrap_or_default();
            let mut view = EpisodeView::new(Episode::new(vec![*event], origin));
            view.follow_tail = true;
            state.view = Some(view);
            let (w, h) = (state.area.width, state.area.height);
            state.resize(w, h);
        }
    }
}

fn on_prompt_key(state: &mut AppState, key: KeyEvent) {
    let Some(Overlay::Prompt(prompt)) = &mut state.overlay else {
        return;
    };
    let ctrl_c = key.code == KeyCode::Char('c')
        && key.modifiers.contains(ratatui::crossterm::event::KeyModifiers::CONTROL);
    match key.code {
        _ if ctrl_c => state.quit = true,
        KeyCode::Esc => {
            let kind = prompt.kind;
            state.overlay = None;
            if kind == PromptKind::Filter {
                set_list_filter(state, String::new());
            }
        }
        KeyCode::Enter => {
            let prompt = prompt.clone();
            state.overlay = None;
            submit_prompt(state, prompt);
        }
        KeyCode::Backspace => {
            prompt.input.pop();
            live_filter(state);
        }
        KeyCode::Char(c) if !c.is_control() => {
            if prompt.kind != PromptKind::JumpToTurn || c.is_ascii_digit() {
                prompt.input.push(c);
            }
            live_filter(state);
        }
        _ => {}
    }
}

/// List filters (browser, task picker) apply as the user types.
fn live_filter(state: &mut AppState) {
    if let Some(Overlay::Prompt(prompt)) = &state.overlay
        && prompt.kind == PromptKind::Filter
    {
        let text = prompt.input.clone();
        set_list_filter(state, text);
    }
}

fn set_list_filter(state: &mut AppState, text: String) {
    match (state.screen, &mut state.picker, &mut state.browser) {
        (Screen::Tasks, Some(picker), _) => picker.set_text(text),
        (_, _, Some(browser)) => browser.set_filter(text),
        _ => {}
    }
}

fn submit_prompt(state: &mut AppState, prompt: Prompt) {
    match prompt.kind {
        PromptKind::Filter => {}
        PromptKind::JumpToTurn => {
            let Some(view) = &mut state.view else { return };
            let max = view.max_turn();
            match prompt.input.parse::<u32>().ok().and_then(|t| view.end_of_turn(t).filter(|_| t >= 1)) {
                Some(cursor) => move_cursor(state, cursor),
                None => state.message = Some(format!("no turn '{}' (turns 1–{max})", prompt.input)),
            }
        }
        PromptKind::Search => {
            let query = if prompt.input.is_empty() { state.last_search.clone() } else { prompt.input };
            if query.is_empty() {
                return;
            }
            state.last_search = query.clone();
            let found = state.view.as_mut().and_then(|view| view.search(&query));
            match found {
                Some(hit) => {
                    move_cursor(state, hit.event);
                    let wrapped = if hit.wrapped { " · wrapped to the top" } else { "" };
                    state.message = Some(format!("'{query}': match {} of {}{wrapped}", hit.nth, hit.of));
                }
                None => state.message = Some(format!("no event contains '{query}'")),
            }
        }
    }
}

fn on_overlay_command(state: &mut AppState, command: Command) {
    let viewport = state.detail_viewport();
    let notes = state.notes.list.len();
    match (&mut state.overlay, command) {
        (_, Command::Quit) => state.quit = true,
        (Some(Overlay::Annotations { selected }), Command::OpenDetail) => {
            let target = state.notes.list.get(*selected).map(|a| a.target_seq);
            state.overlay = None;
            // `seq` is the event's identity, not its index (merged verdicts are out of `seq` order).
            let event = target.and_then(|seq| state.view.as_ref()?.episode.position_of(seq));
            if let Some(event) = event {
                jump_to_event(state, event);
            }
        }
        (Some(Overlay::Annotations { selected }), Command::SelectNext | Command::ScrollDown) => {
            *selected = (*selected + 1).min(notes.saturating_sub(1))
        }
        (Some(Overlay::Annotations { selected }), Command::SelectPrev | Command::ScrollUp) => {
            *selected = selected.saturating_sub(1)
        }
        (Some(Overlay::Annotations { .. }), Command::Close | Command::Annotations) => state.overlay = None,
        (_, Command::Close | Command::Help | Command::OpenDetail) => state.overlay = None,
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

fn scroll_delta(command: Command, viewport: usize) -> Option<isize> {
    let page = viewport.saturating_sub(1).max(1) as isize;
    match command {
        Command::ScrollDown | Command::SelectNext => Some(1),
        Command::ScrollUp | Command::SelectPrev => Some(-1),
        Command::PageDown => Some(page),
        Command::PageUp => Some(-page),
        Command::First => Some(isize::MIN / 2),
        Command::Last => Some(isize::MAX / 2),
        _ => None,
    }
}

fn on_browser_command(state: &mut AppState, command: Command) {
    let Some(browser) = &mut state.browser else {
        return;
    };
    let page = state.area.height.saturating_sub(6).max(1) as isize;
    match command {
        Command::SelectNext | Command::ScrollDown | Command::NextEvent => browser.select_by(1),
        Command::SelectPrev | Command::ScrollUp | Command::PrevEvent => browser.select_by(-1),
        Command::PageDown => browser.select_by(page),
        Command::PageUp => browser.select_by(-page),
        Command::First => browser.select_by(isize::MIN / 2),
        Command::Last => browser.select_by(isize::MAX / 2),
        Command::OpenDetail => match browser.selected_episode().and_then(|i| browser.sources.get(i)) {
            Some(EntrySource::Loaded(episode)) => {
                let episode = (**episode).clone();
                open_episode(state, episode);
            }
            // Loading is I/O: the loop does it and answers with `Action::EpisodeLoaded`.
            Some(EntrySource::File { path, id }) => {
                let effect = Effect::OpenEpisode { path: path.clone(), id: id.clone() };
                state.message = Some(format!("loading {}…", single_line(id)));
                state.effects.push(effect);
            }
            None => {}
        },
        Command::Search => {
            let input = browser.filter.clone();
            state.overlay = Some(Overlay::Prompt(Prompt { kind: PromptKind::Filter, input }));
        }
        Command::Close if !browser.filter.is_empty() => browser.set_filter(String::new()),
        Command::Close | Command::Browser if state.view.is_some() => state.screen = Screen::Inspector,
        Command::Tasks => open_picker(state),
        Command::Help => state.overlay = Some(Overlay::Help { scroll: 0 }),
        Command::Quit => state.quit = true,
        _ => {}
    }
}

/// Shows an episode opened from the browser on the inspector.
fn open_episode(state: &mut AppState, mut episode: Episode) {
    state.remember_position();
    // An imported run names its task; the dataset gives the rest (in memory, no I/O).
    if crate::core::dataset::lacks_task_fields(&episode) {
        state.tasks.enrich(&mut episode);
    }
    state.message = super::state::load_warnings(&episode);
    let left_at = state.left_at.get(&super::state::position_key(&episode)).copied();
    // Redaction, notes and human labels belonged to the episode shown before.
    state.redaction = None;
    state.view = Some(EpisodeView::new(episode));
    state.screen = Screen::Inspector;
    state.autoplay.playing = false;
    let (w, h) = (state.area.width, state.area.height);
    state.resize(w, h);
    // Re-opened: back where it was left.
    if let (Some(cursor), Some(view)) = (left_at, &mut state.view) {
        view.set_cursor(cursor);
    }
}

fn on_inspector_command(state: &mut AppState, command: Command) {
    let Some(view) = &mut state.view else {
        if command == Command::Quit {
            state.quit = true;
        }
        return;
    };
    let focus = state.focus;
    let cursor = view.cursor;
    match command {
        Command::NextEvent => move_cursor(state, cursor + 1),
        Command::PrevEvent => {
            let target = cursor.saturating_sub(1).max(view.first_cursor().min(cursor));
            move_cursor(state, target);
        }
        Command::NextTurn => {
            let target = view.next_turn_cursor();
            move_cursor(state, target);
        }
        Command::PrevTurn => {
            let target = view.prev_turn_cursor();
            move_cursor(state, target);
        }
        Command::First => {
            let target = view.first_cursor();
            view.follow_tail = false;
            move_cursor(state, target);
        }
        Command::Last => {
            let target = view.last();
            view.follow_tail = true;
            move_cursor(state, target);
        }
        Command::JumpToTurn => open_prompt(state, PromptKind::JumpToTurn),
        Command::Search => open_prompt(state, PromptKind::Search),
        Command::PlayPause if state.live.as_ref().is_some_and(|l| !l.finished) => {
            let paused = state.live.as_ref().is_some_and(|l| l.paused());
            control(state, if paused { RunnerControl::Resume } else { RunnerControl::Pause });
        }
        Command::StepCall => control(state, RunnerControl::StepCall),
        Command::StepTurn => control(state, RunnerControl::StepTurn),
        Command::Continue => control(state, RunnerControl::Resume),
        Command::Quit if state.live.as_ref().is_some_and(|l| !l.finished) => {
            if let Some(live) = &mut state.live {
                live.confirm_quit = true;
            }
        }
        Command::PlayPause => {
            if cursor >= view.last() && !state.autoplay.playing {
                view.set_cursor(view.first_cursor());
            }
            state.autoplay.toggle();
        }
        Command::Faster => state.autoplay.faster(),
        Command::Slower => state.autoplay.slower(),
        Command::FocusNext => state.focus = focus.next(),
        Command::FocusPrev => state.focus = focus.prev(),
        Command::ScrollDown | Command::ScrollUp | Command::PageDown | Command::PageUp => {
            let viewport = view.pane(focus).map_or(1, |p| p.viewport);
            if let Some(delta) = scroll_delta(command, viewport) {
                scroll_pane(view, focus, delta);
            }
        }
        Command::SelectNext | Command::SelectPrev => {
            let delta = if command == Command::SelectNext { 1 } else { -1 };
            match view.pane_mut(focus) {
                Some(pane) => pane.select_by(delta),
                None => {
                    let rows = view.verdict_rows.len() as isize;
                    view.verdict_selected =
                        (view.verdict_selected as isize + delta).clamp(0, (rows - 1).max(0)) as usize;
                }
            }
        }
        Command::OpenDetail => open_detail(state),
        Command::EpisodeInfo => open_episode_info(state),
        Command::GoToEvidence => go_to_evidence(state),
        Command::Compose if state.live.as_ref().is_some_and(|l| l.human && !l.finished) => {
            state.composer.open_attack();
            open_composer(state);
        }
        Command::EditPending => match state.live.as_ref().and_then(|l| l.pending.clone()) {
            Some(text) => {
                state.composer.open_edit(&text);
                open_composer(state);
            }
            None => {
                state.message =
                    Some("no attacker message is held: pause the run while the attacker writes".into())
            }
        },
        Command::EndEpisode if state.live.as_ref().is_some_and(|l| l.human && !l.finished) => {
            state.effects.push(Effect::HumanEnd);
        }
        Command::Redact => toggle_redaction(state),
        Command::Annotate => open_annotate(state),
        Command::Annotations => {
            if state.notes.list.is_empty() {
                state.message =
                    Some("no annotations on this episode yet (a annotates the selected event)".into());
            } else {
                state.overlay = Some(Overlay::Annotations { selected: 0 });
            }
        }
        Command::TakeOver => {
            let turn = view.turn_at(view.cursor);
            state.overlay = Some(Overlay::TakeOver { turn });
        }
        Command::Browser if state.browser.is_some() => state.screen = Screen::Browser,
        Command::Close if state.composer_open => close_composer(state),
        Command::Close if state.browser.is_some() => state.screen = Screen::Browser,
        Command::Tasks => open_picker(state),
        Command::Help => state.overlay = Some(Overlay::Help { scroll: 0 }),
        Command::Quit => state.quit = true,
        _ => {}
    }
}

fn open_picker(state: &mut AppState) {
    if state.picker.is_none() {
        state.message = Some("no CONVERSE tasks loaded".into());
    }
    state.open_picker(None);
}

fn on_picker_command(state: &mut AppState, command: Command) {
    let viewport = super::state::task_detail_area(state.area).height.saturating_sub(2) as usize;
    let page = viewport.saturating_sub(1).max(1) as isize;
    let back = if state.view.is_some() { Screen::Inspector } else { Screen::Browser };
    let Some(picker) = &mut state.picker else { return };
    match command {
        Command::SelectNext | Command::ScrollDown | Command::NextEvent => picker.select_by(1),
        Command::SelectPrev | Command::ScrollUp | Command::PrevEvent => picker.select_by(-1),
        Command::First => picker.select_by(isize::MIN / 2),
        Command::Last => picker.select_by(isize::MAX / 2),
        Command::PageDown => picker.scroll_detail(page, viewport),
        Command::PageUp => picker.scroll_detail(-page, viewport),
        Command::CycleDomain => picker.cycle_domain(),
        Command::CyclePersona => picker.cycle_persona(),
        Command::CycleSplit => picker.cycle_split(),
        Command::Search => {
            let input = picker.text.clone();
            state.overlay = Some(Overlay::Prompt(Prompt { kind: PromptKind::Filter, input }));
        }
        Command::OpenDetail => {
            if let Some(task) = picker.selected_task() {
                state.effects.push(Effect::RunTask(task.id.clone()));
            }
        }
        Command::Close | Command::Tasks if state.view.is_some() || state.browser.is_some() => {
            state.screen = back
        }
        Command::Browser if state.browser.is_some() => state.screen = Screen::Browser,
        Command::Help => state.overlay = Some(Overlay::Help { scroll: 0 }),
        Command::Quit => state.quit = true,
        _ => {}
    }
}

fn scroll_pane(view: &mut EpisodeView, id: PaneId, delta: isize) {
    match view.pane_mut(id) {
        Some(pane) => pane.scroll_by(delta),
        None => {
            let rows = view.verdict_rows.len() as isize;
            view.verdict_selected =
                (view.verdict_selected as isize + delta).clamp(0, (rows - 1).max(0)) as usize;
        }
    }
}

/// Moves the replay cursor; a manual move stops autoplay.
fn move_cursor(state: &mut AppState, cursor: usize) {
    if let Some(view) = &mut state.view {
        if cursor < view.last() {
            view.follow_tail = false;
        }
        view.set_cursor(cursor);
    }
    state.autoplay.playing = false;
}

fn open_prompt(state: &mut AppState, kind: PromptKind) {
    state.overlay = Some(Overlay::Prompt(Prompt { kind, input: String::new() }));
}

/// Opens the selected item of the focused pane, or the verdict row.
fn open_detail(state: &mut AppState) {
    let Some(view) = &state.view else { return };
    let event = match view.pane(state.focus) {
        Some(pane) => pane.selected_item().map(|i| pane.items[i].event),
        None => view.verdict_rows.get(view.verdict_selected).map(|r| r.event),
    };
    let event = event.unwrap_or(view.cursor);
    let mut detail = Detail::of_event(&view.events()[event], view.events());
    detail.set_width(state.detail_area().width.saturating_sub(3) as usize);
    state.overlay = Some(Overlay::Detail(detail));
}

/// Selects the event the selected verdict names as its evidence (the first verdict that names
/// one, when the verdict pane is not focused).
fn go_to_evidence(state: &mut AppState) {
    let Some(view) = &state.view else { return };
    let evidence_of = |row: &VerdictRow| match &view.events()[row.event].body {
        EventBody::Verdict(v) => v.evidence.as_ref().map(|e| e.seq),
        _ => None,
    };
    let seq = if state.focus == PaneId::Verdicts {
        view.verdict_rows.get(view.verdict_selected).and_then(evidence_of)
    } else {
        view.verdict_rows.iter().find_map(evidence_of)
    };
    match seq.and_then(|seq| view.episode.position_of(seq)) {
        Some(event) => jump_to_event(state, event),
        None => {
            state.message = Some(
                "this verdict names no evidence (recorded LLM judges do not say where; \
                 `judge --rules-only` adds rule verdicts that do)"
                    .into(),
            )
        }
    }
}

fn open_episode_info(state: &mut AppState) {
    let Some(view) = &state.view else { return };
    let Some(mut detail) = view.events().first().and_then(episode_info) else {
        state.message = Some("no episode header yet".into());
        return;
    };
    detail.set_width(state.detail_area().width.saturating_sub(3) as usize);
    state.overlay = Some(Overlay::Detail(detail));
}

fn on_mouse(state: &mut AppState, mouse: MouseEvent) {
    let delta = match mouse.kind {
        MouseEventKind::ScrollDown => WHEEL_LINES,
        MouseEventKind::ScrollUp => -WHEEL_LINES,
        _ => return,
    };
    let viewport = state.detail_viewport();
    match &mut state.overlay {
        Some(Overlay::Detail(d)) => d.scroll_by(delta, viewport),
        Some(Overlay::Help { scroll }) => *scroll = (*scroll as isize + delta).max(0) as usize,
        Some(Overlay::Annotations { selected }) => {
            let n = state.notes.list.len();
            *selected = (*selected as isize + delta.signum()).clamp(0, n.saturating_sub(1) as isize) as usize;
        }
        Some(Overlay::Prompt(_) | Overlay::TakeOver { .. } | Overlay::Annotate(_)) => {}
        None if state.screen == Screen::Browser => {
            if let Some(b) = &mut state.browser {
                b.select_by(delta.signum());
            }
        }
        None if state.screen == Screen::Tasks => {
            let detail = super::state::task_detail_area(state.area);
            let viewport = detail.height.saturating_sub(2) as usize;
            if let Some(p) = &mut state.picker {
                if detail.contains((mouse.column, mouse.row).into()) {
                    p.scroll_detail(delta, viewport);
                } else {
                    p.select_by(delta.signum());
                }
            }
        }
        None => {
            let Some(id) = state.layout.pane_at(mouse.column, mouse.row) else {
                return;
            };
            if let Some(view) = &mut state.view {
                let delta = if id == PaneId::Verdicts { delta.signum() } else { delta };
                scroll_pane(view, id, delta);
            }
        }
    }
}

fn on_tick(state: &mut AppState, dt: std::time::Duration) {
    if let Some(live) = &mut state.live
        && live.clock_runs()
    {
        live.elapsed += dt;
    }
    let Some(view) = &mut state.view else { return };
    if !state.autoplay.playing || state.screen != Screen::Inspector {
        return;
    }
    let next = view.cursor + 1;
    if next > view.last() {
        state.autoplay.playing = false;
        return;
    }
    if state.autoplay.tick(dt, &view.events()[next].body) {
        view.set_cursor(next);
    }
}
