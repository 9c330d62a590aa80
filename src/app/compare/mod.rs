//! Two episodes side by side, turn by turn: the attacker's and the assistant's messages of turn k
//! of A next to those of B, the verdicts of each turn side by side with differences flagged, the
//! first turn where they diverge marked, and the turns both share (a fork and its parent) shown once.
//!
//! Built from the two views' events; the text shown is the text their panes hold (sanitized,
//! masked while redaction is on), never copied. Rows are wrapped when shown, once per width.

mod aligned;
mod layout;
mod screen;
mod title;
mod turns;

pub use aligned::Compare;
pub use layout::CompareLayout;
pub use screen::CompareScreen;
pub use title::SideTitle;
pub use turns::{CellLine, SideVerdict, TurnRow, VerdictPair};
