//! The `.eval` container: a ZIP whose entries are JSON documents, deflate or zstd (method 93,
//! one or many frames). An entry is parsed straight from its decompressing reader, so opening
//! a sample holds its parsed form, never the archive or the entry's inflated bytes.

use std::fs::File;
use std::io::{BufReader, Read, Seek};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use zip::ZipArchive;

use super::big_text::{BigTexts, Diverting, parse_problem};
use super::schema::{ChatMessage, EventsData, LogHeader, Sample, SampleEvent, SampleSummary};
use crate::core::import::error::LoadError;

/// The first bytes of a ZIP: a local file header (or the end record of an empty archive).
pub fn is_zip(head: &[u8]) -> bool {
    head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06")
}

/// Whether the file at `path` starts like a ZIP (read from its first four bytes).
pub fn file_is_zip(path: &Path) -> bool {
    let mut head = [0u8; 4];
    crate::core::input_file::open(path).and_then(|mut f| f.read_exact(&mut head)).is_ok() && is_zip(&head)
}

const HEADER: &str = "header.json";
const LIVE_HEADER: &str = "_journal/start.json";
const SUMMARIES: &str = "summaries.json";
const LIVE_SUMMARIES: &str = "_journal/summaries/";
const SAMPLES: &str = "samples/";

/// An open `.eval` log.
pub struct EvalArchive<R: Read + Seek = BufReader<File>> {
    path: PathBuf,
    zip: ZipArchive<R>,
}

/// Where one sample is stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SampleEntry {
    /// `samples/{id}_epoch_{n}.json`.
    Whole(String),
    /// `samples/{id}_epoch_{n}/sample.json` and its sequences (Inspect's chunked layout).
    Chunked(String),
}

impl EvalArchive {
    pub fn open(path: &Path) -> Result<Self, LoadError> {
        let file = crate::core::input_file::open(path)
            .map_err(|e| LoadError::new(path, 0, format!("cannot read: {e}")))?;
        Self::from_reader(path, BufReader::with_capacity(64 * 1024, file))
    }
}

