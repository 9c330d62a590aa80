//! Loading the episodes of one file, whatever its format, with its verdict sidecar merged in.

use std::path::Path;

use super::converse;
use super::defaults::Texts;
use super::detect::{self, Detected};
use super::error::LoadError;
use super::inspect;
use crate::core::episode::sidecar::{merge_verdicts, read_sidecar, sidecar_path};
use crate::core::episode::{Episode, JournalReader, is_journal, read_journal, read_journal_from};

/// Loads every episode in one file of any supported format, with the verdicts
/// of its `converse-tui judge` sidecar (`<name>.verdicts.jsonl`) merged in.
/// A sidecar that cannot be read is a warning on the episodes, not an error.
pub fn load_path(path: &Path) -> Result<Vec<Episode>, LoadError> {
    with_sidecar(path, load_source(path)?)
}

/// Like [`load_path`], for an index: the texts are left empty (the events, turns, verdicts
/// and header are the same). A ConVerse log's texts are never copied; a journal is read event
/// by event and each text dropped as it comes, so a huge journal costs its events, not its bytes.
pub fn load_path_without_texts(path: &Path) -> Result<Vec<Episode>, LoadError> {
    if is_journal(path) {
        let mut reader = JournalReader::open(path)?;
        let mut events = Vec::new();
        for event in &mut reader {
            let mut event = event?;
            event.body.drop_texts();
            events.push(event);
        }
        let mut episode = Episode::new(events, path.to_string_lossy().into_owned());
        episode.warnings = reader.warnings().iter().map(ToString::to_string).collect();
        return with_sidecar(path, vec![episode]);
    }
    if inspect::file_is_zip(path) {
        // An Inspect `.eval`: its samples' summaries, no sample read.
        return with_sidecar(path, inspect::summary_episodes(path)?);
    }
    if let Some(mut episodes) = inspect_json_log(path) {
        episodes.iter_mut().flat_map(|e| e.events.iter_mut()).for_each(|event| event.body.drop_texts());
        return with_sidecar(path, episodes);
    }
    let bytes = crate::core::input_file::read(path)
        .map_err(|e| LoadError::new(path, 0, format!("cannot read: {e}")))?;
    let episodes = match converse::from_log_without_texts(&bytes, path) {
        Some(episode) => vec![episode?],
        // MASEval reports: each episode's texts dropped as soon as it is made.
        None => load_bytes_with(&bytes, path, true, Texts::Drop)?,
    };
    with_sidecar(path, episodes)
}

/// The episodes with the verdicts of `path`'s `converse-tui judge` sidecar merged in.
fn with_sidecar(path: &Path, episodes: Vec<Episode>) -> Result<Vec<Episode>, LoadError> {
    let sidecar = sidecar_path(path);
    if !sidecar.exists() {
        return Ok(episodes);
    }
    Ok(match read_sidecar(&sidecar) {
        Ok(verdicts) => episodes.iter().map(|e| merge_verdicts(e, &verdicts)).collect(),
        Err(problem) => episodes
            .into_iter()
            .map(|mut e| {
                e.warnings.push(format!("verdict sidecar ignored: {problem}"));
                e
            })
            .collect(),
    })
}

/// Loads every episode in one file as the file has it (no sidecar).
pub fn load_source(path: &Path) -> Result<Vec<Episode>, LoadError> {
    if let Some(demo) = crate::core::demo::named(path) {
        return demo.map(|episode| vec![episode]).map_err(|problem| LoadError::new(path, 0, problem));
    }
    if is_journal(path) {
        // Streamed from the file: the bytes are never all held beside the events.
        let (events, warnings) = read_journal(path)?;
        let mut episode = Episode::new(events, path.to_string_lossy().into_owned());
        episode.warnings = warnings.iter().map(ToString::to_string).collect();
        return Ok(vec![episode]);
    }
    if inspect::file_is_zip(path) {
        // An Inspect `.eval`, read from the file one sample at a time, never inflated whole.
        return inspect::load_eval(path);
    }
    if let Some(episodes) = inspect_json_log(path) {
        return Ok(episodes);
    }
    let bytes = crate::core::input_file::read(path)
        .map_err(|e| LoadError::new(path, 0, format!("cannot read: {e}")))?;
    load_bytes(&bytes, path)
}

/// The episodes of a plain `.json` Inspect log, parsed straight from the file with its texts held
/// once; `None` when the file is not one or cannot be read so (then read as any JSON input is,
/// which names the problem as for every other format).
pub fn inspect_json_log(path: &Path) -> Option<Vec<Episode>> {
    inspect::file_is_json_log(path).then(|| inspect::load_json_log(path).ok()).flatten()
}

/// The episode `id` of the Inspect `.eval` at `path` (its one sample read), with its sidecar verdicts.
pub(super) fn load_eval_sample(path: &Path, id: &str) -> Result<Episode, LoadError> {
    let episode = inspect::load_sample(path, id)?;
    Ok(with_sidecar(path, vec![episode])?.remove(0))
}

/// Loads every episode in `bytes`, the content of the file at `path` (named in errors).
pub fn load_bytes(bytes: &[u8], path: &Path) -> Result<Vec<Episode>, LoadError> {
    load_bytes_with(bytes, path, true, Texts::Keep)
}

/// Like [`load_bytes`], reading no other file: a ConVerse log's judge files and run log are left
/// out (its verdicts and task details), its messages, calls and results keep their `seq`. For a
/// search, which needs only the texts.
pub fn load_bytes_alone(bytes: &[u8], path: &Path) -> Result<Vec<Episode>, LoadError> {
    load_bytes_with(bytes, path, false, Texts::Keep)
}

fn load_bytes_with(bytes: &[u8], path: &Path, beside: bool, texts: Texts) -> Result<Vec<Episode>, LoadError> {
    let origin = path.to_string_lossy().into_owned();
    if inspect::is_zip(bytes) {
        return inspect::load_eval_bytes(bytes, path);
    }
    match detect::detect(bytes, path, texts)? {
        Detected::Journal => {
            let (events, warnings) = read_journal_from(bytes, path)?;
            // The reader only returns Ok with a header first, but never trust it to panic.
            if !matches!(events.first().map(|e| &e.body), Some(crate::core::episode::EventBody::Episode(_))) {
                return Err(LoadError::new(path, 1, "no episode event"));
            }
            let mut episode = Episode::new(events, origin);
            episode.warnings = warnings.iter().map(ToString::to_string).collect();
            Ok(vec![episode])
        }
        Detected::ConverseLog(records) if beside => Ok(vec![converse::from_log(&records, path)?]),
        Detected::ConverseLog(records) => Ok(vec![converse::from_log_alone(&records, path)?]),
        Detected::Inspect(log) => inspect::from_json_log(log, path),
        Detected::Maseval(mut episodes, warnings) => {
            if let Some(last) = episodes.last_mut() {
                last.warnings.extend(warnings);
            }
            Ok(episodes)
        }
    }
}
