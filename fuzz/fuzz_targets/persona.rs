//! The persona parser takes any text.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let _ = converse_tui::core::dataset::persona::parse_persona_text(text);
});
