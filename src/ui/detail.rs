//! The detail overlay: one event or verdict in full.

use ratatui::Frame;
use ratatui::layout::{Margin, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

use crate::app::detail::Detail;
use crate::config::Theme;
use crate::config::keymap::{Command, Keymap};
use crate::core::sanitize::single_line;

pub fn draw(frame: &mut Frame, area: Rect, detail: &Detail, keymap: &Keymap, theme: &Theme) {
    frame.render_widget(Clear, area);
    let scroll = [Command::ScrollDown, Command::ScrollUp, Command::PageUp, Command::PageDown]
        .map(|c| keymap.key_hint(c));
    let title = format!(
        " {} — {}/{} {}/{} scroll · {} closes ",
        single_line(&detail.title),
        scroll[0],
        scroll[1],
        scroll[2],
        scroll[3],
        keymap.key_hint(Command::Close)
    );
    let block = Block::bordered().border_style(theme.border(true)).title(Span::styled(title, theme.title()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let height = inner.height as usize;
    let wrapped = detail.lines();
    let lines: Vec<Line> = wrapped[detail.scroll.min(wrapped.len())..]
        .iter()
        .take(height)
        .map(|r| {
            let text = &detail.body[r.clone()];
            if text.starts_with("── ") {
                Line::styled(text, theme.title())
            } else {
                Line::styled(text, theme.text())
            }
        })
        .collect();
    let text_area = Rect { width: inner.width.saturating_sub(1), ..inner };
    frame.render_widget(Paragraph::new(lines), text_area);
    let total = detail.total_lines();
    if total > height {
        let mut state = ScrollbarState::new(total.saturating_sub(height))
            .position(detail.scroll)
            .viewport_content_length(height);
        let bar = Scrollbar::new(ScrollbarOrientation::VerticalRight).begin_symbol(None).end_symbol(None);
        frame.render_stateful_widget(bar, area.inner(Margin::new(0, 1)), &mut state);
    }
}
