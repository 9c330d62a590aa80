//! Reading and writing journals: one JSON event per line.
//!
//! The writer appends and flushes each event before returning, so a crash
//! loses at most the line being written. The reader streams; it forgives a
//! truncated *last* line (that crash) with a warning and rejects anything
//! else malformed with `path:line: problem`.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};

use super::event::{Event, EventBody, FORMAT_V1, now_rfc3339};
use crate::core::sanitize::single_line;

/// A journal that cannot be read, located to the line.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: {problem}", path.display())]
pub struct JournalError {
    pub path: PathBuf,
    pub line: usize,
    pub problem: String,
}

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
        let mut line = serde_json::to_vec(event).map_err(std::io::Error::other)?;
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

/// Something the reader forgave.
#[derive(Debug, Clone, PartialEq)]
pub struct JournalWarning {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl std::fmt::Display for JournalWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// Streams the events of a journal, checking `seq` order and the header.
pub struct JournalReader<R> {
    input: R,
    path: PathBuf,
    line_no: usize,
    buf: Vec<u8>,
    next_seq: u64,
    done: bool,
    warnings: Vec<JournalWarning>,
}

impl JournalReader<BufReader<File>> {
    pub fn open(path: impl AsRef<Path>) -> Result<Self, JournalError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| JournalError {
            path: path.to_path_buf(),
            line: 0,
            problem: format!("cannot open: {e}"),
        })?;
        Ok(JournalReader::new(BufReader::with_capacity(1 << 16, file), path))
    }
}

impl<R: BufRead> JournalReader<R> {
    pub fn new(input: R, path: impl AsRef<Path>) -> Self {
        JournalReader {
            input,
            path: path.as_ref().to_path_buf(),
            line_no: 0,
            buf: Vec::new(),
            next_seq: 0,
            done: false,
            warnings: Vec::new(),
        }
    }

    /// What was forgiven so far (a truncated last line).
    pub fn warnings(&self) -> &[JournalWarning] {
        &self.warnings
    }

    pub fn into_warnings(self) -> Vec<JournalWarning> {
        self.warnings
    }

    /// Problems quote the file's own values (a `format`, a `kind`): kept on one inert line.
    fn error(&self, problem: impl Into<String>) -> JournalError {
        let problem = single_line(&problem.into()).into_owned();
        JournalError { path: self.path.clone(), line: self.line_no, problem }
    }

    fn read_event(&mut self) -> Result<Option<Event>, JournalError> {
        loop {
            self.buf.clear();
            let n = self
                .input
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| self.error(format!("read failed: {e}")))?;
            if n == 0 {
                if self.line_no == 0 {
                    return Err(self.error("empty file: no episode event"));
                }
                return Ok(None);
            }
            self.line_no += 1;
            let complete = self.buf.last() == Some(&b'\n');
            let text = match std::str::from_utf8(&self.buf) {
                // Editors on Windows start a file with a byte-order mark.
                Ok(text) if self.line_no == 1 => text.trim_start_matches('\u{FEFF}').trim(),
                Ok(text) => text.trim(),
                Err(e) if !complete => {
                    self.truncated(format!("not UTF-8 ({e})"));
                    return Ok(None);
                }
                Err(e) => return Err(self.error(format!("not UTF-8 text ({e})"))),
            };
            if text.is_empty() {
                continue;
            }
            let event: Event = match serde_json::from_str(text) {
                Ok(event) => event,
                // A crash mid-write leaves a last line without its newline.
                Err(e) if !complete && e.is_eof() => {
                    self.truncated(format!("truncated last line ignored ({e})"));
                    return Ok(None);
                }
                Err(e) => return Err(self.error(describe_json_error(&e))),
            };
            self.check(&event)?;
            self.next_seq += 1;
            return Ok(Some(event));
        }
    }

    fn truncated(&mut self, message: String) {
        let message = single_line(&message).into_owned();
        self.warnings.push(JournalWarning { path: self.path.clone(), line: self.line_no, message });
        self.done = true;
    }

    fn check(&self, event: &Event) -> Result<(), JournalError> {
        if event.seq != self.next_seq {
            return Err(self.error(format!("expected seq {}, found {}", self.next_seq, event.seq)));
        }
        // Turn N starts with an event of its own after the header, so its seq is at least N.
        // The views size their turn tables from turn numbers: a file may not choose that size.
        if let Some(turn) = event.body.turn()
            && u64::from(turn) > event.seq
        {
            return Err(self.error(format!(
                "turn {turn} at seq {}: a turn cannot be higher than its event's seq",
                event.seq
            )));
        }
        match (&event.body, self.next_seq) {
            (EventBody::Episode(header), 0) if header.format != FORMAT_V1 => Err(self.error(format!(
                "unsupported journal format '{}' (this build reads '{FORMAT_V1}')",
                header.format
            ))),
            (EventBody::Episode(_), 0) => Ok(()),
            (_, 0) => {
                Err(self
                    .error(format!("first event must be of kind 'episode', found '{}'", event.body.kind())))
            }
            (EventBody::Episode(_), _) => Err(self.error("a second 'episode' event")),
            _ => Ok(()),
        }
    }
}

impl<R: BufRead> Iterator for JournalReader<R> {
    type Item = Result<Event, JournalError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.read_event() {
            Ok(Some(event)) => Some(Ok(event)),
            Ok(None) => {
                self.done = true;
                None
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// serde_json's message without its own "at line 1 column N" suffix, which
/// would mislead next to our file line number; the column is kept.
pub fn describe_json_error(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(i) => message[..i].to_string(),
        None => message,
    };
    let what = match e.classify() {
        serde_json::error::Category::Syntax | serde_json::error::Category::Eof => "invalid JSON",
        serde_json::error::Category::Data => "not a journal event",
        serde_json::error::Category::Io => "read failed",
    };
    format!("{what}: {message} (column {})", e.column())
}

/// Reads a whole journal into memory.
pub fn read_journal(path: impl AsRef<Path>) -> Result<(Vec<Event>, Vec<JournalWarning>), JournalError> {
    let mut reader = JournalReader::open(path)?;
    let events = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((events, reader.into_warnings()))
}

/// Reads a journal from any byte source (tests, embedded assets).
pub fn read_journal_from(
    input: impl Read,
    path: impl AsRef<Path>,
) -> Result<(Vec<Event>, Vec<JournalWarning>), JournalError> {
    let mut reader = JournalReader::new(BufReader::new(input), path);
    let events = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((events, reader.into_warnings()))
}

/// Whether a file starts like one of our journals (its first line an `episode` event), so it
/// can be streamed from disk; anything else goes through format detection.
pub fn is_journal(path: impl AsRef<Path>) -> bool {
    let Ok(file) = File::open(path) else { return false };
    let mut first = Vec::new();
    // A header line is small: a huge first line is some other format (or not ours to stream).
    if BufReader::new(file).take(1 << 20).read_until(b'\n', &mut first).is_err() {
        return false;
    }
    #[derive(serde::Deserialize)]
    struct Kind {
        kind: Option<String>,
    }
    serde_json::from_slice::<Kind>(&first).is_ok_and(|k| k.kind.as_deref() == Some("episode"))
}
