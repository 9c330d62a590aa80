//! Charts of a corpus's series (`core::corpus::series`), drawn with characters so that they read
//! without colour (`NO_COLOR`) and at 80×24: rates as bars with their 95 % interval as a whisker,
//! highest first; Kaplan–Meier curves of turns to the first leak as one symbol per group. Used
//! by the browser's grouped view (`c`) and the `chart` command. Only reads the series.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Widget};
use unicode_width::UnicodeWidthStr;

use crate::config::theme::Theme;
use crate::core::corpus::series::{ChartSeries, RateChart, SurvivalChart};
use crate::core::episode::Judge;
use crate::core::sanitize::single_line;
use crate::core::text::wrap_words;

/// One symbol per curve, told apart without colour.
const SYMBOLS: [&str; 10] = ["●", "■", "▲", "◆", "✚", "✖", "○", "□", "△", "◇"];
const COLOURS: [Color; 6] =
    [Color::Cyan, Color::Yellow, Color::Magenta, Color::Green, Color::Blue, Color::Red];

/// The symbol of curve `i` (letters after the ten shapes).
pub fn symbol(i: usize) -> String {
    match SYMBOLS.get(i) {
        Some(s) => s.to_string(),
        None => char::from(b'a' + ((i - SYMBOLS.len()) % 26) as u8).to_string(),
    }
}

fn series_style(theme: &Theme, i: usize) -> Style {
    if theme.color { Style::new().fg(COLOURS[i % COLOURS.len()]) } else { Style::new() }
}

fn bar_style(theme: &Theme) -> Style {
    if theme.color { Style::new().fg(Color::Red) } else { Style::new() }
}

/// The lines a rate chart needs: one per group, the axis, the borders.
pub fn rates_height(chart: &RateChart) -> u16 {
    (chart.bars.len() as u16).max(1) + 3
}

/// The lines a survival chart `width` cells wide would like: a plot of 12 lines, the legend (each
/// group's entry wrapped between words), the axis and the borders.
pub fn survival_height(chart: &SurvivalChart, width: u16) -> u16 {
    let legend: usize = legend_entries(chart, width.saturating_sub(2)).iter().map(Vec::len).sum();
    if has_curve(chart) { 12 + legend as u16 + 3 } else { 6 }
}

/// Each group's legend in lines of the inner width (its symbol first): wrapped between words,
/// never cut mid-word; continuation lines indented.
fn legend_entries(chart: &SurvivalChart, inner: u16) -> Vec<Vec<String>> {
    // The symbol and a space before the text; a continuation line is indented one more.
    let text_width = usize::from(inner).saturating_sub(3).max(8);
    chart
        .lines
        .iter()
        .map(|line| {
            let mut lines = wrap_words(&line.legend(), text_width);
            for more in lines.iter_mut().skip(1) {
                *more = format!(" {more}");
            }
            lines
        })
        .collect()
}

/// False when no event of the chart has a known turn (only then is there nothing to draw).
fn has_curve(chart: &SurvivalChart) -> bool {
    let known: usize = chart.lines.iter().map(|l| l.curve.events).sum();
    let unknown: usize = chart.lines.iter().map(|l| l.unknown_turn).sum();
    known > 0 || unknown == 0
}

/// The chart's frame, titled with the first of `titles` (longest first) that fits `area`; the
/// last one cut after a whole word if none does (a legend cut mid-word says nothing).
fn block<'a>(titles: &[String], area: Rect, theme: &Theme) -> Block<'a> {
    let room = usize::from(area.width).saturating_sub(4);
    let title = match titles.iter().find(|t| t.width() <= room) {
        Some(title) => title.clone(),
        None => cut_at_word(titles.last().map_or("", String::as_str), room),
    };
    Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border(false))
        .title(Span::styled(format!(" {title} "), theme.title()))
}

/// `text` in `width` columns, cut after its last whole word that fits, with `…`.
fn cut_at_word(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if text[..i].width() + 1 > width {
            break;
        }
        if c == ' ' {
            end = i;
        }
    }
    format!("{}…", text[..end].trim_end_matches([' ', '·', ',', ';']))
}

/// Cuts `text` to `width` columns, with `…` when cut, padded to `width`.
fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return format!("{text:<width$}", width = width);
    }
    let mut out = String::new();
    for c in text.chars() {
        if out.width() + 1 >= width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    format!("{out:<width$}", width = width)
}

