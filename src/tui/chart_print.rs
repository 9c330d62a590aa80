//! The `chart` command's output: the charts drawn into a buffer as wide as the terminal (100
//! columns when piped) and printed line by line, with colour only on a terminal without
//! `NO_COLOR`.

use std::io::Write;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

use crate::config::theme::Theme;
use crate::core::corpus::series::ChartSeries;
use crate::ui::chart::{all_height, draw_all};

/// The lines of every chart of `series` at `width` columns; with `theme.color`, SGR escapes
/// around the styled cells (the text itself was made inert when the series were built).
pub fn chart_lines(series: &ChartSeries, width: u16, theme: &Theme) -> Vec<String> {
    let area = Rect::new(0, 0, width, all_height(series, width));
    let mut buf = Buffer::empty(area);
    draw_all(&mut buf, area, series, theme);
    (0..area.height)
        .map(|y| {
            let mut line = String::new();
            let mut current = Style::default();
            for x in 0..area.width {
                let cell = &buf[(x, y)];
                if theme.color && cell.style() != current {
                    current = cell.style();
                    line.push_str(&sgr(current));
                }
                line.push_str(cell.symbol());
            }
            if theme.color && current != Style::default() {
                line.push_str("\x1b[0m");
            }
            line.trim_end().to_string()
        })
        .collect()
}

/// Prints the charts.
pub fn print(series: &ChartSeries, width: u16, theme: &Theme, out: &mut dyn Write) -> std::io::Result<()> {
    for line in chart_lines(series, width, theme) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// The escape sequence of `style`, reset first.
fn sgr(style: Style) -> String {
    let mut codes = vec!["0".to_string()];
    if style.add_modifier.contains(Modifier::BOLD) {
        codes.push("1".into());
    }
    if style.add_modifier.contains(Modifier::DIM) {
        codes.push("2".into());
    }
    if style.add_modifier.contains(Modifier::REVERSED) {
        codes.push("7".into());
    }
    if let Some(colour) = style.fg.and_then(ansi) {
        codes.push(colour.to_string());
    }
    format!("\x1b[{}m", codes.join(";"))
}

fn ansi(colour: Color) -> Option<u8> {
    Some(match colour {
        Color::Black => 30,
        Color::Red => 31,
        Color::Green => 32,
        Color::Yellow => 33,
        Color::Blue => 34,
        Color::Magenta => 35,
        Color::Cyan => 36,
        Color::Gray => 37,
        Color::DarkGray => 90,
        Color::LightRed => 91,
        Color::LightGreen => 92,
        Color::LightYellow => 93,
        Color::LightBlue => 94,
        Color::LightMagenta => 95,
        Color::LightCyan => 96,
        Color::White => 97,
        _ => return None,
    })
}
