//! An episode's notes file, read or written by the loop, folded into its inspector.

use std::path::{Path, PathBuf};

use crate::core::annotate::{Annotation, human_verdict};
use crate::core::corpus::CorpusRow;
use crate::core::episode::VerdictMethod;
use crate::core::sanitize::single_line;

use super::super::action::FollowUp;
use super::super::browser::Browser;
use super::super::state::AppState;

pub(super) fn loaded(state: &mut AppState, path: PathBuf, result: Result<Vec<Annotation>, String>) {
    // The notes belong to whichever episode has that file (it may no longer be on screen).
    let Some(inspector) = state.stack.episodes_mut().find(|i| i.notes_file().as_ref() == Some(&path)) else {
        return;
    };
    match result {
        Ok(list) => {
            let id = inspector.view.episode.id().to_string();
            let others = inspector.notes.set(path.clone(), list, &id);
            if others > 0 {
                // Said, not dropped in silence (issue 23).
                state.chrome.say(format!(
                    "{others} note(s) in {} name another episode than {}: not shown",
                    single_line(&path.to_string_lossy()),
                    single_line(&id)
                ));
            }
            apply(state, &path);
        }
        Err(problem) => {
            inspector.notes.path = Some(path);
            state.chrome.say(problem);
        }
    }
    annotate_if_asked(state);
}

/// The notes of the episode whose notes file is `path`, applied to its view (the labels as
/// verdicts by the events they name) and to its browser row.
pub(super) fn apply(state: &mut AppState, path: &Path) {
    let Some(inspector) = state.stack.episodes_mut().find(|i| i.notes_file().as_deref() == Some(path)) else {
        return;
    };
    let view = &mut inspector.view;
    let human = inspector
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
    // The browser's row (and the review) count the labels as the index would.
    let labels: Vec<&Annotation> = inspector.notes.list.iter().collect();
    let episode = &inspector.view.episode;
    let file = PathBuf::from(&episode.origin);
    let row = CorpusRow::of(episode, file.clone(), &labels);
    let id = episode.id().to_string();
    if let Some(browser) = state.stack.find_mut::<Browser>() {
        browser.set_human_verdicts(
            &file,
            &id,
            row.verdicts.into_iter().filter(|v| v.method == VerdictMethod::Human).collect(),
        );
    }
}

/// Opened from the agreement review with `a`: the annotate form, now that the notes are known.
fn annotate_if_asked(state: &mut AppState) {
    let asked = state.browser().and_then(|b| b.after_open).is_some_and(|a| a.annotate);
    if asked && state.inspector().is_some_and(|i| i.notes.path.is_some()) {
        if let Some(browser) = state.stack.find_mut::<Browser>() {
            browser.after_open = None;
        }
        state.chrome.follow_up(FollowUp::Annotate);
    }
}
