//! The Inspect `.eval` reader (ZIP + JSON + deflate/zstd): any archive loads or fails with one
//! `path: problem` line, never a panic. Input starting `PK` is taken as the archive itself (seeds
//! are real logs Inspect wrote); anything else is split at its first 0xFF byte into a header and a
//! sample, zipped stored, deflate or zstd (by the first byte), so the mutations reach the JSON
//! mapping behind valid compression.
#![no_main]

use std::io::{Cursor, Write};
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use zip::write::SimpleFileOptions;

const HEADER: &[u8] = br#"{"version": 2, "status": "success", "eval": {"task": "t", "model": "m"}}"#;

fn archive(data: &[u8]) -> Vec<u8> {
    let method = match data.first().map(|b| b % 3) {
        Some(0) => zip::CompressionMethod::Stored,
        Some(1) => zip::CompressionMethod::Deflated,
        _ => zip::CompressionMethod::Zstd,
    };
    let rest = data.get(1..).unwrap_or_default();
    let (header, sample) = match rest.iter().position(|&b| b == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (HEADER, rest),
    };
    let options = SimpleFileOptions::default().compression_method(method);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, bytes) in [("header.json", header), ("samples/1_epoch_1.json", sample), ("summaries.json", b"[]".as_slice())] {
        zip.start_file(name, options).unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

fuzz_target!(|data: &[u8]| {
    let bytes = if data.starts_with(b"PK") { data.to_vec() } else { archive(data) };
    if let Err(e) = converse_tui::core::import::load_bytes(&bytes, Path::new("fuzz.eval")) {
        let line = e.to_string();
        assert!(!line.contains('\n'), "error is not one line: {line:?}");
        assert!(line.starts_with("fuzz.eval"), "error does not name the file: {line:?}");
    }
});
