//! Searching the delivered text of many episodes (`converse-tui search`, the browser's content
//! search).
//!
//! Every file is loaded by its importer (`core::import`), so a match is found in what the
//! parties said — JSON strings decoded, never in keys — whatever the format. Before that, a
//! conservative byte-level prefilter skips the files that cannot hold a match: for a literal
//! of ASCII characters that no single-character JSON escape produces, a file whose raw bytes
//! do not contain the literal (in any ASCII case) and none of whose `\u` escapes decodes to one
//! of the literal's characters (nor a `K`/`ſ` that folds to `k`/`s`) cannot contain it once
//! decoded. Everything else (a regex, a non-ASCII literal, a possible MASEval file, whose
//! importer joins content parts) is decoded in full.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use regex::{Regex, RegexBuilder};

use crate::core::corpus::{Filter, index};
use crate::core::episode::{Event, EventBody, Party};
use crate::core::import::{LoadError, episode_files, inspect, inspect_json_log, load_bytes_alone};

/// Which party said it: the `--party` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Speaker {
    Attacker,
    Assistant,
    /// Tool calls (their argument values), tool results and the environment's replies.
    Tool,
    User,
}

impl Speaker {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(name: &str) -> Result<Speaker, String> {
        match name.to_ascii_lowercase().as_str() {
            "attacker" => Ok(Speaker::Attacker),
            "assistant" => Ok(Speaker::Assistant),
            "tool" | "tools" => Ok(Speaker::Tool),
            "user" => Ok(Speaker::User),
            other => Err(format!("unknown party '{other}': attacker, assistant, tool or user")),
        }
    }
}

/// Which text of an event a hit is in: every text a party saw is searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub enum Field {
    /// What was delivered: a message, a tool's output.
    Text,
    /// The string values of a tool call's arguments.
    Args,
    /// The raw answer behind what was delivered: a model's full output, the environment's
    /// `long_answer` in the benchmark's and the Firewalled logs.
    Raw,
}

impl Field {
    pub const ALL: [Field; 3] = [Field::Text, Field::Args, Field::Raw];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(name: &str) -> Result<Field, String> {
        Field::ALL
            .into_iter()
            .find(|f| f.as_str() == name.trim().to_lowercase())
            .ok_or_else(|| format!("unknown field '{}': text, args or raw", one_line(name)))
    }
}

/// What to look for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    pub pattern: String,
    /// The pattern is a regular expression (Rust `regex` syntax), not a literal.
    pub regex: bool,
    pub case_sensitive: bool,
    /// Only what these parties said (all when empty).
    pub parties: Vec<Speaker>,
    /// Only these texts of an event (all when empty).
    pub fields: Vec<Field>,
}

/// A compiled [`Query`].
#[derive(Debug, Clone)]
pub struct Matcher {
    text: Regex,
    /// For the raw bytes of a file; `None` when no byte-level test is sound.
    prefilter: Option<Prefilter>,
    parties: Vec<Speaker>,
    fields: Vec<Field>,
}

#[derive(Debug, Clone)]
struct Prefilter {
    raw: regex::bytes::Regex,
    /// The literal's characters as a `\u` escape could spell them (both ASCII cases unless
    /// case-sensitive).
    chars: Vec<u8>,
    /// The literal has a `k` or `s` (any case) and the search ignores case: the Kelvin sign and
    /// the long s fold to them.
    folds: bool,
}

impl Matcher {
    /// Compiles the query; a bad regex or an empty pattern is a one-line error.
    pub fn new(query: &Query) -> Result<Matcher, String> {
        if query.pattern.is_empty() {
            return Err("empty pattern".to_string());
        }
        let source = if query.regex { query.pattern.clone() } else { regex::escape(&query.pattern) };
        let text = RegexBuilder::new(&source)
            .case_insensitive(!query.case_sensitive)
            .size_limit(64 << 20)
            .build()
            .map_err(|e| format!("bad regex: {}", one_line(&e.to_string())))?;
        let prefilter =
            (!query.regex).then(|| Prefilter::new(&query.pattern, query.case_sensitive)).flatten();
        Ok(Matcher { text, prefilter, parties: query.parties.clone(), fields: query.fields.clone() })
    }

    /// Whether a file with these raw bytes may hold a match (false only when it cannot).
    pub fn may_match(&self, bytes: &[u8]) -> bool {
        match &self.prefilter {
            Some(prefilter) => prefilter.may_match(bytes),
            None => true,
        }
    }

