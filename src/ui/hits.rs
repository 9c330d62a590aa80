//! The results of a search across episodes: one heading per episode, one row per matching line
//! (turn, party, the line cut around its match, the matches marked).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};

use crate::app::chrome::Chrome;
use crate::app::hits::HitList;
use crate::app::overlay::{Overlay, PromptKind};
use crate::config::Theme;
use crate::config::keymap::Footer;

use super::status::search_prompt;
use crate::core::episode::Party;
use crate::core::sanitize::single_line;
use crate::core::search::{Hit, Speaker};

pub fn draw(frame: &mut Frame, area: Rect, list: &HitList, chrome: &Chrome, theme: &Theme) {
    let errors_height = list.errors.len().min(3) as u16;
    let [body, errors, status] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(errors_height), Constraint::Length(1)])
            .areas(area);
    let pattern = if list.query.regex {
        format!("/{}/", list.query.pattern)
    } else {
        format!("'{}'", list.query.pattern)
    };
    let counts = if list.running {
        "searching…".to_string()
    } else {
        let plural = |n: usize, one: &str| if n == 1 { format!("{n} {one}") } else { format!("{n} {one}s") };
        format!(
            "{} in {} · {} searched",
            plural(list.hits.len(), "hit"),
            plural(list.episodes(), "episode"),
            plural(list.files, "file")
        )
    };
    let title = Line::from(vec![
        Span::styled(format!(" Search {} ", single_line(&pattern)), theme.title()),
        Span::styled(format!("{counts} "), theme.dim()),
    ]);
    let block = Block::bordered().border_style(theme.border(true)).title(title);
    let inner = block.inner(body);
    frame.render_widget(block, body);
    if list.hits.is_empty() {
        let why = if list.running { "searching…" } else { "no episode says that" };
        let at = Rect { height: 1, x: inner.x + 1, width: inner.width.saturating_sub(1), ..inner };
        frame.render_widget(Paragraph::new(Span::styled(why, theme.dim())), at);
    } else {
        draw_rows(frame, inner, list, theme);
    }
    super::file_errors::draw_file_errors(frame, errors, &list.errors, theme);
    draw_status(frame, status, chrome, theme);
}

/// The rows: an episode heading before its first hit. Only the rows around the selection are
/// built, so a search with thousands of hits draws as fast as one with ten.
fn draw_rows(frame: &mut Frame, area: Rect, list: &HitList, theme: &Theme) {
    let height = area.height as usize;
    // (hit, is a heading) for every row.
    let mut rows: Vec<(usize, bool)> = Vec::with_capacity(list.hits.len() * 2);
    for (i, hit) in list.hits.iter().enumerate() {
        let new_episode =
            i == 0 || list.hits[i - 1].path != hit.path || list.hits[i - 1].episode != hit.episode;
        if new_episode {
            rows.push((i, true));
        }
        rows.push((i, false));
    }
    let selected_row = rows.iter().position(|&(i, heading)| i == list.selected && !heading).unwrap_or(0);
    // As a list scrolls: the selection at the bottom once it passes the first screen.
    let start = (selected_row + 1).saturating_sub(height);
    let end = (start + height).min(rows.len());
    let prefix_width = 2 + 5 + 10;
    let text_width = (area.width as usize).saturating_sub(prefix_width);
    let mut shown = rows[start..end].to_vec();
    // The episode of the first row shown stays named above it (a sticky heading).
    if let Some(first) = shown.first_mut()
        && !first.1
        && selected_row > start
    {
        first.1 = true;
    }
    let items: Vec<ListItem> = shown
        .iter()
        .map(|&(i, heading)| {
            let hit = &list.hits[i];
            if heading {
                ListItem::new(Line::from(Span::styled(single_line(&hit.episode).into_owned(), theme.title())))
            } else {
                ListItem::new(hit_line(hit, text_width, i == list.selected, theme))
            }
        })
        .collect();
    // The selected row is marked span by span (`hit_line`), so its matches keep their mark.
    let widget = List::new(items).highlight_symbol("▶ ");
    let mut state = ListState::default();
    state.select(Some(selected_row - start));
    frame.render_stateful_widget(widget, area, &mut state);
}

/// `T3  assistant  …the line, cut so its first match shows…`
fn hit_line<'a>(hit: &Hit, width: usize, selected: bool, theme: &Theme) -> Line<'a> {
    let row = |style: ratatui::style::Style| if selected { style.patch(theme.selection()) } else { style };
    let turn = hit.turn.map_or_else(|| "-".to_string(), |t| format!("T{t}"));
    let party = match hit.party {
        Speaker::Attacker => Party::Attacker,
        Speaker::Assistant => Party::Assistant,
        Speaker::User => Party::User,
        Speaker::Tool => Party::Environment,
    };
    let mut spans = vec![
        Span::styled(format!("  {turn:<4} "), row(theme.dim())),
        Span::styled(format!("{:<10}", hit.party.as_str()), row(theme.party(party))),
    ];
    // The line in pieces (between matches, matches), each made inert.
    let mut pieces: Vec<(String, bool)> = Vec::new();
    let mut at = 0;
    for span in &hit.spans {
        pieces.push((single_line(&hit.line[at..span.start]).into_owned(), false));
        pieces.push((single_line(&hit.line[span.clone()]).into_owned(), true));
        at = span.end;
    }
    pieces.push((single_line(&hit.line[at..]).into_owned(), false));
    // Leading blanks say nothing; a long line starts a little before its first match.
    if let Some((first, _)) = pieces.first_mut() {
        *first = first.trim_start().to_string();
    }
    let before: usize = pieces.first().map_or(0, |(p, _)| p.chars().count());
    let matched: usize = pieces.get(1).map_or(0, |(p, _)| p.chars().count());
    let keep_before = width / 4;
    // Cut only when the first match would not show whole.
    if before + matched > width && before > keep_before {
        let (first, _) = &mut pieces[0];
        let skip = before - keep_before;
        *first = format!("…{}", first.chars().skip(skip + 1).collect::<String>());
    }
    for (text, matched) in pieces {
        if text.is_empty() {
            continue;
        }
        spans.push(Span::styled(text, if matched { theme.evidence() } else { row(theme.text()) }));
    }
    Line::from(spans)
}

fn draw_status(frame: &mut Frame, area: Rect, chrome: &Chrome, theme: &Theme) {
    let line = match (chrome.overlay(), &chrome.message) {
        (Some(Overlay::Prompt(p)), _) if p.kind == PromptKind::SearchEpisodes => search_prompt(chrome, p),
        (_, Some(message)) => Line::from(format!(" {}", single_line(message))),
        _ => Line::from(format!(" {}", chrome.keymap.footer(Footer::Hits, |_| true))),
    };
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}
