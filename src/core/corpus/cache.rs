//! The index cache: the rows of every episode file of a corpus, kept in one
//! file of the cache directory per set of paths opened, so that a second `ls`,
//! `summary`, `agreement` or browser over the same corpus reads no episode.
//!
//! A file's rows are reused while its stamp is unchanged: a hash of its name,
//! size and modification time and of the names, sizes and modification times
//! of everything in its folder (judge files, run logs, verdict and notes
//! sidecars all sit beside the episode, so a new label or judge file
//! re-indexes the episodes of that folder). The cache is written atomically;
//! one that cannot be read, is corrupt or comes from another version is
//! ignored and rebuilt, never an error.
//!
//! The cache file is named after the identity of the opened folders (device and inode, where the
//! platform has them, else the canonical path) and its entries after their place under them, so
//! every spelling of a path shares it and a corpus whose folder was renamed or moved on the same
//! disk is not read again.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use super::row::CorpusRow;

/// Bumped whenever [`CorpusRow`] or the way rows are read changes meaning.
const FORMAT: u32 = 13; // 13: notes carried in an exported log count as human verdicts; 12: rows say whether the agent never reached its tools; 11: an Inspect sample ends (error, limit), its tokens from model_usage; 10: a journal with no `end` is `unfinished`; 9: an Inspect sample listed from its summary has no event count (not its message count); 8: keyed on the opened folders' identity and the file's place under them; 7: a leak whose judge names no turn gets the turn its snippets were first said; 6: Inspect .eval logs are indexed (issue 29); 5: events counted after the header; 4: a benchmark run's category is the dataset's sub-category; 3: rows carry the end reason, whether a person played, tokens; 2: the imported appropriateness score is 0–1

/// One episode file's rows, as cached.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// The file's place: [`key`] of the opened path it was found under and the rest of its path
    /// (the rows hold the path as typed, and are given the path as typed now when reused).
    pub path: PathBuf,
    pub stamp: u64,
    pub rows: Vec<CorpusRow>,
    pub warnings: Vec<String>,
}

#[derive(Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    version: String,
    entries: Vec<Entry>,
}

/// The cache file for a set of opened paths, under `cache_dir`: one per set of folders, so
/// `logs`, `/abs/logs` and `logs//` share it, and so does `logs` renamed (issue 23).
pub fn cache_file(cache_dir: &Path, paths: &[PathBuf]) -> PathBuf {
    let mut hash = Fnv::default();
    for path in paths {
        match identity(path) {
            Some((device, inode)) => {
                hash.write(b"id:");
                hash.write(&device.to_le_bytes());
                hash.write(&inode.to_le_bytes());
            }
            None => {
                hash.write(b"path:");
                hash.write(canonical(path).as_os_str().as_encoded_bytes());
            }
        }
        hash.write(&[0]);
    }
    cache_dir.join("corpus").join(format!("index-{:016x}.json", hash.0))
}

/// The key of a file found under the `root`-th opened path, `rest` being its path under it.
pub fn key(root: usize, rest: &Path) -> PathBuf {
    Path::new(&root.to_string()).join(rest)
}

/// The device and inode of `path`: the same whatever it is called, until it is deleted.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// `path` with symbolic links, `.` and `..` resolved; as given when it cannot be.
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The cached entries by path; empty when there is no usable cache.
pub fn read(file: &Path) -> HashMap<PathBuf, Entry> {
    let Ok(bytes) = std::fs::read(file) else {
        return HashMap::new();
    };
    match serde_json::from_slice::<CacheFile>(&bytes) {
        Ok(cache) if cache.format == FORMAT && cache.version == env!("CARGO_PKG_VERSION") => {
            cache.entries.into_iter().map(|e| (e.path.clone(), e)).collect()
        }
        Ok(_) => HashMap::new(),
        Err(e) => {
            tracing::info!("index cache {} ignored: {e}", file.display());
            HashMap::new()
        }
    }
}

/// Writes the entries atomically; a failure only costs the next run its speed.
pub fn write(file: &Path, entries: Vec<Entry>) {
    let cache = CacheFile { format: FORMAT, version: env!("CARGO_PKG_VERSION").to_string(), entries };
    let written = serde_json::to_vec(&cache).map_err(std::io::Error::other).and_then(|bytes| {
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir)?;
        }
        crate::core::atomic_file::write_atomic(file, &bytes)
    });
    if let Err(e) = written {
        tracing::info!("index cache {} not written: {e}", file.display());
    }
}

