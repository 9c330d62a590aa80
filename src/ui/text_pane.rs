//! Attacker, Assistant and Tools panes: item headers, wrapped bodies, evidence highlights.

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

use crate::app::inspector_screen::InspectorScreen;
use crate::app::layout::{PaneId, TextArea};
use crate::app::live::Streaming;
use crate::app::notes::Notes;
use crate::app::pane::Pane;
use crate::config::Theme;
use crate::core::episode::{Event, EventBody, Outcome, Party};
use crate::core::llm::Role;
use crate::core::sanitize::single_line;

/// Draws pane `id` of the episode on screen, with the reply streaming into it (live) and annotation markers.
pub fn draw(frame: &mut Frame, area: Rect, id: PaneId, screen: &InspectorScreen, theme: &Theme) {
    let Some(inspector) = &screen.inspector else { return };
    let view = &inspector.view;
    let streaming = screen.live.as_ref().and_then(|l| l.streaming.as_ref());
    let (notes, focused) = (&inspector.notes, inspector.focus == id);
    let Some(pane) = view.pane(id) else { return };
    let user_side = id == PaneId::Attacker && speaks_for_user(view.events());
    let name = if user_side { "User" } else { id.title() };
    let title = Line::from(vec![
        Span::styled(format!(" {name} "), title_style(id, theme)),
        Span::styled(format!("{} ", pane.visible), theme.dim()),
    ]);
    let block = Block::bordered().border_style(theme.border(focused)).title(title);
    frame.render_widget(block, area);
    let (text, stream_area) = screen.layout.text(TextArea::Pane(id));
    if let (Some(stream), Some(stream_area)) = (streaming, stream_area) {
        draw_stream(frame, stream_area, stream, view.mask().is_some(), theme);
    }
    if pane.visible == 0 {
        let said = if user_side { "nothing from the user yet" } else { empty_text(id) };
        let empty = Paragraph::new(Span::styled(said, theme.dim()));
        frame.render_widget(empty, text);
        return;
    }
    let lines = visible_lines(pane, view.events(), view.cursor, notes, text.height as usize, focused, theme);
    frame.render_widget(Paragraph::new(lines), text);
    if pane.total_lines() > pane.viewport {
        let mut state = ScrollbarState::new(pane.total_lines().saturating_sub(pane.viewport))
            .position(pane.top())
            .viewport_content_length(pane.viewport);
        let bar = Scrollbar::new(ScrollbarOrientation::VerticalRight).begin_symbol(None).end_symbol(None);
        frame.render_stateful_widget(bar, area.inner(ratatui::layout::Margin::new(0, 1)), &mut state);
    }
}

/// A reply as it streams in: its last lines under a "writing" header. While redaction is on, a
/// private value may be cut between deltas where no masker can see it whole: the text is held
/// back until the message is complete, and only its length shows.
pub(super) fn draw_stream(frame: &mut Frame, area: Rect, stream: &Streaming, masked: bool, theme: &Theme) {
    let party = match stream.role {
        Role::Attacker => Party::Attacker,
        _ => Party::Assistant,
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} ", party.as_str()), theme.party(party)),
        Span::styled("is writing…", theme.dim()),
    ])];
    if masked {
        let held = format!("  {} characters, held back (masked)", stream.chars);
        lines.push(Line::from(held));
        frame.render_widget(Paragraph::new(lines).style(theme.dim()), area);
        return;
    }
    let shown = (area.height as usize).saturating_sub(1);
    let skip = stream.lines.len().saturating_sub(shown);
    lines.extend(stream.lines[skip..].iter().map(|r| Line::from(format!("  {}", &stream.text[r.clone()]))));
    frame.render_widget(Paragraph::new(lines).style(theme.dim()), area);
}

fn title_style(id: PaneId, theme: &Theme) -> Style {
    match id {
        PaneId::Attacker => theme.party(Party::Attacker),
        PaneId::Assistant => theme.party(Party::Assistant),
        PaneId::Tools => theme.party(Party::Environment),
        PaneId::Verdicts => theme.title(),
    }
}

/// Whether the left pane holds a user's messages, not an attacker's: an episode with no attacker — no
/// attacker model in its header, no message from one — is a plain agent conversation (an Inspect eval).
fn speaks_for_user(events: &[Event]) -> bool {
    let attacker_model = events.first().is_some_and(|e| match &e.body {
        EventBody::Episode(h) => h.config.models.contains_key("attacker"),
        _ => false,
    });
    !attacker_model
        && !events.iter().any(|e| matches!(&e.body, EventBody::Message(m) if m.from == Party::Attacker))
}

fn empty_text(id: PaneId) -> &'static str {
    match id {
        PaneId::Attacker => "nothing from the attacker yet",
        PaneId::Assistant => "nothing from the assistant yet",
        _ => "no tool calls yet",
    }
}

