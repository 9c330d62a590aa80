//! The transcript layout: one chronological column, party-coloured, tools folded to a line,
//! verdicts and annotations as markers; a reply streams in at the bottom while live.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

use crate::app::chrome::Chrome;
use crate::app::inspector::Inspector;
use crate::app::inspector_screen::InspectorScreen;
use crate::app::layout::TextArea;
use crate::app::transcript::{EntryKind, Transcript, event_item};
use crate::app::view::EpisodeView;
use crate::config::Theme;
use crate::core::episode::{EventBody, Party};
use crate::core::sanitize::single_line;
use crate::core::text::truncate_cells;

use super::text_pane::{body_line, draw_stream, header};

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    screen: &InspectorScreen,
    inspector: &Inspector,
    chrome: &Chrome,
    theme: &Theme,
) {
    let (view, t) = (&inspector.view, &inspector.transcript);
    let title = Line::from(vec![
        Span::styled(" Transcript ", theme.title()),
        Span::styled(format!("{} ", t.visible), theme.dim()),
        Span::styled(
            format!(
                "({} unfolds a tool · {} the panes) ",
                key(chrome, "open_detail"),
                key(chrome, "toggle_transcript")
            ),
            theme.dim(),
        ),
    ]);
    frame.render_widget(Block::bordered().border_style(theme.border(true)).title(title), area);
    let (text, stream_area) = screen.layout.text(TextArea::Transcript);
    if let (Some(stream), Some(stream_area)) =
        (screen.live.as_ref().and_then(|l| l.streaming.as_ref()), stream_area)
    {
        draw_stream(frame, stream_area, stream, view.mask().is_some(), theme);
    }
    if t.visible == 0 {
        frame.render_widget(Paragraph::new(Span::styled("nothing yet", theme.dim())), text);
        return;
    }
    let lines = visible_lines(t, view, inspector, text.height as usize, text.width as usize, theme);
    frame.render_widget(Paragraph::new(lines), text);
    if t.total_rows > t.viewport {
        let mut bar = ScrollbarState::new(t.total_rows.saturating_sub(t.viewport))
            .position(t.top_row_index)
            .viewport_content_length(t.viewport);
        let scrollbar =
            Scrollbar::new(ScrollbarOrientation::VerticalRight).begin_symbol(None).end_symbol(None);
        frame.render_stateful_widget(scrollbar, area.inner(ratatui::layout::Margin::new(0, 1)), &mut bar);
    }
}

fn key(chrome: &Chrome, name: &str) -> String {
    crate::config::keymap::Command::from_name(name).map_or_else(String::new, |c| chrome.keymap.key_hint(c))
}

/// The colour of an entry's gutter and marker: its party (tools in the environment's).
fn party_of(kind: EntryKind) -> Party {
    match kind {
        EntryKind::Message(party) => party,
        _ => Party::Environment,
    }
}

/// The screen lines from the transcript's top row, `height` of them at most.
fn visible_lines<'a>(
    t: &Transcript,
    view: &'a EpisodeView,
    inspector: &Inspector,
    height: usize,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'a>> {
    let mut out = Vec::with_capacity(height);
    let Some((mut entry, mut row)) = t.top_row() else { return out };
    let selected = t.selected_entry();
    while out.len() < height && entry < t.visible {
        let e = &t.entries[entry];
        let entry_height = t.height(view, entry);
        let gutter = Span::styled("▎ ", theme.party(party_of(e.kind)));
        if row == 0 {
            let mut line = entry_header(t, view, entry, width, theme);
            if let Some(labels) = inspector.notes.marks.get(&view.events()[e.event].seq) {
                let labels: Vec<&str> = labels.iter().map(|l| l.as_str()).collect();
                let at = usize::from(e.event == view.cursor);
                line.spans
                    .insert(at, Span::styled(format!("✎ {} ", labels.join(", ")), theme.party(Party::User)));
            }
            out.push(if selected == Some(entry) { line.style(theme.selection()) } else { line });
        } else if row + 1 == entry_height {
            out.push(Line::default());
        } else if let (Some(range), Some((_, item))) = (t.line(entry, row - 1), event_item(view, e.event)) {
            let mut line =
                body_line(item.text(view.events()), range, item.highlights(), item.matches(), theme);
            line.spans[0] = gutter;
            out.push(line);
        } else {
            out.push(Line::from(gutter));
        }
        row += 1;
        if row >= entry_height {
            entry += 1;
            row = 0;
        }
    }
    out
}

/// An entry's first line: the message or tool header (a folded tool with the start of its text),
/// or a verdict marker.
fn entry_header<'a>(
    t: &Transcript,
    view: &EpisodeView,
    entry: usize,
    width: usize,
    theme: &Theme,
) -> Line<'a> {
    let e = &t.entries[entry];
    let event = &view.events()[e.event];
    let at_cursor = e.event == view.cursor;
    match (&event.body, e.kind) {
        (EventBody::Verdict(v), EntryKind::Verdict { previous }) => {
            let mut spans = Vec::new();
            if at_cursor {
                spans.push(Span::styled("▶ ", theme.timeline_current()));
            }
            let turn = v.turn.map_or_else(|| "end".to_string(), |t| format!("T{t}"));
            spans.push(Span::styled(format!("{turn} #{} ", event.seq), theme.dim()));
            let judge = match &v.model {
                Some(model) => format!("◆ {} · {}: ", single_line(&v.judge), single_line(model)),
                None => format!("◆ {} ({}): ", single_line(&v.judge), v.method.as_str()),
            };
            spans.push(Span::styled(judge, theme.title()));
            spans.push(Span::styled(v.outcome.as_str().to_uppercase(), theme.outcome(v.outcome)));
            match previous {
                Some(p) if p != v.outcome => {
                    spans.push(Span::styled(format!(" (was {})", p.as_str()), theme.dim()));
                }
                Some(_) => spans.push(Span::styled(" (unchanged)", theme.dim())),
                None => {}
            }
            if let Some(score) = v.score {
                spans.push(Span::styled(format!(" {score:.2}"), theme.dim()));
            }
            if let Some(summary) = v.summary.as_deref().filter(|s| !s.is_empty()) {
                spans.push(Span::styled(format!(" — {}", single_line(&view.masked(summary))), theme.dim()));
            }
            Line::from(spans)
        }
        (_, EntryKind::Tool) if !t.is_expanded(entry) => {
            let mut line = header(event, false, at_cursor, theme);
            let used: usize = line.spans.iter().map(|s| s.width()).sum();
            let room = width.saturating_sub(used + 3);
            // The start of its first line only: a huge tool output is not copied per frame.
            let preview = event_item(view, e.event).map(|(_, item)| {
                let first = item.text(view.events()).split('\n').next().unwrap_or("");
                let mut end = first.len().min(room.saturating_mul(4));
                while !first.is_char_boundary(end) {
                    end -= 1;
                }
                single_line(&first[..end]).into_owned()
            });
            if let Some(preview) = preview.filter(|p| !p.is_empty() && room > 4) {
                line.spans.push(Span::styled(format!(" · {}", truncate_cells(&preview, room)), theme.dim()));
            }
            line
        }
        _ => header(event, false, at_cursor, theme),
    }
}