impl<R: Read + Seek> EvalArchive<R> {
    pub fn from_reader(path: &Path, reader: R) -> Result<Self, LoadError> {
        let zip = ZipArchive::new(reader)
            .map_err(|e| LoadError::new(path, 0, format!("not a readable Inspect .eval (ZIP) log: {e}")))?;
        Ok(EvalArchive { path: path.to_path_buf(), zip })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What every entry of the archive inflates to, as its central directory says.
    pub fn inflated_size(&self) -> Option<u128> {
        self.zip.decompressed_size()
    }

    fn names(&self) -> Vec<String> {
        self.zip.file_names().filter_map(Result::ok).map(|n| n.into_owned()).collect()
    }

    fn has(&self, name: &str) -> bool {
        self.zip.index_for_name(name).is_some()
    }

    /// Parses entry `name` from its decompressing reader.
    pub fn read_json<T: DeserializeOwned>(&mut self, name: &str) -> Result<T, LoadError> {
        self.parse(name, None)
    }

    /// [`Self::read_json`] for an entry of a sample: its long texts are kept in `texts` (see
    /// [`super::big_text`]) and marks parsed in their place.
    fn read_sample_json<T: DeserializeOwned>(
        &mut self,
        name: &str,
        texts: &mut BigTexts,
    ) -> Result<T, LoadError> {
        self.parse(name, Some(texts))
    }

    fn parse<T: DeserializeOwned>(
        &mut self,
        name: &str,
        texts: Option<&mut BigTexts>,
    ) -> Result<T, LoadError> {
        let path = self.path.clone();
        let problem = |what: String| LoadError::new(&path, 0, format!("entry {name}: {what}"));
        let entry = self.zip.by_name(name).map_err(|e| problem(e.to_string()))?;
        let parsed = match texts {
            Some(texts) => {
                serde_json::from_reader(BufReader::with_capacity(64 * 1024, Diverting::new(entry, texts)))
            }
            None => serde_json::from_reader(BufReader::with_capacity(64 * 1024, entry)),
        };
        // An I/O error is the decompressor's (a corrupt or truncated entry), or a long text's.
        parsed.map_err(|e| problem(parse_problem(e, "cannot decompress")))
    }

    /// The log's header: `header.json`, or `_journal/start.json` while the run is live.
    pub fn header(&mut self) -> Result<LogHeader, LoadError> {
        if self.has(HEADER) {
            return self.read_json(HEADER);
        }
        if self.has(LIVE_HEADER) {
            return self.read_json(LIVE_HEADER);
        }
        Err(LoadError::new(
            &self.path,
            0,
            "a ZIP without header.json or _journal/start.json: not an Inspect .eval log",
        ))
    }

    /// What every finished sample was, without reading the samples: `summaries.json`, or the
    /// journal's `_journal/summaries/N.json` (in N order) while the run is live.
    pub fn summaries(&mut self) -> Result<Vec<SampleSummary>, LoadError> {
        if self.has(SUMMARIES) {
            return self.read_json(SUMMARIES);
        }
        let mut parts: Vec<(u64, String)> = self
            .names()
            .into_iter()
            .filter_map(|n| {
                let number = n.strip_prefix(LIVE_SUMMARIES)?.strip_suffix(".json")?.parse().ok()?;
                Some((number, n))
            })
            .collect();
        parts.sort();
        let mut summaries = Vec::new();
        for (_, name) in parts {
            summaries.extend(self.read_json::<Vec<SampleSummary>>(&name)?);
        }
        Ok(summaries)
    }

    /// Every sample stored, in archive order.
    pub fn sample_entries(&self) -> Vec<SampleEntry> {
        let mut entries = Vec::new();
        for name in self.names() {
            let Some(rest) = name.strip_prefix(SAMPLES) else { continue };
            if let Some(prefix) = rest.strip_suffix("/sample.json") {
                if !prefix.contains('/') {
                    entries.push(SampleEntry::Chunked(name));
                }
            } else if rest.ends_with(".json") && !rest.contains('/') {
                entries.push(SampleEntry::Whole(name));
            }
        }
        entries
    }

    /// The entry of the sample `{id}_epoch_{n}`, when stored. An id holding `/` may be stored with
    /// `_` in its place, as `export --format eval` writes it (a `/` would make a folder of it).
    pub fn entry_of(&self, key: &str) -> Option<SampleEntry> {
        self.stored(key).or_else(|| key.contains('/').then(|| self.stored(&key.replace('/', "_"))).flatten())
    }

    fn stored(&self, key: &str) -> Option<SampleEntry> {
        let whole = format!("{SAMPLES}{key}.json");
        if self.has(&whole) {
            return Some(SampleEntry::Whole(whole));
        }
        let chunked = format!("{SAMPLES}{key}/sample.json");
        self.has(&chunked).then_some(SampleEntry::Chunked(chunked))
    }

    /// Reads one sample. A chunked sample's shell is read with its message sequence.
    pub fn sample(&mut self, entry: &SampleEntry) -> Result<Sample, LoadError> {
        match entry {
            SampleEntry::Whole(name) => {
                let mut texts = BigTexts::default();
                let mut sample: Sample = self.read_sample_json(name, &mut texts)?;
                sample.big_texts = texts;
                Ok(sample)
            }
            SampleEntry::Chunked(name) => self.chunked_sample(name),
        }
    }

    /// Inspect's chunked layout: `sample.json` is the sample less its sequences. `messages/{start}.json`
    /// chunks are the message pool its model events point into, extended with the final conversation,
    /// which the shell's `message_refs` name; `events/{start}.json` chunks are its events,
    /// `attachments/{start}.json` chunks its attachments (`attachment://<index>`), `metadata.json` its
    /// metadata.
    fn chunked_sample(&mut self, shell: &str) -> Result<Sample, LoadError> {
        let prefix = shell.strip_suffix("sample.json").unwrap_or(shell).to_string();
        let mut texts = BigTexts::default();
        let mut sample: Sample = self.read_sample_json(shell, &mut texts)?;
        let names = self.names();
        let chunks = |sequence: &str| -> Vec<String> {
            let folder = format!("{prefix}{sequence}/");
            let mut found: Vec<(u64, String)> = names
                .iter()
                .filter_map(|n| {
                    Some((n.strip_prefix(&folder)?.strip_suffix(".json")?.parse().ok()?, n.clone()))
                })
                .collect();
            found.sort();
            found.into_iter().map(|(_, n)| n).collect()
        };
        let mut pool = Vec::new();
        for name in chunks("messages") {
            pool.extend(self.read_sample_json::<Vec<ChatMessage>>(&name, &mut texts)?);
        }
        for name in chunks("events") {
            sample.events.extend(self.read_sample_json::<Vec<SampleEvent>>(&name, &mut texts)?);
        }
        let mut index = 0usize;
        for name in chunks("attachments") {
            for text in self.read_sample_json::<Vec<serde_json::Value>>(&name, &mut texts)? {
                sample.attachments.insert(index.to_string(), text);
                index += 1;
            }
        }
        let metadata = format!("{prefix}metadata.json");
        if self.has(&metadata) {
            sample.metadata = self.read_sample_json(&metadata, &mut texts)?;
        }
        sample.big_texts = texts;
        if let Some(refs) = sample.message_refs.take() {
            sample.messages = refs
                .iter()
                .flat_map(|&(start, end)| {
                    let start = start.min(pool.len());
                    pool[start..end.clamp(start, pool.len())].iter().cloned()
                })
                .collect();
        }
        sample.events_data = Some(EventsData { messages: pool });
        Ok(sample)
    }
}
