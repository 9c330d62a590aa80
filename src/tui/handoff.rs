//! Handing text to the outside: the clipboard through OSC 52 (works over SSH and in tmux with
//! `set-clipboard on`), and `$PAGER` / `$EDITOR` with the TUI suspended.

use std::io::Write;
use std::process::Command;

use base64::Engine;

use super::terminal::TerminalGuard;

/// The OSC 52 sequence that puts `text` on the system clipboard (`c`), base64 in, BEL ended.
pub fn osc52(text: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
    format!("\x1b]52;c;{encoded}\x07")
}

/// Writes the OSC 52 sequence to the terminal.
pub fn copy(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(osc52(text).as_bytes())?;
    out.flush()
}

/// The program and its arguments from `$PAGER` (default `less`) or `$EDITOR` (then `$VISUAL`,
/// default `vi`), split as a shell would split words.
pub fn program(editor: bool) -> Vec<String> {
    let (vars, default): (&[&str], &str) =
        if editor { (&["EDITOR", "VISUAL"], "vi") } else { (&["PAGER"], "less") };
    let chosen = vars.iter().filter_map(|v| std::env::var(v).ok()).find(|v| !v.trim().is_empty());
    chosen
        .and_then(|line| shlex::split(&line))
        .filter(|words| !words.is_empty())
        .unwrap_or_else(|| vec![default.to_string()])
}

/// Writes `text` to a temporary file, suspends the TUI (main screen, raw mode off), runs the pager
/// or the editor on it, and takes the screen back (the next frame redraws all of it). Returns a
/// line for the status bar when something went wrong.
pub fn hand_off(guard: &mut TerminalGuard, text: &str, editor: bool) -> Option<String> {
    let mut file = match tempfile::Builder::new().prefix("converse-tui-").suffix(".txt").tempfile() {
        Ok(file) => file,
        Err(e) => return Some(format!("cannot write a temporary file: {e}")),
    };
    if let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush()) {
        return Some(format!("cannot write a temporary file: {e}"));
    }
    let words = program(editor);
    guard.suspend();
    let status = Command::new(&words[0]).args(&words[1..]).arg(file.path()).status();
    let resumed = guard.resume();
    let name = crate::core::sanitize::single_line(&words[0]).into_owned();
    match (status, resumed) {
        (_, Err(e)) => Some(format!("cannot take the terminal back: {e}")),
        (Err(e), _) => Some(format!("cannot run {name}: {e}")),
        (Ok(s), _) if !s.success() => Some(format!("{name} exited with {s}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_is_base64_between_the_markers() {
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
        let text = "Holter: é\nline two";
        let seq = osc52(text);
        let body = seq.strip_prefix("\x1b]52;c;").and_then(|s| s.strip_suffix('\x07')).unwrap();
        let decoded = base64::engine::general_purpose::STANDARD.decode(body).unwrap();
        assert_eq!(String::from_utf8(decoded).unwrap(), text);
        // Nothing of the text reaches the terminal as it is: base64 is inert.
        assert!(body.bytes().all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)));
    }
}
