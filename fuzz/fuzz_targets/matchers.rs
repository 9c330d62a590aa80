//! The judges' text matchers: a match is a valid range of the text, and a snippet
//! quoted verbatim in a text is found — one that cuts a date too (`" 20, 2024"`
//! out of `May 20, 2024`, where the date form alone cannot see it). Quoted in
//! guillemets, so that a number it starts or ends with goes on into no number
//! around it: a number inside a longer one (`200` of `1,200`) is no match.
#![no_main]

use libfuzzer_sys::fuzz_target;

use converse_tui::core::judge::normalize::{find_snippet, normalize_text};
use converse_tui::core::judge::numbers::same_phone_number;

fuzz_target!(|input: (&str, &str, &str)| {
    let (before, snippet, after) = input;
    let text = format!("{before} «{snippet}» {after}");
    if let Some(found) = find_snippet(&text, snippet) {
        // Character offsets (as evidence spans are), within the text.
        assert!(found.start <= found.end && found.end <= text.chars().count());
    } else {
        // Found whenever the snippet has something to match on.
        assert!(normalize_text(snippet).as_string().trim().is_empty(), "{snippet:?} not found in {text:?}");
    }
    let _ = same_phone_number(before, snippet);
    let _ = converse_tui::core::judge::dates::find_dates(after);
});
