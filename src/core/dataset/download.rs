//! `data fetch`: the 17 upstream files of a domain into the cache layout
//! (reference §1.1).
//!
//! Each file goes to a temporary file in its destination directory and is
//! renamed only when complete, so an interrupted or failed download never
//! leaves a partial file behind. Unlike MASEval, `force` does not delete the
//! old file first: it is replaced only once its new copy has fully arrived.

use std::error::Error as StdError;
use std::path::{Path, PathBuf};
use std::time::Duration;

use thiserror::Error;
use tokio::io::AsyncWriteExt;

use super::domain::Domain;
use super::store::{FileKind, Layout};
use crate::core::atomic_file::temp_beside;

pub const DEFAULT_BASE_URL: &str = "https://raw.githubusercontent.com/amrgomaaelhady/ConVerse/main/resources";
/// Replaces [`DEFAULT_BASE_URL`] (a mirror, or a test server).
pub const BASE_URL_ENV: &str = "CONVERSE_TUI_DATASET_URL";
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

const OFFLINE_HINT: &str =
    "(offline? `converse-tui tasks` uses the bundled sample when nothing is downloaded)";

#[derive(Debug, Error)]
pub enum DownloadError {
    #[error("failed to download {url}: HTTP {status} {OFFLINE_HINT}")]
    Status { url: String, status: u16 },
    #[error("failed to download {url}: {message} {OFFLINE_HINT}")]
    Network { url: String, message: String },
    #[error("{path}: {message}")]
    Io { path: PathBuf, message: String },
    #[error("cannot set up the HTTP client: {0}")]
    Client(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FetchOptions {
    pub base_url: String,
    /// Connect timeout, and the longest wait for any read.
    pub timeout: Duration,
    /// Download even files that already exist.
    pub force: bool,
}

impl Default for FetchOptions {
    fn default() -> Self {
        FetchOptions { base_url: DEFAULT_BASE_URL.into(), timeout: DEFAULT_TIMEOUT, force: false }
    }
}

impl FetchOptions {
    /// Defaults, with the base URL from `CONVERSE_TUI_DATASET_URL` if set.
    pub fn from_env() -> Self {
        let base_url = std::env::var(BASE_URL_ENV)
            .ok()
            .filter(|v| !v.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.into());
        FetchOptions { base_url, ..FetchOptions::default() }
    }
}

/// One file to fetch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSpec {
    pub kind: FileKind,
    pub url: String,
    pub dest: PathBuf,
}

/// The 17 files of `domain`: upstream URL → cache-layout path under `root`.
pub fn domain_files(base_url: &str, root: &Path, domain: Domain) -> Vec<FileSpec> {
    let base = base_url.trim_end_matches('/');
    FileKind::all()
        .into_iter()
        .map(|kind| FileSpec {
            kind,
            url: format!("{base}/{}/{}", domain.upstream_folder(), kind.rel_path(Layout::Upstream)),
            dest: root.join(domain.as_str()).join(kind.rel_path(Layout::Cache)),
        })
        .collect()
}

/// What happens during a fetch, for a progress bar or plain lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FetchEvent {
    DomainStarted { domain: Domain, files: usize },
    Skipped { path: PathBuf },
    FileStarted { url: String, total: Option<u64> },
    Bytes { received: u64 },
    FileDone { path: PathBuf, bytes: u64 },
    DomainDone { domain: Domain, report: FetchReport },
}

pub trait FetchProgress {
    fn event(&mut self, event: &FetchEvent);
}

/// Reports nothing.
pub struct NoProgress;

impl FetchProgress for NoProgress {
    fn event(&mut self, _: &FetchEvent) {}
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FetchReport {
    pub downloaded: usize,
    pub skipped: usize,
    pub bytes: u64,
}

pub fn client(opts: &FetchOptions) -> Result<reqwest::Client, DownloadError> {
    reqwest::Client::builder()
        .connect_timeout(opts.timeout)
        .read_timeout(opts.timeout)
        .user_agent(concat!("converse-tui/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| DownloadError::Client(chain(&e)))
}

/// Downloads the files of `domain` that are missing (all with `force`).
/// The first failure stops the domain, as in MASEval.
pub async fn fetch_domain(
    root: &Path,
    domain: Domain,
    opts: &FetchOptions,
    progress: &mut dyn FetchProgress,
) -> Result<FetchReport, DownloadError> {
    let client = client(opts)?;
    let files = domain_files(&opts.base_url, root, domain);
    progress.event(&FetchEvent::DomainStarted { domain, files: files.len() });
    let mut report = FetchReport::default();
    for spec in &files {
        if !opts.force && spec.dest.exists() {
            report.skipped += 1;
            progress.event(&FetchEvent::Skipped { path: spec.dest.clone() });
            continue;
        }
        let bytes = fetch_file(&client, spec, opts, progress).await?;
        report.downloaded += 1;
        report.bytes += bytes;
        progress.event(&FetchEvent::FileDone { path: spec.dest.clone(), bytes });
    }
    progress.event(&FetchEvent::DomainDone { domain, report });
    Ok(report)
}

async fn fetch_file(
    client: &reqwest::Client,
    spec: &FileSpec,
    opts: &FetchOptions,
    progress: &mut dyn FetchProgress,
) -> Result<u64, DownloadError> {
    let net = |e: reqwest::Error| DownloadError::Network {
        url: spec.url.clone(),
        message: if e.is_timeout() {
            format!("timed out after {} s", opts.timeout.as_secs_f32())
        } else {
            chain(&e)
        },
    };
    let mut resp = client.get(&spec.url).send().await.map_err(net)?;
    let status = resp.status();
    if !status.is_success() {
        return Err(DownloadError::Status { url: spec.url.clone(), status: status.as_u16() });
    }
    progress.event(&FetchEvent::FileStarted { url: spec.url.clone(), total: resp.content_length() });

    let dir = spec.dest.parent().unwrap_or(Path::new("."));
    let io = |path: &Path, e: std::io::Error| DownloadError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    tokio::fs::create_dir_all(dir).await.map_err(|e| io(dir, e))?;
    // Renamed over the destination only when complete; dropped (deleted) on any error.
    let tmp = temp_beside(&spec.dest).map_err(|e| io(dir, e))?;
    let mut file = tokio::fs::File::from_std(tmp.reopen().map_err(|e| io(tmp.path(), e))?);
    let mut received = 0u64;
    while let Some(chunk) = resp.chunk().await.map_err(net)? {
        file.write_all(&chunk).await.map_err(|e| io(tmp.path(), e))?;
        received += chunk.len() as u64;
        progress.event(&FetchEvent::Bytes { received });
    }
    file.flush().await.map_err(|e| io(tmp.path(), e))?;
    file.sync_all().await.map_err(|e| io(tmp.path(), e))?;
    drop(file);
    tmp.persist(&spec.dest).map_err(|e| io(&spec.dest, e.error))?;
    Ok(received)
}

/// The error and its causes: reqwest's own message alone rarely says why.
fn chain(e: &dyn StdError) -> String {
    let mut msg = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let s_msg = s.to_string();
        if !msg.contains(&s_msg) {
            msg.push_str(": ");
            msg.push_str(&s_msg);
        }
        cur = s.source();
    }
    msg
}
