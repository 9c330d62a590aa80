//! The files a list could not read, shown under it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use crate::config::Theme;
use crate::core::episode::Outcome;
use crate::core::sanitize::single_line;

/// Files that could not be read, one warning line each, as many as `area` holds.
pub(super) fn draw_file_errors(frame: &mut Frame, area: Rect, errors: &[String], theme: &Theme) {
    let lines: Vec<Line> = errors
        .iter()
        .take(area.height as usize)
        .map(|e| Line::styled(format!(" ⚠ {}", single_line(e)), theme.outcome(Outcome::Error)))
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}
