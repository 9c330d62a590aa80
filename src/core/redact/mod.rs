//! The redaction toggle's core: the persona's private values masked in any
//! text, for screenshots and demos.
//!
//! A [`Redactor`] is built once from what is known of the persona (the task's
//! environment, or a journal's evaluation fields) and applied to every text a
//! pane or an export shows. Three passes find candidate spans, and the
//! leftmost-longest non-overlapping ones are replaced by a kind mask
//! (`[name]`, `[email]`, …):
//!
//! 1. profile values as text: case-insensitive (ASCII case folding, plus the
//!    value's lower- and upper-case forms for other scripts), whole words only.
//!    What is masked of a value: the whole value (`Progressive` as political
//!    views, `Hollybrook Clinic`), and the parts split off it — words of names,
//!    items of a list, proper nouns of a snippet — unless a part is a lone
//!    dictionary word: `clinic` or `confirmed` in anyone's text is not the
//!    persona's. A name that is also a word (`Peter`, `Will`) is masked only
//!    capitalised, as names are written. A value saying there is none (`None`,
//!    `N/A`) is no secret;
//! 2. numbers: runs of digits with spacing/dashes/dots/parentheses are compared
//!    digits-only, so `123 45 6789` is the id `123-45-6789` and `020 7946 0958`
//!    the phone `+44 20 7946 0958` (same trailing digits, differing only in a
//!    short country/trunk prefix); any other run of 7+ digits that is not a
//!    date is masked as `[phone]` — demos must not leak numbers we did not know;
//! 3. any email address, known or not.
//!
//! Redaction changes the text's length, so evidence spans (character offsets
//! into the original text) are not valid on redacted text: highlight only on

mod emails;
mod kind;
mod matcher;
mod numbers;
mod profile;
#[cfg(test)]
mod tests;

pub use kind::PrivateKind;
pub use matcher::Redactor;
pub use profile::{is_capitalised_name, name_words};
