//! The `.eval` container: a ZIP whose entries are JSON documents, deflate or zstd (method 93,
//! one or many frames). An entry is parsed straight from its decompressing reader, so opening
//! a sample holds its parsed form, never the archive or the entry's inflated bytes.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use serde::de::{DeserializeOwned, DeserializeSeed};
use zip::ZipArchive;

use super::big_text::{Diverting, parse_problem};
use super::caps::{Budget, Kind};
use super::held::BigTexts;
use super::json_budget::{self, AtMost, Free, FreeMap};
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
    /// The file's size, which the caps of its entries scale with.
    len: u64,
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
    pub fn from_reader(path: &Path, mut reader: R) -> Result<Self, LoadError> {
        let unreadable =
            |e: String| LoadError::new(path, 0, format!("not a readable Inspect .eval (ZIP) log: {e}"));
        let len = reader.seek(SeekFrom::End(0)).map_err(|e| unreadable(e.to_string()))?;
        let zip = ZipArchive::new(reader).map_err(|e| unreadable(e.to_string()))?;
        Ok(EvalArchive { path: path.to_path_buf(), zip, len })
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

    /// Parses entry `name` from its decompressing reader, counted in `budget`; `texts`: an entry of a
    /// sample, whose long texts are kept there (see [`super::big_text`]) and marks parsed in their place.
    fn parse<T: DeserializeOwned>(
        &mut self,
        name: &str,
        texts: Option<&mut BigTexts>,
        budget: &mut Budget,
    ) -> Result<T, LoadError> {
        self.parse_seed(name, texts, budget, PhantomData)
    }

    fn parse_seed<T, S: for<'de> DeserializeSeed<'de, Value = T>>(
        &mut self,
        name: &str,
        texts: Option<&mut BigTexts>,
        budget: &mut Budget,
        seed: S,
    ) -> Result<T, LoadError> {
        let path = self.path.clone();
        let problem = |what: String| LoadError::new(&path, 0, format!("entry {name}: {what}"));
        let entry = self.zip.by_name(name).map_err(|e| problem(e.to_string()))?;
        // The ZIP reader holds an entry to the size it declares: checked before inflating a byte.
        budget.take(entry.size()).map_err(|over| problem(over.to_string()))?;
        let parsed = match texts {
            Some(texts) => from_reader(seed, Diverting::new(entry, texts)),
            None => from_reader(seed, entry),
        };
        // An I/O error is the decompressor's (a corrupt or truncated entry), or a long text's.
        parsed.map_err(|e| problem(parse_problem(e, "cannot decompress")))
    }

    /// The log's header: `header.json`, or `_journal/start.json` while the run is live.
    pub fn header(&mut self) -> Result<LogHeader, LoadError> {
        let mut budget = Budget::new(Kind::Header, self.len);
        for name in [HEADER, LIVE_HEADER] {
            if self.has(name) {
                return json_budget::within(|| self.parse(name, None, &mut budget));
            }
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
        json_budget::within(|| self.summaries_within())
    }

    fn summaries_within(&mut self) -> Result<Vec<SampleSummary>, LoadError> {
        let mut budget = Budget::new(Kind::Summaries, self.len);
        // Each summary names a sample the log holds (a retried one may be listed twice).
        let mut rows = 2 * self.sample_entries().len() + 8;
        let bounded = |rows: usize| AtMost {
            max: rows,
            what: "over twice the samples the log holds",
            items: PhantomData,
        };
        if self.has(SUMMARIES) {
            return self.parse_seed(SUMMARIES, None, &mut budget, bounded(rows));
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
            let part = self.parse_seed(&name, None, &mut budget, bounded(rows))?;
            rows -= part.len();
            summaries.extend(part);
        }
        Ok(summaries)
    }

    /// Every sample stored, in archive order. Inspect names an entry `samples/{id}_epoch_{n}.json`
    /// whatever its id holds, so an id with `/` makes folders of it; a chunked sample is a folder
    /// `samples/{id}_epoch_{n}/` holding `sample.json` and its sequences.
    pub fn sample_entries(&self) -> Vec<SampleEntry> {
        let names = self.names();
        let stems =
            || names.iter().filter_map(|n| Some((n, n.strip_prefix(SAMPLES)?.strip_suffix(".json")?)));
        let chunked: HashSet<&str> = stems()
            .filter_map(|(_, stem)| stem.strip_suffix("/sample").filter(|k| is_sample_key(k)))
            .collect();
        // Inside a chunked sample's folder: one of the folders above it is a chunked sample's.
        let inside = |stem: &str| stem.match_indices('/').any(|(at, _)| chunked.contains(&stem[..at]));
        let mut entries = Vec::new();
        for (name, stem) in stems() {
            if inside(stem) {
                if stem.strip_suffix("/sample").is_some_and(|k| chunked.contains(k) && !inside(k)) {
                    entries.push(SampleEntry::Chunked(name.clone()));
                }
            } else if is_sample_key(stem) {
                entries.push(SampleEntry::Whole(name.clone()));
            }
        }
        entries
    }

    /// The entry of the sample `{id}_epoch_{n}`, when stored. An id holding `/` may be stored with
    /// `_` in its place, as `export --format eval` wrote it before 27 Nov 2026.
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
        let mut budget = Budget::new(Kind::Sample, self.len);
        json_budget::within(|| match entry {
            SampleEntry::Whole(name) => {
                let mut texts = BigTexts::default();
                let mut sample: Sample = self.parse(name, Some(&mut texts), &mut budget)?;
                sample.big_texts = texts;
                Ok(sample)
            }
            SampleEntry::Chunked(name) => self.chunked_sample(name, &mut budget),
        })
    }

    /// A sample as Inspect wrote it, a JSON value (its long texts held once while it parses);
    /// `None` for a chunked sample, which is not one entry.
    pub fn raw_sample(&mut self, entry: &SampleEntry) -> Result<Option<serde_json::Value>, LoadError> {
        let SampleEntry::Whole(name) = entry else { return Ok(None) };
        let mut budget = Budget::new(Kind::Sample, self.len);
        let mut texts = BigTexts::default();
        let Free(mut value) = json_budget::within(|| self.parse(name, Some(&mut texts), &mut budget))?;
        texts.restore_value(&mut value);
        Ok(Some(value))
    }

    /// Inspect's chunked layout: `sample.json` is the sample less its sequences. `messages/{start}.json`
    /// chunks are the message pool its model events point into, extended with the final conversation,
    /// which the shell's `message_refs` name; `events/{start}.json` chunks are its events,
    /// `attachments/{start}.json` chunks its attachments (`attachment://<index>`), `metadata.json` its
    /// metadata.
    fn chunked_sample(&mut self, shell: &str, budget: &mut Budget) -> Result<Sample, LoadError> {
        let prefix = shell.strip_suffix("sample.json").unwrap_or(shell).to_string();
        let mut texts = BigTexts::default();
        let mut sample: Sample = self.parse(shell, Some(&mut texts), budget)?;
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
            pool.extend(self.parse::<Vec<ChatMessage>>(&name, Some(&mut texts), budget)?);
        }
        for name in chunks("events") {
            sample.events.extend(self.parse::<Vec<SampleEvent>>(&name, Some(&mut texts), budget)?);
        }
        let mut index = 0usize;
        for name in chunks("attachments") {
            for Free(text) in self.parse::<Vec<Free>>(&name, Some(&mut texts), budget)? {
                sample.attachments.insert(index.to_string(), text);
                index += 1;
            }
        }
        let metadata = format!("{prefix}metadata.json");
        if self.has(&metadata) {
            FreeMap(sample.metadata) = self.parse(&metadata, Some(&mut texts), budget)?;
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

/// `seed` parsed from `reader`, the whole of it.
fn from_reader<T, S: for<'de> DeserializeSeed<'de, Value = T>>(
    seed: S,
    reader: impl Read,
) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_reader(BufReader::with_capacity(64 * 1024, reader));
    let value = seed.deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// Whether `key` ends as a sample's key does: `_epoch_` and a number.
fn is_sample_key(key: &str) -> bool {
    key.rsplit_once("_epoch_")
        .is_some_and(|(id, n)| !id.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
