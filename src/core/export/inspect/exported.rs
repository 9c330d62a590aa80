//! One episode to export, with what is written beside it.

use serde_json::Value;

use crate::core::episode::Episode;
use crate::core::export::annotation::AnnotationView;

/// One episode to export.
pub struct Exported<'a> {
    pub episode: &'a Episode,
    pub notes: Vec<AnnotationView>,
    /// Its sample as Inspect wrote it, when it was read from an Inspect log that could be read
    /// again (and not redacted): carried over unchanged.
    pub written: Option<Value>,
}
