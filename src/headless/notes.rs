//! `converse-tui notes export PATH… --format jsonl|csv`: the annotations in
//! effect (the folded log, not its history) of every notes file found, each
//! with the words its span quotes (read from the episode file beside it).

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use serde_json::json;
use walkdir::WalkDir;

use crate::core::annotate::{Annotation, NotesFile, notes_path, quote_of};
use crate::core::episode::Episode;
use crate::core::import::load_path;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    #[value(alias = "json")]
    Jsonl,
    Csv,
}

const NOTES_SUFFIX: &str = ".notes.jsonl";
const CSV_COLUMNS: [&str; 11] = [
    "file",
    "episode",
    "id",
    "target_seq",
    "span_start",
    "span_end",
    "quote",
    "label",
    "note",
    "author",
    "at",
];

/// Writes the current annotations of every notes file under `paths`: a notes
/// file itself, an episode file (its sidecar, if any), or a directory
/// (searched recursively for `*.notes.jsonl`).
pub fn export(paths: &[PathBuf], format: ExportFormat, out: &mut dyn Write) -> anyhow::Result<()> {
    let mut files = Vec::new();
    for path in paths {
        collect_notes_files(path, &mut files)?;
    }
    // The same file named twice (a directory and its episode) is exported once.
    let mut seen = std::collections::HashSet::new();
    files.retain(|f| seen.insert(f.clone()));
    if format == ExportFormat::Csv {
        super::csv::write_record(out, &CSV_COLUMNS)?;
    }
    for file in files {
        let notes = NotesFile::open(&file)?;
        for warning in notes.warnings() {
            tracing::warn!("{warning}");
        }
        let shown = file.display().to_string();
        let episodes = episodes_beside(&file);
        for a in notes.current() {
            let quote = episodes.iter().find_map(|e| quote_of(e, a));
            match format {
                ExportFormat::Jsonl => {
                    let mut line =
                        crate::core::safe_json::to_string(&jsonl_row(&shown, a, quote.as_deref()))?
                            .into_bytes();
                    line.push(b'\n');
                    out.write_all(&line)?;
                }
                ExportFormat::Csv => super::csv::write_record(out, &csv_row(&shown, a, quote.as_deref()))?,
            }
        }
    }
    out.flush()?;
    Ok(())
}

fn collect_notes_files(path: &Path, files: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    let meta = std::fs::metadata(path).with_context(|| format!("{}: cannot read", path.display()))?;
    if meta.is_dir() {
        // Symlinked directories are not followed: they could loop.
        for entry in WalkDir::new(path).sort_by_file_name() {
            let entry = entry.with_context(|| format!("{}: cannot list", path.display()))?;
            if !entry.file_type().is_dir() && is_notes_file(entry.path()) {
                files.push(entry.into_path());
            }
        }
    } else if is_notes_file(path) {
        files.push(path.to_path_buf());
    } else if meta.is_file() {
        let sidecar = notes_path(path);
        if sidecar.is_file() {
            files.push(sidecar);
        } else {
            tracing::info!("{}: no annotations", path.display());
        }
    } else {
        bail!("{}: not a file or directory", path.display());
    }
    Ok(())
}

fn is_notes_file(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(NOTES_SUFFIX))
}

/// The episodes of the file a notes file annotates (`x.notes.jsonl` → `x.jsonl` or `x.json`);
/// none when it is gone or does not load (the notes are exported without quotes).
fn episodes_beside(notes: &Path) -> Vec<Episode> {
    let name = notes.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let Some(stem) = name.strip_suffix(NOTES_SUFFIX) else {
        return Vec::new();
    };
    ["jsonl", "json"]
        .iter()
        .map(|ext| notes.with_file_name(format!("{stem}.{ext}")))
        .find(|p| p.is_file())
        .and_then(|p| match load_path(&p) {
            Ok(episodes) => Some(episodes),
            Err(e) => {
                tracing::warn!("{e}: annotations exported without their quotes");
                None
            }
        })
        .unwrap_or_default()
}

fn jsonl_row(file: &str, a: &Annotation, quote: Option<&str>) -> serde_json::Value {
    let mut row = json!({ "file": file });
    if let (Some(map), Ok(serde_json::Value::Object(fields))) = (row.as_object_mut(), serde_json::to_value(a))
    {
        map.extend(fields);
        map.insert("quote".into(), json!(quote));
    }
    row
}

