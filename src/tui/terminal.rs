//! Terminal setup and restore. The terminal is given back on every way out:
//! normal return, error (the guard's `Drop`), panic (the hook), and the ways
//! out that run no Rust code: an abort (a failed allocation, a panic while
//! panicking, a stack overflow) and SIGQUIT, whose signal handlers write the
//! restoring bytes and put the saved terminal mode back before the default
//! action ends the process.

use std::io::{IsTerminal, Stdout, Write, stdout};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Restores the terminal when dropped.
pub struct TerminalGuard {
    pub terminal: Term,
}

/// Fails with a message that says what to do when there is no terminal to draw on
/// (a pipe, a cron job, a CI runner). Call it before creating anything, e.g. a journal.
pub fn ensure_terminal() -> std::io::Result<()> {
    if stdout().is_terminal() { Ok(()) } else { Err(no_terminal()) }
}

fn no_terminal() -> std::io::Error {
    std::io::Error::other(
        "the TUI needs a terminal (stdout is not one); use `run --headless`, `dump` or `export` without one",
    )
}

impl TerminalGuard {
    pub fn new() -> std::io::Result<Self> {
        ensure_terminal()?;
        install_panic_hook();
        save_mode_for_signals();
        install_fatal_signal_handlers();
        // Without a controlling terminal crossterm's /dev/tty fails with ENXIO.
        enable_raw_mode()
            .map_err(|e| if e.raw_os_error() == Some(libc::ENXIO) { no_terminal() } else { e })?;
        ACTIVE.store(true, Ordering::SeqCst);
        let mut out = stdout();
        if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture, EnableBracketedPaste) {
            restore();
            return Err(e);
        }
        let terminal = match Terminal::new(CrosstermBackend::new(out)) {
            Ok(t) => t,
            Err(e) => {
                restore();
                return Err(e);
            }
        };
        Ok(TerminalGuard { terminal })
    }
}

impl TerminalGuard {
    /// Gives the terminal to another program (a pager, an editor): the main screen, raw mode
    /// off. [`TerminalGuard::resume`] takes it back.
    pub fn suspend(&mut self) {
        restore();
    }

    /// Takes the terminal back after [`TerminalGuard::suspend`]; the next frame redraws all of it.
    pub fn resume(&mut self) -> std::io::Result<()> {
        enable_raw_mode()?;
        ACTIVE.store(true, Ordering::SeqCst);
        execute!(
            stdout(),
            EnterAlternateScreen,
            EnableMouseCapture,
            EnableBracketedPaste,
            ratatui::crossterm::terminal::Clear(ratatui::crossterm::terminal::ClearType::All)
        )?;
        // `Terminal::clear` would ask the terminal where its cursor is (and wait for the answer
        // on the keys' stream): a blank frame instead makes ratatui's idea of the screen blank,
        // so the next frame draws every cell.
        self.terminal.draw(|_| {}).map(|_| ())
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back; safe to call more than once.
pub fn restore() {
    ACTIVE.store(false, Ordering::SeqCst);
    let _ = disable_raw_mode();
    let mut out = stdout();
    let _ = execute!(
        out,
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
    let _ = out.flush();
}

fn install_panic_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            // Leave the alternate screen first so the message is readable.
            restore();
            previous(info);
        }));
    });
}

/// The bytes [`restore`] sends (bracketed paste, every mouse mode, alternate screen off, cursor on),
/// for signal handlers, which may neither allocate nor lock.
const RESTORE_BYTES: &[u8] =
    b"\x1b[?2004l\x1b[?1006l\x1b[?1015l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1049l\x1b[?25h";

/// The terminal's mode before raw mode, for the signal handlers.
static SAVED_MODE: OnceLock<(libc::c_int, libc::termios)> = OnceLock::new();

/// True while the screen is ours: the handlers stay installed after the TUI ends.
static ACTIVE: AtomicBool = AtomicBool::new(false);

fn save_mode_for_signals() {
    // crossterm puts stdin in raw mode when it is a terminal, else /dev/tty (reopened there).
    let fd = libc::STDIN_FILENO;
    // SAFETY: isatty/tcgetattr only read the descriptor's state into our zeroed struct.
    unsafe {
        if libc::isatty(fd) == 1 {
            let mut mode: libc::termios = std::mem::zeroed();
            if libc::tcgetattr(fd, &mut mode) == 0 {
                let _ = SAVED_MODE.set((fd, mode));
            }
        }
    }
}

/// SIGABRT (every abort) and SIGQUIT: restore, say so, then the default action.
fn install_fatal_signal_handlers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for signal in [libc::SIGABRT, libc::SIGQUIT] {
            // SAFETY: the handler only calls async-signal-safe functions (write, tcsetattr,
            // sigaction/raise in emulate_default_handler) and reads a set-once static.
            let _ = unsafe {
                signal_hook::low_level::register(signal, move || {
                    restore_from_signal_handler();
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                })
            };
        }
    });
}

fn restore_from_signal_handler() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    const NOTE: &[u8] = b"\nconverse-tui: terminated by a signal; terminal restored\n";
    // SAFETY: write and tcsetattr are async-signal-safe; the buffers are static.
    unsafe {
        libc::write(libc::STDOUT_FILENO, RESTORE_BYTES.as_ptr().cast(), RESTORE_BYTES.len());
        if let Some((fd, mode)) = SAVED_MODE.get() {
            libc::tcsetattr(*fd, libc::TCSANOW, mode);
        }
        libc::write(libc::STDERR_FILENO, NOTE.as_ptr().cast(), NOTE.len());
    }
}
