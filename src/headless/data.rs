//! `converse-tui data fetch|path|verify`: the dataset cache.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use anyhow::bail;
use indicatif::{ProgressBar, ProgressStyle};

use crate::config::Paths;
use crate::core::dataset::download::{FetchEvent, FetchOptions, FetchProgress, FetchReport, fetch_domain};
use crate::core::dataset::{DatasetError, Domain, nested_dataset, verify};
use crate::core::sanitize::single_line;

/// How `data fetch` shows progress.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProgressMode {
    /// A bar when stderr is a terminal, plain lines otherwise.
    #[default]
    Auto,
    Bar,
    Lines,
    Quiet,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataFetchArgs {
    /// Where to write (cache layout); default: `CONVERSE_TUI_DATA` or the cache dir.
    pub data_dir: Option<PathBuf>,
    /// One domain (or `all`); required unless `all`.
    pub domain: Option<String>,
    pub all: bool,
    pub force: bool,
    /// Default: `CONVERSE_TUI_DATASET_URL`, else the ConVerse repository.
    pub base_url: Option<String>,
    /// Connect/read timeout; default 30 s.
    pub timeout: Option<Duration>,
    pub progress: ProgressMode,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataPathArgs {
    pub data_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataVerifyArgs {
    pub data_dir: Option<PathBuf>,
    /// One domain; `None` or `all` checks every domain.
    pub domain: Option<String>,
    pub json: bool,
}

fn root(data_dir: &Option<PathBuf>, paths: &Paths) -> PathBuf {
    data_dir.clone().unwrap_or_else(|| paths.dataset_dir.clone())
}

fn domains(domain: Option<&str>, all: bool) -> anyhow::Result<Vec<Domain>> {
    match domain.map(str::trim) {
        Some("all") => Ok(Domain::ALL.to_vec()),
        Some(d) => Ok(vec![d.parse::<Domain>()?]),
        None if all => Ok(Domain::ALL.to_vec()),
        None => bail!("say which domain to fetch: --domain <{}> or --all", Domain::valid_names()),
    }
}

/// Downloads into the cache. The future is not `Send` (it holds `out`):
/// drive it with `block_on`, not `spawn`.
pub async fn data_fetch(
    args: &DataFetchArgs,
    paths: &Paths,
    out: &mut dyn Write,
) -> anyhow::Result<FetchReport> {
    let domains = domains(args.domain.as_deref(), args.all)?;
    let root = root(&args.data_dir, paths);
    let mut opts = FetchOptions::from_env();
    if let Some(url) = &args.base_url {
        opts.base_url = url.clone();
    }
    if let Some(t) = args.timeout {
        opts.timeout = t;
    }
    opts.force = args.force;

    let mode = match args.progress {
        ProgressMode::Auto if std::io::stderr().is_terminal() => ProgressMode::Bar,
        ProgressMode::Auto => ProgressMode::Lines,
        m => m,
    };
    let mut total = FetchReport::default();
    for domain in domains {
        let report = match mode {
            ProgressMode::Bar => {
                let mut bar = BarProgress::default();
                let r = fetch_domain(&root, domain, &opts, &mut bar).await;
                bar.finish();
                r?
            }
            ProgressMode::Quiet => {
                fetch_domain(&root, domain, &opts, &mut crate::core::dataset::download::NoProgress).await?
            }
            _ => fetch_domain(&root, domain, &opts, &mut LineProgress { out: &mut *out }).await?,
        };
        total.downloaded += report.downloaded;
        total.skipped += report.skipped;
        total.bytes += report.bytes;
    }
    writeln!(
        out,
        "{} files downloaded ({} bytes), {} already present, in {}",
        total.downloaded,
        total.bytes,
        total.skipped,
        root.display()
    )?;
    Ok(total)
}

/// Prints the dataset directory (the cache unless `--data-dir`).
pub fn data_path(args: &DataPathArgs, paths: &Paths, out: &mut dyn Write) -> anyhow::Result<()> {
    writeln!(out, "{}", root(&args.data_dir, paths).display())?;
    Ok(())
}

/// Checks the files of each domain; `Ok(false)` when something is missing or broken.
pub fn data_verify(args: &DataVerifyArgs, paths: &Paths, out: &mut dyn Write) -> anyhow::Result<bool> {
    let domains = domains(args.domain.as_deref(), true)?;
    let root = root(&args.data_dir, paths);
    if let Some(found) = nested_dataset(&root) {
        return Err(DatasetError::DataOneLevelDown { dir: root, found }.into());
    }
    let checks = verify(&root, &domains);
    if args.json {
        for c in &checks {
            writeln!(out, "{}", crate::core::safe_json::to_string(c)?)?;
        }
    } else {
        writeln!(out, "dataset: {}", root.display())?;
        for c in &checks {
            let state = if c.ok() { "ok" } else { "INCOMPLETE" };
            writeln!(
                out,
                "{}: {state}, {} privacy and {} security tasks",
                c.domain, c.privacy_tasks, c.security_tasks
            )?;
            for m in &c.missing {
                writeln!(out, "  missing: {}", single_line(m))?;
            }
            for i in &c.invalid {
                writeln!(out, "  invalid: {}", single_line(i))?;
            }
        }
        if checks.iter().any(|c| !c.missing.is_empty()) {
            writeln!(
                out,
                "run `converse-tui data fetch --all` to download; `converse-tui tasks` uses the bundled sample meanwhile"
            )?;
        }
    }
    Ok(checks.iter().all(|c| c.ok()))
}

/// Plain lines, for logs and pipes.
pub struct LineProgress<'a> {
    pub out: &'a mut dyn Write,
}

impl FetchProgress for LineProgress<'_> {
    fn event(&mut self, event: &FetchEvent) {
        // Progress output is best effort: a closed pipe must not fail the download.
        let _ = match event {
            FetchEvent::DomainStarted { domain, files } => {
                writeln!(self.out, "{domain}: {files} files")
            }
            FetchEvent::Skipped { path } => {
                writeln!(self.out, "  skipped {} (exists)", path.display())
            }
            FetchEvent::FileDone { path, bytes } => {
                writeln!(self.out, "  fetched {} ({bytes} bytes)", path.display())
            }
            FetchEvent::DomainDone { domain, report } => {
                writeln!(self.out, "{domain}: {} downloaded, {} skipped", report.downloaded, report.skipped)
            }
            FetchEvent::FileStarted { .. } | FetchEvent::Bytes { .. } => Ok(()),
        };
    }
}