/// The screen lines from the pane's top line, `height` of them at most.
fn visible_lines<'a>(
    pane: &'a Pane,
    events: &'a [Event],
    cursor: usize,
    notes: &Notes,
    height: usize,
    focused: bool,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let mut out = Vec::with_capacity(height);
    let Some((mut item, mut line)) = pane.top_row() else {
        return out;
    };
    let selected = pane.selected_item();
    while out.len() < height && item < pane.visible {
        let it = &pane.items[item];
        let is_selected = focused && selected == Some(item);
        if line == 0 {
            let mut line = header(&events[it.event()], is_selected, it.event() == cursor, theme);
            if let Some(labels) = notes.marks.get(&events[it.event()].seq) {
                let labels: Vec<&str> = labels.iter().map(|l| l.as_str()).collect();
                // First on the line, so a narrow pane still shows it.
                let at = usize::from(it.event() == cursor);
                line.spans
                    .insert(at, Span::styled(format!("✎ {} ", labels.join(", ")), theme.party(Party::User)));
            }
            out.push(line);
        } else if let Some(range) = it.line(line - 1) {
            out.push(body_line(it.text(events), range, it.highlights(), it.matches(), theme));
        } else {
            out.push(Line::default());
        }
        line += 1;
        if line >= it.height(pane.width()) {
            item += 1;
            line = 0;
        }
    }
    out
}

/// One line of a body, evidence and search matches marked (where they overlap, the first to start wins).
pub(super) fn body_line<'a>(
    body: &'a str,
    range: Range<usize>,
    highlights: &[Range<usize>],
    matches: &[Range<usize>],
    theme: &Theme,
) -> Line<'a> {
    let mut spans = vec![Span::raw("  ")];
    let mut at = range.start;
    let mut marks: Vec<(&Range<usize>, Style)> = highlights
        .iter()
        .map(|h| (h, theme.evidence()))
        .chain(matches.iter().map(|m| (m, theme.selection())))
        .filter(|(h, _)| h.start < range.end && h.end > range.start)
        .collect();
    marks.sort_by_key(|(h, _)| h.start);
    for (h, style) in marks {
        let (s, e) = (h.start.max(at), h.end.min(range.end));
        if s >= e || !body.is_char_boundary(s) || !body.is_char_boundary(e) {
            continue;
        }
        if s > at {
            spans.push(Span::styled(&body[at..s], theme.text()));
        }
        spans.push(Span::styled(&body[s..e], style));
        at = e;
    }
    if at < range.end {
        spans.push(Span::styled(&body[at..range.end], theme.text()));
    }
    Line::from(spans)
}

/// `T3 #12 attacker → assistant · 10:02:41 · gpt-4o`; `▶` marks the event at the cursor.
pub(super) fn header(event: &Event, selected: bool, at_cursor: bool, theme: &Theme) -> Line<'static> {
    let turn = event.body.turn().map(|t| format!("T{t} ")).unwrap_or_default();
    let mut spans = Vec::new();
    if at_cursor {
        spans.push(Span::styled("▶ ", theme.timeline_current()));
    }
    spans.push(Span::styled(format!("{turn}#{} ", event.seq), theme.dim()));
    match &event.body {
        EventBody::Message(m) => {
            spans.push(Span::styled(m.from.as_str().to_string(), theme.party(m.from)));
            if m.is_note() {
                spans.push(Span::styled(" · note", theme.dim()));
            } else {
                spans.push(Span::styled(" → ", theme.dim()));
                spans.push(Span::styled(m.to.as_str().to_string(), theme.party(m.to)));
            }
            if let Some(by) = &m.by {
                spans.push(Span::styled(format!(" by {}", single_line(by)), theme.dim()));
            }
            let model = m.model.as_deref().map(|m| format!(" · {}", single_line(m))).unwrap_or_default();
            spans.push(Span::styled(format!(" · {}{model}", clock(&event.at)), theme.dim()));
        }
        EventBody::ToolCall(c) => {
            spans.push(Span::styled(format!("▸ {}", single_line(&c.tool)), theme.party(Party::Environment)));
            spans.push(Span::styled(format!(" {}", single_line(&c.call_id)), theme.dim()));
            if c.raw_args.is_some() {
                spans.push(Span::styled(" bad arguments", theme.outcome(Outcome::Error)));
            }
        }
        EventBody::ToolResult(r) => {
            spans.push(Span::styled(format!("◂ {}", single_line(&r.tool)), theme.party(Party::Environment)));
            let (mark, outcome) =
                if r.ok { (" ✓ ok", Outcome::Pass) } else { (" ✗ failed", Outcome::Fail) };
            spans.push(Span::styled(mark, theme.outcome(outcome)));
        }
        EventBody::Error(e) => {
            spans.push(Span::styled(
                format!("⚠ error from {}", single_line(&e.source)),
                theme.outcome(Outcome::Error),
            ));
        }
        EventBody::Control(c) => {
            let by = c.by.as_deref().map(|b| format!(" by {}", single_line(b))).unwrap_or_default();
            spans.push(Span::styled(format!("⏯ control{by}"), theme.title()));
        }
        EventBody::End(_) => spans.push(Span::styled("■ end of episode", theme.title())),
        EventBody::Episode(_) | EventBody::Verdict(_) => {}
    }
    let line = Line::from(spans);
    if selected { line.style(theme.selection()) } else { line }
}

/// `HH:MM:SS` of an RFC 3339 timestamp, or the text as is.
pub fn clock(at: &str) -> String {
    match at.get(11..19) {
        Some(t) if at.as_bytes().get(10).is_some_and(|b| *b == b'T' || *b == b' ') => t.to_string(),
        _ => single_line(at).into_owned(),
    }
}
