//! Streaming a journal's events, in parallel batches, checking `seq` order and the header.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use super::super::event::{Event, EventBody, FORMAT_V1};
use super::error::{JournalError, JournalWarning, describe_json_error};
use super::unescape::{HUGE_LINE, decode_huge};
use crate::core::sanitize::single_line;

/// Streams the events of a journal, checking `seq` order and the header.
pub struct JournalReader<R> {
    input: R,
    path: PathBuf,
    line_no: usize,
    buf: Vec<u8>,
    next_seq: u64,
    done: bool,
    warnings: Vec<JournalWarning>,
    /// Lines this long are read by [`decode_huge`] (a constant but for tests).
    huge_line: usize,
    /// Bytes of lines [`Self::read_batch`] decodes together.
    batch_bytes: usize,
    bytes_read: u64,
    /// `buf` holds a huge line read at the end of a batch, to decode next.
    huge_held: bool,
}

impl JournalReader<BufReader<File>> {
    pub fn open(path: impl AsRef<Path>) -> Result<Self, JournalError> {
        let path = path.as_ref();
        let file = crate::core::input_file::open(path).map_err(|e| JournalError {
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
            huge_line: HUGE_LINE,
            batch_bytes: BATCH_BYTES,
            bytes_read: 0,
            huge_held: false,
        }
    }

    /// Tests: smaller batches and a lower "huge line" threshold, to exercise both on small files.
    #[cfg(test)]
    pub(super) fn with_limits(mut self, huge_line: usize, batch_bytes: usize) -> Self {
        (self.huge_line, self.batch_bytes) = (huge_line, batch_bytes);
        self
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

    /// Reads the next line into `self.buf`; `false` at the end of the file.
    fn read_line(&mut self) -> Result<bool, JournalError> {
        self.buf.clear();
        let n = self
            .input
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| self.error(format!("read failed: {e}")))?;
        self.bytes_read += n as u64;
        if n == 0 {
            if self.line_no == 0 {
                return Err(self.error("empty file: no episode event"));
            }
            return Ok(false);
        }
        self.line_no += 1;
        Ok(true)
    }

    /// The line in `self.buf`, decoded (a huge one without a copy of its text).
    fn decode_buf(&mut self) -> Decoded {
        if self.buf.len() >= self.huge_line
            && self.line_no > 1
            && let Some(event) = decode_huge(&mut self.buf)
        {
            return Decoded::Event(event);
        }
        decode(&self.buf, self.line_no == 1)
    }

    /// Takes a decoded line in order: `Some(event)`, `None` to read on (a blank line), or the end.
    fn accept(&mut self, decoded: Decoded) -> Result<Step, JournalError> {
        match decoded {
            Decoded::Blank => Ok(Step::Next),
            Decoded::Truncated(message) => {
                self.truncated(message);
                Ok(Step::End)
            }
            Decoded::Bad(problem) => Err(self.error(problem)),
            Decoded::Event(event) => {
                self.check(&event)?;
                self.next_seq += 1;
                Ok(Step::Event(event))
            }
        }
    }

    fn read_event(&mut self) -> Result<Option<Event>, JournalError> {
        while self.read_line()? {
            let decoded = self.decode_buf();
            match self.accept(decoded)? {
                Step::Next => {}
                Step::End => return Ok(None),
                Step::Event(event) => return Ok(Some(event)),
            }
        }
        Ok(None)
    }

    /// Every event left, the lines decoded in parallel (rayon) in batches of a few megabytes:
    /// the same events, checks, warnings and first error as reading them one by one.
    pub fn read_all(&mut self) -> Result<Vec<Event>, JournalError> {
        let mut events = Vec::new();
        while self.read_batch(&mut events)? {}
        Ok(events)
    }

    /// Appends the events of the next few megabytes of lines (a huge line ends a batch),
    /// decoded in parallel, to `events`; `Ok(false)` once the journal ended. On an error the
    /// events before the bad line are appended all the same, and the reader is done.
    pub fn read_batch(&mut self, events: &mut Vec<Event>) -> Result<bool, JournalError> {
        if self.done {
            return Ok(false);
        }
        let read = self.decode_batch(events);
        self.done |= read.is_err();
        read.map(|()| !self.done)
    }

    fn decode_batch(&mut self, events: &mut Vec<Event>) -> Result<(), JournalError> {
        use rayon::prelude::*;
        // A huge line that ended the previous batch is a batch of its own.
        if std::mem::take(&mut self.huge_held) {
            let decoded = self.decode_buf();
            let step = self.accept(decoded)?;
            self.done = matches!(step, Step::End);
            if let Step::Event(event) = step {
                events.push(event);
            }
            return Ok(());
        }
        // The batch: its lines' bytes one after another, and each line's end and number.
        let mut bytes = Vec::new();
        let most = self.batch_bytes.min(BATCH_BYTES) + self.huge_line.min(HUGE_LINE);
        let mut lines = Vec::<(usize, usize)>::new();
        loop {
            let more = self.read_line()?;
            let huge = more && self.buf.len() >= self.huge_line;
            if more && !huge {
                grow_capped(&mut bytes, self.buf.len(), most);
                bytes.extend_from_slice(&self.buf);
                lines.push((bytes.len(), self.line_no));
            }
            if more && !huge && bytes.len() < self.batch_bytes {
                continue;
            }
            let decoded: Vec<Decoded> = lines
                .par_iter()
                .enumerate()
                .map(|(i, &(stop, line_no))| {
                    let start = if i == 0 { 0 } else { lines[i - 1].0 };
                    decode(&bytes[start..stop], line_no == 1)
                })
                .collect();
            // The lines are decoded: their bytes go before the events are taken in.
            drop(bytes);
            let huge_line = self.line_no;
            events.reserve(decoded.len() + usize::from(huge));
            let mut end = false;
            for (decoded, &(_, line_no)) in decoded.into_iter().zip(&lines) {
                self.line_no = line_no;
                match self.accept(decoded)? {
                    Step::Next => {}
                    Step::End => end = true,
                    Step::Event(event) => events.push(event),
                }
                if end {
                    break;
                }
            }
            self.line_no = huge_line;
            // The events before a huge line come first (the first screen may not need it).
            if huge && !end && !lines.is_empty() {
                self.huge_held = true;
                return Ok(());
            }
            if huge && !end {
                let decoded = self.decode_buf();
                match self.accept(decoded)? {
                    Step::Next => {}
                    Step::End => end = true,
                    Step::Event(event) => events.push(event),
                }
            }
            self.done = end || !more;
            return Ok(());
        }
    }

    /// Bytes of the file read so far (for progress).
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Decodes batches of about `bytes` bytes of lines (4 MB unless changed).
    pub fn set_batch_bytes(&mut self, bytes: usize) {
        self.batch_bytes = bytes;
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

/// Bytes of lines decoded together by [`JournalReader::read_batch`] unless set otherwise.
pub const BATCH_BYTES: usize = 4 << 20;

/// One line, decoded on its own (in any order, on any thread).
// Mostly events, moved on into the episode: boxing them would allocate once more per event.
#[allow(clippy::large_enum_variant)]
pub(super) enum Decoded {
    Blank,
    Event(Event),
    /// The last line, cut short by a crash: a warning, and the end.
    Truncated(String),
    Bad(String),
}

#[allow(clippy::large_enum_variant)]
enum Step {
    Next,
    Event(Event),
    End,
}

/// Makes room for `extra` more bytes, doubling as a `Vec` does but not past `most` (a batch
/// and its last line) while the bytes fit in it: grown freely, a 4 MB batch could take 8 MB;
/// sized to `most` up front, every small journal would pay for 5 MB.
pub(super) fn grow_capped(bytes: &mut Vec<u8>, extra: usize, most: usize) {
    let needed = bytes.len() + extra;
    if needed <= bytes.capacity() {
        return;
    }
    if needed > most {
        bytes.reserve(extra);
    } else {
        let doubled = (bytes.capacity() * 2).max(4096).min(most).max(needed);
        bytes.reserve_exact(doubled - bytes.len());
    }
}

/// Decodes one line (with its `\n`, if it has one).
pub(super) fn decode(line: &[u8], first: bool) -> Decoded {
    let complete = line.last() == Some(&b'\n');
    let text = match std::str::from_utf8(line) {
        // Editors on Windows start a file with a byte-order mark.
        Ok(text) if first => text.trim_start_matches('\u{FEFF}').trim(),
        Ok(text) => text.trim(),
        Err(e) if !complete => return Decoded::Truncated(format!("not UTF-8 ({e})")),
        Err(e) => return Decoded::Bad(format!("not UTF-8 text ({e})")),
    };
    if text.is_empty() {
        return Decoded::Blank;
    }
    match serde_json::from_str(text) {
        Ok(event) => Decoded::Event(event),
        // A crash mid-write leaves a last line without its newline.
        Err(e) if !complete && e.is_eof() => Decoded::Truncated(format!("truncated last line ignored ({e})")),
        Err(e) => Decoded::Bad(describe_json_error(&e)),
    }
}

/// Reads a whole journal into memory.
pub fn read_journal(path: impl AsRef<Path>) -> Result<(Vec<Event>, Vec<JournalWarning>), JournalError> {
    let mut reader = JournalReader::open(path)?;
    let events = reader.read_all()?;
    Ok((events, reader.into_warnings()))
}

/// Reads a journal from any byte source (tests, embedded assets).
pub fn read_journal_from(
    input: impl Read,
    path: impl AsRef<Path>,
) -> Result<(Vec<Event>, Vec<JournalWarning>), JournalError> {
    let mut reader = JournalReader::new(BufReader::new(input), path);
    let events = reader.read_all()?;
    Ok((events, reader.into_warnings()))
}

/// Whether a file starts like one of our journals (its first line an `episode` event), so it
/// can be streamed from disk; anything else goes through format detection.
pub fn is_journal(path: impl AsRef<Path>) -> bool {
    let Ok(file) = crate::core::input_file::open(path.as_ref()) else { return false };
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
