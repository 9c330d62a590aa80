//! A cap on the calls a command makes, shared by every clone of the client: each HTTP attempt to
//! a model (a retry included) and each message sent to an external agent takes one call from it
//! before it goes out, so the cap holds however many episodes run at once.

use super::endpoint::Role;

/// The cap was reached: the call was not made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the call budget of {limit} is spent")]
pub struct BudgetSpent {
    pub limit: u64,
}

/// Counts calls against a cap. `take` is called once per call, before it is made; an
/// implementation that keeps the count on disk writes it there first, so a process killed
/// mid-call has counted it.
pub trait CallMeter: Send + Sync {
    fn take(&self, role: Role) -> Result<(), BudgetSpent>;
}
