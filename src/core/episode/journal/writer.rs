//! Appending events to a journal, one flushed line each.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::super::event::{Event, EventBody, now_rfc3339};

/// Appends events to a journal file, one flushed line each.
pub struct JournalWriter {
    file: File,
    path: PathBuf,
    next_seq: u64,
}

impl JournalWriter {
    /// Creates a new journal; fails if the file exists (a journal is never overwritten).
    pub fn create(path: impl AsRef<Path>) -> std::io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().write(true).create_new(true).open(&path)?;
        Ok(JournalWriter { file, path, next_seq: 0 })
    }

    /// Appends to an existing journal whose events are `events` (read from it): the next event
    /// gets the `seq` after the last one.
    pub fn append_to(path: impl AsRef<Path>, events: &[Event]) -> std::io::Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new().append(true).open(&path)?;
        let next_seq = events.last().map_or(0, |e| e.seq + 1);
        Ok(JournalWriter { file, path, next_seq })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The `seq` the next appended event will get.
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// Stamps `body` with the next `seq` and the current time, writes and flushes it.
    pub fn append(&mut self, body: EventBody) -> std::io::Result<Event> {
        let event = Event { seq: self.next_seq, at: now_rfc3339(), body };
        self.write_event(&event)?;
        Ok(event)
    }

    /// Writes an already stamped event (copies into forks, imports); its `seq` must be the next one.
    pub fn write_event(&mut self, event: &Event) -> std::io::Result<()> {
        if event.seq != self.next_seq {
            return Err(std::io::Error::other(format!(
                "journal {}: event seq {} written where {} was expected",
                self.path.display(),
                event.seq,
                self.next_seq
            )));
        }
        // Escaped as every JSON output is (`safe_json`): `cat` of a journal drives no terminal.
        let mut line = crate::core::safe_json::to_string(event).map_err(std::io::Error::other)?.into_bytes();
        line.push(b'\n');
        // One write per line so a concurrent reader never sees half of two events.
        self.file.write_all(&line)?;
        self.file.flush()?;
        self.next_seq += 1;
        Ok(())
    }

    /// Forces everything written so far to disk (at episode end).
    pub fn sync(&self) -> std::io::Result<()> {
        self.file.sync_data()
    }
}

/// Writes a whole episode into a new journal file.
pub fn write_journal(path: impl AsRef<Path>, events: &[Event]) -> std::io::Result<()> {
    let mut writer = JournalWriter::create(path)?;
    for event in events {
        writer.write_event(event)?;
    }
    writer.sync()
}
