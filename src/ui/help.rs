//! The help overlay, generated from the keymap so it never disagrees with it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::config::Keymap;
use crate::config::Theme;
use crate::config::keymap::{Command, Group};

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
    // Columns as wide as their widest entry, so a long description never runs into its name.
    let keys_width = Command::ALL.into_iter().map(|c| keys_label(c).width()).max().unwrap_or(0).max(14);
    let description_width = Command::ALL.into_iter().map(|c| c.description().width()).max().unwrap_or(0);
    let mut lines = Vec::new();
    for group in [Group::Step, Group::View, Group::Human, Group::Tasks, Group::General] {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::from(Span::styled(group.title(), theme.title())));
        for command in Command::ALL.into_iter().filter(|c| c.group() == group) {
            let keys = keys_label(command);
            let keys_pad = " ".repeat(keys_width - keys.width() + 2);
            let description = command.description();
            let description_pad = " ".repeat(description_width - description.width() + 2);
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys}{keys_pad}"), theme.party(crate::core::episode::Party::User)),
                Span::raw(format!("{description}{description_pad}")),
                Span::styled(command.name(), theme.dim()),
            ]));
        }
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        "Mouse wheel scrolls the pane under the pointer. Keys can be changed in keymap.toml (see README).",
        theme.dim(),
    )));
    lines
}
