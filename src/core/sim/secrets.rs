//! API key values in use, masked wherever a model or proxy echoes one back:
//! in journaled events, and in a reply's fragments while it streams.

use crate::core::episode::EventBody;
use crate::core::llm::key_mask::{self, KeyMask};

/// The API key values of a run, in every form an echo takes (see [`KeyMask`]).
/// `Debug` shows no value.
#[derive(Default, Debug, Clone)]
pub struct Secrets(KeyMask);

impl Secrets {
    /// The values of these environment variables (short or empty ones are ignored).
    pub fn from_env<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        Secrets::new(names.into_iter().filter_map(|n| std::env::var(n).ok()))
    }

    /// These values (short or empty ones are ignored: masking them would mask ordinary text).
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let values: Vec<String> = values.into_iter().filter(|v| v.len() >= 8).collect();
        // Whatever else the process writes (stderr, runs files, logs) masks them too.
        values.iter().for_each(|v| key_mask::remember(v));
        Secrets(KeyMask::new(values.iter().map(String::as_str)))
    }

    /// `text` with every secret replaced by `***`.
    pub fn mask<'t>(&self, text: &'t str) -> std::borrow::Cow<'t, str> {
        self.0.mask(text)
    }

    /// `body` with every secret replaced by `***`, in every string of it (each string
    /// whole, so a key spelled out across lines is found as the reader sees it).
    pub fn redact(&self, body: EventBody) -> EventBody {
        if self.0.is_empty() {
            return body;
        }
        let Ok(mut value) = serde_json::to_value(&body) else { return body };
        if !mask_strings(&self.0, &mut value) {
            return body;
        }
        serde_json::from_value(value).unwrap_or(body)
    }

    /// A masker for one streamed reply.
    pub fn stream_masker(&self) -> StreamMasker<'_> {
        StreamMasker { mask: &self.0, held: String::new() }
    }
}

/// Masks every string (and object key) of `value` in place; true when something changed.
fn mask_strings(mask: &KeyMask, value: &mut serde_json::Value) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => match mask.mask(s) {
            std::borrow::Cow::Owned(masked) => {
                *s = masked;
                true
            }
            std::borrow::Cow::Borrowed(_) => false,
        },
        Value::Array(items) => items.iter_mut().fold(false, |changed, v| mask_strings(mask, v) | changed),
        Value::Object(map) => {
            let mut changed = false;
            let entries = std::mem::take(map);
            for (key, mut v) in entries {
                changed |= mask_strings(mask, &mut v);
                let key = match mask.mask(&key) {
                    std::borrow::Cow::Owned(masked) => {
                        changed = true;
                        masked
                    }
                    std::borrow::Cow::Borrowed(_) => key,
                };
                map.insert(key, v);
            }
            changed
        }
        _ => false,
    }
}

/// Masks secrets in a reply that arrives in fragments. A secret may be split
/// across fragments, so a tail that could be the start of one is held back
/// until the next fragment shows whether it is.
pub struct StreamMasker<'a> {
    mask: &'a KeyMask,
    held: String,
}

impl StreamMasker<'_> {
    /// The text that is safe to show after `fragment` (possibly empty).
    pub fn push(&mut self, fragment: &str) -> String {
        if self.mask.is_empty() {
            return fragment.to_string();
        }
        self.held.push_str(fragment);
        if let std::borrow::Cow::Owned(masked) = self.mask.mask(&self.held) {
            self.held = masked;
        }
        let safe = self.held.len() - self.mask.pending_len(&self.held);
        self.held.drain(..safe).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-live-0123456789abcdef";

    fn streamed(fragments: &[&str]) -> Vec<String> {
        let secrets = Secrets::new([KEY.to_string()]);
        let mut masker = secrets.stream_masker();
        fragments.iter().map(|f| masker.push(f)).collect()
    }

    #[test]
    fn a_key_split_across_fragments_is_never_shown() {
        let shown = streamed(&["my key is sk-li", "ve-01234", "56789abcdef, ok"]);
        assert_eq!(shown, ["my key is ", "", "***, ok"]);
        let mut so_far = String::new();
        for piece in &shown {
            so_far.push_str(piece);
            assert!(!so_far.contains("sk-li"), "{so_far}");
        }
    }

    #[test]
    fn text_that_only_looks_like_a_start_is_released_when_it_diverges() {
        assert_eq!(streamed(&["ask", "-me"]), ["a", "sk-me"]);
        assert_eq!(streamed(&["plain text"]), ["plain text"]);
    }

    #[test]
    fn a_whole_key_in_one_fragment_is_masked() {
        assert_eq!(streamed(&[format!("({KEY})").as_str()]), ["(***)"]);
    }
}