/// Rates of one judge and source: `label  k/n  rate  ████├▓▓●───┤`, highest first, the axis
/// under the track.
pub fn draw_rates(buf: &mut Buffer, area: Rect, chart: &RateChart, theme: &Theme) {
    let (judge, source) = (&chart.judge, &chart.source);
    let titles = [
        format!("{judge} · {source} · rate with 95% CI (Wilson), highest first; █ rate, ├─┤ interval"),
        format!("{judge} · {source} · rate, 95% Wilson CI; █ rate ├─┤ CI"),
        format!("{judge} · {source} · rate, 95% CI"),
    ];
    let outer = block(&titles, area, theme);
    let inner = outer.inner(area);
    outer.render(area, buf);
    if inner.width < 20 || inner.height == 0 {
        return;
    }
    let width = usize::from(inner.width);
    let widest = chart.bars.iter().map(|b| b.label.width()).max().unwrap_or(0);
    let label_width = widest.clamp(4, width / 3);
    let count_width = chart.bars.iter().map(|b| format!("{}/{}", b.succeeded, b.n).len()).max().unwrap_or(3);
    let fixed = label_width + 1 + count_width + 1 + 7 + 1;
    let track = width.saturating_sub(fixed).max(10);
    let mut lines: Vec<Line> = Vec::new();
    let room = usize::from(inner.height).saturating_sub(1);
    for bar in chart.bars.iter().take(room) {
        let mut spans = vec![
            Span::styled(fit(&bar.label, label_width), theme.text()),
            Span::raw(" "),
            Span::styled(format!("{:>count_width$}", format!("{}/{}", bar.succeeded, bar.n)), theme.dim()),
            Span::raw(" "),
            Span::styled(format!("{:>6.1}%", 100.0 * bar.rate), theme.text().add_modifier(Modifier::BOLD)),
            Span::raw(" "),
        ];
        spans.extend(track_spans(track, bar.rate, bar.ci95, theme));
        lines.push(Line::from(spans));
    }
    if chart.bars.len() > room {
        lines.pop();
        lines.push(Line::styled(
            format!("… {} more groups: a taller terminal shows them", chart.bars.len() - room + 1),
            theme.dim(),
        ));
    }
    if chart.bars.is_empty() {
        lines.push(Line::styled("no verdict of this source judged", theme.dim()));
    }
    lines.push(Line::from(vec![
        Span::raw(" ".repeat(fixed)),
        Span::styled(
            axis(track, &[(0.0, "0%"), (0.25, "25%"), (0.5, "50%"), (0.75, "75%"), (1.0, "100%")]),
            theme.dim(),
        ),
    ]));
    Paragraph::new(lines).render(inner, buf);
}

/// The cell of `value` (0–1) on a track of `width` cells.
fn cell(value: f64, width: usize) -> usize {
    ((value.clamp(0.0, 1.0) * (width - 1) as f64).round()) as usize
}

/// `████├▓▓▓●────┤`: solid to the interval's low end, shaded to the rate, the whisker to its high
/// end.
pub fn track_spans(width: usize, rate: f64, (lo, hi): (f64, f64), theme: &Theme) -> Vec<Span<'static>> {
    let (lo, at, hi) = (cell(lo, width), cell(rate, width), cell(hi, width));
    let mut bar = String::new();
    let mut whisker = String::new();
    for i in 0..width {
        let c = if i == at {
            '●'
        } else if i == lo {
            '├'
        } else if i == hi {
            '┤'
        } else if i < lo {
            '█'
        } else if i < at {
            '▓'
        } else if i < hi {
            '─'
        } else {
            ' '
        };
        if i <= at { bar.push(c) } else { whisker.push(c) }
    }
    vec![Span::styled(bar, bar_style(theme)), Span::styled(whisker, theme.text())]
}

/// An axis line of `width` cells with `labels` at their positions (0–1), each kept inside.
fn axis(width: usize, labels: &[(f64, &str)]) -> String {
    let mut cells = vec![' '; width];
    for (at, text) in labels {
        let start = cell(*at, width).saturating_sub(text.len() / 2).min(width.saturating_sub(text.len()));
        for (i, c) in text.chars().enumerate() {
            if let Some(slot) = cells.get_mut(start + i) {
                *slot = c;
            }
        }
    }
    cells.into_iter().collect()
}

