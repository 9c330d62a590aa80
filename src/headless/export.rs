//! `converse-tui export`: episodes from any supported file or directory
//! written as Markdown, HTML, journal JSON lines, MASEval report JSONL or an Inspect `.eval` log.
//!
//! One episode goes to one output (`-o` file, or stdout). Several episodes —
//! a directory, or a file holding many reports — go to a file each in the
//! `-o` directory for the document formats, and into one JSONL for the line
//! formats (json also writes a file each when `-o` is an existing directory).

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::core::annotate::annotation_views;
use crate::core::annotate::file::notes_path;
use crate::core::atomic_file::{temp_beside, write_atomic};
use crate::core::dataset::TaskLookup;
use crate::core::episode::sidecar::sidecar_path;
use crate::core::episode::{Episode, Event, JournalReader, is_journal};
pub use crate::core::export::Format;
use crate::core::export::{Exported, to_html, to_json_lines, to_markdown_with, to_maseval_line_with};
use crate::core::import::{load_dir, load_path};
use crate::core::redact_episode::{redact_episode, redactor_from_episode};
use crate::core::sanitize::{SafeWriter, single_line};
use crate::session::episode_tasks::enrich_noting;

/// Exports every episode under `paths` in `format` to `out` (stdout when `None`).
/// With `redact`, the persona's private values are masked in everything written.
/// Imported episodes get their task from `tasks` (redaction needs it).
pub fn export(
    paths: &[PathBuf],
    format: Format,
    out: Option<&Path>,
    redact: bool,
    tasks: &TaskLookup,
) -> anyhow::Result<()> {
    export_to(paths, format, out, redact, tasks, &mut SafeWriter::new(std::io::stdout().lock()))
}

/// [`export`] with the stdout stream given, for tests and embedding.
pub fn export_to(
    paths: &[PathBuf],
    format: Format,
    out: Option<&Path>,
    redact: bool,
    tasks: &TaskLookup,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    if !format.of_episodes() {
        bail!("--format {format} holds a corpus's charts, not episodes: add --by FIELDS");
    }
    export_episodes(paths, format, out, redact, tasks, stdout)?;
    if format == Format::Json {
        carry_notes(paths, out)?;
    }
    Ok(())
}

/// A JSON export is a journal, which holds no annotations: they go beside it, as the notes file
/// `FILE.notes.jsonl` of `-o FILE` (the events keep their `seq`, so every note keeps its target).
/// Exported to stdout, stderr says where they are (issue 23: they were dropped without a word).
fn carry_notes(paths: &[PathBuf], out: Option<&Path>) -> anyhow::Result<()> {
    let mut sources = Vec::new();
    for path in paths {
        let mut errors = Vec::new();
        let files = if path.is_dir() {
            crate::core::import::episode_files(path, &mut errors)
        } else {
            vec![path.clone()]
        };
        sources.extend(files.iter().map(|f| notes_path(f)).filter(|n| n.is_file()));
    }
    if sources.is_empty() {
        return Ok(());
    }
    match out {
        Some(out) => {
            let mut records = Vec::new();
            for source in &sources {
                records.extend(
                    std::fs::read(source).with_context(|| format!("{}: cannot read", source.display()))?,
                );
            }
            let target = notes_path(out);
            crate::core::atomic_file::write_atomic(&target, &records)
                .with_context(|| format!("{}: cannot write the annotations", target.display()))?;
        }
        None => {
            let names: Vec<String> =
                sources.iter().map(|s| single_line(&s.to_string_lossy()).into_owned()).collect();
            writeln!(
                SafeWriter::new(std::io::stderr()),
                "note: the annotations are not in the journal: they are in {} (-o FILE writes them beside it)",
                names.join(", ")
            )?;
        }
    }
    Ok(())
}

