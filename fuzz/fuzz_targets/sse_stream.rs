//! SSE parser and stream assembler: the same deltas and reply (or the same error)
//! whatever the chunk boundaries.
#![no_main]

use libfuzzer_sys::fuzz_target;

use converse_tui::core::llm::fuzzing::assemble_stream;

fuzz_target!(|input: (Vec<u16>, &[u8])| {
    let (cuts, body) = input;
    let cuts: Vec<usize> = cuts.into_iter().map(usize::from).collect();
    let whole = assemble_stream(body, &[]);
    let split = assemble_stream(body, &cuts);
    assert_eq!(format!("{whole:?}"), format!("{split:?}"));
});
