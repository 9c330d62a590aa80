//! The annotate form and the annotations panel.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::app::notes::{AnnotateForm, Field, Notes};
use crate::app::wrap::wrap;
use crate::config::Theme;
use crate::config::keymap::{Command, Keymap};
use crate::core::annotate::Label;
use crate::core::episode::{Outcome, Party};
use crate::core::sanitize::single_line;

pub fn draw_form(frame: &mut Frame, area: Rect, form: &AnnotateForm, keymap: &Keymap, theme: &Theme) {
    frame.render_widget(Clear, area);
    let keys = keymap.hints(&[
        (Command::NextField, "switches field"),
        (Command::Submit, "saves"),
        (Command::Close, "cancels"),
    ]);
    let title = format!(" Annotate event #{} — {keys} ", form.target_seq);
    let block = Block::bordered().border_style(theme.border(true)).title(Span::styled(title, theme.title()));
    let cursor = |active: bool| if active { "▏" } else { "" };
    let field = |name: &str, value: &str, which: Field| {
        let active = form.field == which;
        Line::from(vec![
            Span::styled(format!("{name:<7}"), if active { theme.title() } else { theme.dim() }),
            Span::raw(format!("{}{}", single_line(value), cursor(active))),
        ])
    };
    let mut lines = vec![
        field("label:", &form.label, Field::Label),
        field("note:", &form.note, Field::Note),
        field("quote:", &form.quote, Field::Quote),
        Line::styled(
            "        (optional: words of the event's text; the annotation then covers just them)",
            theme.dim(),
        ),
    ];
    if let Some(error) = &form.error {
        // Wrapped, not cut: "unknown label" lists every label there is.
        let error = single_line(error);
        for range in wrap(&error, area.width.saturating_sub(4) as usize) {
            lines.push(Line::styled(format!("  {}", &error[range]), theme.outcome(Outcome::Error)));
        }
    }
    lines.push(Line::default());
    let candidates = form.candidates();
    for label in Label::all() {
        let style =
            if candidates.contains(&label) && !form.label.is_empty() { theme.title() } else { theme.dim() };
        lines.push(Line::from(vec![
            Span::styled(format!("  {:<24}", label.as_str()), style),
            Span::styled(label.description(), theme.dim()),
        ]));
    }
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// The annotations panel; `confirm_delete` while asking whether to delete the selected one.
pub fn draw_panel(
    frame: &mut Frame,
    area: Rect,
    notes: &Notes,
    selected: usize,
    confirm_delete: bool,
    keymap: &Keymap,
    theme: &Theme,
) {
    frame.render_widget(Clear, area);
    let k = |c| keymap.key_hint(c);
    let title = match notes.list.get(selected) {
        Some(a) if confirm_delete => format!(
            " Delete the {} annotation on #{}? {} = delete · any other key keeps it ",
            a.label.as_str(),
            a.target_seq,
            k(Command::Confirm)
        ),
        _ => format!(
            " Annotations {} — ↑/↓ select · {} jumps · {} deletes · {} closes ",
            notes.list.len(),
            k(Command::OpenDetail),
            k(Command::DeleteNote),
            k(Command::Close)
        ),
    };
    let block = Block::bordered().border_style(theme.border(true)).title(Span::styled(title, theme.title()));
    let lines: Vec<Line> = notes
        .list
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let line = Line::from(vec![
                Span::styled(format!(" #{:<5}", a.target_seq), theme.dim()),
                Span::styled(format!("{:<24}", a.label.as_str()), theme.party(Party::User)),
                Span::raw(single_line(&a.note).into_owned()),
                Span::styled(
                    format!("  — {} {}", single_line(&a.author), a.at.get(..16).unwrap_or(&a.at)),
                    theme.dim(),
                ),
            ]);
            if i == selected { line.style(theme.selection()) } else { line }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
