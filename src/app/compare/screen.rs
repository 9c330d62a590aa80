//! The compare screen's state: the two episodes, each with its own view, and their comparison.

use crate::core::episode::Episode;

use super::super::chrome::Chrome;
use super::super::inspector::Inspector;
use super::super::layout::InspectorLayout;
use super::super::view::EpisodeView;
use super::aligned::Compare;

pub struct CompareScreen {
    /// A and B, each at its last event.
    pub sides: [Inspector; 2],
    pub compare: Compare,
}

impl CompareScreen {
    /// Two episodes side by side; the status line says where they diverge.
    pub fn new(a: Episode, b: Episode, chrome: &mut Chrome) -> Self {
        let side = |mut episode: Episode| {
            chrome.enrich(&mut episode);
            let mut inspector = Inspector::new(episode);
            let last = inspector.view.last();
            inspector.view.set_cursor(last);
            inspector
        };
        let sides = [side(a), side(b)];
        let compare = Compare::new(&sides[0].view, &sides[1].view);
        chrome.say(match compare.first_divergence {
            Some(row) => format!("they diverge at {}", compare.rows[row].label()),
            None => "the two episodes are the same, turn by turn".into(),
        });
        let mut screen = CompareScreen { sides, compare };
        screen.relayout(chrome);
        screen
    }

    pub fn views(&self) -> [&EpisodeView; 2] {
        [&self.sides[0].view, &self.sides[1].view]
    }

    /// Fits the sides' panes and the rows to the terminal.
    pub fn relayout(&mut self, chrome: &Chrome) {
        let layout = InspectorLayout::new(chrome.area, 0);
        for side in &mut self.sides {
            side.fit(&layout, false);
        }
        let [a, b] = &self.sides;
        self.compare.settle(chrome.area, [&a.view, &b.view]);
    }

    /// Masks (or unmasks) both sides' private values.
    pub fn toggle_redaction(&mut self, chrome: &mut Chrome) {
        let masked = self.sides[0].view.mask().is_some();
        for side in &mut self.sides {
            let mask = (!masked).then(|| chrome.redactor_for(&side.view.episode));
            side.view.set_mask(mask);
        }
        chrome.say(if masked { "unmasked" } else { "private values masked (R shows them)" });
        self.relayout(chrome);
    }
}
