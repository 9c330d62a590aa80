//! The episode browser screen: the episodes (or their groups) in columns fitted
//! to the content and the terminal, and the agreement review list.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState};
use unicode_width::UnicodeWidthStr;

use crate::app::browser::{
    Browser, Column, GROUP_BY, LIST_CHROME as CHROME, ListLine, Review, outcome_symbol,
};
use crate::app::chrome::Chrome;
use crate::app::overlay::{Overlay, PromptKind};
use crate::config::Theme;
use crate::config::keymap::{Command, Footer};
use crate::core::corpus::series::CHARTED;

use super::status::{prompt_line, search_prompt};
use crate::core::sanitize::single_line;
use crate::core::text::{truncate_cells as truncate, truncate_cells_left as truncate_left};

pub fn draw(frame: &mut Frame, area: Rect, browser: &Browser, chrome: &Chrome, theme: &Theme) {
    let errors_height = browser.errors.len().min(3) as u16;
    let [list, errors, status] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(errors_height), Constraint::Length(1)])
            .areas(area);
    match (&browser.review, &browser.chart) {
        (Some(review), _) => draw_review(frame, list, browser, review, theme),
        (None, Some(chart)) => match chart.shown_heatmap() {
            Some(map) => super::chart::draw_heatmap(frame.buffer_mut(), list, map, chart.cursor, theme),
            None => {
                let judge = &CHARTED[chart.judge.min(CHARTED.len() - 1)].0;
                super::chart::draw_judge_page(frame.buffer_mut(), list, &chart.series, judge, theme)
            }
        },
        (None, None) => draw_list(frame, list, browser, theme),
    }
    super::file_errors::draw_file_errors(frame, errors, &browser.errors, theme);
    draw_status(frame, status, chrome, browser, theme);
}

