//! A screen named without its state: what a handler asks to go to, and what tests check is shown.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScreenKind {
    Inspector,
    Browser,
    Tasks,
    Compare,
    Hits,
    Fan,
    ForkTree,
}
