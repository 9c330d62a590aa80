//! Crafted journals whose turn numbers once sized an allocation (issue 16 item 1):
//! `"turn": 4294967295` aborted replay, `"turn": 50000000` took 800 MB.
//! The journal reader refuses them (a turn past its `seq` is corrupt); the view
//! must not depend on that: built from the same events directly, a counting
//! allocator measures what opening them costs.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use converse_tui::app::view::EpisodeView;
use converse_tui::core::episode::{Episode, Event};
use converse_tui::core::import::load_path;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The counters are global: one measurement at a time (the tests of this file run in parallel).
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Opens a fixture into the inspector's view; returns its highest turn and the peak bytes allocated meanwhile.
fn open(name: &str) -> (u32, usize) {
    let _alone = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hostile").join(name);
    let err = load_path(&path).expect_err("the reader refuses a turn past its seq").to_string();
    assert!(err.contains(":2: turn"), "one line naming file, line and problem: {err}");
    let text = std::fs::read_to_string(&path).unwrap();
    let events: Vec<Event> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let episode = Episode::new(events, path.display().to_string());
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let mut view = EpisodeView::new(episode);
    view.set_cursor(view.last());
    let next = view.next_turn_cursor();
    let prev = view.prev_turn_cursor();
    assert!(next <= view.last() && prev <= view.last());
    (view.max_turn(), PEAK.load(Ordering::Relaxed).saturating_sub(before))
}

#[test]
fn a_huge_turn_number_does_not_size_an_allocation() {
    let (max_turn, peak) = open("turn-4294967295.jsonl");
    assert_eq!(max_turn, u32::MAX);
    assert!(peak < 1 << 20, "opening a 235-byte journal allocated {peak} bytes");
}

#[test]
fn fifty_million_turns_cost_nothing() {
    let (max_turn, peak) = open("turn-50000000.jsonl");
    assert_eq!(max_turn, 50_000_000);
    assert!(peak < 1 << 20, "opening a 233-byte journal allocated {peak} bytes");
}
