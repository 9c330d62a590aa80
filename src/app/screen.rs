//! The screens of the navigation stack ([`super::stack::Stack`]), each holding its own state.

use crate::config::keymap::Layer;

use super::attack::AttackView;
use super::browser::Browser;
use super::chrome::Chrome;
use super::compare::CompareScreen;
use super::fan::FanView;
use super::fork_tree::ForkTree;
use super::hits::HitList;
use super::inspector_screen::InspectorScreen;
use super::task_picker::TaskPicker;

/// A screen and its state.
pub enum Screen {
    /// An episode: replayed, loading, or live.
    Inspector(Box<InspectorScreen>),
    Browser(Box<Browser>),
    Tasks(Box<TaskPicker>),
    /// Two episodes side by side, turn by turn.
    Compare(Box<CompareScreen>),
    /// The results of a search across episodes.
    Hits(Box<HitList>),
    /// An attempt fan filling.
    Fan(Box<FanView>),
    /// The forks and fans of an episode as a tree.
    ForkTree(Box<ForkTree>),
    /// An attack search unfolding in its tree.
    Attack(Box<AttackView>),
}

impl Screen {
    /// What the screen is, named by the keymap layer of its keys (the inspector's whether or not
    /// its composer has them).
    pub fn kind(&self) -> Layer {
        match self {
            Screen::Inspector(_) => Layer::Inspector,
            Screen::Browser(_) => Layer::Browser,
            Screen::Tasks(_) => Layer::Picker,
            Screen::Compare(_) => Layer::Compare,
            Screen::Hits(_) => Layer::Hits,
            Screen::Fan(_) => Layer::Fan,
            Screen::ForkTree(_) => Layer::ForkTree,
            Screen::Attack(_) => Layer::Attack,
        }
    }

    /// Whether the stack keeps this screen when another is shown (the browser, the task picker,
    /// the search results, the fan and the inspector hold what the others come back to); the
    /// others are opened over them and closed by Esc.
    pub fn kept(&self) -> bool {
        match self {
            Screen::Inspector(screen) => !screen.over,
            Screen::Browser(_) | Screen::Tasks(_) | Screen::Hits(_) | Screen::Fan(_) | Screen::Attack(_) => {
                true
            }
            Screen::Compare(_) | Screen::ForkTree(_) => false,
        }
    }

    /// The keymap layer of this screen when nothing above it has the keys.
    pub fn layer(&self) -> Layer {
        match self {
            Screen::Inspector(screen) if screen.composer.has_focus() => Layer::Composer,
            screen => screen.kind(),
        }
    }

    /// Fits what the screen shows to the terminal (`update` calls it after every action, on
    /// every screen held). Cheap when nothing changed.
    pub fn relayout(&mut self, chrome: &Chrome) {
        match self {
            Screen::Inspector(screen) => screen.relayout(chrome),
            Screen::Compare(screen) => screen.relayout(chrome),
            // The first line shown keeps the selection in view, whatever moved it.
            Screen::Browser(browser) => browser.scroll_into_view(browser.list_height(chrome.area.height)),
            Screen::Tasks(picker) => {
                picker.set_detail_width(chrome.picker_columns()[1].width.saturating_sub(3) as usize)
            }
            Screen::Hits(_) | Screen::Fan(_) | Screen::ForkTree(_) | Screen::Attack(_) => {}
        }
    }
}

/// A screen's state, found in a [`Screen`] of its kind.
pub trait ScreenState: Sized {
    fn of(screen: &Screen) -> Option<&Self>;
    fn of_mut(screen: &mut Screen) -> Option<&mut Self>;
}

macro_rules! screen_state {
    ($($variant:ident($state:ty)),* $(,)?) => {$(
        impl ScreenState for $state {
            fn of(screen: &Screen) -> Option<&Self> {
                match screen {
                    Screen::$variant(state) => Some(state),
                    _ => None,
                }
            }
            fn of_mut(screen: &mut Screen) -> Option<&mut Self> {
                match screen {
                    Screen::$variant(state) => Some(state),
                    _ => None,
                }
            }
        }
    )*};
}

screen_state!(
    Inspector(InspectorScreen),
    Browser(Browser),
    Tasks(TaskPicker),
    Compare(CompareScreen),
    Hits(HitList),
    Fan(FanView),
    ForkTree(ForkTree),
    Attack(AttackView),
);
