//! The fork tree: the episode, the turns its forks branched at, the fans (their tallies) and the
//! forks (their own verdicts and first-leak turn), indented by depth; live while a fan runs.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph};

use crate::app::chrome::Chrome;
use crate::app::fan::FanView;
use crate::app::fork_tree::{ForkTree, Node};
use crate::app::overlay::Overlay;
use crate::config::Theme;
use crate::config::keymap::Footer;
use crate::core::sanitize::single_line;

use super::fan::{first_leak_label, verdict_spans};

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    tree: &ForkTree,
    fan: Option<&FanView>,
    chrome: &Chrome,
    theme: &Theme,
) {
    let [body, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let nodes = tree.nodes(fan);
    let forks = nodes.iter().filter(|n| matches!(n, Node::Fork { .. })).count();
    let live = fan.is_some_and(|f| !f.done);
    let what = match (&tree.found, live) {
        (None, _) => "looking for forks…".to_string(),
        (Some(_), true) => format!("{forks} fork(s) · a fan is running"),
        (Some(_), false) => format!("{forks} fork(s)"),
    };
    let title = Line::from(vec![
        Span::styled(format!(" Fork tree of {} ", single_line(&tree.root_id)), theme.title()),
        Span::styled(format!("{what} "), theme.dim()),
    ]);
    let block = Block::bordered().border_style(theme.border(true)).title(title);
    let inner = block.inner(body);
    frame.render_widget(block, body);
    let height = inner.height as usize;
    let selected = tree.selected.min(nodes.len().saturating_sub(1));
    let start = (selected + 1).saturating_sub(height);
    let items: Vec<ListItem> = nodes[start..(start + height).min(nodes.len())]
        .iter()
        .map(|node| ListItem::new(node_line(node, tree, theme)))
        .collect();
    let mut list_state = ListState::default();
    list_state.select(Some(selected - start));
    let list = List::new(items).highlight_symbol("▶ ").highlight_style(theme.selection());
    frame.render_stateful_widget(list, inner, &mut list_state);
    draw_status(frame, status, chrome, theme);
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

fn node_line(node: &Node, tree: &ForkTree, theme: &Theme) -> Line<'static> {
    match node {
        Node::Root => {
            // Verdicts before the id: a long id is cut at the border.
            let mut spans = vec![Span::styled("● episode", theme.title())];
            spans.extend(verdict_spans(&tree.root, theme));
            spans.push(Span::styled(first_leak_label(&tree.root), theme.dim()));
            spans.push(Span::styled(format!(" · {}", single_line(&tree.root_id)), theme.dim()));
            Line::from(spans)
        }
        Node::Turn { depth, turn, forks } => Line::from(Span::styled(
            format!("{}◆ turn {turn}: {forks} fork(s) branched here", indent(*depth)),
            theme.text(),
        )),
        Node::Fan { depth, dir, attempts, running, planned, tallies } => {
            // `<episode>__t3-2` → `t3-2`: the episode is the line's parent already.
            let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            let name = name.rsplit_once("__").map_or(name.as_str(), |(_, tail)| tail).to_string();
            let of =
                planned.filter(|&p| p as usize != *attempts).map_or(String::new(), |p| format!(" of {p}"));
            let mut text =
                format!("{}▣ fan {} · {attempts}{of} attempt(s)", indent(*depth), single_line(&name));
            if *running > 0 {
                text.push_str(&format!(", {running} running"));
            } else if planned.is_some_and(|p| p as usize > *attempts) {
                // The screen's `f` on that turn offers to run the rest.
                text.push_str(", stopped");
            }
            let mut spans = vec![Span::styled(text, theme.text())];
            for t in tallies {
                let rate = match (t.decided, t.interval) {
                    (n, Some((lo, hi))) if n > 0 => format!(
                        " {:.0}% [{:.0}%, {:.0}%]",
                        t.leaked as f64 / n as f64 * 100.0,
                        lo * 100.0,
                        hi * 100.0
                    ),
                    _ => String::new(),
                };
                spans.push(Span::styled(
                    format!(" · {} {} {}/{}{rate}", t.judge, single_line(&t.source), t.leaked, t.decided),
                    theme.dim(),
                ));
                if t.undecided > 0 {
                    spans.push(Span::styled(format!(" ({} undecided)", t.undecided), theme.dim()));
                }
            }
            Line::from(spans)
        }
        Node::Fork { depth, fork } => {
            let label =
                if fork.attempt.index > 0 { format!("#{}", fork.attempt.index) } else { "fork".into() };
            let mut spans = vec![
                Span::styled(format!("{}○ {label:<4} ", indent(*depth)), theme.text()),
                Span::styled(format!("{:<13}", fork.attempt.end), theme.dim()),
            ];
            spans.extend(verdict_spans(&fork.attempt, theme));
            spans.push(Span::styled(first_leak_label(&fork.attempt), theme.dim()));
            spans.push(Span::styled(format!(" · {}", single_line(&fork.id)), theme.dim()));
            Line::from(spans)
        }
    }
}

fn draw_status(frame: &mut Frame, area: Rect, chrome: &Chrome, theme: &Theme) {
    let line = match (&chrome.message, chrome.overlay()) {
        (_, Some(Overlay::ConfirmQuit { question })) => super::status::quit_line(chrome, question),
        (Some(message), _) => format!(" {}", single_line(message)),
        (None, _) => format!(" {}", chrome.keymap.footer(Footer::ForkTree, |_| true)),
    };
    frame.render_widget(Paragraph::new(Line::from(line)).style(theme.status()), area);
}
