//! `headless::export`: one file → one output, a directory → a file each or one JSONL.

use std::path::{Path, PathBuf};

use converse_tui::core::dataset::TaskLookup;
use converse_tui::core::import::load_path;
use converse_tui::headless::export::{Format, export_to};

fn demos() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/episodes")
}

#[test]
fn one_file_goes_to_stdout() {
    let mut out = Vec::new();
    export_to(
        &[demos().join("02-insurance-security-refused.jsonl")],
        Format::Markdown,
        None,
        false,
        &TaskLookup::default(),
        &mut out,
    )
    .unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(text.starts_with("# Episode demo-insurance-security-refused"));
}

#[test]
fn a_directory_needs_an_output_directory_for_documents() {
    let err = export_to(&[demos()], Format::Html, None, false, &TaskLookup::default(), &mut Vec::new())
        .unwrap_err();
    assert!(err.to_string().contains("-o"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("html");
    export_to(&[demos()], Format::Html, Some(&target), false, &TaskLookup::default(), &mut Vec::new())
        .unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "demo-insurance-security-refused.html",
            "demo-real-estate-partial.html",
            "demo-travel-privacy-leak.html"
        ]
    );
}

#[test]
fn a_directory_as_maseval_is_one_jsonl() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("reports.jsonl");
    export_to(&[demos()], Format::Maseval, Some(&file), false, &TaskLookup::default(), &mut Vec::new())
        .unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap().lines().count(), 3);
    assert_eq!(load_path(&file).unwrap().len(), 3);
    let mut out = Vec::new();
    export_to(&[demos()], Format::Json, None, false, &TaskLookup::default(), &mut out).unwrap();
    assert!(String::from_utf8(out).unwrap().lines().count() > 80);
}

#[test]
fn errors_name_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "not json").unwrap();
    let err = export_to(
        std::slice::from_ref(&bad),
        Format::Json,
        None,
        false,
        &TaskLookup::default(),
        &mut Vec::new(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("bad.jsonl"), "{err}");
    let missing = dir.path().join("nope.jsonl");
    let err = export_to(&[missing], Format::Html, None, false, &TaskLookup::default(), &mut Vec::new())
        .unwrap_err();
    assert!(err.to_string().contains("nope.jsonl"), "{err}");
    let good = demos().join("01-travel-privacy-leak.jsonl");
    let blocked = bad.join("out.md");
    let err =
        export_to(&[good], Format::Markdown, Some(&blocked), false, &TaskLookup::default(), &mut Vec::new())
            .unwrap_err();
    assert!(err.to_string().contains("out.md"), "{err}");
}

#[test]
fn redacted_exports_mask_the_persona() {
    let mut out = Vec::new();
    export_to(
        &[demos().join("01-travel-privacy-leak.jsonl")],
        Format::Html,
        None,
        true,
        &TaskLookup::default(),
        &mut out,
    )
    .unwrap();
    let html = String::from_utf8(out).unwrap();
    assert!(!html.contains("Hollybrook") && !html.contains("Whitfield"));
    assert!(html.contains("[name]"));
}

/// Issue 24: `export -o EP.verdicts.jsonl` wrote a journal into a sidecar's name, which the next
/// open of EP reads as its verdicts. Any sidecar name is refused, in every format and path.
#[test]
fn an_output_with_a_sidecars_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let episode = dir.path().join("ep.jsonl");
    std::fs::copy(demos().join("01-travel-privacy-leak.jsonl"), &episode).unwrap();
    for (format, name) in [
        (Format::Json, "ep.verdicts.jsonl"),
        (Format::Markdown, "other.notes.jsonl"),
        (Format::Json, "X.VERDICTS.JSONL"),
    ] {
        let out = dir.path().join(name);
        let err = export_to(
            std::slice::from_ref(&episode),
            format,
            Some(&out),
            false,
            &TaskLookup::default(),
            &mut Vec::new(),
        )
        .unwrap_err();
        assert!(format!("{err:#}").contains("a sidecar's name"), "{name}: {err:#}");
        assert!(!out.exists(), "{name} written");
    }
}
