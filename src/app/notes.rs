//! Annotations on screen: the episode's current notes (loaded and saved by
//! the loop, never by `update`), the form that adds one, the panel that lists them.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::core::annotate::{Annotation, Label};

/// The notes of the episode on screen.
#[derive(Debug, Clone, Default)]
pub struct Notes {
    /// `<episode>.notes.jsonl` of the episode on screen; `None` for episodes
    /// without a file (the bundled demos), which cannot be annotated.
    pub path: Option<PathBuf>,
    pub list: Vec<Annotation>,
    /// Labels per event seq, for the markers in the panes.
    pub marks: HashMap<u64, Vec<Label>>,
}

impl Notes {
    pub fn set(&mut self, path: PathBuf, list: Vec<Annotation>, episode: &str) {
        let list: Vec<Annotation> = list.into_iter().filter(|a| a.episode == episode).collect();
        let mut marks: HashMap<u64, Vec<Label>> = HashMap::new();
        for a in &list {
            marks.entry(a.target_seq).or_default().push(a.label);
        }
        *self = Notes { path: Some(path), list, marks };
    }
}

/// The "annotate this event" form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotateForm {
    pub target_seq: u64,
    pub label: String,
    pub note: String,
    /// Typing goes to the note (else to the label).
    pub on_note: bool,
    pub error: Option<String>,
}

impl AnnotateForm {
    pub fn new(target_seq: u64) -> Self {
        AnnotateForm { target_seq, label: String::new(), note: String::new(), on_note: false, error: None }
    }

    /// Codebook labels that the typed label could mean.
    pub fn candidates(&self) -> Vec<Label> {
        let typed = self.label.trim().to_lowercase().replace(['-', ' '], "_");
        Label::ALL.into_iter().filter(|l| l.as_str().starts_with(&typed)).collect()
    }
}