    /// The matches in one text, by line: (line range in `text`, match ranges in `text`).
    fn lines(&self, text: &str) -> Vec<(Range<usize>, Vec<Range<usize>>)> {
        let mut out: Vec<(Range<usize>, Vec<Range<usize>>)> = Vec::new();
        for m in self.text.find_iter(text) {
            if m.start() == m.end() {
                continue;
            }
            let line = line_around(text, m.start());
            let span = m.start()..m.end().min(line.end);
            match out.last_mut() {
                Some((last, spans)) if *last == line => spans.push(span),
                _ => out.push((line, vec![span])),
            }
        }
        out
    }

    fn wants(&self, speaker: Speaker) -> bool {
        self.parties.is_empty() || self.parties.contains(&speaker)
    }

    fn wants_field(&self, field: Field) -> bool {
        self.fields.is_empty() || self.fields.contains(&field)
    }
}

impl Prefilter {
    fn new(pattern: &str, case_sensitive: bool) -> Option<Prefilter> {
        // Characters a single-character JSON escape produces (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`,
        // `\r`, `\t`) could be hidden behind one: no byte-level test then.
        let escapable = |c: char| matches!(c, '"' | '\\' | '/') || c.is_ascii_control();
        if !pattern.is_ascii() || pattern.chars().any(escapable) {
            return None;
        }
        let raw = regex::bytes::RegexBuilder::new(&regex::escape(pattern))
            .case_insensitive(!case_sensitive)
            .unicode(false)
            .build()
            .ok()?;
        let mut chars: Vec<u8> = Vec::new();
        for b in pattern.bytes() {
            if case_sensitive {
                chars.push(b);
            } else {
                chars.push(b.to_ascii_lowercase());
                chars.push(b.to_ascii_uppercase());
            }
        }
        chars.sort_unstable();
        chars.dedup();
        let folds = !case_sensitive && pattern.bytes().any(|b| matches!(b.to_ascii_lowercase(), b'k' | b's'));
        Some(Prefilter { raw, chars, folds })
    }

    fn may_match(&self, bytes: &[u8]) -> bool {
        if self.raw.is_match(bytes) {
            return true;
        }
        // U+212A KELVIN SIGN and U+017F LATIN SMALL LETTER LONG S fold to `k` and `s`.
        if self.folds
            && (memchr::memmem::find(bytes, "\u{212a}".as_bytes()).is_some()
                || memchr::memmem::find(bytes, "\u{17f}".as_bytes()).is_some())
        {
            return true;
        }
        self.an_escape_spells_a_char(bytes)
    }

    /// Whether some `\uXXXX` in the bytes decodes to one of the literal's characters (or to a
    /// character that folds to one). Every `\u` counts, even one after an escaped backslash: a
    /// doubly encoded string (JSON in a JSON string) decodes it in its second pass.
    fn an_escape_spells_a_char(&self, bytes: &[u8]) -> bool {
        for at in memchr::memmem::find_iter(bytes, b"\\u") {
            let Some(hex) = bytes.get(at + 2..at + 6) else { return true };
            let Some(code) = std::str::from_utf8(hex).ok().and_then(|h| u32::from_str_radix(h, 16).ok())
            else {
                // Not four hex digits: not an escape this test understands.
                return true;
            };
            let folds_here = self.folds && (code == 0x212a || code == 0x17f);
            if folds_here || (code < 0x80 && self.chars.binary_search(&(code as u8)).is_ok()) {
                return true;
            }
        }
        false
    }
}

/// One line of an event's text holding one or more matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub path: PathBuf,
    /// The episode's id.
    pub episode: String,
    pub seq: u64,
    pub turn: Option<u32>,
    pub party: Speaker,
    /// The text of the event the line is in.
    pub field: Field,
    /// The whole line, as delivered (untrusted: sanitize before showing it).
    pub line: String,
    /// Byte ranges of the matches within `line`.
    pub spans: Vec<Range<usize>>,
}

impl Hit {
    /// The match ranges in characters (Unicode scalar values) of `line`, as `--json` prints them.
    pub fn char_spans(&self) -> Vec<Range<usize>> {
        let chars = |byte: usize| self.line[..byte].chars().count();
        self.spans.iter().map(|s| chars(s.start)..chars(s.end)).collect()
    }
}

/// Episodes a search is limited to: (file, episode id).
pub type Only = HashSet<(PathBuf, String)>;

/// The hits over some paths, and what could not be read.
#[derive(Debug, Default)]
pub struct Found {
    /// In path order, then episode order in the file, then event order.
    pub hits: Vec<Hit>,
    pub errors: Vec<LoadError>,
    /// Files searched (after the walk and `--where`).
    pub files: usize,
}