fn draw_list(frame: &mut Frame, area: Rect, browser: &Browser, theme: &Theme) {
    let mut title = vec![Span::styled(" Episodes ", theme.title())];
    if browser.grouped {
        // Whose rates these are comes first: a narrow screen cuts the title's end.
        let source =
            browser.source().map_or("no verdicts".to_string(), |s| single_line(&s.to_string()).into_owned());
        title.push(Span::styled("· rates from ", theme.dim()));
        title.push(Span::styled(format!("{source} "), theme.title()));
    }
    let count = format!("{} of {} ", browser.shown.len(), browser.entries.len());
    // The folder's path gets what is left, its end kept (the folders nearest the episodes).
    let used: usize = title.iter().map(|s| s.content.width()).sum::<usize>() + count.width() + 4;
    let room = usize::from(area.width).saturating_sub(used).max(12);
    let path = crate::core::text::truncate_cells_left(&single_line(&browser.title), room - 2);
    title.push(Span::styled(format!("— {path} "), theme.title()));
    title.push(Span::styled(count, theme.dim()));
    if let Some((progress, elapsed)) = browser.indexing {
        let rate = progress.files_done as f64 / elapsed.as_secs_f64().max(0.001);
        title.push(Span::styled(
            format!(
                "· indexing {} of {} files, {:.1} MB, {:.0} files/s ",
                progress.files_done,
                progress.files_total,
                progress.bytes_done as f64 / 1e6,
                rate
            ),
            theme.title(),
        ));
    }
    if let Some((column, descending)) = browser.sort {
        let arrow = if descending { "↓" } else { "↑" };
        title.push(Span::styled(format!("· sorted by {} {arrow} ", browser.header(column)), theme.dim()));
    }
    if browser.grouped {
        title.push(Span::styled("· grouped by model › defence › domain ", theme.dim()));
    }
    let block = Block::bordered().border_style(theme.border(true)).title(Line::from(title));
    let inner_width = area.width.saturating_sub(2 + 2) as usize;
    let fitted = fit(browser, inner_width);
    let height = area.height.saturating_sub(CHROME) as usize;
    let offset = browser.offset;
    let path_shown = fitted.iter().any(|(c, _)| *c == Column::Path);
    let rows = browser.lines.iter().skip(offset).take(height).map(|line| match line {
        ListLine::Row(i) => {
            let e = &browser.entries[*i];
            // Marked for comparing: first in the row, so a narrow screen still shows it.
            let mark = browser.mark_of(*i).map(|n| format!("◆{n} "));
            // A fork is drawn under its parent in the path column; without it, in the first.
            let fork_first = (e.depth > 0 && !path_shown).then(|| format!("{}└ ", "  ".repeat(e.depth - 1)));
            Row::new(fitted.iter().enumerate().map(move |(at, &(column, width))| {
                let text = e.cell(column, &browser.judges);
                if let (0, Some(mark)) = (at, &mark) {
                    let rest = width.saturating_sub(mark.width());
                    return Cell::from(Line::from(vec![
                        Span::styled(mark.clone(), theme.timeline_current()),
                        Span::raw(fit_text(column, &text, rest)),
                    ]));
                }
                if let (0, Some(fork)) = (at, &fork_first) {
                    let rest = width.saturating_sub(fork.width());
                    return Cell::from(Line::from(vec![
                        Span::styled(fork.clone(), theme.dim()),
                        Span::raw(fit_text(column, &text, rest)),
                    ]));
                }
                let style = match column {
                    Column::Judge(j) => {
                        e.judge_outcome(&browser.judges[j]).map_or(theme.dim(), |o| theme.outcome(o))
                    }
                    _ => Style::default(),
                };
                if column == Column::Path && e.depth > 0 {
                    let fork = format!("{}└ ", "  ".repeat(e.depth - 1));
                    let rest = width.saturating_sub(fork.width());
                    Cell::from(Line::from(vec![
                        Span::styled(fork, theme.dim()),
                        Span::raw(truncate_left(&text, rest)),
                    ]))
                } else {
                    Cell::from(Span::styled(fit_text(column, &text, width), style))
                }
            }))
        }
        ListLine::Group(g) => {
            let group = &browser.groups[*g];
            Row::new(fitted.iter().map(|&(column, width)| {
                let text = browser.group_cell(group, column);
                let style = match column {
                    Column::Judge(_) | Column::Path => theme.dim(),
                    _ => theme.title(),
                };
                // A group's path cell is its count and what it pools: its start matters most.
                let text = if column == Column::Path {
                    truncate(&browser.group_path(group, width), width)
                } else {
                    fit_text(column, &text, width)
                };
                Cell::from(Span::styled(text, style))
            }))
        }
    });
    let header = Row::new(fitted.iter().map(|&(column, width)| {
        let mut name = browser.header(column);
        if let Some((sorted, descending)) = browser.sort
            && sorted == column
        {
            name.push_str(if descending { " ↓" } else { " ↑" });
        }
        Cell::from(truncate(&name, width))
    }))
    .style(theme.dim());
    let widths: Vec<Constraint> = fitted.iter().map(|&(_, w)| Constraint::Length(w as u16)).collect();
    let table = Table::new(rows, widths)
        .header(header)
        .block(block)
        .column_spacing(1)
        .row_highlight_style(theme.selection())
        .highlight_symbol("▶ ");
    let mut table_state = TableState::default();
    if !browser.lines.is_empty() {
        table_state.select(Some(browser.selected - offset));
    }
    frame.render_stateful_widget(table, area, &mut table_state);
    if browser.lines.is_empty() {
        let inner = Rect { y: area.y + 2, height: 1, x: area.x + 2, width: area.width.saturating_sub(4) };
        let why = match (browser.entries.is_empty(), &browser.filter_error) {
            (true, _) => "no episodes found",
            (false, Some(_)) => "the filter is not understood: see the status line",
            (false, None) => "nothing matches the filter",
        };
        frame.render_widget(Paragraph::new(Span::styled(why, theme.dim())), inner);
    }
}

/// Columns least needed first: dropped in this order when the screen is too narrow. What an
/// episode is (its domain, category and attack) goes before the path; the path, cut to its end
/// (the run's file: `…000009_rep3.json`), is never dropped from the list: without it, runs that
/// share model, defence and attack look identical (issue 35; issue 23: an 80-column browser
/// showed neither what nor where).
const DROP_ORDER: [Column; 7] = [
    Column::Events,
    Column::Persona,
    Column::Turns,
    Column::Category,
    Column::Domain,
    Column::Attack,
    Column::Defence,
];

/// The narrowest a column gets before it is dropped.
fn min_width(column: Column, natural: usize) -> usize {
    let min = match column {
        Column::Model => 12,
        Column::Defence | Column::Domain | Column::Category => 8,
        Column::Attack => 10,
        Column::Path => 16,
        Column::Persona | Column::Turns | Column::Events | Column::Judge(_) => natural,
    };
    min.min(natural)
}