/// Kaplan–Meier curves of one judge and source: the share of episodes not yet leaked after each
/// turn, one symbol per group, the 50 % line dotted; the legend gives n, events and the median
/// turn with its interval.
pub fn draw_survival(buf: &mut Buffer, area: Rect, chart: &SurvivalChart, theme: &Theme) {
    let (judge, source, event) = (&chart.judge, &chart.source, &chart.event);
    let titles = [
        format!(
            "{judge} · {source} · share without a {event} by turn (Kaplan–Meier; never: censored at the last turn; k/n events)"
        ),
        format!("{judge} · {source} · share without a {event} by turn (Kaplan–Meier)"),
        format!("{judge} · {source} · Kaplan–Meier"),
    ];
    let outer = block(&titles, area, theme);
    let inner = outer.inner(area);
    outer.render(area, buf);
    if !has_curve(chart) {
        let unknown: usize = chart.lines.iter().map(|l| l.unknown_turn).sum();
        let text = format!(
            "no curve: the turn of none of this source's {unknown} {} is known (the judge names \
             none, nor was a snippet it quotes found); a rule judge, our LLM judge or a reviewer's \
             label names it",
            if unknown == 1 { "success" } else { "successes" }
        );
        Paragraph::new(Line::styled(text, theme.dim()))
            .wrap(ratatui::widgets::Wrap { trim: true })
            .render(inner, buf);
        return;
    }
    if inner.width < 24 || inner.height < 4 {
        return;
    }
    // The legend takes what the plot (at least 5 lines and its axis) leaves: whole entries, as
    // many as fit.
    let entries = legend_entries(chart, inner.width);
    let wanted: usize = entries.iter().map(Vec::len).sum();
    let legend_rows = wanted.min(usize::from(inner.height).saturating_sub(6)).max(1);
    let plot_height = usize::from(inner.height) - legend_rows - 1;
    let y_label = 5;
    let plot_width = usize::from(inner.width) - y_label;
    let last_turn =
        chart.lines.iter().flat_map(|l| l.curve.steps.iter().map(|s| s.turn)).max().unwrap_or(1).max(1);
    // The grid: each cell a symbol and the curve it belongs to.
    let mut grid: Vec<Vec<(String, Option<usize>)>> =
        vec![vec![(" ".to_string(), None); plot_width]; plot_height];
    let row_of = |share: f64| ((1.0 - share.clamp(0.0, 1.0)) * (plot_height - 1) as f64).round() as usize;
    let half = row_of(0.5);
    for cell in grid[half].iter_mut() {
        *cell = ("┈".to_string(), None);
    }
    for (i, line) in chart.lines.iter().enumerate().filter(|(_, l)| l.curve.observations > 0) {
        let mut previous_row = None;
        // A curve ends at its last observation.
        let end = line.curve.steps.last().map_or(0, |s| s.turn);
        for x in 0..plot_width {
            // Turn 0 at the left edge, the last turn at the right.
            let turn = x as f64 / (plot_width - 1).max(1) as f64 * f64::from(last_turn);
            if turn > f64::from(end) + 1e-9 {
                break;
            }
            let share = line
                .curve
                .steps
                .iter()
                .take_while(|s| f64::from(s.turn) <= turn)
                .last()
                .map_or(1.0, |s| s.survival);
            let row = row_of(share);
            // A drop is drawn down the column where it happens.
            let top = previous_row.map_or(row, |p: usize| p.min(row));
            for cells in &mut grid[top..=row] {
                cells[x] = (symbol(i), Some(i));
            }
            previous_row = Some(row);
        }
    }
    let mut lines: Vec<Line> = Vec::new();
    for (r, row) in grid.into_iter().enumerate() {
        let share = 1.0 - r as f64 / (plot_height - 1).max(1) as f64;
        let label = if r == half {
            "  50%".to_string()
        } else if r == 0 || r == plot_height - 1 {
            format!("{:>4.0}%", 100.0 * share)
        } else {
            " ".repeat(y_label)
        };
        let mut spans = vec![Span::styled(label, theme.dim())];
        spans.extend(row.into_iter().map(|(c, curve)| match curve {
            Some(i) => Span::styled(c, series_style(theme, i)),
            None => Span::styled(c, theme.dim()),
        }));
        lines.push(Line::from(spans));
    }
    let ticks: Vec<(f64, String)> = turn_ticks(last_turn)
        .into_iter()
        .map(|t| (f64::from(t) / f64::from(last_turn), t.to_string()))
        .collect();
    let tick_refs: Vec<(f64, &str)> = ticks.iter().map(|(at, t)| (*at, t.as_str())).collect();
    lines.push(Line::from(vec![
        Span::styled(format!("{:>width$}", "turn", width = y_label - 1), theme.dim()),
        Span::raw(" "),
        Span::styled(axis(plot_width, &tick_refs), theme.dim()),
    ]));
    // The entries that fit, one line kept for "… k more" when not all do.
    let room = if wanted > legend_rows { legend_rows - 1 } else { legend_rows };
    let mut used = 0;
    let mut shown = 0;
    for (i, entry) in entries.iter().enumerate() {
        if used + entry.len() > room {
            break;
        }
        for (k, text) in entry.iter().enumerate() {
            let mark = if k == 0 { symbol(i) } else { " ".to_string() };
            lines.push(Line::from(vec![
                Span::styled(mark, series_style(theme, i).add_modifier(Modifier::BOLD)),
                Span::styled(format!(" {text}"), theme.text()),
            ]));
        }
        used += entry.len();
        shown += 1;
    }
    if shown < chart.lines.len() {
        lines.push(Line::styled(format!("… {} more groups", chart.lines.len() - shown), theme.dim()));
    }
    if chart.lines.is_empty() {
        lines.push(Line::styled("no verdict of this source judged", theme.dim()));
    }
    Paragraph::new(lines).render(inner, buf);
}

