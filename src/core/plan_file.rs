//! A plan kept in a folder beside its journals (a fan's `fan.json`, a search's `attack.json`):
//! written atomically, so a reader never sees half of it, and read back with one line naming the
//! file when it is not what it should be.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::core::episode::journal::describe_json_error;

/// `<base>/<stem>`, or with `-2`, `-3`… when an earlier folder is there (a fan's, a search's).
pub fn free_dir(base: &Path, stem: &str) -> PathBuf {
    let first = base.join(stem);
    if !first.exists() {
        return first;
    }
    (2..).map(|n| base.join(format!("{stem}-{n}"))).find(|p| !p.exists()).expect("a free name")
}

/// Writes `value` to `path` (`what`: "fan plan", for the error).
pub fn write<T: Serialize>(path: &Path, value: &T, what: &str) -> anyhow::Result<()> {
    let json = crate::core::safe_json::to_string(value)?;
    crate::core::atomic_file::write_atomic(path, json.as_bytes())
        .with_context(|| format!("{}: cannot write the {what}", path.display()))
}

/// The value in `path`, `None` when there is no such file.
pub fn read<T: DeserializeOwned>(path: &Path, what: &str) -> anyhow::Result<Option<T>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => anyhow::bail!("{}: cannot read: {e}", path.display()),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| anyhow::anyhow!("{}: not a {what}: {}", path.display(), describe_json_error(&e)))
}
