//! Kaplan–Meier estimates of how many turns an assistant holds out: the share of episodes not
//! yet leaked (or not yet attacked successfully) after each turn, episodes that never leaked
//! censored at their last turn, with the 95 % pointwise interval and the median turn with its
//! interval, computed as lifelines' `KaplanMeierFitter` does (exponential Greenwood bounds).
//! Checked against lifelines in tests/cli/statistics.rs.

use serde::Serialize;

use super::stats::z;

/// One episode: the turn of the event (a leak), or the last turn it was seen without one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Observation {
    pub turn: u32,
    /// The event happened at `turn`; false: censored there.
    pub event: bool,
}

/// The estimate just after one turn at which something happened.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Step {
    pub turn: u32,
    /// Episodes still observed when the turn began.
    pub at_risk: usize,
    pub events: usize,
    pub censored: usize,
    /// The share not yet leaked after this turn.
    pub survival: f64,
    /// Its 95 % pointwise interval.
    pub ci95: (f64, f64),
}

/// A fitted curve (the default: no observation, nothing fitted).
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Curve {
    pub observations: usize,
    pub events: usize,
    /// One step per turn at which an episode leaked or was censored, in order.
    pub steps: Vec<Step>,
    /// The first turn at which the share not yet leaked is at most one half (`None`: it never
    /// falls that far).
    pub median: Option<u32>,
    /// The median of the lower and of the upper interval curve (`None`: not reached).
    pub median_ci95: (Option<u32>, Option<u32>),
}

/// The Kaplan–Meier estimate of `observations`; `None` without any.
pub fn kaplan_meier(observations: &[Observation]) -> Option<Curve> {
    if observations.is_empty() {
        return None;
    }
    let mut sorted = observations.to_vec();
    sorted.sort_by_key(|o| o.turn);
    let z = z();
    let mut steps = Vec::new();
    let mut at_risk = sorted.len();
    let (mut survival, mut greenwood) = (1.0f64, 0.0f64);
    let mut i = 0;
    while i < sorted.len() {
        let turn = sorted[i].turn;
        let same = sorted[i..].iter().take_while(|o| o.turn == turn).count();
        let events = sorted[i..i + same].iter().filter(|o| o.event).count();
        if events > 0 {
            survival *= 1.0 - events as f64 / at_risk as f64;
            // Greenwood's sum; a turn where everyone still at risk leaks ends the curve at 0.
            if events < at_risk {
                greenwood += events as f64 / (at_risk as f64 * (at_risk - events) as f64);
            }
        }
        steps.push(Step {
            turn,
            at_risk,
            events,
            censored: same - events,
            survival,
            ci95: exponential_greenwood(survival, greenwood, z),
        });
        at_risk -= same;
        i += same;
    }
    let first_at_most_half =
        |value: &dyn Fn(&Step) -> f64| steps.iter().find(|s| value(s) <= 0.5).map(|s| s.turn);
    Some(Curve {
        observations: sorted.len(),
        events: sorted.iter().filter(|o| o.event).count(),
        median: first_at_most_half(&|s| s.survival),
        median_ci95: (first_at_most_half(&|s| s.ci95.0), first_at_most_half(&|s| s.ci95.1)),
        steps,
    })
}

/// The interval of S on the log(−log S) scale (lifelines' default): S^exp(±z·σ / ln S), with σ²
/// Greenwood's sum; where S is 1 (nothing happened yet) or 0 the interval is that point.
fn exponential_greenwood(survival: f64, greenwood: f64, z: f64) -> (f64, f64) {
    if survival >= 1.0 || survival <= 0.0 {
        return (survival, survival);
    }
    // ln S < 0, so the spread is negative: adding it raises the bound.
    let v = survival.ln();
    let spread = z * greenwood.sqrt() / v;
    let upper = (-((-v).ln() + spread).exp()).exp();
    let lower = (-((-v).ln() - spread).exp()).exp();
    (lower, upper)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obs(turn: u32, event: bool) -> Observation {
        Observation { turn, event }
    }

    // Hand-worked: leaks at 1 and 3, censored at 2 and 4 (n = 4): S(1) = 3/4, at turn 2 one
    // censored, S(3) = 3/4 × (1 − 1/2) = 3/8; the median is turn 3.
    #[test]
    fn a_hand_worked_curve() {
        let curve = kaplan_meier(&[obs(3, true), obs(1, true), obs(2, false), obs(4, false)]).unwrap();
        let survival: Vec<(u32, f64)> = curve.steps.iter().map(|s| (s.turn, s.survival)).collect();
        assert_eq!(survival, vec![(1, 0.75), (2, 0.75), (3, 0.375), (4, 0.375)]);
        assert_eq!(curve.median, Some(3));
        assert_eq!((curve.observations, curve.events), (4, 2));
        assert_eq!(curve.steps[1].at_risk, 3);
    }

    #[test]
    fn nothing_leaked_has_no_median_and_a_flat_curve() {
        let curve = kaplan_meier(&[obs(5, false), obs(7, false)]).unwrap();
        assert!(curve.steps.iter().all(|s| s.survival == 1.0 && s.ci95 == (1.0, 1.0)));
        assert_eq!(curve.median, None);
        assert_eq!(kaplan_meier(&[]), None);
    }
}
