//! Format detection from content: which of our sources a file holds.

use std::path::Path;

use serde::de::{DeserializeSeed, IgnoredAny, SeqAccess, Visitor};
use serde_json::Value;

use super::defaults::Texts;
use super::error::LoadError;
use super::maseval;
use crate::core::episode::Episode;
use crate::core::episode::journal::describe_json_error;

/// What a file turned out to be, with the parsed input where that was needed to tell.
pub(super) enum Detected {
    /// A converse-tui journal; the journal reader does the rest.
    Journal,
    /// The records of one ConVerse log.
    ConverseLog(Vec<Value>),
    /// The episodes of MASEval reports, each made as soon as its report was read (100k reports
    /// are never all held as JSON values at once), and what was forgiven reading them (a
    /// truncated last JSONL line).
    Maseval(Vec<Episode>, Vec<String>),
    /// A plain `.json` Inspect AI log.
    Inspect(Value),
}

const EXPECTED: &str = "expected a converse-tui journal, a ConVerse log, MASEval report(s) or an Inspect log";

pub(super) fn detect(bytes: &[u8], path: &Path, texts: Texts) -> Result<Detected, LoadError> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let line = line_of(bytes, e.valid_up_to());
            return Err(LoadError::new(
                path,
                line,
                format!("not UTF-8 text, so not any supported format ({e})"),
            ));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some((first_no, first)) = first_line(text) else {
        return Err(LoadError::new(path, 0, "empty file: no episode"));
    };

    // A journal or a JSONL of reports shows itself on its first line alone.
    if first.starts_with('{')
        && let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(first)
    {
        if obj.get("kind").and_then(Value::as_str) == Some("episode") {
            return Ok(Detected::Journal);
        }
        if is_report(&obj) {
            return read_report_lines(text, path, texts);
        }
    }

    if first.starts_with('[') {
        return read_list(text, path, first_no, texts);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| json_error(text, path, &e))?;
    match value {
        Value::Array(items) => classify_list(items, path, first_no),
        Value::Object(obj) if super::inspect::is_json_log(&obj) => Ok(Detected::Inspect(Value::Object(obj))),
        Value::Object(obj) if is_report(&obj) => {
            let episode = episode_of(&Value::Object(obj), path, 0, texts)?;
            Ok(Detected::Maseval(vec![episode], Vec::new()))
        }
        Value::Object(obj) if obj.get("kind").is_some() && obj.get("seq").is_some() => {
            Err(LoadError::new(path, first_no, "a journal must start with an 'episode' event"))
        }
        Value::Object(obj) if super::converse_judges::looks_like_judge_file(&obj) => Err(LoadError::new(
            path,
            0,
            "unrecognised format: this is a ConVerse judge file; load the episode logs beside it \
                 and its verdicts are attached to them",
        )),
        Value::Object(_) if is_benchmark_judge_file(path) => Err(LoadError::new(
            path,
            0,
            "unrecognised format: this is a ConVerse benchmark judge file; load the output_<same suffix>.json \
                 beside it and its verdict is attached to that episode",
        )),
        Value::Object(obj) => Err(LoadError::new(
            path,
            0,
            format!("unrecognised format: a JSON object with keys {} ({EXPECTED})", key_list(&obj)),
        )),
        other => Err(LoadError::new(
            path,
            0,
            format!("unrecognised format: a JSON {} ({EXPECTED})", type_name(&other)),
        )),
    }
}

/// A JSON file that does not parse: "unexpected end of file" when it stops short (a copy or a
/// download cut off, maybe with a newline after the cut), else what serde_json says, located.
fn json_error(text: &str, path: &Path, e: &serde_json::Error) -> LoadError {
    let at = text.lines().take(e.line().saturating_sub(1)).map(|l| l.len() + 1).sum::<usize>()
        + e.column().saturating_sub(1);
    let cut_short = e.is_eof() || text.get(at..).is_some_and(|rest| rest.trim().is_empty());
    if cut_short {
        let line = text.lines().count().max(1);
        return LoadError::new(
            path,
            line,
            format!("unexpected end of file: the JSON stops short ({})", describe_json_error(e)),
        );
    }
    LoadError::new(path, e.line(), describe_json_error(e))
}

/// A top-level JSON list, read one item at a time: a list of reports becomes episodes report
/// by report; any other list is kept as values and classified as before.
fn read_list(text: &str, path: &Path, first_no: usize, texts: Texts) -> Result<Detected, LoadError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let json_error = |e: serde_json::Error| json_error(text, path, &e);
    let items = ListSeed { path, texts }.deserialize(&mut de).map_err(json_error)?;
    de.end().map_err(json_error)?;
    match items {
        ListItems::Reports(episodes, None) => Ok(Detected::Maseval(episodes, Vec::new())),
        ListItems::Reports(_, Some(problem)) => Err(problem),
        ListItems::Values(items) => classify_list(items, path, first_no),
    }
}

