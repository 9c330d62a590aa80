//! Reading Inspect AI logs: `.eval` archives sample by sample, and plain `.json` logs.

use std::collections::HashMap;
use std::io::{Cursor, Read, Seek};
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::big_text::{Diverting, parse_problem};
use super::container::{EvalArchive, SampleEntry};
use super::held::BigTexts;
use super::log::{LogInfo, episode_id, summary_events};
use super::sample::{episodes, episodes_holding};
use super::schema::{LogHeader, Sample};
use crate::core::episode::Episode;
use crate::core::import::error::LoadError;

/// Calls `each` with the episode of every sample of the `.eval` at `path`, one sample read at a
/// time (a sample is dropped before the next is read); `each` returns false to stop.
pub fn each_sample(path: &Path, each: &mut dyn FnMut(Episode) -> bool) -> Result<(), LoadError> {
    each_of(EvalArchive::open(path)?, each)
}

fn each_of<R: Read + Seek>(
    mut archive: EvalArchive<R>,
    each: &mut dyn FnMut(Episode) -> bool,
) -> Result<(), LoadError> {
    let path = archive.path().to_path_buf();
    let path = path.as_path();
    let info = LogInfo::of(&archive.header()?);
    for entry in archive.sample_entries() {
        let sample = archive.sample(&entry)?;
        for episode in episodes(sample, &info, path) {
            if !each(episode) {
                return Ok(());
            }
        }
    }
    // A summary whose sample is not stored (a log cut short, or altered): said, never skipped.
    let missing: Vec<String> = archive
        .summaries()?
        .iter()
        .map(|s| episode_id(&s.id, s.epoch))
        .filter(|key| archive.entry_of(key).is_none())
        .collect();
    match missing.as_slice() {
        [] => Ok(()),
        [first, ..] => Err(LoadError::new(
            path,
            0,
            format!(
                "its summaries name {} sample(s) it does not hold, first '{}'",
                missing.len(),
                crate::core::sanitize::excerpt(first, 120)
            ),
        )),
    }
}

/// Every sample of the `.eval` at `path`.
pub fn load_eval(path: &Path) -> Result<Vec<Episode>, LoadError> {
    let mut episodes = Vec::new();
    each_sample(path, &mut |e| {
        episodes.push(e);
        true
    })?;
    Ok(episodes)
}

/// Every sample of a `.eval` held in memory (`bytes`, the content of the file at `path`).
pub fn load_eval_bytes(bytes: &[u8], path: &Path) -> Result<Vec<Episode>, LoadError> {
    let mut episodes = Vec::new();
    each_of(EvalArchive::from_reader(path, Cursor::new(bytes))?, &mut |e| {
        episodes.push(e);
        true
    })?;
    Ok(episodes)
}

/// The episode `key` of the `.eval` at `path` — a sample (`{id}_epoch_{n}`) or one of its branches
/// (`{id}_epoch_{n}~{branch}`) —, nothing but that sample read.
pub fn load_sample(path: &Path, key: &str) -> Result<Episode, LoadError> {
    let mut archive = EvalArchive::open(path)?;
    let info = LogInfo::of(&archive.header()?);
    let missing = || LoadError::new(path, 0, format!("no sample '{key}' in this log"));
    // The sample is the key up to a `~` (a sample id may hold one too: the first stored wins).
    let cuts = key.match_indices('~').map(|(at, _)| at).chain([key.len()]);
    let entry = cuts.filter_map(|at| archive.entry_of(&key[..at])).next().ok_or_else(missing)?;
    let sample = archive.sample(&entry)?;
    episodes(sample, &info, path).into_iter().find(|e| e.id() == key).ok_or_else(missing)
}

/// The sample `{id}_epoch_{n}` of the `.eval` at `path` as Inspect wrote it (a JSON value), for a
/// writer carrying it over unchanged; `None` when it is stored chunked.
pub fn raw_sample(path: &Path, key: &str) -> Result<Option<Value>, LoadError> {
    let mut archive = EvalArchive::open(path)?;
    let entry = archive
        .entry_of(key)
        .ok_or_else(|| LoadError::new(path, 0, format!("no sample '{key}' in this log")))?;
    archive.raw_sample(&entry)
}

/// The episodes of the `.eval` at `path` as its summaries give them (header, scores, error; no
/// message): what an index needs, without reading a sample — but in a log of at most
/// [`READ_FORKS_UP_TO`] inflated, whose samples are read for the forks of their branches (a larger
/// one says so in a warning on its first row). A log with no summary yet (a run that just started)
/// lists the samples it holds, read one at a time, texts dropped.
pub fn summary_episodes(path: &Path) -> Result<Vec<Episode>, LoadError> {
    summary_episodes_reading_forks_up_to(path, READ_FORKS_UP_TO)
}

