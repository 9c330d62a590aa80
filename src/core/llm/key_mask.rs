//! Masks API keys in text a server or model sent back, in the forms an echo takes:
//! as is, in another case, without its vendor prefix (`sk-`, `sk-proj-`, …),
//! base64-encoded (at any alignment inside a longer encoding) and URL-encoded.

use std::borrow::Cow;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};

/// What a masked key shows as.
pub const MASK: &str = "***";

/// Shorter fragments would mask ordinary words; keys are far longer.
const MIN_FORM_LEN: usize = 8;

/// A key without its prefix is still a secret only while it is this long.
const MIN_CORE_LEN: usize = 12;

/// Finds every form of a set of keys. `Debug` shows no value.
#[derive(Clone, Default)]
pub struct KeyMask {
    matcher: Option<AhoCorasick>,
    /// Every form, ASCII-lower-cased, to tell whether a text ends with the start of one.
    forms: Vec<String>,
}

impl std::fmt::Debug for KeyMask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyMask(***)")
    }
}

impl KeyMask {
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a str>) -> Self {
        let forms: Vec<String> =
            keys.into_iter().flat_map(forms).filter(|f| f.len() >= MIN_FORM_LEN).collect();
        if forms.is_empty() {
            return KeyMask::default();
        }
        let matcher = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&forms)
            .ok();
        KeyMask { matcher, forms: forms.iter().map(|f| f.to_ascii_lowercase()).collect() }
    }

    pub fn is_empty(&self) -> bool {
        self.matcher.is_none()
    }

    /// True when `text` holds a key in any form.
    pub fn finds(&self, text: &str) -> bool {
        self.matcher.as_ref().is_some_and(|m| m.is_match(text))
    }

    /// The length of the longest end of `text` that is a proper beginning of a
    /// form of a key: what a stream must hold back until the next fragment.
    pub fn pending_len(&self, text: &str) -> usize {
        let tail = text.as_bytes();
        self.forms
            .iter()
            .filter_map(|form| {
                (1..form.len().min(tail.len() + 1))
                    .rev()
                    .find(|&k| tail[tail.len() - k..].eq_ignore_ascii_case(&form.as_bytes()[..k]))
            })
            .max()
            .unwrap_or(0)
    }

    /// `text` with every form of every key replaced by [`MASK`]; borrowed when there is none.
    pub fn mask<'t>(&self, text: &'t str) -> Cow<'t, str> {
        match &self.matcher {
            Some(m) if m.is_match(text) => {
                let mut out = String::with_capacity(text.len());
                m.replace_all_with(text, &mut out, |_, _, out| {
                    out.push_str(MASK);
                    true
                });
                Cow::Owned(out)
            }
            _ => Cow::Borrowed(text),
        }
    }
}

/// The forms a key's echo can take (case is handled by the matcher).
fn forms(key: &str) -> Vec<String> {
    let key = key.trim();
    let mut cores = vec![key.to_string()];
    // `sk-proj-abc…` → `proj-abc…` → `abc…`: a vendor prefix is letters then `-` or `_`.
    let mut rest = key;
    while let Some(i) = rest.find(['-', '_']).filter(|&i| i > 0 && i <= 8) {
        if !rest[..i].bytes().all(|b| b.is_ascii_alphabetic()) {
            break;
        }
        rest = &rest[i + 1..];
        if rest.len() < MIN_CORE_LEN {
            break;
        }
        cores.push(rest.to_string());
    }
    let mut all = Vec::new();
    for core in cores {
        all.extend(base64_forms(core.as_bytes()));
        all.push(percent_encoded(&core));
        all.push(core);
    }
    all.sort();
    all.dedup();
    all
}

/// The part of the base64 text that depends only on `bytes`, for each of the three
/// positions `bytes` can start at inside a longer encoded string (standard and URL-safe).
fn base64_forms(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for lead in 0..3usize {
        let mut padded = vec![0u8; lead];
        padded.extend_from_slice(bytes);
        // Whole 3-byte groups only, minus the first when it mixes in the lead bytes.
        let whole = padded.len() / 3 * 3;
        let first = if lead == 0 { 0 } else { 3 };
        if whole <= first {
            continue;
        }
        for engine in [&STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            let encoded = engine.encode(&padded[..whole]);
            out.push(encoded[first / 3 * 4..].to_string());
        }
    }
    out
}

/// Every byte but ASCII letters and digits as `%XX` (the strictest encoders' output).
fn percent_encoded(text: &str) -> String {
    text.bytes()
        .map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-Abc123XyZ987_secretPart+/=";

    #[test]
    fn every_transformed_echo_is_masked() {
        let mask = KeyMask::new([KEY]);
        let b64 = STANDARD_NO_PAD.encode(KEY);
        let header_b64 = STANDARD_NO_PAD.encode(format!("Bearer {KEY}"));
        let echoes = [
            KEY.to_string(),
            KEY.to_lowercase(),
            KEY.to_uppercase(),
            KEY.trim_start_matches("sk-").to_string(),
            KEY.trim_start_matches("sk-proj-").to_string(),
            b64,
            header_b64,
            URL_SAFE_NO_PAD.encode(format!("xy{KEY}")),
            percent_encoded(KEY),
            percent_encoded(KEY).to_lowercase(),
        ];
        for echo in echoes {
            let text = format!("invalid key: {echo} (check it)");
            let masked = mask.mask(&text);
            assert!(masked.contains(MASK), "{echo} → {masked}");
            assert!(
                !masked.contains("secretPart") && !masked.to_lowercase().contains("abc123xyz"),
                "{masked}"
            );
        }
    }

    #[test]
    fn text_without_a_key_is_borrowed() {
        let mask = KeyMask::new([KEY]);
        assert!(matches!(mask.mask("a perfectly ordinary reply, sk-other"), Cow::Borrowed(_)));
        assert!(KeyMask::new(["short"]).is_empty());
        assert_eq!(format!("{mask:?}"), "KeyMask(***)");
    }
}