fn csv_row(file: &str, a: &Annotation, quote: Option<&str>) -> [String; 11] {
    let opt = |n: Option<usize>| n.map(|n| n.to_string()).unwrap_or_default();
    [
        file.to_string(),
        a.episode.clone(),
        a.id.clone(),
        a.target_seq.to_string(),
        opt(a.span.map(|s| s.start)),
        opt(a.span.map(|s| s.end)),
        quote.unwrap_or_default().to_string(),
        a.label.as_str().to_string(),
        a.note.clone(),
        a.author.clone(),
        a.at.clone(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::annotate::{Draft, Label, Span};

    /// Event 4 says "Hollybrook": the span 1..3 quotes "ol".
    const JOURNAL: &str = concat!(
        r#"{"seq":0,"at":"t","kind":"episode","format":"converse-tui/1","id":"ep"}"#,
        "\n",
        r#"{"seq":1,"at":"t","kind":"message","turn":1,"from":"user","to":"assistant","text":"a"}"#,
        "\n",
        r#"{"seq":2,"at":"t","kind":"message","turn":1,"from":"assistant","to":"attacker","text":"b"}"#,
        "\n",
        r#"{"seq":3,"at":"t","kind":"message","turn":2,"from":"attacker","to":"assistant","text":"c"}"#,
        "\n",
        r#"{"seq":4,"at":"t","kind":"message","turn":2,"from":"assistant","to":"attacker","text":"Hollybrook"}"#,
        "\n",
    );

    fn draft(note: &str) -> Draft {
        Draft {
            episode: "ep".into(),
            target_seq: 4,
            span: Some(Span { start: 1, end: 3 }),
            label: Label::Leak,
            note: note.into(),
        }
    }

    /// Issue 24, defect 4: the note, author, episode id and quote were written raw.
    #[test]
    fn csv_fields_are_inert() {
        let dir = tempfile::tempdir().unwrap();
        let hostile = "\x1b]0;pwned\x07\x1b]52;c;aGk=\x07\x1b[2J\u{9b}31m\u{202E}\u{FE0F}";
        let escaped = serde_json::to_string(hostile).unwrap();
        let journal = JOURNAL.replace("Hollybrook", &escaped[1..escaped.len() - 1]);
        std::fs::write(dir.path().join("ep.jsonl"), journal).unwrap();
        let mut notes = NotesFile::open(notes_path(&dir.path().join("ep.jsonl"))).unwrap();
        let mut hostile_draft = draft(&format!("=cmd|{hostile}"));
        hostile_draft.span = Some(Span { start: 0, end: 20 });
        notes.add(hostile_draft, hostile).unwrap();
        let mut csv = Vec::new();
        export(&[dir.path().to_path_buf()], ExportFormat::Csv, &mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert!(
            !csv.chars().any(|c| c != '\n' && c != '\r' && crate::core::sanitize::is_hazardous(c)),
            "{csv:?}"
        );
        assert!(csv.contains("'=cmd|␛]0;pwned␇"), "{csv}");
    }

    #[test]
    fn export_finds_notes_and_writes_current_annotations() {
        let dir = tempfile::tempdir().unwrap();
        let episode = dir.path().join("ep-1.jsonl");
        std::fs::write(&episode, JOURNAL).unwrap();
        let mut notes = NotesFile::open(notes_path(&episode)).unwrap();
        let gone = notes.add(draft("deleted"), "ann").unwrap();
        notes.add(draft("leaked, \"verbatim\"\nsee turn 3"), "ann").unwrap();
        notes.delete(&gone, "ann").unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let mut other = NotesFile::open(dir.path().join("sub/x.notes.jsonl")).unwrap();
        other.add(draft("other"), "bob").unwrap();

        let mut csv = Vec::new();
        export(&[dir.path().to_path_buf()], ExportFormat::Csv, &mut csv).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        assert!(
            csv.starts_with("file,episode,id,target_seq,span_start,span_end,quote,label,note,author,at\r\n")
        );
        assert!(csv.contains(",4,1,3,ol,leak,\"leaked, \"\"verbatim\"\"\nsee turn 3\",ann,"), "{csv}");
        assert!(csv.contains(",4,1,3,,leak,other,bob,"), "no episode beside it: no quote");
        assert!(csv.contains(",other,bob,"));
        assert!(!csv.contains("deleted"));
        assert_eq!(csv.matches("\r\n").count(), 3);

        let mut jsonl = Vec::new();
        export(std::slice::from_ref(&episode), ExportFormat::Jsonl, &mut jsonl).unwrap();
        let rows: Vec<serde_json::Value> =
            String::from_utf8(jsonl).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0]["label"], "leak");
        assert_eq!(rows[0]["span"]["end"], 3);
        assert_eq!(rows[0]["quote"], "ol", "the quoted words, not only the offsets");
        assert!(rows[0]["file"].as_str().unwrap().ends_with("ep-1.notes.jsonl"));

        assert!(export(&[dir.path().join("missing")], ExportFormat::Csv, &mut Vec::new()).is_err());
    }
}
