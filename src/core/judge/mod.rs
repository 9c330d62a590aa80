//! Judges: rule judges that run on every event (live) and LLM judges that
//! run at the end or per turn. A judge that cannot decide says `error`.

pub mod checkers;
pub mod dates;
pub mod normalize;
