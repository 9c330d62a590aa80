//! The one way tests launch the binary: isolated from the caller's setup, with a home of its own
//! (config, data, state and cache inside it) and none of the caller's model settings, so a
//! developer's environment never changes what a test sees.

use std::path::Path;
use std::process::{Command, Output};

/// The binary under test; `CONVERSE_TUI_BIN` runs the tests against another build (an older one,
/// to see a test fail where it had the defect).
pub fn path() -> String {
    std::env::var("CONVERSE_TUI_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_converse-tui").to_string())
}

/// The binary in a private home.
pub fn command(home: &Path) -> Command {
    let mut cmd = Command::new(path());
    isolate(&mut cmd, home);
    cmd
}

/// `cmd` (the binary, or whatever starts it, such as sbatch) with a private home and without the
/// caller's `OPENAI_*` and `CONVERSE_TUI_*` directories: the config in `HOME/config/converse-tui`,
/// the dataset cache in `HOME/data`, the index cache in `HOME/cache`.
pub fn isolate<'a>(cmd: &'a mut Command, home: &Path) -> &'a mut Command {
    for name in inherited_settings() {
        cmd.env_remove(name);
    }
    cmd.env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("CONVERSE_TUI_DATA", home.join("data"))
        .env("CONVERSE_TUI_CACHE", home.join("cache"))
}

/// The caller's variables that would point the binary at other models or files.
pub fn inherited_settings() -> Vec<String> {
    std::env::vars_os()
        .filter_map(|(name, _)| name.into_string().ok())
        .filter(|name| {
            name.starts_with("OPENAI_")
                || ["CONVERSE_TUI_CONFIG", "CONVERSE_TUI_DATA", "CONVERSE_TUI_CACHE"].contains(&name.as_str())
        })
        .collect()
}

/// Runs the binary in a private home and waits for it.
pub fn run_in(home: &Path, args: &[&str]) -> Output {
    command(home).args(args).output().unwrap()
}

/// The address space the hostile-input tests give the binary (what issues 24 and 36 name): a
/// reader that asks for more aborts instead of ending with one line.
pub const ADDRESS_SPACE: u64 = 3 << 30;

/// `cmd` with its address space limited to [`ADDRESS_SPACE`] (set in the child before it runs).
pub fn limit_address_space(cmd: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit { rlim_cur: ADDRESS_SPACE, rlim_max: ADDRESS_SPACE };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}
