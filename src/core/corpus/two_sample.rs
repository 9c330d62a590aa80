//! Two rates compared: the difference with its 95 % interval and an exact two-sided p-value,
//! for independent samples (Newcombe's hybrid score interval, Fisher's exact test) and for
//! samples paired by task (Newcombe's paired interval, McNemar's exact test). What each assumes
//! is in docs/statistics.md; every figure is checked against scipy/statsmodels in
//! tests/cli/statistics.rs.

use statrs::function::factorial::ln_factorial;

use super::stats::wilson;

/// A 2 × 2 table of paired outcomes: `both` succeeded in both, `only_first` in the first only,
/// `only_second` in the second only, `neither` in neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PairedTable {
    pub both: usize,
    pub only_first: usize,
    pub only_second: usize,
    pub neither: usize,
}

impl PairedTable {
    pub fn pairs(&self) -> usize {
        self.both + self.only_first + self.only_second + self.neither
    }
}

/// The 95 % interval of p2 − p1 for independent samples (`k1` of `n1`, `k2` of `n2`) by
/// Newcombe's hybrid score method (his method 10, 1998): the two Wilson intervals combined.
/// `None` when a side has no trials.
pub fn newcombe(k1: usize, n1: usize, k2: usize, n2: usize) -> Option<(f64, f64)> {
    let (l1, u1) = wilson(k1, n1)?;
    let (l2, u2) = wilson(k2, n2)?;
    let (p1, p2) = (k1 as f64 / n1 as f64, k2 as f64 / n2 as f64);
    let d = p2 - p1;
    let lower = d - ((p2 - l2).powi(2) + (u1 - p1).powi(2)).sqrt();
    let upper = d + ((u2 - p2).powi(2) + (p1 - l1).powi(2)).sqrt();
    Some((lower.max(-1.0), upper.min(1.0)))
}

/// The 95 % interval of p2 − p1 for paired samples by Newcombe's square-and-add method for
/// paired data (1998, method 10): the marginal Wilson intervals combined with the correlation
/// ψ of the pairs, its numerator corrected for continuity as Newcombe has it (and as
/// Fagerland, Lydersen & Laake's `contingencytables` and Altman's *Statistics with Confidence*
/// compute it). `None` without pairs.
pub fn newcombe_paired(t: PairedTable) -> Option<(f64, f64)> {
    let n = t.pairs();
    let first = t.both + t.only_first;
    let second = t.both + t.only_second;
    let (l1, u1) = wilson(first, n)?;
    let (l2, u2) = wilson(second, n)?;
    let (p1, p2) = (first as f64 / n as f64, second as f64 / n as f64);
    let [a, b, c, d] = [t.both, t.only_first, t.only_second, t.neither].map(|x| x as f64);
    let margins = (a + b) * (c + d) * (a + c) * (b + d);
    let cross = a * d - b * c;
    let half = n as f64 / 2.0;
    // ψ is 0 when a margin is empty, or when the association is positive but within n/2.
    let psi = if margins == 0.0 {
        0.0
    } else if cross > half {
        (cross - half) / margins.sqrt()
    } else if cross >= 0.0 {
        0.0
    } else {
        cross / margins.sqrt()
    };
    let diff = p2 - p1;
    let below = ((p2 - l2).powi(2) + (u1 - p1).powi(2) - 2.0 * psi * (p2 - l2) * (u1 - p1)).max(0.0).sqrt();
    let above = ((u2 - p2).powi(2) + (p1 - l1).powi(2) - 2.0 * psi * (u2 - p2) * (p1 - l1)).max(0.0).sqrt();
    Some(((diff - below).max(-1.0), (diff + above).min(1.0)))
}