/// [`summary_episodes`], reading the samples for their forks in a log of at most `read_forks_up_to`
/// bytes inflated.
pub(crate) fn summary_episodes_reading_forks_up_to(
    path: &Path,
    read_forks_up_to: u128,
) -> Result<Vec<Episode>, LoadError> {
    let mut archive = EvalArchive::open(path)?;
    let info = LogInfo::of(&archive.header()?);
    let summaries = archive.summaries()?;
    let origin = path.to_string_lossy().into_owned();
    if summaries.is_empty() {
        let entries: Vec<SampleEntry> = archive.sample_entries();
        let mut read = Vec::with_capacity(entries.len());
        for entry in entries {
            for mut e in episodes(archive.sample(&entry)?, &info, path) {
                e.events.iter_mut().for_each(|event| event.body.drop_texts());
                read.push(e);
            }
        }
        return Ok(read);
    }
    let mut rows: Vec<Episode> =
        summaries.iter().map(|s| Episode::new(summary_events(s, &info, path), origin.clone())).collect();
    // The summaries say nothing of branches, and count messages, not events: a log's samples are
    // read for their forks' rows and their own, unless that would keep the list waiting.
    let inflated = archive.inflated_size().unwrap_or(u128::MAX);
    if inflated <= read_forks_up_to {
        let by_id: HashMap<String, usize> =
            rows.iter().enumerate().map(|(i, row)| (row.id().to_string(), i)).collect();
        for entry in archive.sample_entries() {
            for (k, mut read) in episodes(archive.sample(&entry)?, &info, path).into_iter().enumerate() {
                read.events.iter_mut().for_each(|event| event.body.drop_texts());
                match by_id.get(read.id()) {
                    Some(&i) if k == 0 => rows[i] = read,
                    _ => rows.push(read),
                }
            }
        }
    } else if let Some(first) = rows.first_mut() {
        first.warnings.push(format!(
            "{}: the forks of its samples' branches are not listed and their events not counted: the log \
             is {} MiB inflated, over the {} MiB read to list them (a sample's forks show when it is opened)",
            path.display(),
            inflated >> 20,
            read_forks_up_to >> 20
        ));
    }
    Ok(rows)
}

/// The largest log (inflated) whose samples are read when it is listed, so the forks of their
/// branches are listed too (about 0.2 s of reading); a larger one lists what its summaries say.
const READ_FORKS_UP_TO: u128 = 128 << 20;

/// A plain `.json` Inspect log: its header at the top level and its samples in `samples`.
#[derive(Deserialize)]
struct JsonLog {
    #[serde(flatten)]
    header: LogHeader,
    #[serde(default)]
    samples: Vec<Sample>,
}

/// Whether the file at `path` starts as Inspect writes a plain `.json` log: an object whose first
/// key is `version` (its first bytes read).
pub fn file_is_json_log(path: &Path) -> bool {
    let mut head = [0u8; 64];
    let Ok(read) = crate::core::input_file::open(path).and_then(|mut f| f.read(&mut head)) else {
        return false;
    };
    let head = &head[..read];
    let head = head.strip_prefix("\u{feff}".as_bytes()).unwrap_or(head);
    let mut rest = head.trim_ascii_start().strip_prefix(b"{").unwrap_or_default();
    rest = rest.trim_ascii_start();
    rest.starts_with(b"\"version\"")
}

/// A plain `.json` Inspect log read straight from its file: its long texts held once, as in an
/// `.eval`'s sample (see [`super::big_text`]), never the file's bytes beside its episodes.
pub fn load_json_log(path: &Path) -> Result<Vec<Episode>, LoadError> {
    let file = crate::core::input_file::open(path)
        .map_err(|e| LoadError::new(path, 0, format!("cannot read: {e}")))?;
    let mut texts = BigTexts::default();
    let reader = std::io::BufReader::with_capacity(64 * 1024, Diverting::new(file, &mut texts));
    let log: JsonLog = serde_json::from_reader(reader).map_err(|e| {
        let line = e.line();
        LoadError::new(path, line, format!("not a readable Inspect log: {}", parse_problem(e, "cannot read")))
    })?;
    let info = LogInfo::of(&log.header);
    let mut read: Vec<Episode> =
        log.samples.into_iter().flat_map(|s| episodes_holding(s, &info, path, &mut texts)).collect();
    texts.restore(&mut read);
    Ok(read)
}

/// Whether a JSON object is an Inspect log (`version`, `eval` with a task, and `status` or `samples`).
pub fn is_json_log(obj: &serde_json::Map<String, Value>) -> bool {
    obj.contains_key("version")
        && obj.get("eval").and_then(|e| e.get("task")).is_some()
        && (obj.contains_key("status") || obj.contains_key("samples"))
}

/// The episodes of a plain `.json` Inspect log.
pub fn from_json_log(value: Value, path: &Path) -> Result<Vec<Episode>, LoadError> {
    let log: JsonLog = serde_json::from_value(value)
        .map_err(|e| LoadError::new(path, 0, format!("not a readable Inspect log: {e}")))?;
    let info = LogInfo::of(&log.header);
    Ok(log.samples.into_iter().flat_map(|s| episodes(s, &info, path)).collect())
}