/// The columns shown and their widths in `width` cells: each as wide as its
/// widest cell; when they do not fit, the widest text columns shrink (to their
/// minimum), then the least needed are dropped, then the path shrinks. Spare
/// cells widen the path, the attack, the defence and the model, in that order.
pub fn fit(browser: &Browser, width: usize) -> Vec<(Column, usize)> {
    let mut columns: Vec<(Column, usize)> =
        browser.columns.iter().copied().zip(browser.widths.iter().copied()).filter(|&(_, w)| w > 0).collect();
    let total =
        |cols: &[(Column, usize)]| cols.iter().map(|(_, w)| w).sum::<usize>() + cols.len().saturating_sub(1);
    let naturals: Vec<(Column, usize)> = columns.clone();
    let natural_of = |c: Column| naturals.iter().find(|(x, _)| *x == c).map_or(0, |(_, w)| *w);
    // Shrink one cell at a time: the path down to a comfortable width (a quarter of the screen,
    // at most 40), then the widest other column to its minimum; then drop the least needed
    // columns; only then the path down to its minimum (its end tells runs apart).
    let comfortable = (width / 4).min(40);
    let path_min = min_width(Column::Path, natural_of(Column::Path));
    let shrink = |columns: &mut Vec<(Column, usize)>, path_floor: Option<usize>| {
        while total(columns) > width {
            let path = columns.iter().position(|(c, _)| *c == Column::Path);
            let path_above =
                |floor: usize| path.filter(|&i| columns[i].1 > floor.min(natural_of(Column::Path)));
            let other = columns
                .iter()
                .enumerate()
                .filter(|(_, (c, w))| *c != Column::Path && *w > min_width(*c, natural_of(*c)))
                .max_by_key(|(_, (_, w))| *w)
                .map(|(i, _)| i);
            let pick = match path_floor {
                None => path_above(comfortable).or(other),
                Some(floor) => path_above(floor),
            };
            match pick {
                Some(i) => columns[i].1 -= 1,
                None => break,
            }
        }
    };
    shrink(&mut columns, None);
    // The grouped view's names are in the model, defence and domain columns: they stay, and the
    // path (a group's count) goes before them.
    let grouped_order: Vec<Column> =
        DROP_ORDER.iter().copied().filter(|c| !GROUP_BY.contains(c)).chain([Column::Path]).collect();
    let order = if browser.grouped { grouped_order.as_slice() } else { DROP_ORDER.as_slice() };
    for &drop in order {
        if total(&columns) <= width {
            break;
        }
        // Before what an episode is goes, the path gives up what it can.
        if drop == Column::Category {
            shrink(&mut columns, Some(path_min));
            if total(&columns) <= width {
                break;
            }
        }
        columns.retain(|(c, _)| *c != drop);
    }
    shrink(&mut columns, Some(path_min));
    // What is left widens the path (up to its content), then the attack, defence and model.
    for grow in [Column::Path, Column::Attack, Column::Defence, Column::Model] {
        let spare_now = width.saturating_sub(total(&columns));
        if spare_now == 0 {
            break;
        }
        if let Some((c, w)) = columns.iter_mut().find(|(c, _)| *c == grow) {
            let more = natural_of(*c).saturating_sub(*w).min(spare_now);
            *w += more;
        }
    }
    columns
}

fn fit_text(column: Column, text: &str, width: usize) -> String {
    match column {
        // The end of a path (the run's folder and file) is what tells rows apart.
        Column::Path => truncate_left(text, width),
        Column::Turns | Column::Events => format!("{text:>width$}"),
        _ => truncate(text, width),
    }
}