/// Fisher's exact test, two-sided, of `k1` of `n1` against `k2` of `n2`: the probability,
/// given the margins, of every table no more likely than the one observed (as scipy's
/// `fisher_exact`, with its relative tolerance of 1e-7 for ties).
pub fn fisher_exact(k1: usize, n1: usize, k2: usize, n2: usize) -> f64 {
    let successes = k1 + k2;
    let total = n1 + n2;
    let lowest = successes.saturating_sub(n2);
    let highest = successes.min(n1);
    // ln of the hypergeometric probability that the first sample holds x of the successes.
    let ln_pmf = |x: usize| {
        let f = |n: usize| ln_factorial(n as u64);
        f(successes) + f(total - successes) + f(n1) + f(n2)
            - f(total)
            - f(x)
            - f(n1 - x)
            - f(successes - x)
            - f(n2 + x - successes)
    };
    let observed = ln_pmf(k1);
    let threshold = observed + (1.0 + 1e-7f64).ln();
    let p: f64 = (lowest..=highest).map(ln_pmf).filter(|&l| l <= threshold).map(f64::exp).sum();
    p.min(1.0)
}

/// McNemar's exact test, two-sided: twice the binomial(b + c, ½) tail of the rarer discordant
/// count, at most 1 (as statsmodels' `mcnemar(exact=True)`).
pub fn mcnemar_exact(t: PairedTable) -> f64 {
    let discordant = t.only_first + t.only_second;
    let rarer = t.only_first.min(t.only_second);
    let f = |n: usize| ln_factorial(n as u64);
    let ln_half = 0.5f64.ln() * discordant as f64;
    let tail: f64 = (0..=rarer).map(|x| (f(discordant) - f(x) - f(discordant - x) + ln_half).exp()).sum();
    (2.0 * tail).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Hand-worked: 3 of 10 against 7 of 10. Hypergeometric with margins 10/10/10/10: the tables
    // x = 0..3 and 7..10 are no likelier than x = 3; their probabilities add to
    // 2 × (1 + 100 + 2025 + 14400) / 184756 = 0.178903.
    #[test]
    fn fisher_by_hand() {
        let p = fisher_exact(3, 10, 7, 10);
        assert!((p - 2.0 * 16526.0 / 184756.0).abs() < 1e-12, "{p}");
        assert_eq!(fisher_exact(0, 0, 0, 0), 1.0);
        assert_eq!(fisher_exact(5, 5, 5, 5), 1.0);
    }

    // Hand-worked: 1 and 6 discordant pairs: 2 × (1 + 7) / 2^7 = 0.125.
    #[test]
    fn mcnemar_by_hand() {
        let t = PairedTable { both: 4, only_first: 1, only_second: 6, neither: 9 };
        assert!((mcnemar_exact(t) - 0.125).abs() < 1e-12);
        assert_eq!(mcnemar_exact(PairedTable { both: 3, neither: 2, ..Default::default() }), 1.0);
    }

    // Newcombe (1998), Table II, example (a): 56/70 against 48/80: p1 − p2 = 0.2000,
    // method 10 gives 0.0524 to 0.3339; here the difference is p2 − p1, so the signs turn.
    #[test]
    fn newcombe_matches_his_worked_example() {
        let (lo, hi) = newcombe(56, 70, 48, 80).unwrap();
        assert!((lo + 0.3339).abs() < 5e-5 && (hi + 0.0524).abs() < 5e-5, "{lo} {hi}");
    }

    // Hand-worked: pairs 1, 1, 7, 12 (both, first only, second only, neither), n = 21:
    // p1 = 2/21 (Wilson 0.0265 … 0.2891), p2 = 8/21 (0.2075 … 0.5916), ad − bc = 5 ≤ n/2 so
    // ψ = 0 and the marginal distances add in squares:
    // 0.2857 − √(0.1734² + 0.1939²) … 0.2857 + √(0.2103² + 0.0687²) = 0.0256 … 0.5069.
    #[test]
    fn newcombe_paired_by_hand() {
        let t = PairedTable { both: 1, only_first: 1, only_second: 7, neither: 12 };
        let (lo, hi) = newcombe_paired(t).unwrap();
        assert!((lo - 0.025559).abs() < 1e-5 && (hi - 0.506920).abs() < 1e-5, "{lo} {hi}");
    }
}
