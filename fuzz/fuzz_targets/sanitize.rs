//! The sanitizer: no control, bidi or invisible character survives (newlines stay),
//! the result never needs sanitizing again, and JSON output escapes the same characters.
#![no_main]

use libfuzzer_sys::fuzz_target;

use converse_tui::core::sanitize::{inert, is_hazardous, single_line};

fuzz_target!(|text: &str| {
    let once = inert(text);
    assert!(!once.chars().any(|c| c != '\n' && is_hazardous(c)), "{once:?}");
    assert_eq!(inert(&once), once, "not idempotent");
    let line = single_line(text);
    assert!(!line.chars().any(|c| c == '\n' || is_hazardous(c)), "{line:?}");
    // JSON output escapes the same characters and reads back to the original.
    let json = converse_tui::core::safe_json::to_string(text).unwrap();
    assert!(!json.chars().any(is_hazardous), "{json:?}");
    assert_eq!(serde_json::from_str::<String>(&json).unwrap(), text);
});