/// Up to six whole turns from 0 to `last`, evenly spread.
fn turn_ticks(last: u32) -> Vec<u32> {
    let step = last.div_ceil(5).max(1);
    let mut ticks: Vec<u32> = (0..=last).step_by(step as usize).collect();
    if ticks.last() != Some(&last) {
        ticks.push(last);
    }
    ticks
}

/// One judge's page: its rates above, its curves below (the browser's chart view).
pub fn draw_judge_page(buf: &mut Buffer, area: Rect, series: &ChartSeries, judge: &Judge, theme: &Theme) {
    let rates = series.rates.iter().find(|r| r.judge == *judge);
    let survival = series.survival.iter().find(|r| r.judge == *judge);
    let (Some(rates), Some(survival)) = (rates, survival) else {
        let text = format!("no {judge} verdict of {} to chart", single_line(&series.source));
        Paragraph::new(Line::styled(text, theme.dim()))
            .block(block(&["chart".to_string()], area, theme))
            .render(area, buf);
        return;
    };
    let wanted = rates_height(rates);
    let top = wanted.min(area.height.saturating_sub(8).max(area.height / 2));
    draw_rates(buf, Rect { height: top, ..area }, rates, theme);
    let rest = Rect { y: area.y + top, height: area.height - top, ..area };
    draw_survival(buf, rest, survival, theme);
}

/// Every chart of `series` stacked, each at the height it wants (the `chart` command); the
/// height used.
pub fn draw_all(buf: &mut Buffer, area: Rect, series: &ChartSeries, theme: &Theme) -> u16 {
    let mut y = area.y;
    let bottom = area.y + area.height;
    for rates in &series.rates {
        let height = rates_height(rates).min(bottom - y);
        draw_rates(buf, Rect { y, height, ..area }, rates, theme);
        y += height;
    }
    for survival in &series.survival {
        let height = survival_height(survival, area.width).min(bottom - y);
        draw_survival(buf, Rect { y, height, ..area }, survival, theme);
        y += height;
    }
    y - area.y
}

/// The height [`draw_all`] wants, `width` cells wide.
pub fn all_height(series: &ChartSeries, width: u16) -> u16 {
    series.rates.iter().map(rates_height).sum::<u16>()
        + series.survival.iter().map(|s| survival_height(s, width)).sum::<u16>()
}

/// The shade of a rate, so that a cell reads without colour: `·` none of n, then `░ ▒ ▓ █` by
/// quarter.
pub fn shade(k: usize, n: usize) -> char {
    let rate = k as f64 / n.max(1) as f64;
    match rate {
        r if k == 0 || r <= 0.0 => '·',
        r if r <= 0.25 => '░',
        r if r <= 0.5 => '▒',
        r if r <= 0.75 => '▓',
        _ => '█',
    }
}

fn heat_style(theme: &Theme, k: usize, n: usize) -> Style {
    if !theme.color {
        return Style::new();
    }
    let rate = k as f64 / n.max(1) as f64;
    // Green (none leaked) through yellow to red (all leaked).
    let red = (255.0 * (2.0 * rate).min(1.0)) as u8;
    let green = (200.0 * (2.0 * (1.0 - rate)).min(1.0)) as u8;
    Style::new().fg(Color::Rgb(red, green, 40))
}