/// Every episode file under `paths` (files as given, directories walked as `ls` walks them).
pub fn files_under(paths: &[PathBuf], errors: &mut Vec<LoadError>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            files.extend(episode_files(path, errors));
        } else {
            files.push(path.clone());
        }
    }
    files
}

/// The episodes of `paths` a `--where` expression keeps; an unknown field is an error.
pub fn only_where(paths: &[PathBuf], expr: &str) -> Result<(Only, Vec<LoadError>), String> {
    let corpus = index(paths);
    let filter = Filter::parse_for(expr, &corpus.rows)?;
    let only =
        corpus.rows.iter().filter(|r| filter.matches(r)).map(|r| (r.path.clone(), r.id.clone())).collect();
    Ok((only, corpus.errors))
}

/// Searches every file of `files` in parallel (rayon); hits in path order.
pub fn search_files(files: &[PathBuf], matcher: &Matcher, only: Option<&Only>) -> Found {
    let wanted: Option<HashMap<&Path, HashSet<&str>>> = only.map(|only| {
        let mut map: HashMap<&Path, HashSet<&str>> = HashMap::new();
        for (path, id) in only {
            map.entry(path.as_path()).or_default().insert(id.as_str());
        }
        map
    });
    let files: Vec<&PathBuf> = match &wanted {
        Some(map) => files.iter().filter(|f| map.contains_key(f.as_path())).collect(),
        None => files.iter().collect(),
    };
    let results: Vec<Result<Vec<Hit>, LoadError>> = files
        .par_iter()
        .map(|file| search_file(file, matcher, wanted.as_ref().and_then(|m| m.get(file.as_path()))))
        .collect();
    let mut found = Found { files: files.len(), ..Found::default() };
    for result in results {
        match result {
            Ok(mut hits) => found.hits.append(&mut hits),
            Err(e) => found.errors.push(e),
        }
    }
    found
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|e| LoadError::new(path, 0, format!("cannot read: {e}")))
}

/// The hits of one file (only the episodes named in `ids`, when given).
pub fn search_file(
    path: &Path,
    matcher: &Matcher,
    ids: Option<&HashSet<&str>>,
) -> Result<Vec<Hit>, LoadError> {
    if inspect::file_is_zip(path) {
        // An Inspect `.eval` (compressed: no byte prefilter), searched one sample at a time.
        let mut hits = Vec::new();
        inspect::each_sample(path, &mut |episode| {
            if ids.is_none_or(|ids| ids.contains(episode.id())) {
                hits.extend(search_events(&episode.events, path, episode.id(), matcher));
            }
            true
        })?;
        return Ok(hits);
    }
    let bytes = read(path)?;
    // MASEval's importer joins content parts: a match may span two JSON strings there.
    let maseval = memchr::memmem::find(&bytes, b"\"task_id\"").is_some();
    // No match can be in it; it is read all the same: a file that cannot be read is said
    // whatever the term (docs/search.md).
    let cannot_match = !maseval && !matcher.may_match(&bytes);
    // Only the texts matter: nothing beside the file (judge files, run log) is read.
    let episodes = if inspect::file_is_json_log(path) {
        // A plain Inspect log is parsed again from the file, its texts held once, the bytes dropped
        // first; read as any JSON input when it cannot be (for the problem's name).
        drop(bytes);
        match inspect_json_log(path) {
            Some(episodes) => episodes,
            None => load_bytes_alone(&read(path)?, path)?,
        }
    } else {
        let episodes = load_bytes_alone(&bytes, path)?;
        drop(bytes);
        episodes
    };
    if cannot_match {
        return Ok(Vec::new());
    }
    let mut hits = Vec::new();
    for episode in &episodes {
        let id = episode.id();
        if ids.is_some_and(|ids| !ids.contains(id)) {
            continue;
        }
        hits.extend(search_events(&episode.events, path, id, matcher));
    }
    Ok(hits)
}

/// The hits of the events of an episode already in memory.
pub fn search_events(events: &[Event], path: &Path, episode: &str, matcher: &Matcher) -> Vec<Hit> {
    let mut hits = Vec::new();
    for event in events {
        event_hits(event, matcher, &mut |party, field, line, spans| {
            hits.push(Hit {
                path: path.to_path_buf(),
                episode: episode.to_string(),
                seq: event.seq,
                turn: event.body.turn(),
                party,
                field,
                line,
                spans,
            })
        });
    }
    hits
}

