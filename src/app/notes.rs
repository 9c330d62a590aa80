//! Annotations on screen: the episode's current notes (loaded and saved by
//! the loop, never by `update`), the form that adds one, the panel that lists them.

use std::collections::HashMap;
use std::path::PathBuf;

use crate::core::annotate::{Annotation, Label};
use crate::core::text::{char_of_byte, char_slice};

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
    /// The notes of `episode` among `list`; returns how many name another episode (a notes file
    /// copied from another run, say), which are not shown.
    pub fn set(&mut self, path: PathBuf, list: Vec<Annotation>, episode: &str) -> usize {
        let total = list.len();
        let list: Vec<Annotation> = list.into_iter().filter(|a| a.episode == episode).collect();
        let others = total - list.len();
        let mut marks: HashMap<u64, Vec<Label>> = HashMap::new();
        for a in &list {
            marks.entry(a.target_seq).or_default().push(a.label);
        }
        *self = Notes { path: Some(path), list, marks };
        others
    }
}

/// Which field of the form typing goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Label,
    Note,
    /// Words quoted from the event's text: the annotation covers that span.
    Quote,
}

/// The "annotate this event" form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotateForm {
    pub target_seq: u64,
    pub label: String,
    pub note: String,
    pub quote: String,
    pub field: Field,
    pub error: Option<String>,
}

impl AnnotateForm {
    pub fn new(target_seq: u64) -> Self {
        AnnotateForm {
            target_seq,
            label: String::new(),
            note: String::new(),
            quote: String::new(),
            field: Field::Label,
            error: None,
        }
    }

    /// Tab: label → note → quote → label.
    pub fn next_field(&mut self) {
        self.field = match self.field {
            Field::Label => Field::Note,
            Field::Note => Field::Quote,
            Field::Quote => Field::Label,
        };
    }

    pub fn field_mut(&mut self) -> &mut String {
        match self.field {
            Field::Label => &mut self.label,
            Field::Note => &mut self.note,
            Field::Quote => &mut self.quote,
        }
    }

    /// Codebook labels that the typed label could mean.
    pub fn candidates(&self) -> Vec<Label> {
        let typed = self.label.trim().to_lowercase().replace(['-', ' '], "_");
        Label::all().filter(|l| l.as_str().starts_with(&typed)).collect()
    }
}

/// The character span of `quote` in `text` (case-insensitive), for an annotation on part of a message.
pub fn quote_span(text: &str, quote: &str) -> Option<crate::core::annotate::Span> {
    let quote = quote.trim();
    if quote.is_empty() {
        return None;
    }
    let (hay, needle) = (text.to_lowercase(), quote.to_lowercase());
    // Lower-casing can change byte lengths; only trust a match whose text really is the quote.
    let start = char_of_byte(&hay, hay.find(&needle)?);
    let end = start + needle.chars().count();
    (char_slice(text, start, end).to_lowercase() == needle)
        .then_some(crate::core::annotate::Span { start, end })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_become_character_spans() {
        let span = quote_span("Grüße: the clinic is Hollybrook", "hollybrook").unwrap();
        assert_eq!((span.start, span.end), (21, 31));
        assert!(quote_span("abc", "zzz").is_none());
        assert!(quote_span("abc", "  ").is_none());
    }
}
