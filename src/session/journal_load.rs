//! Opening a journal in steps (issue 14): the events of its first few megabytes at once, so the
//! first screen needs only the start of the file, then the rest batch by batch (the TUI reads
//! them off its thread). What the steps add up to is what loading the whole file gives
//! (`core::import::load_path`): the same events, sidecar verdicts placed the same, the same
//! warnings; but an error after the first batch keeps the events before it.

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use crate::core::episode::sidecar::{PlaceVerdicts, read_sidecar, renumber, sidecar_path};
use crate::core::episode::{Episode, Event, EventBody, JournalReader};
use crate::core::import::LoadError;

/// Bytes of lines decoded for the first screen: the reader's own batch size.
pub use crate::core::episode::journal::BATCH_BYTES;

/// Bytes of lines decoded per batch after the first: smaller, as the events of a batch on its
/// way to the screen are held twice for a moment. Peak RSS of the 51 MiB bench journal, all
/// loaded: 4 MB batches ~10 MB more than 1 MB ones; 1 MB 107.1 MB, 256 KB 104.8 MB (1.98× the
/// file), 128 KB 104.4 MB for more CPU.
pub const REST_BATCH_BYTES: usize = 256 << 10;

/// Bytes per batch: [`BATCH_BYTES`], or `CONVERSE_TUI_LOAD_BATCH` (tests: many batches of a
/// small file).
pub fn batch_bytes() -> usize {
    std::env::var("CONVERSE_TUI_LOAD_BATCH").ok().and_then(|v| v.parse().ok()).unwrap_or(BATCH_BYTES)
}