/// Calls `found(party, field, line, spans)` for every line with a match of every text of the
/// event a party saw: the delivered text, a call's arguments, the raw answer behind them.
fn event_hits(
    event: &Event,
    matcher: &Matcher,
    found: &mut dyn FnMut(Speaker, Field, String, Vec<Range<usize>>),
) {
    let mut texts: Vec<(Field, &str)> = Vec::new();
    let speaker = match &event.body {
        EventBody::Message(m) => {
            texts.push((Field::Text, &m.text));
            texts.extend(m.raw.as_deref().map(|raw| (Field::Raw, raw)));
            match m.from {
                Party::Attacker => Speaker::Attacker,
                Party::Assistant => Speaker::Assistant,
                Party::User => Speaker::User,
                Party::Environment => Speaker::Tool,
            }
        }
        EventBody::ToolResult(r) => {
            texts.push((Field::Text, &r.output));
            texts.extend(r.raw.as_deref().map(|raw| (Field::Raw, raw)));
            Speaker::Tool
        }
        EventBody::ToolCall(c) => {
            let mut args = Vec::new();
            match &c.raw_args {
                Some(raw) => args.push(raw.as_str()),
                None => string_values(&c.args, &mut args),
            }
            texts.extend(args.into_iter().map(|a| (Field::Args, a)));
            texts.extend(c.raw.as_deref().map(|raw| (Field::Raw, raw)));
            Speaker::Tool
        }
        _ => return,
    };
    if !matcher.wants(speaker) {
        return;
    }
    for (field, text) in texts.into_iter().filter(|(field, _)| matcher.wants_field(*field)) {
        for (line, spans) in matcher.lines(text) {
            let start = line.start;
            let line_text = text[line].to_string();
            let spans = spans.into_iter().map(|s| s.start - start..s.end - start).collect();
            found(speaker, field, line_text, spans);
        }
    }
}

/// Every string value in a JSON value (never its keys), in order.
fn string_values<'a>(value: &'a serde_json::Value, out: &mut Vec<&'a str>) {
    match value {
        serde_json::Value::String(s) => out.push(s),
        serde_json::Value::Array(items) => items.iter().for_each(|v| string_values(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| string_values(v, out)),
        _ => {}
    }
}

/// The line of `text` around byte `at` (without its `\n`, nor a `\r` before it).
fn line_around(text: &str, at: usize) -> Range<usize> {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let mut end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    if end > start && text.as_bytes()[end - 1] == b'\r' && end > at {
        end -= 1;
    }
    start..end
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(pattern: &str) -> Matcher {
        Matcher::new(&Query { pattern: pattern.into(), ..Query::default() }).unwrap()
    }

    #[test]
    fn the_prefilter_skips_only_what_cannot_match() {
        let m = matcher("Holter");
        assert!(m.may_match(br#"{"text": "a HOLTER monitor"}"#));
        assert!(!m.may_match(br#"{"text": "a monitor"}"#));
        // An escape that spells one of its letters: decode in full.
        assert!(m.may_match(br#"{"text": "\u0048olter"}"#));
        assert!(m.may_match(br#"{"text": "\u006Flter"}"#));
        // An escape of another letter proves nothing either way, and the raw miss stands.
        assert!(!m.may_match(br#"{"text": "\u00e9t\u00e9"}"#));
        // Kelvin sign folds to k.
        let k = matcher("kit");
        assert!(k.may_match("{\"text\": \"\u{212a}it\"}".as_bytes()));
        assert!(k.may_match(br#"{"text": "\u212Ait"}"#));
        // Patterns an escape could hide, or not ASCII: no prefilter.
        assert!(matcher("a\nb").may_match(b"{}"));
        assert!(matcher("caf\u{e9}").may_match(b"{}"));
        assert!(matcher("a/b").may_match(b"{}"));
    }

    #[test]
    fn lines_hold_every_match_of_the_line() {
        let m = matcher("ab");
        let text = "xx ab ab\r\nno\nAB";
        let lines = m.lines(text);
        assert_eq!(lines.len(), 2);
        assert_eq!(&text[lines[0].0.clone()], "xx ab ab");
        assert_eq!(lines[0].1, vec![3..5, 6..8]);
        assert_eq!(&text[lines[1].0.clone()], "AB");
    }

    #[test]
    fn char_spans_count_characters() {
        let hit = Hit {
            path: PathBuf::new(),
            episode: String::new(),
            seq: 1,
            turn: None,
            party: Speaker::User,
            field: Field::Text,
            line: "été Holter".into(),
            spans: std::iter::once(6..12).collect(),
        };
        assert_eq!(hit.char_spans(), vec![4..10]);
    }
}
