//! `converse-tui search PATTERN PATH… [--regex] [--case-sensitive] [--party P] [--where EXPR]
//! [--json]`: every line of delivered text that matches, over any number of episode files.

use std::io::Write;
use std::path::PathBuf;

use serde::Serialize;

use crate::core::sanitize::single_line;
use crate::core::search::{Found, Hit, Matcher, Query, files_under, only_where, search_files};

pub struct SearchArgs {
    pub query: Query,
    pub paths: Vec<PathBuf>,
    pub filter: Option<String>,
    pub json: bool,
    /// Matches in bold colour (a terminal without `NO_COLOR`).
    pub color: bool,
}

/// How a search ended, for the exit code (as grep: 0 a hit, 1 none, 2 trouble).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Hits,
    NoHits,
    /// Some file could not be read (each named on stderr); the rest was searched.
    Unreadable,
    /// The pattern or the `--where` expression is bad (one line on stderr); nothing searched.
    BadQuery,
}

impl Outcome {
    pub fn code(self) -> u8 {
        match self {
            Outcome::Hits => 0,
            Outcome::NoHits => 1,
            Outcome::Unreadable | Outcome::BadQuery => 2,
        }
    }
}

#[derive(Serialize)]
struct JsonHit<'a> {
    path: String,
    episode: &'a str,
    seq: u64,
    turn: Option<u32>,
    party: &'static str,
    field: &'static str,
    line: &'a str,
    start: usize,
    end: usize,
}

pub fn search(args: &SearchArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<Outcome> {
    let matcher = match Matcher::new(&args.query) {
        Ok(m) => m,
        Err(problem) => {
            writeln!(err, "converse-tui: {}", single_line(&problem))?;
            return Ok(Outcome::BadQuery);
        }
    };
    let mut errors = Vec::new();
    let only = match &args.filter {
        Some(expr) => match only_where(&args.paths, expr) {
            Ok((only, mut e)) => {
                errors.append(&mut e);
                Some(only)
            }
            Err(problem) => {
                writeln!(err, "converse-tui: {}", single_line(&problem))?;
                return Ok(Outcome::BadQuery);
            }
        },
        None => None,
    };
    let files = files_under(&args.paths, &mut errors);
    let mut found = search_files(&files, &matcher, only.as_ref());
    // With --where, the index already named the unreadable files.
    if only.is_none() {
        errors.append(&mut found.errors);
    }
    let Found { hits, .. } = found;
    // One write per many lines, not per line (stdout flushes at every newline).
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    let mut heading = Heading::default();
    for hit in &hits {
        if args.json {
            write_json(hit, &mut out)?;
        } else {
            write_text(hit, args.color, &mut heading, &mut out)?;
        }
    }
    out.flush()?;
    drop(out);
    for e in &errors {
        writeln!(err, "{e}")?;
    }
    Ok(if !errors.is_empty() {
        Outcome::Unreadable
    } else if hits.is_empty() {
        Outcome::NoHits
    } else {
        Outcome::Hits
    })
}

/// One object per match: `start`/`end` are character offsets in `line`.
fn write_json(hit: &Hit, out: &mut dyn Write) -> anyhow::Result<()> {
    let path = hit.path.to_string_lossy().into_owned();
    for span in hit.char_spans() {
        let row = JsonHit {
            path: path.clone(),
            episode: &hit.episode,
            seq: hit.seq,
            turn: hit.turn,
            party: hit.party.as_str(),
            field: hit.field.as_str(),
            line: &hit.line,
            start: span.start,
            end: span.end,
        };
        writeln!(out, "{}", crate::core::safe_json::to_string(&row)?)?;
    }
    Ok(())
}

const BOLD_RED: &str = "\x1b[1;31m";
const DIM: &str = "\x1b[2m";
const MAGENTA: &str = "\x1b[35m";
const RESET: &str = "\x1b[0m";

/// The start of a line, `path [episode]`, made once per episode rather than once per hit.
#[derive(Default)]
struct Heading {
    of: Option<(PathBuf, String)>,
    text: String,
}

impl Heading {
    fn of(&mut self, hit: &Hit, color: bool) -> &str {
        if self.of.as_ref().is_none_or(|(p, e)| *p != hit.path || *e != hit.episode) {
            let path = single_line(&hit.path.to_string_lossy()).into_owned();
            // A benchmark run's id is its path: name the episode only where the path does not.
            let stem = hit.path.with_extension("");
            let episode = if stem.to_string_lossy().ends_with(&hit.episode) {
                String::new()
            } else {
                format!(" [{}]", single_line(&hit.episode))
            };
            self.text =
                if color { format!("{MAGENTA}{path}{RESET}{episode}") } else { format!("{path}{episode}") };
            self.of = Some((hit.path.clone(), hit.episode.clone()));
        }
        &self.text
    }
}

/// `path [episode] turn 3 assistant: …line…`, every piece of untrusted text made inert.
fn write_text(hit: &Hit, color: bool, heading: &mut Heading, out: &mut dyn Write) -> anyhow::Result<()> {
    let head = heading.of(hit, color);
    let turn = hit.turn.map_or_else(|| "-".to_string(), |t| t.to_string());
    // The delivered text is what a reader expects; any other text is named.
    let party = match hit.field {
        crate::core::search::Field::Text => hit.party.as_str().to_string(),
        field => format!("{} ({})", hit.party.as_str(), field.as_str()),
    };
    let mut line = String::new();
    let mut at = 0;
    for span in &hit.spans {
        line.push_str(&single_line(&hit.line[at..span.start]));
        let matched = single_line(&hit.line[span.clone()]);
        if color {
            line.push_str(BOLD_RED);
            line.push_str(&matched);
            line.push_str(RESET);
        } else {
            line.push_str(&matched);
        }
        at = span.end;
    }
    line.push_str(&single_line(&hit.line[at..]));
    if color {
        writeln!(out, "{head} {DIM}turn {turn}{RESET} {party}: {line}")?;
    } else {
        writeln!(out, "{head} turn {turn} {party}: {line}")?;
    }
    Ok(())
}
