//! The composer panel: the human attacker's message (or the held message being edited).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use crate::app::chrome::Chrome;
use crate::app::composer::Purpose;
use crate::app::inspector_screen::InspectorScreen;
use crate::config::Theme;
use crate::config::keymap::Command;
use crate::core::episode::Party;
use crate::core::sanitize::single_line;

pub fn draw(frame: &mut Frame, area: Rect, screen: &InspectorScreen, chrome: &Chrome, theme: &Theme) {
    let goal = screen
        .view()
        .and_then(|v| v.episode.header().task.attack_goal.clone())
        .map(|g| format!(" goal: {} ", single_line(&g)))
        .unwrap_or_default();
    let what = match screen.composer.purpose {
        Purpose::Attack => " You, as the attacker ",
        Purpose::Edit => " Edit the attacker's message before it is delivered ",
    };
    let k = |c| chrome.keymap.key_hint(c);
    let hints = format!(
        " {} send · {} newline · {}/{} history · {} leave ",
        k(Command::Send),
        k(Command::NewLine),
        k(Command::HistoryPrev),
        k(Command::HistoryNext),
        k(Command::Close)
    );
    let title =
        Line::from(vec![Span::styled(what, theme.party(Party::Attacker)), Span::styled(goal, theme.title())]);
    let block = Block::bordered()
        .border_style(theme.border(screen.composer.has_focus()))
        .title(title)
        .title_bottom(Line::styled(hints, theme.dim()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(&screen.composer.textarea, inner);
}
