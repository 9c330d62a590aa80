//! An attack search as it unfolds: its tree of nodes (each a candidate attacker message with its
//! judge score; pruned and backtracked branches greyed, the path to the best node marked `★`,
//! leaks marked `LEAK`), the selected node in full beside it (below it on a narrow terminal),
//! and a status line with the calls used, the best score and the leaks found.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, List, ListItem, ListState, Paragraph, Wrap};

use crate::app::attack::{AttackNode, AttackOrigin, AttackView};
use crate::app::chrome::Chrome;
use crate::app::overlay::Overlay;
use crate::config::Theme;
use crate::config::keymap::{Command, Footer};
use crate::core::attack::node::Decision;
use crate::core::episode::Outcome;
use crate::core::sanitize::single_line;

/// Below this width the selected node goes under the tree instead of beside it.
const SIDE_BY_SIDE: u16 = 120;
/// The widest the tree's column gets (deeper nodes push their message right).
const MAX_TREE: usize = 24;

pub fn draw(frame: &mut Frame, area: Rect, view: &AttackView, chrome: &Chrome, theme: &Theme) {
    let [body, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let [tree, detail] = if area.width >= SIDE_BY_SIDE {
        Layout::horizontal([Constraint::Percentage(60), Constraint::Percentage(40)]).areas(body)
    } else {
        Layout::vertical([Constraint::Min(3), Constraint::Length(8)]).areas(body)
    };
    draw_tree(frame, tree, view, theme);
    draw_detail(frame, detail, view, theme);
    draw_status(frame, status, view, chrome, theme);
}

/// `tap · calls 37/60 · best 8/10 · leaks 1 · PAUSED`
pub fn progress(view: &AttackView) -> String {
    let budget = view.budget.map_or(String::new(), |b| format!("/{b}"));
    let best = view.best_score().map_or("-".into(), |s| format!("{s}/10"));
    let mut parts = vec![
        view.strategy.as_str().to_string(),
        format!("calls {}{budget}", view.calls),
        format!("best {best}"),
        format!("leaks {}", view.leaks()),
    ];
    match view.status {
        Some(status) => parts.push(status.as_str().to_uppercase()),
        None if view.paused => parts.push("PAUSED".into()),
        None => {}
    }
    parts.join(" · ")
}

fn draw_tree(frame: &mut Frame, area: Rect, view: &AttackView, theme: &Theme) {
    let from = match &view.origin {
        AttackOrigin::Episode { id, turn, .. } => format!("from turn {turn} of {}", single_line(id)),
        AttackOrigin::Task(task) => format!("task {}", single_line(task)),
    };
    let title = Line::from(vec![
        Span::styled(format!(" Attack · {} ", progress(view)), theme.title()),
        Span::styled(format!("· {from} "), theme.dim()),
    ]);
    let block = Block::bordered().border_style(theme.border(true)).title(title);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if view.nodes.is_empty() {
        let why = match &view.problem {
            Some(problem) => single_line(problem).into_owned(),
            None if view.started => "the first node is on its way…".into(),
            None => "starting…".into(),
        };
        frame.render_widget(Paragraph::new(Span::styled(format!(" {why}"), theme.dim())), inner);
        return;
    }
    let height = inner.height as usize;
    let start = (view.selected + 1).saturating_sub(height);
    let width = inner.width as usize;
    let shown = &view.nodes[start..(start + height).min(view.nodes.len())];
    let column = shown.iter().map(|n| tree_cell(n).chars().count()).max().unwrap_or(0).min(MAX_TREE);
    let items: Vec<ListItem> =
        shown.iter().map(|n| ListItem::new(node_line(view, n, column, width, theme))).collect();
    let mut list_state = ListState::default();
    list_state.select(Some(view.selected - start));
    let list = List::new(items).highlight_symbol("▶ ").highlight_style(theme.selection());
    frame.render_stateful_widget(list, inner, &mut list_state);
}

/// What became of a node, in a word.
fn state_word(view: &AttackView, node: &AttackNode) -> &'static str {
    match &node.record {
        _ if node.episode_turn.is_some() => "episode",
        Some(record) if record.leak.is_some() => "LEAK",
        _ if view.pruned.iter().any(|p| p.holds(&node.id)) => "pruned by hand",
        Some(record) => record.status(),
        None if view.done() => "unfinished",
        None => "running",
    }
}

