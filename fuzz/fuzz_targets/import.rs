//! Format detection and every importer (journal, ConVerse log, MASEval report):
//! any bytes load or fail with one `path:line: problem` line, never a panic.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = converse_tui::core::import::load_bytes(data, Path::new("fuzz.jsonl")) {
        let line = e.to_string();
        assert!(!line.contains('\n'), "error is not one line: {line:?}");
        assert!(line.starts_with("fuzz.jsonl"), "error does not name the file: {line:?}");
    }
});
