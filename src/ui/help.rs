//! The help overlay, generated from the keymap so it never disagrees with it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::config::Keymap;
use crate::config::Theme;
use crate::config::keymap::{Command, Group};
use strum::IntoEnumIterator;

pub fn draw(frame: &mut Frame, area: Rect, keymap: &Keymap, scroll: usize, theme: &Theme) {
    frame.render_widget(Clear, area);
    let block = Block::bordered()
        .border_style(theme.border(true))
        .title(Span::styled(" Help — keys (Esc closes) ", theme.title()));
    let lines = help_lines(keymap, theme);
    let scroll = scroll.min(lines.len().saturating_sub(1)) as u16;
    frame.render_widget(Paragraph::new(lines).block(block).scroll((scroll, 0)), area);
}

fn help_lines(keymap: &Keymap, theme: &Theme) -> Vec<Line<'static>> {
    let keys_label = |command| {
        let keys = keymap.keys_label(command);
        if keys.is_empty() { "(unbound)".to_string() } else { keys }
    };
    // Columns as wide as their widest entry (a long key list, e.g. the composer's new line,
    // only pushes its own row).
    let keys_width =
        Command::all().map(|c| keys_label(c).width()).filter(|w| *w <= 16).max().unwrap_or(0).max(14);
    // The command's name (what keymap.toml binds) before its description, which a narrow
    // screen cuts: a name cut is no use.
    let name_width = Command::all().map(|c| c.name().width()).max().unwrap_or(0);
    let mut lines = Vec::new();
    for group in Group::iter() {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::from(Span::styled(group.title(), theme.title())));
        for command in Command::all().filter(|c| c.group() == group) {
            let keys = keys_label(command);
            let keys_pad = " ".repeat(keys_width.saturating_sub(keys.width()) + 2);
            let name = command.name();
            let name_pad = " ".repeat(name_width - name.width() + 2);
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys}{keys_pad}"), theme.party(crate::core::episode::Party::User)),
                Span::styled(format!("{name}{name_pad}"), theme.dim()),
                Span::raw(command.description()),
            ]));
        }
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        "Mouse wheel scrolls the pane under the pointer. Keys can be changed in keymap.toml (see docs/configuration.md).",
        theme.dim(),
    )));
    lines
}