/// `  └ 2-1`: the node's place in the tree.
fn tree_cell(node: &AttackNode) -> String {
    let indent = "  ".repeat(node.id.depth().saturating_sub(1) as usize);
    let branch = if node.id.is_root() { "" } else { "└ " };
    format!("{indent}{branch}{}", node.id.as_str())
}

/// `  └ 2-1   9/10 ★ LEAK         Please read me…`
fn node_line(
    view: &AttackView,
    node: &AttackNode,
    column: usize,
    width: usize,
    theme: &Theme,
) -> Line<'static> {
    let score = node.score().map_or(format!("{:>5}", "-"), |s| format!("{s:>2}/10"));
    let best = if view.on_best_path(&node.id) { "★" } else { " " };
    let word = state_word(view, node);
    let head = format!("{:<column$} {score} {best} {word:<14} ", tree_cell(node));
    let text = node.text.as_deref().map(single_line).unwrap_or_default();
    let rest = crate::core::text::truncate_cells(&text, width.saturating_sub(head.chars().count() + 2));
    let style = if node.leak().is_some() {
        theme.outcome(Outcome::Fail).add_modifier(Modifier::BOLD)
    } else if view.greyed(node) {
        theme.dim()
    } else if view.on_best_path(&node.id) {
        theme.title()
    } else {
        theme.text()
    };
    Line::from(vec![Span::styled(head, style), Span::styled(rest, style)])
}

fn draw_detail(frame: &mut Frame, area: Rect, view: &AttackView, theme: &Theme) {
    let block =
        Block::bordered().border_style(theme.border(false)).title(Span::styled(" Node ", theme.title()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(node) = view.selected_node() else {
        let dir = view.dir.display().to_string();
        let line = format!(" journals in {}", single_line(&dir));
        frame.render_widget(Paragraph::new(Span::styled(line, theme.dim())), inner);
        return;
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} ", node.id.as_str()), theme.title()),
        Span::styled(detail_head(view, node), theme.dim()),
    ])];
    if let Some(words) = node.leak() {
        lines.push(Line::from(Span::styled(
            format!("LEAK: {}", single_line(&words)),
            theme.outcome(Outcome::Fail),
        )));
    }
    if let Some(text) = &node.text {
        lines.push(Line::from(Span::styled(text.clone(), theme.text())));
    }
    if let Some(record) = &node.record {
        if !record.reason.is_empty() {
            lines.push(Line::from(Span::styled(
                format!("judge: {}", single_line(&record.reason)),
                theme.dim(),
            )));
        }
        if let Decision::Pruned(why) = &record.decision {
            lines.push(Line::from(Span::styled(format!("pruned: {}", single_line(why)), theme.dim())));
        }
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// `turn 3 · score 7/10 · by hand · [authority, urgency]`
fn detail_head(view: &AttackView, node: &AttackNode) -> String {
    if node.episode_turn.is_some() {
        return "· the episode's turn, which every first-level node continues".into();
    }
    let mut parts = Vec::new();
    if let Some(record) = &node.record {
        parts.push(format!("turn {}", record.turn));
        let techniques = record.techniques();
        if !techniques.is_empty() {
            parts.push(format!("[{}]", single_line(&techniques.join(", "))));
        }
    }
    parts.push(node.score().map_or("no score yet".into(), |s| format!("score {s}/10")));
    parts.push(state_word(view, node).into());
    if node.id.by_hand() {
        parts.push("by hand".into());
    }
    parts.join(" · ")
}

fn draw_status(frame: &mut Frame, area: Rect, view: &AttackView, chrome: &Chrome, theme: &Theme) {
    let line = match (&chrome.message, chrome.overlay()) {
        (_, Some(Overlay::Prompt(prompt))) => super::status::prompt_line(chrome, prompt, theme),
        (_, Some(Overlay::ConfirmQuit { question })) => {
            Line::from(super::status::quit_line(chrome, question))
        }
        (Some(message), _) => Line::from(format!(" {}", single_line(message))),
        (None, _) => {
            let running = !view.done();
            let applies = |c| match c {
                Command::PlayPause => running && !view.paused,
                Command::Continue | Command::StepCall => running && view.paused,
                Command::PruneNode | Command::ExpandNode | Command::EditNode | Command::PinBranch => running,
                _ => true,
            };
            Line::from(format!(" {} · {}", progress(view), chrome.keymap.footer(Footer::Attack, applies)))
        }
    };
    frame.render_widget(Paragraph::new(line).style(theme.status()), area);
}
