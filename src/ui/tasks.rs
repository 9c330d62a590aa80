//! The task picker screen: filtered task list, the selected task's detail.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState};

use crate::app::chrome::Chrome;
use crate::app::overlay::{Overlay, PromptKind};
use crate::app::task_picker::TaskPicker;
use crate::config::Theme;
use crate::config::keymap::{Command, Footer};
use crate::core::dataset::AttackType;
use crate::core::episode::Party;
use crate::core::sanitize::single_line;

pub fn draw(frame: &mut Frame, area: Rect, picker: &TaskPicker, chrome: &Chrome, theme: &Theme) {
    let [_, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let [list, detail] = chrome.picker_columns();
    draw_list(frame, list, picker, theme);
    draw_detail(frame, detail, picker, theme);
    draw_status(frame, status, picker, chrome, theme);
}

fn draw_list(frame: &mut Frame, area: Rect, picker: &TaskPicker, theme: &Theme) {
    let chip = |label: &str, value: String| {
        vec![Span::styled(format!(" {label} "), theme.dim()), Span::styled(value, theme.title())]
    };
    let mut title = vec![Span::styled(" Tasks ", theme.title())];
    title.push(Span::styled(format!("{}/{} ", picker.shown.len(), picker.tasks.len()), theme.dim()));
    title.extend(chip("domain", picker.domain.map_or("all".into(), |d| d.to_string())));
    title.extend(chip("persona", picker.persona.map_or("all".into(), |p| p.to_string())));
    title.extend(chip("split", picker.split.label().to_string()));
    if !picker.text.is_empty() {
        title.extend(chip("text", format!("'{}'", single_line(&picker.text))));
    }
    title.push(Span::raw(" "));
    let block = Block::bordered()
        .border_style(theme.border(true))
        .title(Line::from(title))
        .title_bottom(Line::styled(format!(" {} ", single_line(&picker.source)), theme.dim()));
    let rows = picker.shown.iter().map(|&i| {
        let t = &picker.tasks[i];
        let kind_style = match t.attack_type {
            AttackType::Privacy => theme.party(Party::Attacker),
            AttackType::Security => theme.party(Party::Environment),
        };
        Row::new(vec![
            Cell::from(single_line(&t.id).into_owned()),
            Cell::from(format!("p{}", t.persona)),
            Cell::from(Span::styled(t.attack_type.as_str(), kind_style)),
            Cell::from(single_line(t.target_label()).into_owned()),
        ])
    });
    let widths = [Constraint::Fill(4), Constraint::Length(2), Constraint::Length(8), Constraint::Fill(2)];
    let table = Table::new(rows, widths)
        .header(Row::new(["task", "", "type", "data item / attack"]).style(theme.dim()))
        .block(block)
        .column_spacing(1)
        .row_highlight_style(theme.selection())
        .highlight_symbol("▶ ");
    let mut table_state = TableState::default();
    if !picker.shown.is_empty() {
        table_state.select(Some(picker.selected));
    }
    frame.render_stateful_widget(table, area, &mut table_state);
    if picker.shown.is_empty() {
        let inner = Rect { y: area.y + 2, height: 1, x: area.x + 2, width: area.width.saturating_sub(4) };
        frame.render_widget(Paragraph::new(Span::styled("no task matches the filters", theme.dim())), inner);
    }
}

fn draw_detail(frame: &mut Frame, area: Rect, picker: &TaskPicker, theme: &Theme) {
    let block =
        Block::bordered().border_style(theme.border(false)).title(Span::styled(" Task ", theme.title()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let lines: Vec<Line> = picker.detail_lines[picker.detail_scroll.min(picker.detail_lines.len())..]
        .iter()
        .take(inner.height as usize)
        .map(|r| {
            let text = &picker.detail[r.clone()];
            if text.starts_with("── ") {
                Line::styled(text, theme.title())
            } else {
                Line::styled(text, theme.text())
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), Rect { width: inner.width.saturating_sub(1), ..inner });
}

fn draw_status(frame: &mut Frame, area: Rect, picker: &TaskPicker, chrome: &Chrome, theme: &Theme) {
    let line = match (chrome.overlay(), &chrome.message) {
        // A question asked here (`X`'s strategy and budget); the filter is typed under a note.
        (Some(Overlay::Prompt(p)), _) if p.kind != PromptKind::Filter => {
            super::status::prompt_line(chrome, p, theme)
        }
        (_, Some(m)) => Line::from(format!(" {}", single_line(m))),
        (Some(Overlay::Prompt(p)), _) => {
            let keys = chrome.keymap.hints(&[(Command::Submit, "keep"), (Command::Close, "clear")]);
            Line::from(format!(" filter tasks: {}▏  {keys}", single_line(&p.input)))
        }
        // Nothing to run while no task matches the filters.
        _ => Line::from(format!(
            " {}",
            chrome.keymap.footer(Footer::Tasks, |c| c != Command::OpenDetail || !picker.shown.is_empty())
        )),
    };
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}
