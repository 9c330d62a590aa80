//! What an importer fills in when the source says nothing, and whether it keeps the texts.

/// Timestamp used when a source records none.
pub(crate) const NO_TIME: &str = "1970-01-01T00:00:00Z";

/// Whether the episodes keep their texts (an index needs none of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Texts {
    Keep,
    Drop,
}
