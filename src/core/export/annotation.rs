//! The annotations an export shows beside the events.

/// An annotation as the exporters show it. The annotation store converts its
/// own records to this, so exports do not depend on how notes are kept.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AnnotationView {
    /// The event the note is about.
    pub target_seq: u64,
    pub label: String,
    pub note: String,
    pub author: Option<String>,
    /// The words of the event the note's span quotes, when it has one.
    pub quote: Option<String>,
    /// What the label judges, as a reviewer's verdict: the judge and its outcome (`None` for a
    /// label that judges nothing, such as `note`).
    pub judged: Option<(crate::core::episode::Judge, crate::core::episode::Outcome)>,
}
