//! The bundled sample dataset (`assets/dataset/`, upstream layout), embedded
//! so `converse-tui tasks` works offline and before any download.
//!
//! The sample is original fictional text written for this project (one
//! persona per domain, and the demo episodes' personas with their tasks, so a
//! demo forks offline); it copies nothing from the upstream data. It covers
//! every privacy category, both security responsibility flags, and the
//! legacy security format (insurance), and its travel persona exercises both
//! persona-parser fixes (a numbered list in an email body, a `Reply-To:` line).

#[derive(rust_embed::Embed)]
#[folder = "assets/dataset/"]
struct SampleAssets;

/// The text of an embedded file, by path in the upstream layout
/// (`travel_planning_usecase/options.txt`).
pub fn get(path: &str) -> Option<String> {
    let file = SampleAssets::get(path)?;
    String::from_utf8(file.data.into_owned()).ok()
}

/// Every embedded path, sorted.
pub fn files() -> Vec<String> {
    let mut out: Vec<String> = SampleAssets::iter().map(|p| p.into_owned()).collect();
    out.sort();
    out
}