/// A pause after each batch, `CONVERSE_TUI_LOAD_PAUSE_MS` (tests: a load slow enough to watch);
/// none unless set.
pub fn batch_pause() -> std::time::Duration {
    let ms = std::env::var("CONVERSE_TUI_LOAD_PAUSE_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    std::time::Duration::from_millis(ms)
}

/// Which load a batch belongs to: each journal opened in steps has its own, so the screen
/// folds a batch into the episode that load is for (and drops those of a load it left).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LoadId(u64);

impl LoadId {
    /// A load id never handed out before in this process (0 is never one).
    fn next() -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        LoadId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

/// The rest of a journal whose first batch is on screen.
pub struct JournalLoad {
    id: LoadId,
    reader: JournalReader<BufReader<File>>,
    /// The file's size, for the progress.
    size: u64,
    place: PlaceVerdicts,
    /// Why the sidecar was ignored: a warning at the end, after the reader's (as a whole load).
    sidecar_problem: Option<String>,
    /// The line that stopped the reading, `path:line: problem`.
    error: Option<String>,
}

/// What the end of a journal brings once every batch was read.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadEnd {
    /// The last events (sidecar verdicts held back until the journal's last event was known).
    pub events: Vec<Event>,
    /// The final `seq` of each sidecar verdict, by its index in the episode's events.
    pub renumber: Vec<(usize, u64)>,
    /// What the reader forgave and a sidecar that could not be read, as a whole load has them.
    pub warnings: Vec<String>,
    /// The bad line that stopped the reading: the events before it were loaded.
    pub error: Option<String>,
}

impl LoadEnd {
    /// Completes `episode`, which holds every batch before this end: its last events and
    /// renumbered verdicts, the warnings, and the error last among them.
    pub fn complete(self, episode: &mut Episode) {
        episode.events.extend(self.events);
        renumber(&mut episode.events, &self.renumber);
        episode.warnings.extend(self.warnings);
        episode.warnings.extend(self.error);
    }
}

impl JournalLoad {
    /// Reads the first `batch_bytes` of the journal at `path` (see [`crate::core::episode::is_journal`]):
    /// the episode so far, and the rest to load unless that was the whole file. An error in the
    /// first batch is an error here, as for a whole load.
    pub fn open(path: &Path, batch_bytes: usize) -> Result<(Episode, Option<JournalLoad>), LoadError> {
        let mut reader = JournalReader::open(path)?;
        reader.set_batch_bytes(batch_bytes);
        let size = std::fs::metadata(path).map_or(0, |m| m.len());
        let mut load = JournalLoad {
            id: LoadId::next(),
            reader,
            size,
            place: PlaceVerdicts::new("", Vec::new()),
            sidecar_problem: None,
            error: None,
        };
        let mut events = Vec::new();
        let mut more = true;
        while events.is_empty() && more {
            more = load.reader.read_batch(&mut events)?;
        }
        let Some(Event { body: EventBody::Episode(header), .. }) = events.first() else {
            return Err(LoadError::new(path, 1, "no episode event"));
        };
        let sidecar = sidecar_path(path);
        if sidecar.exists() {
            match read_sidecar(&sidecar) {
                Ok(verdicts) => load.place = PlaceVerdicts::new(&header.id, verdicts),
                Err(problem) => load.sidecar_problem = Some(format!("verdict sidecar ignored: {problem}")),
            }
        }
        let placed = load.place.place(events);
        let mut episode = Episode::new(placed, path.to_string_lossy().into_owned());
        if more {
            load.reader.set_batch_bytes(batch_bytes.min(REST_BATCH_BYTES));
            return Ok((episode, Some(load)));
        }
        load.finish().complete(&mut episode);
        Ok((episode, None))
    }

    /// The next events in the episode's order; `None` once the journal is read (or a bad line
    /// stopped it: the events before that line come first).
    pub fn next_batch(&mut self) -> Option<Vec<Event>> {
        if self.error.is_some() {
            return None;
        }
        let mut events = Vec::new();
        let more = self.reader.read_batch(&mut events).unwrap_or_else(|e| {
            self.error = Some(LoadError::from(e).to_string());
            false
        });
        if events.is_empty() && !more {
            return None;
        }
        Some(self.place.place(events))
    }

    /// This load's id, which its batches and its end are sent with.
    pub fn id(&self) -> LoadId {
        self.id
    }

    /// Bytes read so far, and the file's size.
    pub fn progress(&self) -> (u64, u64) {
        let read = self.reader.bytes_read();
        (read, self.size.max(read))
    }

    /// After the last batch: the verdicts held back, their final `seq`s, warnings, the error.
    pub fn finish(self) -> LoadEnd {
        let mut events = Vec::new();
        let renumber = self.place.finish(&mut events);
        let mut warnings: Vec<String> = self.reader.warnings().iter().map(ToString::to_string).collect();
        warnings.extend(self.sidecar_problem);
        LoadEnd { events, renumber, warnings, error: self.error }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::core::import::load_path;

    fn stepped(path: &Path, batch: usize) -> Result<Episode, String> {
        let (mut episode, rest) = JournalLoad::open(path, batch).map_err(|e| e.to_string())?;
        if let Some(mut rest) = rest {
            while let Some(events) = rest.next_batch() {
                episode.events.extend(events);
            }
            rest.finish().complete(&mut episode);
        }
        Ok(episode)
    }

    /// A journal of `messages` messages, with `sidecar` lines beside it when given.
    pub(in crate::session) fn journal(
        dir: &Path,
        name: &str,
        messages: usize,
        sidecar: Option<&str>,
    ) -> std::path::PathBuf {
        let path = dir.join(format!("{name}.jsonl"));
        let mut text =
            r#"{"seq":0,"at":"t","kind":"episode","format":"converse-tui/1","id":"e"}"#.to_string() + "\n";
        for seq in 1..=messages {
            text += &format!(
                r#"{{"seq":{seq},"at":"t","kind":"message","turn":1,"from":"attacker","to":"assistant","text":"m{seq}"}}"#
            );
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap();
        if let Some(lines) = sidecar {
            std::fs::write(sidecar_path(&path), lines).unwrap();
        }
        path
    }

    /// Every journal among the fixtures, and journals with a sidecar (or a broken one), read in
    /// small steps, add up to the whole load: same events in the same order with the same
    /// `seq`s, same warnings. A bad line after the first batch keeps the events before it.
    #[test]
    fn the_steps_add_up_to_the_whole_load() {
        let dir = tempfile::tempdir().unwrap();
        let verdict = |after: u64, judge: &str| {
            format!(
                r#"{{"episode":"e","after_seq":{after},"at":"t","judge":"{judge}","method":"rule","outcome":"fail"}}"#
            ) + "\n"
        };
        let sidecar = [verdict(3, "a"), verdict(30, "b"), verdict(3, "c"), verdict(99, "d")].concat();
        let mut paths = vec![
            journal(dir.path(), "sidecar", 30, Some(&sidecar)),
            journal(dir.path(), "broken-sidecar", 30, Some("{not json\n")),
        ];
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        paths.extend(
            walkdir::WalkDir::new(&root).into_iter().filter_map(Result::ok).map(|e| e.into_path()).filter(
                |p| p.extension().is_some_and(|e| e == "jsonl") && crate::core::episode::is_journal(p),
            ),
        );
        assert!(paths.len() >= 7, "only {} journals found", paths.len());
        for path in &paths {
            let whole = load_path(path).map(|mut e| e.remove(0)).map_err(|e| e.to_string());
            for batch in [0, 300, BATCH_BYTES] {
                match (stepped(path, batch), &whole) {
                    // A bad line after the first batch: the events before it, its error last.
                    (Ok(episode), Err(problem)) if batch < BATCH_BYTES => {
                        assert_eq!(episode.warnings.last(), Some(problem), "{}", path.display());
                    }
                    (stepped, whole) => {
                        assert_eq!(&stepped, whole, "{} in batches of {batch}", path.display())
                    }
                }
            }
        }
        let merged = load_path(&paths[0]).unwrap().remove(0);
        let judges: Vec<String> = merged
            .events
            .iter()
            .filter_map(|e| match &e.body {
                EventBody::Verdict(v) => Some(format!("{}#{}", v.judge, e.seq)),
                _ => None,
            })
            .collect();
        assert_eq!(judges, ["a#31", "c#33", "b#32", "d#34"], "the sidecar was read");
        assert_eq!(load_path(&paths[1]).unwrap()[0].warnings.len(), 1, "the broken sidecar is a warning");

        // Line 25 is bad: the whole load fails; in steps, the first batch is kept and the rest
        // up to that line, and the error comes last.
        let bad = journal(dir.path(), "bad", 30, None);
        let text = std::fs::read_to_string(&bad).unwrap().replace(r#""seq":24,"#, r#""seq":"x","#);
        std::fs::write(&bad, text).unwrap();
        let problem = load_path(&bad).unwrap_err().to_string();
        assert!(problem.contains("bad.jsonl:25: "), "{problem}");
        assert_eq!(
            stepped(&bad, BATCH_BYTES),
            Err(problem.clone()),
            "an error in the first batch fails the open"
        );
        let episode = stepped(&bad, 300).unwrap();
        assert_eq!(episode.events.len(), 24, "every event before the bad line");
        assert_eq!(episode.warnings, [problem]);
    }
}