fn draw_review(frame: &mut Frame, area: Rect, browser: &Browser, review: &Review, theme: &Theme) {
    let mut title = vec![
        Span::styled(" Agreement review — verdict sources that disagree ", theme.title()),
        Span::styled(
            format!("{} on {} shown episodes ", review.items.len(), browser.shown.len()),
            theme.dim(),
        ),
    ];
    if !review.filter.is_empty() {
        title.push(Span::styled(format!("· filter '{}' ", single_line(&review.filter)), theme.dim()));
    }
    let title = Line::from(title);
    let block = Block::bordered().border_style(theme.border(true)).title(title);
    let height = area.height.saturating_sub(CHROME) as usize;
    let offset = review.offset;
    let inner = area.width.saturating_sub(4) as usize;
    // Who said what: the outcome's symbol and the source (the judge model for a judge file).
    let side = |v: &crate::core::corpus::SourceVerdict| {
        let who = match (&v.model, v.method) {
            (Some(m), crate::core::episode::VerdictMethod::Imported) => m.clone(),
            (Some(m), method) => format!("{} {m}", method.as_str()),
            (None, method) => method.as_str().to_string(),
        };
        format!("{} {} {}", outcome_symbol(v.outcome), v.outcome.as_str(), single_line(&who))
    };
    let visible: Vec<_> = review.items.iter().skip(offset).take(height).collect();
    let side_width =
        |pick: fn(&crate::core::corpus::agreement::Disagreement) -> &crate::core::corpus::SourceVerdict| {
            review.items.iter().map(|d| side(pick(d)).width()).max().unwrap_or(1).max(1)
        };
    let (a_width, b_width) = (side_width(|d| &d.a), side_width(|d| &d.b));
    let fixed = 8 + 1 + a_width + 1 + b_width + 1 + 4 + 1;
    let model_width = if inner >= fixed + 18 + 1 + 30 { 18 } else { 0 };
    let path_width = inner.saturating_sub(fixed + model_width + usize::from(model_width > 0));
    let rows = visible.into_iter().map(|d| {
        let entry = &browser.entries[d.row];
        let turn = d.turn().map_or("-".to_string(), |t| t.to_string());
        let mut cells = vec![
            Cell::from(single_line(d.judge.as_str()).into_owned()),
            Cell::from(Span::styled(side(&d.a), theme.outcome(d.a.outcome))),
            Cell::from(Span::styled(side(&d.b), theme.outcome(d.b.outcome))),
            Cell::from(format!("{turn:>4}")),
        ];
        if model_width > 0 {
            cells.push(Cell::from(truncate(&entry.cell(Column::Model, &browser.judges), model_width)));
        }
        cells.push(Cell::from(truncate_left(&entry.path, path_width)));
        Row::new(cells)
    });
    let mut widths = vec![
        Constraint::Length(8),
        Constraint::Length(a_width as u16),
        Constraint::Length(b_width as u16),
        Constraint::Length(4),
    ];
    let mut header = vec!["judge", "a", "b", "turn"];
    if model_width > 0 {
        widths.push(Constraint::Length(model_width as u16));
        header.push("model");
    }
    widths.push(Constraint::Length(path_width as u16));
    header.push("path");
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(theme.dim()))
        .block(block)
        .column_spacing(1)
        .row_highlight_style(theme.selection())
        .highlight_symbol("▶ ");
    let mut table_state = TableState::default();
    if !review.items.is_empty() {
        table_state.select(Some(review.selected - offset));
    }
    frame.render_stateful_widget(table, area, &mut table_state);
    if review.items.is_empty() {
        let inner = Rect { y: area.y + 2, height: 1, x: area.x + 2, width: area.width.saturating_sub(4) };
        let why = "no two verdict sources disagree on the shown episodes";
        frame.render_widget(Paragraph::new(Span::styled(why, theme.dim())), inner);
    }
}

fn draw_status(frame: &mut Frame, area: Rect, chrome: &Chrome, browser: &Browser, theme: &Theme) {
    let keymap = &chrome.keymap;
    let line = match (chrome.overlay(), &chrome.message) {
        (Some(Overlay::Prompt(p)), _) if p.kind == PromptKind::Filter => {
            let problem = browser.filter_error.as_deref().map(|e| format!("  ⚠ {}", single_line(e)));
            Line::from(format!(
                " filter: {}▏  {}",
                single_line(&p.input),
                problem.unwrap_or_else(|| {
                    let keys = chrome.keymap.hints(&[(Command::Submit, "keep"), (Command::Close, "clear")]);
                    format!("field=glob, turns>5, privacy=fail, words · {keys}")
                })
            ))
        }
        (Some(Overlay::Prompt(p)), _) if p.kind == PromptKind::SearchEpisodes => search_prompt(chrome, p),
        (Some(Overlay::Prompt(p)), _) => prompt_line(chrome, p, theme),
        // Loading an indexed episode, or why it could not be opened.
        (_, Some(message)) => Line::from(format!(" {}", single_line(message))),
        _ if browser.review.is_some() => Line::from(format!(" {}", keymap.footer(Footer::Review, |_| true))),
        _ => {
            let filter = match (&browser.filter_error, browser.filter.is_empty()) {
                // The filter kept is not the one typed: say why, as the command line does.
                (Some(problem), _) => {
                    format!("⚠ filter '{}': {} · ", single_line(&browser.filter), single_line(problem))
                }
                (None, true) => String::new(),
                (None, false) => format!("filter '{}' · ", single_line(&browser.filter)),
            };
            let marked = match browser.marked.len() {
                0 => String::new(),
                n => format!("◆ {n} marked ({} compares two) · ", keymap.keys_label(Command::CompareMarked)),
            };
            // The rates' source and the charts belong to the grouped view; a chart hides the rows.
            let offered = |c| {
                (browser.grouped || !matches!(c, Command::NextSource | Command::ChartView))
                    && !browser.chart_hides(c)
            };
            Line::from(format!(" {marked}{filter}{}", keymap.footer(Footer::Browser, offered)))
        }
    };
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}
