//! The navigation stack: the screen on top shows and has the keys. Bottom to top it holds the
//! screens kept across visits (one browser, task picker, search results and fan, the episode on
//! the inspector), then the screens opened over them (a comparison, a fork tree, an episode
//! opened from the fan or the tree), which Esc closes: back is a pop. Going to a kept screen
//! ([`Stack::show`]) closes what is open over the top and brings it forward as it was left.

use super::inspector::Inspector;
use super::screen::{Screen, ScreenState};
use crate::config::keymap::Layer;

pub struct Stack {
    /// Bottom first.
    below: Vec<Screen>,
    top: Screen,
}

impl Stack {
    pub fn new(first: Screen) -> Self {
        Stack { below: Vec::new(), top: first }
    }

    pub fn top(&self) -> &Screen {
        &self.top
    }

    pub fn top_mut(&mut self) -> &mut Screen {
        &mut self.top
    }

    /// The screen on top, and the topmost state of type `T` under it.
    pub fn top_and<T: ScreenState>(&mut self) -> (&mut Screen, Option<&mut T>) {
        (&mut self.top, self.below.iter_mut().rev().find_map(T::of_mut))
    }

    pub fn kind(&self) -> Layer {
        self.top.kind()
    }

    /// Every screen, top first.
    pub fn iter(&self) -> impl Iterator<Item = &Screen> {
        std::iter::once(&self.top).chain(self.below.iter().rev())
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Screen> {
        std::iter::once(&mut self.top).chain(self.below.iter_mut().rev())
    }

    /// Every episode held: on the inspectors and the compare screen, on top or under it.
    pub fn episodes(&self) -> impl Iterator<Item = &Inspector> {
        self.iter().flat_map(|screen| -> Vec<&Inspector> {
            match screen {
                Screen::Inspector(s) => s.inspector.iter().collect(),
                Screen::Compare(c) => c.sides.iter().collect(),
                _ => Vec::new(),
            }
        })
    }

    pub fn episodes_mut(&mut self) -> impl Iterator<Item = &mut Inspector> {
        self.iter_mut().flat_map(|screen| -> Vec<&mut Inspector> {
            match screen {
                Screen::Inspector(s) => s.inspector.iter_mut().collect(),
                Screen::Compare(c) => c.sides.iter_mut().collect(),
                _ => Vec::new(),
            }
        })
    }

    /// The topmost state of type `T`.
    pub fn find<T: ScreenState>(&self) -> Option<&T> {
        self.iter().find_map(T::of)
    }

    pub fn find_mut<T: ScreenState>(&mut self) -> Option<&mut T> {
        self.iter_mut().find_map(T::of_mut)
    }

    /// The state of the screen on top, if it is a `T`.
    pub fn top_state<T: ScreenState>(&self) -> Option<&T> {
        T::of(&self.top)
    }

    pub fn top_state_mut<T: ScreenState>(&mut self) -> Option<&mut T> {
        T::of_mut(&mut self.top)
    }

    pub fn holds(&self, kind: Layer) -> bool {
        self.iter().any(|s| s.kind() == kind && s.kept())
    }

    /// Opens `screen` on top. A kept screen closes what is open over the top first and replaces
    /// the one of its kind (there is one browser, one fan…).
    pub fn push(&mut self, screen: Screen) {
        if screen.kept() {
            self.close_opened();
            let kind = screen.kind();
            self.below.retain(|s| !(s.kind() == kind && s.kept()));
            if self.top.kind() == kind && self.top.kept() {
                self.top = screen;
                return;
            }
        }
        let below = std::mem::replace(&mut self.top, screen);
        self.below.push(below);
    }

    /// Puts a kept screen at the bottom, under those there (shown when asked for).
    pub fn put_under(&mut self, screen: Screen) {
        self.below.insert(0, screen);
    }

    /// Closes the screen on top (never the last one); the one under it shows again.
    pub fn back(&mut self) -> Option<Screen> {
        let next = self.below.pop()?;
        Some(std::mem::replace(&mut self.top, next))
    }

    /// Brings the kept screen of `kind` forward, closing what is open over the top; `false`
    /// (and nothing changes) when there is none.
    pub fn show(&mut self, kind: Layer) -> bool {
        if !self.holds(kind) {
            return false;
        }
        self.close_opened();
        if self.top.kind() != kind
            && let Some(at) = self.below.iter().rposition(|s| s.kind() == kind && s.kept())
        {
            let shown = self.below.remove(at);
            let below = std::mem::replace(&mut self.top, shown);
            self.below.push(below);
        }
        true
    }

    /// Keeps only the screens `keep` says yes to (the last one stays whatever it says).
    pub fn retain(&mut self, mut keep: impl FnMut(&Screen) -> bool) {
        self.below.retain(&mut keep);
        while !keep(&self.top) && self.back().is_some() {}
    }

    /// Closes the screens opened over the kept ones.
    fn close_opened(&mut self) {
        while !self.top.kept() && self.back().is_some() {}
    }
}