fn export_episodes(
    paths: &[PathBuf],
    format: Format,
    out: Option<&Path>,
    redact: bool,
    tasks: &TaskLookup,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    // Masking needs the whole episode first (its tool results name the private values).
    if let (Format::Json, [path], false) = (format, paths, redact)
        && path.is_file()
        && is_journal(path)
        && !sidecar_path(path).exists()
    {
        return stream_journal(path, out, tasks, stdout);
    }
    let mut episodes = Vec::new();
    let mut any_dir = false;
    for path in paths {
        if path.is_dir() {
            any_dir = true;
            let (mut loaded, errors) = load_dir(path);
            if let Some(e) = errors.into_iter().next() {
                return Err(e.into());
            }
            if loaded.is_empty() {
                bail!("{}: no episode files in this directory", path.display());
            }
            episodes.append(&mut loaded);
        } else {
            episodes.append(&mut load_path(path)?);
        }
    }
    if episodes.is_empty() {
        bail!("no episode to export");
    }
    enrich_noting(tasks, &mut episodes, &mut SafeWriter::new(std::io::stderr()));
    let inputs = InputFiles::of(&episodes);
    if redact {
        episodes = episodes.iter().map(|e| redact_episode(e, &redactor_from_episode(e))).collect();
    }

    if format == Format::Eval {
        let Some(file) = out else {
            bail!(
                "an Inspect .eval log is a ZIP archive, not text: give the file to write with -o FILE.eval"
            );
        };
        inputs.refuse(file)?;
        return write_eval(&episodes, file, redact);
    }
    let single = episodes.len() == 1 && !any_dir;
    let per_file = match format {
        Format::Markdown | Format::Html => !single,
        // Line formats concatenate, unless journals are asked for one file each.
        Format::Json => !single && out.is_some_and(Path::is_dir),
        Format::Maseval | Format::Eval | Format::Csv => false,
    };
    if per_file {
        let Some(dir) = out else {
            bail!(
                "{} episodes to export as {format}: give an output directory with -o (one file per episode)",
                episodes.len()
            );
        };
        return write_each(&episodes, format, dir, &inputs);
    }

    let mut text = String::new();
    for episode in &episodes {
        text.push_str(&render(episode, format));
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    match out {
        Some(file) => inputs.refuse(file).and_then(|()| {
            write_atomic(file, text.as_bytes()).with_context(|| format!("{}: cannot write", file.display()))
        }),
        None => stdout.write_all(text.as_bytes()).context("cannot write to stdout"),
    }
}

/// One journal (no verdict sidecar to merge, no masking) as journal JSON lines, event by event:
/// memory does not grow with the file. Its header is enriched as a loaded episode's; the output
/// is the same. A bad line met on the way ends the export with its error (on stdout, after the
/// events before it; a file is only written whole).
fn stream_journal(
    path: &Path,
    out: Option<&Path>,
    tasks: &TaskLookup,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut reader = JournalReader::open(path)?;
    let header = reader.next().transpose()?.context("no episode to export")?;
    let mut head = Episode::new(vec![header], path.to_string_lossy().into_owned());
    // Notes after the events: a bad line is the only thing said about a bad file.
    let notes = crate::session::episode_tasks::enrich(tasks, std::iter::once(&mut head));
    let header = head.events.pop().context("no episode to export")?;
    let write = |w: &mut dyn Write, cannot: &str| -> anyhow::Result<()> {
        for event in std::iter::once(Ok(header)).chain(reader.by_ref()) {
            let event: Event = event?;
            crate::core::safe_json::to_writer(&mut *w, &event).context(cannot.to_string())?;
            w.write_all(b"\n").context(cannot.to_string())?;
        }
        Ok(())
    };
    let written = match out {
        Some(file) => {
            let source = Episode { origin: path.to_string_lossy().into_owned(), ..Episode::default() };
            InputFiles::of(std::slice::from_ref(&source)).refuse(file)?;
            let cannot = || format!("{}: cannot write", file.display());
            let mut temp = temp_beside(file).with_context(cannot)?;
            let mut buffered = std::io::BufWriter::new(temp.as_file_mut());
            write(&mut buffered, &cannot())?;
            buffered.flush().with_context(cannot)?;
            drop(buffered);
            temp.as_file().sync_all().with_context(cannot)?;
            temp.persist(file).map_err(|e| e.error).with_context(cannot)?;
            Ok(())
        }
        None => {
            let mut buffered = std::io::BufWriter::new(stdout);
            write(&mut buffered, "cannot write to stdout")?;
            buffered.flush().context("cannot write to stdout")
        }
    };
    if written.is_ok() {
        for note in notes {
            let _ = writeln!(SafeWriter::new(std::io::stderr()), "note: {note}");
        }
    }
    written
}

/// Every file an export read: the episode files and the sidecars beside them.
/// Writing over one would destroy what was being exported.
struct InputFiles(Vec<PathBuf>);

impl InputFiles {
    fn of(episodes: &[Episode]) -> Self {
        let mut files = Vec::new();
        for episode in episodes {
            let source = Path::new(&episode.origin);
            for file in [source.to_path_buf(), sidecar_path(source), notes_path(source)] {
                if let Ok(real) = file.canonicalize() {
                    files.push(real);
                }
            }
        }
        InputFiles(files)
    }

    /// An error when `output` is one of the inputs (by any name: links and `./` resolved),
    /// or has a sidecar's name: an episode written there would be read as the notes or
    /// verdicts of the episode beside it (issue 24).
    fn refuse(&self, output: &Path) -> anyhow::Result<()> {
        if crate::core::import::is_sidecar_name(output) {
            bail!(
                "{}: a sidecar's name (`.notes.jsonl`, `.verdicts.jsonl`); refusing to write an export there (choose another -o)",
                output.display()
            );
        }
        match output.canonicalize() {
            Ok(real) if self.0.contains(&real) => bail!(
                "{}: is an input of this export; refusing to overwrite it (choose another -o)",
                output.display()
            ),
            _ => Ok(()),
        }
    }
}

/// One episode in `format`, with the annotations of its notes file (journal
/// JSON lines stay a journal: annotations live in their own file, see `notes export`).
fn render(episode: &Episode, format: Format) -> String {
    let notes = annotation_views(episode);
    match format {
        Format::Markdown => to_markdown_with(episode, &notes),
        Format::Html => to_html(episode, &notes),
        Format::Json => to_json_lines(episode),
        Format::Maseval => to_maseval_line_with(episode, &notes),
        Format::Eval | Format::Csv => {
            unreachable!("an .eval is written whole by write_eval; csv is no episode format")
        }
    }
}

/// Every episode as one Inspect `.eval` log at `file`, written beside it and renamed into place.
/// A sample read from an Inspect log is carried over as Inspect wrote it, read again from the log
/// (never when redacted: it holds what the redaction masks).
fn write_eval(episodes: &[Episode], file: &Path, redacted: bool) -> anyhow::Result<()> {
    let with_notes: Vec<Exported> = episodes
        .iter()
        .map(|e| Exported {
            episode: e,
            notes: annotation_views(e),
            written: if redacted { None } else { written_by_inspect(e) },
        })
        .collect();
    let cannot = || format!("{}: cannot write", file.display());
    let temp = temp_beside(file).with_context(cannot)?;
    let created = crate::core::episode::now_rfc3339();
    let mut temp = crate::core::export::to_eval(&with_notes, &created, temp).with_context(cannot)?;
    temp.as_file_mut().sync_all().with_context(cannot)?;
    temp.persist(file).map_err(|e| e.error).with_context(cannot)?;
    Ok(())
}

/// The sample an episode read from an Inspect `.eval` is, as Inspect wrote it; `None` for any
/// other episode, a fork read from a branch, or a sample that cannot be read again as one entry.
fn written_by_inspect(episode: &Episode) -> Option<serde_json::Value> {
    let header = episode.header();
    let source = header.source.as_ref().filter(|s| s.format == crate::core::import::inspect::FORMAT)?;
    if header.parent.is_some() {
        return None;
    }
    crate::core::import::inspect::raw_sample(Path::new(&source.path), episode.id()).ok().flatten()
}

fn write_each(episodes: &[Episode], format: Format, dir: &Path, inputs: &InputFiles) -> anyhow::Result<()> {
    if dir.exists() && !dir.is_dir() {
        bail!("{}: not a directory (several episodes need an output directory)", dir.display());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("{}: cannot create directory", dir.display()))?;
    let mut used = HashSet::new();
    for episode in episodes {
        let name = unique_name(&file_stem(episode.id()), format.extension(), &mut used);
        let path = dir.join(name);
        inputs.refuse(&path)?;
        let mut text = render(episode, format);
        if !text.ends_with('\n') {
            text.push('\n');
        }
        write_atomic(&path, text.as_bytes()).with_context(|| format!("{}: cannot write", path.display()))?;
    }
    Ok(())
}

/// An episode id as a safe file name: no separators, no leading dot, not empty.
fn file_stem(id: &str) -> String {
    let stem: String = id
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' })
        .take(120)
        .collect();
    let stem = stem.trim_start_matches('.');
    if stem.is_empty() { "episode".to_string() } else { stem.to_string() }
}

fn unique_name(stem: &str, ext: &str, used: &mut HashSet<String>) -> String {
    let mut name = format!("{stem}.{ext}");
    let mut n = 2;
    while !used.insert(name.clone()) {
        name = format!("{stem}-{n}.{ext}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 14: a journal's json export is streamed event by event, with the same output as the
    /// whole episode loaded, enriched and masked.
    #[test]
    fn a_streamed_json_export_equals_the_loaded_one() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = TaskLookup::from_tasks([]);
        for episode in crate::core::demo::demo_episodes() {
            let path = dir.path().join(format!("{}.jsonl", file_stem(episode.id())));
            crate::core::episode::write_journal(&path, &episode.events).unwrap();
            for redact in [false, true] {
                let mut streamed = Vec::new();
                export_to(std::slice::from_ref(&path), Format::Json, None, redact, &tasks, &mut streamed)
                    .unwrap();
                let mut loaded = crate::core::import::load_path(&path).unwrap().remove(0);
                enrich_noting(&tasks, std::iter::once(&mut loaded), &mut std::io::sink());
                if redact {
                    loaded = redact_episode(&loaded, &redactor_from_episode(&loaded));
                }
                assert_eq!(String::from_utf8(streamed).unwrap(), to_json_lines(&loaded), "{}", episode.id());
            }
            let out = dir.path().join("out.jsonl");
            export_to(std::slice::from_ref(&path), Format::Json, Some(&out), false, &tasks, &mut Vec::new())
                .unwrap();
            assert_eq!(std::fs::read_to_string(&out).unwrap(), to_json_lines(&episode));
            let refused = export_to(
                std::slice::from_ref(&path),
                Format::Json,
                Some(&path),
                false,
                &tasks,
                &mut Vec::new(),
            );
            assert!(refused.unwrap_err().to_string().contains("is an input of this export"));
        }
    }

    #[test]
    fn file_names_are_safe_and_unique() {
        assert_eq!(file_stem("../a/b#1"), "_a_b_1");
        assert_eq!(file_stem("..."), "episode");
        let mut used = HashSet::new();
        assert_eq!(unique_name("x", "md", &mut used), "x.md");
        assert_eq!(unique_name("x", "md", &mut used), "x-2.md");
    }
}