/// What a top-level list held: episodes of reports (with the first problem met converting
/// one), or plain values.
enum ListItems {
    Reports(Vec<Episode>, Option<LoadError>),
    Values(Vec<Value>),
}

struct ListSeed<'a> {
    path: &'a Path,
    texts: Texts,
}

/// The episode of one report, its texts dropped when they are not wanted.
fn episode_of(report: &Value, path: &Path, index: usize, texts: Texts) -> Result<Episode, LoadError> {
    let mut episode = maseval::from_report(report, path, index)?;
    if texts == Texts::Drop {
        episode.events.iter_mut().for_each(|e| e.body.drop_texts());
    }
    Ok(episode)
}

impl<'de> DeserializeSeed<'de> for ListSeed<'_> {
    type Value = ListItems;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<ListItems, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ListSeed<'_> {
    type Value = ListItems;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON list")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ListItems, A::Error> {
        let Some(first) = seq.next_element::<Value>()? else { return Ok(ListItems::Values(Vec::new())) };
        if !matches!(&first, Value::Object(obj) if is_report(obj)) {
            let mut items = vec![first];
            while let Some(item) = seq.next_element::<Value>()? {
                items.push(item);
            }
            return Ok(ListItems::Values(items));
        }
        let mut episodes = Vec::new();
        let mut problem = None;
        let mut next = Some(first);
        while let Some(report) = next {
            match episode_of(&report, self.path, episodes.len(), self.texts) {
                Ok(episode) => episodes.push(episode),
                Err(e) => {
                    problem = Some(e);
                    // The rest is read only to reach the end of the list.
                    while seq.next_element::<IgnoredAny>()?.is_some() {}
                    break;
                }
            }
            next = seq.next_element::<Value>()?;
        }
        Ok(ListItems::Reports(episodes, problem))
    }
}

fn classify_list(items: Vec<Value>, path: &Path, first_no: usize) -> Result<Detected, LoadError> {
    let Some(first) = items.first() else {
        return Err(LoadError::new(path, first_no, "an empty JSON list: no episode in it"));
    };
    match first {
        Value::Object(obj) if obj.contains_key("from") && obj.contains_key("to") => {
            Ok(Detected::ConverseLog(items))
        }
        Value::Object(obj) => Err(LoadError::new(
            path,
            0,
            format!("unrecognised format: a JSON list of objects with keys {} ({EXPECTED})", key_list(obj)),
        )),
        other => Err(LoadError::new(
            path,
            0,
            format!("unrecognised format: a JSON list of {} values ({EXPECTED})", type_name(other)),
        )),
    }
}

fn is_benchmark_judge_file(path: &Path) -> bool {
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| super::layout::judge_file_name(n).is_some())
}

/// A MASEval report: `task_id` plus at least one of the other always-present keys.
pub(super) fn is_report(obj: &serde_json::Map<String, Value>) -> bool {
    obj.contains_key("task_id")
        && (obj.contains_key("traces") || obj.contains_key("status") || obj.contains_key("eval"))
}

/// JSONL of reports (`FileResultLogger`): every non-empty line one report.
fn read_report_lines(text: &str, path: &Path, texts: Texts) -> Result<Detected, LoadError> {
    let mut reports = Vec::new();
    let mut warnings = Vec::new();
    let ends_with_newline = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let line_no = i + 1;
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(obj)) if is_report(&obj) => {
                let index = reports.len();
                reports.push(episode_of(&Value::Object(obj), path, index, texts)?);
            }
            Ok(_) => {
                return Err(LoadError::new(
                    path,
                    line_no,
                    "not a MASEval report (a JSON object with task_id, status, traces…)",
                ));
            }
            // The same forgiveness as the journal: a writer killed mid-line.
            Err(e) if i + 1 == lines.len() && !ends_with_newline && e.is_eof() => {
                warnings.push(format!(
                    "{}:{line_no}: truncated last line ignored ({})",
                    path.display(),
                    describe_json_error(&e)
                ));
            }
            Err(e) => return Err(LoadError::new(path, line_no, describe_json_error(&e))),
        }
    }
    Ok(Detected::Maseval(reports, warnings))
}

/// The first non-blank line and its 1-based number.
fn first_line(text: &str) -> Option<(usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).find(|(_, l)| !l.is_empty())
}

/// The 1-based line holding byte `offset`.
fn line_of(bytes: &[u8], offset: usize) -> usize {
    let end = offset.min(bytes.len());
    bytes[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

fn key_list(obj: &serde_json::Map<String, Value>) -> String {
    if obj.is_empty() {
        return "(none)".to_string();
    }
    let mut keys: Vec<String> =
        obj.keys().take(6).map(|k| format!("'{}'", k.chars().take(40).collect::<String>())).collect();
    if obj.len() > 6 {
        keys.push("…".to_string());
    }
    keys.join(", ")
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}
