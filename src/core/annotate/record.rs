//! The log's records and their fold into the annotations in effect.
//!
//! The file is an append-only log: an edit or a deletion is a new record with
//! the same `id`, so nothing already written is ever rewritten.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::label::Label;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Add,
    Edit,
    Delete,
}

/// Character offsets (not bytes) into the target event's text, `start..end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// One line of `<episode>.notes.jsonl`. Every op carries the full state, so a
/// record read alone (in an export, a grep) says what it refers to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub id: String,
    pub op: Op,
    /// The episode id: one file can hold several episodes.
    pub episode: String,
    pub target_seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    pub label: Label,
    #[serde(default)]
    pub note: String,
    #[serde(default)]
    pub author: String,
    /// RFC 3339 UTC.
    pub at: String,
}

/// An annotation in effect: the latest state of one `id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    pub id: String,
    pub episode: String,
    pub target_seq: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    pub label: Label,
    pub note: String,
    /// Who made the latest change.
    pub author: String,
    /// When it was added.
    pub created: String,
    /// When it last changed.
    pub at: String,
}

/// The fold of a log, kept incrementally so appends need no re-read.
#[derive(Debug, Clone, Default)]
pub struct Fold {
    /// In order of first `add`; `None` once deleted.
    slots: Vec<Option<Annotation>>,
    index: HashMap<String, usize>,
}

impl Fold {
    /// Applies one record. Returns a warning when the record makes no sense
    /// against the log so far (an edit of an unknown id…); it is then skipped,
    /// because a hand-merged log must still open.
    pub fn apply(&mut self, r: &Record) -> Option<String> {
        let slot = self.index.get(&r.id).copied();
        match (r.op, slot) {
            (Op::Add, None) => {
                self.index.insert(r.id.clone(), self.slots.len());
                self.slots.push(Some(Annotation {
                    id: r.id.clone(),
                    episode: r.episode.clone(),
                    target_seq: r.target_seq,
                    span: r.span,
                    label: r.label,
                    note: r.note.clone(),
                    author: r.author.clone(),
                    created: r.at.clone(),
                    at: r.at.clone(),
                }));
                None
            }
            (Op::Add, Some(_)) => Some(format!("annotation '{}' added twice; the second add ignored", r.id)),
            (Op::Edit, Some(i)) => match &mut self.slots[i] {
                Some(a) => {
                    a.episode = r.episode.clone();
                    a.target_seq = r.target_seq;
                    a.span = r.span;
                    a.label = r.label;
                    a.note = r.note.clone();
                    a.author = r.author.clone();
                    a.at = r.at.clone();
                    None
                }
                None => Some(format!("annotation '{}' edited after its deletion; edit ignored", r.id)),
            },
            (Op::Delete, Some(i)) => match self.slots[i].take() {
                Some(_) => None,
                None => Some(format!("annotation '{}' deleted twice", r.id)),
            },
            (Op::Edit | Op::Delete, None) => {
                Some(format!("{} of unknown annotation '{}' ignored", op_name(r.op), r.id))
            }
        }
    }

    /// The annotations in effect, in order of creation.
    pub fn current(&self) -> impl Iterator<Item = &Annotation> {
        self.slots.iter().flatten()
    }

    pub fn get(&self, id: &str) -> Option<&Annotation> {
        self.index.get(id).and_then(|&i| self.slots[i].as_ref())
    }

    /// Whether `id` was ever used (deleted ids are not reused).
    pub fn knows(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }
}

fn op_name(op: Op) -> &'static str {
    match op {
        Op::Add => "add",
        Op::Edit => "edit",
        Op::Delete => "delete",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, op: Op, label: Label, note: &str) -> Record {
        Record {
            id: id.into(),
            op,
            episode: "e".into(),
            target_seq: 3,
            span: None,
            label,
            note: note.into(),
            author: "ann".into(),
            at: "2024-01-01T00:00:00Z".into(),
        }
    }

    #[test]
    fn fold_applies_add_edit_delete_in_order() {
        let mut fold = Fold::default();
        for r in [
            rec("a", Op::Add, Label::Leak, "first"),
            rec("b", Op::Add, Label::Note, "second"),
            rec("c", Op::Add, Label::Refusal, "third"),
            rec("a", Op::Edit, Label::PartialLeak, "first, revised"),
            rec("b", Op::Delete, Label::Note, "second"),
        ] {
            assert_eq!(fold.apply(&r), None);
        }
        let current: Vec<(&str, Label, &str)> =
            fold.current().map(|a| (a.id.as_str(), a.label, a.note.as_str())).collect();
        assert_eq!(current, [("a", Label::PartialLeak, "first, revised"), ("c", Label::Refusal, "third")]);
        assert!(fold.get("b").is_none() && fold.knows("b"));
    }

    #[test]
    fn nonsense_ops_warn_and_are_skipped() {
        let mut fold = Fold::default();
        assert!(fold.apply(&rec("x", Op::Edit, Label::Leak, "")).is_some());
        assert!(fold.apply(&rec("x", Op::Delete, Label::Leak, "")).is_some());
        assert_eq!(fold.apply(&rec("x", Op::Add, Label::Leak, "n")), None);
        assert!(fold.apply(&rec("x", Op::Add, Label::Note, "again")).is_some());
        assert_eq!(fold.apply(&rec("x", Op::Delete, Label::Leak, "")), None);
        assert!(fold.apply(&rec("x", Op::Edit, Label::Leak, "")).is_some());
        assert!(fold.apply(&rec("x", Op::Delete, Label::Leak, "")).is_some());
        assert_eq!(fold.current().count(), 0);
    }
}