/// Attacks × groups, each cell `▓▓ 3/4` (shade by rate, then the count); the groups numbered in
/// the header and named under the grid; `cursor` (row, column) reversed.
pub fn draw_heatmap(
    buf: &mut Buffer,
    area: Rect,
    map: &crate::core::corpus::series::Heatmap,
    cursor: (usize, usize),
    theme: &Theme,
) {
    let (judge, source) = (&map.judge, &map.source);
    let titles = [
        format!(
            "{judge} · {source} · rate per attack × group (· none, ░ ≤25%, ▒ ≤50%, ▓ ≤75%, █ >75%); arrows move, Enter lists the cell's episodes"
        ),
        format!("{judge} · {source} · rate per attack × group (· none, ░ ≤25%, ▒ ≤50%, ▓ ≤75%, █ >75%)"),
        format!("{judge} · {source} · rate per attack × group (·0 ░≤25 ▒≤50 ▓≤75 █>75%)"),
        format!("{judge} · {source} · rate per attack × group"),
    ];
    let outer = block(&titles, area, theme);
    let inner = outer.inner(area);
    outer.render(area, buf);
    if inner.width < 20 || inner.height < 3 || map.rows.is_empty() {
        Paragraph::new(Line::styled("nothing judged", theme.dim())).render(inner, buf);
        return;
    }
    let width = usize::from(inner.width);
    let widest = map.rows.iter().map(|r| r.width()).max().unwrap_or(4);
    let label_width = widest.clamp(6, width / 3);
    let cell_width = map
        .cells
        .iter()
        .flatten()
        .flatten()
        .map(|(k, n)| format!("{k}/{n}").len() + 3)
        .max()
        .unwrap_or(5)
        .max(format!("{}", map.columns.len()).len() + 1);
    let fits = ((width - label_width - 1) / (cell_width + 1)).max(1);
    // The legend of the columns takes up to a third of the height.
    let legend = map.columns.len().min(usize::from(inner.height) / 3);
    let grid_rows = usize::from(inner.height).saturating_sub(1 + legend).max(1);
    let (row, column) = cursor;
    let top = row.saturating_sub(grid_rows - 1);
    let left = column.saturating_sub(fits - 1);
    let mut lines = Vec::new();
    let mut header = vec![Span::raw(" ".repeat(label_width + 1))];
    for c in (left..map.columns.len()).take(fits) {
        header.push(Span::styled(format!("{:^cell_width$} ", c + 1), theme.dim()));
    }
    lines.push(Line::from(header));
    for r in (top..map.rows.len()).take(grid_rows) {
        // Attacks and tasks differ at their end: cut from the left.
        let label = crate::core::text::truncate_cells_left(&map.rows[r], label_width);
        let mut spans = vec![Span::styled(format!("{label:<label_width$}"), theme.text()), Span::raw(" ")];
        for c in (left..map.columns.len()).take(fits) {
            let (text, style) = match map.cells[r][c] {
                Some((k, n)) => {
                    let s = shade(k, n);
                    (
                        format!("{s}{s} {:<w$}", format!("{k}/{n}"), w = cell_width - 3),
                        heat_style(theme, k, n),
                    )
                }
                None => (format!("{:cell_width$}", ""), Style::new()),
            };
            let style = if (r, c) == (row, column) { style.add_modifier(Modifier::REVERSED) } else { style };
            spans.push(Span::styled(text, style));
            spans.push(Span::raw(" "));
        }
        lines.push(Line::from(spans));
    }
    // The legend follows the selected column.
    let first = column.saturating_sub(legend.saturating_sub(1));
    for (c, label) in map.columns.iter().enumerate().skip(first).take(legend) {
        let marker = if c == column { "▶" } else { " " };
        lines.push(Line::styled(format!("{marker}{:>3} {label}", c + 1), theme.dim()));
    }
    Paragraph::new(lines).render(inner, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_too_long_is_cut_after_a_whole_word() {
        let text = "privacy · rule · share without a leak by turn (Kaplan–Meier)";
        assert_eq!(cut_at_word(text, 80), text);
        assert_eq!(cut_at_word(text, 40), "privacy · rule · share without a leak…");
        assert_eq!(cut_at_word(text, 23), "privacy · rule · share…");
        assert_eq!(cut_at_word(text, 22), "privacy · rule…");
    }
}