/// An indicatif bar on stderr, one tick per file.
#[derive(Default)]
pub struct BarProgress {
    bar: Option<ProgressBar>,
}

impl BarProgress {
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl FetchProgress for BarProgress {
    fn event(&mut self, event: &FetchEvent) {
        match event {
            FetchEvent::DomainStarted { domain, files } => {
                let bar = ProgressBar::new(*files as u64);
                if let Ok(style) = ProgressStyle::with_template("{prefix:>16} [{bar:30}] {pos}/{len} {msg}") {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar.set_prefix(domain.to_string());
                self.bar = Some(bar);
            }
            FetchEvent::FileStarted { url, .. } => {
                if let Some(bar) = &self.bar {
                    let name = url.rsplit('/').next().unwrap_or(url);
                    bar.set_message(name.to_string());
                }
            }
            FetchEvent::Skipped { .. } | FetchEvent::FileDone { .. } => {
                if let Some(bar) = &self.bar {
                    bar.inc(1);
                }
            }
            FetchEvent::DomainDone { domain, report } => {
                if let Some(bar) = &self.bar {
                    bar.println(format!(
                        "{domain}: {} downloaded, {} skipped",
                        report.downloaded, report.skipped
                    ));
                }
                self.finish();
            }
            FetchEvent::Bytes { .. } => {}
        }
    }
}
