//! The statistics the corpus tables print: Wilson score intervals for rates,
//! Student-t intervals for means, Cohen's kappa for agreement.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// The 95 % level of every interval printed.
pub const LEVEL: f64 = 0.95;

/// The two-sided normal quantile for [`LEVEL`] (1.959964…).
pub fn z() -> f64 {
    Normal::new(0.0, 1.0).expect("standard normal").inverse_cdf(1.0 - (1.0 - LEVEL) / 2.0)
}

/// The 95 % Wilson score interval of `k` successes in `n` trials; `None` for no trials.
pub fn wilson(k: usize, n: usize) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (none, all) = (k == 0, k == n);
    let (k, n, z) = (k as f64, n as f64, z());
    let p = k / n;
    let denominator = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
    // At k = 0 (k = n) the bound is exactly 0 (1): computed, the centre and the half-width
    // round apart (5.55e-17).
    let lower = if none { 0.0 } else { (centre - half).max(0.0) };
    let upper = if all { 1.0 } else { (centre + half).min(1.0) };
    Some((lower, upper))
}

/// Mean of `values` with its 95 % Student-t interval (`None` below two values).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanInterval {
    pub n: usize,
    pub mean: f64,
    pub ci95: Option<(f64, f64)>,
}

impl MeanInterval {
    /// The interval cut to `[lo, hi]`, for a quantity that cannot leave it (a
    /// coverage in 0–1): the t-interval of a few values near a bound reaches past it.
    pub fn clamped(self, lo: f64, hi: f64) -> Self {
        MeanInterval { ci95: self.ci95.map(|(a, b)| (a.clamp(lo, hi), b.clamp(lo, hi))), ..self }
    }
}

pub fn mean_interval(values: &[f64]) -> Option<MeanInterval> {
    let n = values.len();
    if n == 0 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    let ci95 = (n >= 2).then(|| {
        let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let t = StudentsT::new(0.0, 1.0, (n - 1) as f64)
            .expect("degrees of freedom >= 1")
            .inverse_cdf(1.0 - (1.0 - LEVEL) / 2.0);
        let half = t * (variance / n as f64).sqrt();
        (mean - half, mean + half)
    });
    Some(MeanInterval { n, mean, ci95 })
}

/// Cohen's kappa of a square confusion matrix (rows: rater A, columns: rater B,
/// categories ordered). `linear` weights disagreements by distance
/// (1 − |i − j| / (k − 1)), as for pass < partial < fail; with two categories,
/// or none of the middle one used, it equals the unweighted kappa.
/// `None` when it is undefined (no items, or chance agreement is total).
pub fn kappa(confusion: &[Vec<usize>], linear: bool) -> Option<f64> {
    let k = confusion.len();
    let n: usize = confusion.iter().flatten().sum();
    if n == 0 || k < 2 {
        return None;
    }
    let n = n as f64;
    let weight = |i: usize, j: usize| {
        if linear {
            1.0 - (i as f64 - j as f64).abs() / (k - 1) as f64
        } else if i == j {
            1.0
        } else {
            0.0
        }
    };
    let rows: Vec<f64> = confusion.iter().map(|r| r.iter().sum::<usize>() as f64 / n).collect();
    let cols: Vec<f64> = (0..k).map(|j| confusion.iter().map(|r| r[j]).sum::<usize>() as f64 / n).collect();
    let mut observed = 0.0;
    let mut expected = 0.0;
    for i in 0..k {
        for j in 0..k {
            observed += weight(i, j) * confusion[i][j] as f64 / n;
            expected += weight(i, j) * rows[i] * cols[j];
        }
    }
    (expected < 1.0 - 1e-12).then(|| (observed - expected) / (1.0 - expected))
}

#[cfg(test)]
mod tests {
    /// Issue 35 item 8: at k = 0 the lower bound printed 5.55e-17 (the centre and the half-width
    /// rounded apart); it is exactly 0, and at k = n the upper bound exactly 1.
    #[test]
    fn the_wilson_bounds_at_no_and_every_success_are_exact() {
        for n in [1, 3, 7, 20, 200, 9960] {
            assert_eq!(wilson(0, n).unwrap().0.to_string(), "0", "n = {n}");
            assert_eq!(wilson(n, n).unwrap().1.to_string(), "1", "n = {n}");
        }
    }

    use super::*;

    #[test]
    // Hand-computed values of the intervals and kappa are checked in tests/corpus.rs.
    fn kappa_undefined_when_everyone_agrees_on_one_category() {
        assert_eq!(kappa(&[vec![5, 0], vec![0, 0]], false), None);
        assert_eq!(kappa(&[vec![5, 0], vec![0, 5]], false), Some(1.0));
    }

    #[test]
    fn a_bounded_mean_keeps_its_interval_within_the_bounds() {
        // Coverage 1, 1, 0: mean 2/3, sd 0.57735, t(2) = 4.302653 → 2/3 ± 1.434218 = [-0.7676, 2.1009].
        let raw = mean_interval(&[1.0, 1.0, 0.0]).unwrap();
        let (lo, hi) = raw.ci95.unwrap();
        assert!((lo + 0.767551).abs() < 1e-5 && (hi - 2.100884).abs() < 1e-5, "{lo} {hi}");
        let clamped = raw.clamped(0.0, 1.0);
        assert_eq!(clamped.ci95, Some((0.0, 1.0)));
        assert_eq!(clamped.mean, raw.mean);
        // Inside the bounds nothing moves.
        let inside = mean_interval(&[0.4, 0.5, 0.6]).unwrap();
        assert_eq!(inside.clamped(0.0, 1.0), inside);
    }

    #[test]
    fn a_rate_of_zero_starts_at_zero() {
        let (lo, hi) = wilson(0, 10).unwrap();
        assert!(lo.abs() < 1e-12 && (hi - 0.2775327999).abs() < 1e-9, "{lo} {hi}");
    }
}