/// What a folder holds: each name's size and modification time, and a hash of them all.
#[derive(Debug, Default)]
pub struct FolderStamp {
    files: HashMap<OsString, (u64, u64)>,
    hash: u64,
}

impl FolderStamp {
    /// Reads the folder; an unreadable one stamps as empty (its files then miss the cache).
    pub fn of(dir: &Path) -> Self {
        let dir = if dir.as_os_str().is_empty() { Path::new(".") } else { dir };
        let Ok(entries) = std::fs::read_dir(dir) else {
            return FolderStamp::default();
        };
        let mut listed: Vec<(OsString, (u64, u64))> = entries
            .flatten()
            .filter_map(|e| {
                let meta = e.metadata().ok()?;
                let mtime = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
                let nanos =
                    mtime.as_secs().wrapping_mul(1_000_000_000).wrapping_add(u64::from(mtime.subsec_nanos()));
                Some((e.file_name(), (meta.len(), nanos)))
            })
            .collect();
        listed.sort();
        let mut hash = Fnv::default();
        for (name, (size, mtime)) in &listed {
            hash.write(name.as_encoded_bytes());
            hash.write(&[0]);
            hash.write(&size.to_le_bytes());
            hash.write(&mtime.to_le_bytes());
        }
        FolderStamp { hash: hash.0, files: listed.into_iter().collect() }
    }

    /// The stamp of `file` in this folder; `None` when it is not listed (the cache is not used).
    pub fn stamp(&self, file: &Path) -> Option<u64> {
        let name = file.file_name()?;
        let (size, mtime) = self.files.get(name)?;
        let mut hash = Fnv::default();
        hash.write(name.as_encoded_bytes());
        hash.write(&[0]);
        hash.write(&size.to_le_bytes());
        hash.write(&mtime.to_le_bytes());
        hash.write(&self.hash.to_le_bytes());
        Some(hash.0)
    }
}

/// FNV-1a, 64 bits: stable across builds and platforms (unlike `DefaultHasher`).
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_neighbour_changes_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let episode = dir.path().join("output_1.json");
        std::fs::write(&episode, "[]").unwrap();
        let before = FolderStamp::of(dir.path()).stamp(&episode).unwrap();
        assert_eq!(FolderStamp::of(dir.path()).stamp(&episode), Some(before), "stable");
        std::fs::write(dir.path().join("output_1.notes.jsonl"), "{}").unwrap();
        assert_ne!(FolderStamp::of(dir.path()).stamp(&episode), Some(before));
        assert_eq!(FolderStamp::of(dir.path()).stamp(&dir.path().join("gone.json")), None);
    }

    /// Issue 23: `logs`, `/abs/logs` and `logs/.` index the same files: one cache file.
    #[test]
    fn every_spelling_of_the_opened_paths_shares_one_file() {
        let dir = tempfile::tempdir().unwrap();
        let absolute = dir.path().to_path_buf();
        let dotted = absolute.join(".");
        let a = cache_file(Path::new("/c"), std::slice::from_ref(&absolute));
        assert_eq!(a, cache_file(Path::new("/c"), std::slice::from_ref(&absolute)), "stable");
        assert_eq!(a, cache_file(Path::new("/c"), &[dotted]), "the canonical path is the key");
        assert_ne!(a, cache_file(Path::new("/c"), &[absolute.join("other")]));
        assert!(a.starts_with("/c/corpus"));
    }

    #[test]
    fn a_corrupt_or_foreign_cache_reads_as_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.json");
        std::fs::write(&file, "{not json").unwrap();
        assert!(read(&file).is_empty());
        std::fs::write(&file, r#"{"format":0,"version":"x","entries":[]}"#).unwrap();
        assert!(read(&file).is_empty());
        assert!(read(&dir.path().join("missing.json")).is_empty());
        write(&file, vec![Entry { path: "a".into(), stamp: 7, rows: vec![], warnings: vec![] }]);
        assert_eq!(read(&file).get(Path::new("a")).map(|e| e.stamp), Some(7));
    }
}
