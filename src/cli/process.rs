//! What every command's process shares: the guarded output channels, logging to a file, the keys
//! to mask.

use crate::config::Paths;
use crate::config::settings::ConfigFile;
use crate::core::llm::Role;
use crate::core::sanitize::SafeWriter;

/// stdout of a command, through the channel guard: every line inert, every known key masked.
pub fn stdout() -> SafeWriter<std::io::StdoutLock<'static>> {
    SafeWriter::new(std::io::stdout().lock())
}

/// stderr, through the same guard.
pub fn stderr() -> SafeWriter<std::io::Stderr> {
    SafeWriter::new(std::io::stderr())
}

pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Logs go to a file, never to the terminal the TUI draws on.
/// The keys named by the config file (and the default variable) are masked in every output,
/// whether or not this command calls a model: a journal or an error may hold one.
pub fn remember_configured_keys(paths: &Paths) {
    use crate::core::llm::key_mask;
    key_mask::remember_env([crate::config::settings::DEFAULT_KEY_ENV]);
    if let Ok(file) = ConfigFile::load(&paths.config_file()) {
        for role in [Role::Attacker, Role::Assistant, Role::Judge] {
            key_mask::remember_env(file.roles[role].api_key_env.as_deref());
        }
    }
}

pub fn init_logging(paths: &Paths) -> Option<tracing_appender::non_blocking::WorkerGuard> {
    std::fs::create_dir_all(&paths.log_dir).ok()?;
    let appender = tracing_appender::rolling::never(&paths.log_dir, "converse-tui.log");
    let (writer, guard) = tracing_appender::non_blocking(appender);
    let filter = tracing_subscriber::EnvFilter::try_from_env("CONVERSE_TUI_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Log lines carry server error bodies and model text: made inert like the screen.
    let writer = move || crate::core::sanitize::InertWriter(writer.clone());
    tracing_subscriber::fmt().with_writer(writer).with_ansi(false).with_env_filter(filter).try_init().ok()?;
    Some(guard)
}
