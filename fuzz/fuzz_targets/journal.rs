//! The journal reader: events come out with seq 0, 1, 2…, an episode header first,
//! and turn numbers no file can blow up (a turn is never above its seq).
#![no_main]

use libfuzzer_sys::fuzz_target;

use converse_tui::core::episode::{EventBody, read_journal_from};

fuzz_target!(|data: &[u8]| {
    match read_journal_from(data, "fuzz.jsonl") {
        Ok((events, _warnings)) => {
            for (i, event) in events.iter().enumerate() {
                assert_eq!(event.seq, i as u64);
                assert_eq!(i == 0, matches!(event.body, EventBody::Episode(_)));
                if let Some(turn) = event.body.turn() {
                    assert!(u64::from(turn) <= event.seq);
                }
            }
        }
        Err(e) => assert!(!e.to_string().contains('\n')),
    }
});
