//! How sure a mean |e| is: a percentile bootstrap over sweeps (docs/scoring.md, "Intervals").
//!
//! The unit resampled is the sweep, not the point: the points of one sweep share a model, a
//! GPU and a workload, so they are not independent draws. One resample picks `n` sweeps with
//! replacement out of the `n` scored ones and recomputes the figure the table prints, the
//! pooled mean |e| over every comparison of the picked sweeps (sum of |e| over sum of counts;
//! a sweep picked twice counts twice). The interval is the 2.5th and 97.5th percentile of the
//! resampled figures.
//!
//! The picks are numpy's: `np.random.seed(SEED); np.random.randint(0, n, size=(B, n))`, row r
//! being resample r ([`crate::numpy::RandomState`], the project's MT19937 port), so numpy
//! recomputes any interval from the same per-sweep values. Every cell draws from a fresh
//! generator at the same seed: an interval depends only on its own sweeps, never on which
//! other cells were computed before it. The percentiles are numpy's default (`method="linear"`),
//! including its two-sided interpolation ([`percentile_linear`]).
//!
//! A paired interval (two arms over the same sweeps, [`paired_interval`]) resamples the sweeps
//! once for both arms and takes the percentiles of the difference of their figures.

use crate::numpy::RandomState;
use std::fmt;

/// The generator's seed: fixed, so an interval is the same on every run and machine.
pub const SEED: u32 = 20_261_201;
/// Resamples per interval unless the caller says otherwise (`--resamples`).
pub const DEFAULT_RESAMPLES: usize = 10_000;
/// The largest resample count accepted: beyond it the index table alone passes a gigabyte
/// for the headline's 113 sweeps, and the interval's digits stop moving long before.
pub const MAX_RESAMPLES: usize = 1_000_000;
/// Fewer resamples than this leave less than one resample in each 2.5% tail: the percentiles
/// are then the extremes of a handful of draws, and an interval can exclude its own estimate
/// (one resample gave `8.73 [10.72, 10.72]`).
pub const MIN_RESAMPLES: usize = 40;
/// The interval's two percentiles (a central 95% interval).
pub const LOW_PERCENTILE: f64 = 2.5;
pub const HIGH_PERCENTILE: f64 = 97.5;

/// One sweep's contribution to a mean |e|: the sum of |e| over its comparisons, and their count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepTotal {
    pub sum_abs: f64,
    pub n: usize,
}

impl SweepTotal {
    /// From one sweep's signed errors; `Err(i)` names the first non-finite error.
    pub fn of(errors: &[f64]) -> Result<SweepTotal, usize> {
        if let Some(i) = errors.iter().position(|e| !e.is_finite()) {
            return Err(i);
        }
        Ok(SweepTotal { sum_abs: errors.iter().map(|e| e.abs()).sum(), n: errors.len() })
    }
}

/// A 95% interval (low <= high).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// Zero is strictly outside the interval.
    pub fn excludes_zero(&self) -> bool {
        self.low > 0.0 || self.high < 0.0
    }
}

/// Why an interval is not computed. Never NaN, never a panic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotDefined {
    /// Fewer than two sweeps with comparisons: one sweep resampled is always itself.
    TooFewSweeps { sweeps: usize },
    /// A sweep's total is not finite (index into the totals given).
    NonFinite { sweep: usize },
    /// The two arms of a paired interval do not cover the same sweeps.
    Unpaired { a: usize, b: usize },
    /// A resample count below [`MIN_RESAMPLES`] or above [`MAX_RESAMPLES`].
    Resamples { resamples: usize },
}

impl fmt::Display for NotDefined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotDefined::TooFewSweeps { sweeps } => {
                write!(f, "not defined: {sweeps} sweep(s) with comparisons, a bootstrap over sweeps needs two")
            }
            NotDefined::NonFinite { sweep } => write!(f, "refused: sweep {sweep} has a non-finite error"),
            NotDefined::Unpaired { a, b } => write!(f, "not defined: {a} sweeps against {b}, a pair needs the same"),
            NotDefined::Resamples { resamples } => {
                write!(
                    f,
                    "{resamples} resamples: expected {MIN_RESAMPLES} to {MAX_RESAMPLES} (fewer leave less than one resample in each 2.5% tail of a 95% interval)"
                )
            }
        }
    }
}

impl std::error::Error for NotDefined {}

/// A resample count is usable: [`MIN_RESAMPLES`] to [`MAX_RESAMPLES`].
pub fn check_resamples(resamples: usize) -> Result<(), NotDefined> {
    if !(MIN_RESAMPLES..=MAX_RESAMPLES).contains(&resamples) {
        return Err(NotDefined::Resamples { resamples });
    }
    Ok(())
}

/// The resample table for `n` sweeps: `resamples` rows of `n` sweep indices, row-major, exactly
/// `np.random.seed(seed); np.random.randint(0, n, size=(resamples, n))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resamples {
    pub sweeps: usize,
    pub resamples: usize,
    pub seed: u32,
    indices: Vec<u32>,
}

impl Resamples {
    pub fn draw(sweeps: usize, resamples: usize, seed: u32) -> Result<Resamples, NotDefined> {
        check_resamples(resamples)?;
        if sweeps < 2 {
            return Err(NotDefined::TooFewSweeps { sweeps });
        }
        let mut drawn = Vec::with_capacity(sweeps * resamples);
        RandomState::seed(seed)
            .randint_into(0, sweeps as i128, sweeps * resamples, &mut drawn)
            .expect("0..sweeps with sweeps >= 2 is a valid int64 range");
        let indices = drawn.into_iter().map(|i| i as u32).collect();
        Ok(Resamples { sweeps, resamples, seed, indices })
    }

    /// Resample `r`'s sweep indices.
    pub fn row(&self, r: usize) -> &[u32] {
        &self.indices[r * self.sweeps..(r + 1) * self.sweeps]
    }
}

/// Sweeps with comparisons; a sweep with none adds nothing to the figure nor to a resample.
fn with_comparisons(totals: &[SweepTotal]) -> Result<Vec<SweepTotal>, NotDefined> {
    if let Some(i) = totals.iter().position(|t| !t.sum_abs.is_finite()) {
        return Err(NotDefined::NonFinite { sweep: i });
    }
    Ok(totals.iter().copied().filter(|t| t.n > 0).collect())
}

/// The 95% percentile-bootstrap interval of the pooled mean |e| of `totals`, drawing its
/// resamples with [`Resamples::draw`] at `seed`.
pub fn interval(totals: &[SweepTotal], resamples: usize, seed: u32) -> Result<Interval, NotDefined> {
    let kept = with_comparisons(totals)?;
    let table = Resamples::draw(kept.len(), resamples, seed)?;
    Ok(interval_with(&kept, &table))
}

/// [`interval`] with a table already drawn for `totals.len()` sweeps (every total with
/// comparisons; see [`interval`] for the checks).
pub fn interval_with(totals: &[SweepTotal], table: &Resamples) -> Interval {
    assert_eq!(totals.len(), table.sweeps, "one resample index per sweep");
    let sums: Vec<f64> = totals.iter().map(|t| t.sum_abs).collect();
    let counts: Vec<f64> = totals.iter().map(|t| t.n as f64).collect();
    let mut figures: Vec<f64> = (0..table.resamples)
        .map(|r| {
            let (mut s, mut c) = (0.0, 0.0);
            for &i in table.row(r) {
                s += sums[i as usize];
                c += counts[i as usize];
            }
            s / c
        })
        .collect();
    percentile_interval(&mut figures)
}

/// The 95% paired-bootstrap interval of `mean|e|(a) - mean|e|(b)` over the same sweeps (`a[i]`
/// and `b[i]` are one sweep): each resample picks sweeps once for both.
pub fn paired_interval(
    a: &[SweepTotal],
    b: &[SweepTotal],
    resamples: usize,
    seed: u32,
) -> Result<Interval, NotDefined> {
    if a.len() != b.len() {
        return Err(NotDefined::Unpaired { a: a.len(), b: b.len() });
    }
    for (i, t) in a.iter().chain(b).enumerate() {
        if !t.sum_abs.is_finite() {
            return Err(NotDefined::NonFinite { sweep: i % a.len() });
        }
    }
    // A sweep kept is one where both arms have comparisons (the scorer gives both the same).
    let kept: Vec<(SweepTotal, SweepTotal)> =
        a.iter().copied().zip(b.iter().copied()).filter(|(x, y)| x.n > 0 && y.n > 0).collect();
    let table = Resamples::draw(kept.len(), resamples, seed)?;
    Ok(paired_interval_with(&kept, &table))
}

/// [`paired_interval`] with a table already drawn for `pairs.len()` sweeps.
pub fn paired_interval_with(pairs: &[(SweepTotal, SweepTotal)], table: &Resamples) -> Interval {
    assert_eq!(pairs.len(), table.sweeps, "one resample index per sweep");
    let mut figures: Vec<f64> = (0..table.resamples)
        .map(|r| {
            let (mut sa, mut ca, mut sb, mut cb) = (0.0, 0.0, 0.0, 0.0);
            for &i in table.row(r) {
                let (x, y) = &pairs[i as usize];
                sa += x.sum_abs;
                ca += x.n as f64;
                sb += y.sum_abs;
                cb += y.n as f64;
            }
            sa / ca - sb / cb
        })
        .collect();
    percentile_interval(&mut figures)
}

/// The [`LOW_PERCENTILE`] and [`HIGH_PERCENTILE`] of `figures` (reordered in place).
pub fn percentile_interval(figures: &mut [f64]) -> Interval {
    let low = percentile_linear(figures, LOW_PERCENTILE);
    let high = percentile_linear(figures, HIGH_PERCENTILE);
    Interval { low, high }
}

/// numpy's `np.percentile(values, q)` with the default `method="linear"`, bit for bit: the
/// virtual index `(q / 100) * (n - 1)`, split into `i = floor` and `g = frac`; the value is
/// `v[i] + (v[i+1] - v[i]) * g` when `g < 0.5` and `v[i+1] - (v[i+1] - v[i]) * (1 - g)`
/// otherwise (numpy `_lerp`: the form nearer the end it approaches is the exact one at g = 0
/// and g = 1). `values` is reordered (two selections, no full sort). Panics on no values:
/// callers hold at least one resample.
pub fn percentile_linear(values: &mut [f64], q: f64) -> f64 {
    assert!(!values.is_empty(), "a percentile of no values");
    // numpy refuses q outside 0..=100; within it the index below never passes the last value.
    assert!((0.0..=100.0).contains(&q), "a percentile of {q}, outside 0 to 100");
    let n = values.len();
    let virtual_index = (q / 100.0) * (n - 1) as f64;
    let i = virtual_index.floor() as usize;
    let g = virtual_index - i as f64;
    let (_, &mut below, above) = values.select_nth_unstable_by(i, f64::total_cmp);
    let next = above.iter().copied().min_by(f64::total_cmp).unwrap_or(below);
    let diff = next - below;
    if g >= 0.5 {
        next - diff * (1.0 - g)
    } else {
        below + diff * g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn totals(v: &[(f64, usize)]) -> Vec<SweepTotal> {
        v.iter().map(|&(sum_abs, n)| SweepTotal { sum_abs, n }).collect()
    }

    #[test]
    fn the_table_is_numpys_randint_in_row_order() {
        let t = Resamples::draw(5, MIN_RESAMPLES, 7).unwrap();
        let flat = RandomState::seed(7).randint(0, 5, 5 * MIN_RESAMPLES).unwrap();
        let rows: Vec<i64> = (0..MIN_RESAMPLES).flat_map(|r| t.row(r).iter().map(|&i| i64::from(i))).collect();
        assert_eq!(rows, flat);
    }

    #[test]
    fn one_sweep_is_not_defined_and_says_why() {
        let e = interval(&totals(&[(3.0, 2)]), 100, SEED).unwrap_err();
        assert_eq!(e, NotDefined::TooFewSweeps { sweeps: 1 });
        assert!(e.to_string().contains("needs two"), "{e}");
        // a sweep without comparisons does not count as one
        let e = interval(&totals(&[(3.0, 2), (0.0, 0)]), 100, SEED).unwrap_err();
        assert_eq!(e, NotDefined::TooFewSweeps { sweeps: 1 });
        assert_eq!(interval(&[], 100, SEED).unwrap_err(), NotDefined::TooFewSweeps { sweeps: 0 });
    }

    #[test]
    fn equal_sweeps_give_a_point_interval() {
        // Every sweep has mean |e| 4: every resample is 4, so is each percentile.
        let i = interval(&totals(&[(8.0, 2), (12.0, 3), (4.0, 1)]), 1000, SEED).unwrap();
        assert_eq!(i, Interval { low: 4.0, high: 4.0 });
        assert!(!i.excludes_zero() || i.low > 0.0);
    }

    #[test]
    fn two_sweeps_by_hand() {
        // Sweep A: |e| sum 2 over 1 comparison, sweep B: 12 over 3. A resample is AA (2), AB or
        // BA (14/4 = 3.5) or BB (4); with 4000 resamples both tails hold ~1000 of the extremes.
        let t = totals(&[(2.0, 1), (12.0, 3)]);
        let i = interval(&t, 4000, SEED).unwrap();
        assert_eq!(i, Interval { low: 2.0, high: 4.0 });
        // Reproduce it from the table: the resampled figures are only those three values.
        let table = Resamples::draw(2, 4000, SEED).unwrap();
        let mut figures: Vec<f64> = (0..4000)
            .map(|r| match (table.row(r)[0], table.row(r)[1]) {
                (0, 0) => 2.0,
                (1, 1) => 4.0,
                _ => 3.5,
            })
            .collect();
        assert_eq!(percentile_interval(&mut figures), i);
        // Two resamples of AA and BB: the 2.5th percentile is 2 + 2 x 0.025.
        let mut two = vec![4.0, 2.0];
        assert_eq!(percentile_interval(&mut two), Interval { low: 2.0 + 2.0 * 0.025, high: 4.0 - 2.0 * 0.025 });
    }

    #[test]
    fn the_pooled_mean_not_the_mean_of_sweep_means() {
        // The wrong statistic (mean of per-sweep means) would put AB at (2 + 4) / 2 = 3.
        let t = totals(&[(2.0, 1), (12.0, 3)]);
        let table = Resamples::draw(2, 50, SEED).unwrap();
        let mixed = (0..50).find(|&r| table.row(r)[0] != table.row(r)[1]).unwrap();
        let one = Resamples { sweeps: 2, resamples: 1, seed: SEED, indices: table.row(mixed).to_vec() };
        assert_eq!(interval_with(&t, &one), Interval { low: 3.5, high: 3.5 });
    }

    #[test]
    fn percentile_edges_match_numpys_linear_rule() {
        // One value: every percentile is it.
        assert_eq!(percentile_linear(&mut [7.5], 2.5), 7.5);
        // q = 0 and q = 100 are the minimum and maximum, exactly.
        let v = [3.0, -1.0, 10.0, 2.0];
        assert_eq!(percentile_linear(&mut v.clone(), 0.0), -1.0);
        assert_eq!(percentile_linear(&mut v.clone(), 100.0), 10.0);
        // An index landing on an element: no interpolation (q = 50 over 5 values is index 2).
        assert_eq!(percentile_linear(&mut [5.0, 1.0, 4.0, 2.0, 3.0], 50.0), 3.0);
        // Between two: numpy percentile([1, 2, 3, 4], 2.5) = 1.075, (.., 97.5) = 3.925.
        assert_eq!(percentile_linear(&mut [4.0, 3.0, 2.0, 1.0], 2.5), 1.0 + 3.0 * 0.025);
        let g = 0.975 * 3.0 - 2.0;
        assert_eq!(percentile_linear(&mut [4.0, 3.0, 2.0, 1.0], 97.5), 4.0 - (4.0 - 3.0) * (1.0 - g));
        // Ties: a repeated value is a flat stretch.
        assert_eq!(percentile_linear(&mut [2.0, 2.0, 2.0, 9.0], 50.0), 2.0);
        // g >= 0.5 takes the upper form; here the two forms differ in the last bit, and numpy
        // 2.2.6 prints np.percentile([0.1, 1.0], 97.5) as 0.9775 (the lower form is 0.97749...).
        let (a, b) = (0.1, 1.0);
        let g: f64 = 0.975;
        let (lower_form, upper_form) = (a + (b - a) * g, b - (b - a) * (1.0 - g));
        assert_ne!(lower_form, upper_form, "the case must tell the two forms apart");
        assert_eq!(percentile_linear(&mut [b, a], 97.5), upper_form);
        assert_eq!(percentile_linear(&mut [b, a], 97.5), 0.9775);
        // and g < 0.5 the lower one
        let g: f64 = 0.025;
        assert_eq!(percentile_linear(&mut [b, a], 2.5), a + (b - a) * g);
    }

    #[test]
    fn paired_intervals() {
        // The same arm against itself: every resampled difference is exactly 0.
        let a = totals(&[(2.0, 1), (12.0, 3), (5.0, 2)]);
        assert_eq!(paired_interval(&a, &a, 1000, SEED).unwrap(), Interval { low: 0.0, high: 0.0 });
        // A constant shift of 1 per comparison on every sweep: the difference is always 1.
        let b: Vec<SweepTotal> = a.iter().map(|t| SweepTotal { sum_abs: t.sum_abs + t.n as f64, n: t.n }).collect();
        let i = paired_interval(&b, &a, 1000, SEED).unwrap();
        assert!((i.low - 1.0).abs() < 1e-12 && (i.high - 1.0).abs() < 1e-12, "{i:?}");
        assert!(i.excludes_zero());
        assert_eq!(paired_interval(&a, &a[..2], 100, SEED).unwrap_err(), NotDefined::Unpaired { a: 3, b: 2 });
        // A non-finite total of the second arm names its sweep (the third), not its place in
        // both lists.
        let mut bad = a.clone();
        bad[2].sum_abs = f64::NAN;
        assert_eq!(paired_interval(&a, &bad, 100, SEED).unwrap_err(), NotDefined::NonFinite { sweep: 2 });
    }

    #[test]
    fn a_paired_interval_keeps_only_the_sweeps_both_arms_have_comparisons_in() {
        // The middle sweep has no comparison in `a`: left out, the two arms agree on the rest.
        let a = totals(&[(2.0, 1), (0.0, 0), (5.0, 2)]);
        let b = totals(&[(2.0, 1), (3.0, 1), (5.0, 2)]);
        assert_eq!(paired_interval(&a, &b, 1000, SEED).unwrap(), Interval { low: 0.0, high: 0.0 });
        assert_eq!(paired_interval(&b, &a, 1000, SEED).unwrap(), Interval { low: 0.0, high: 0.0 });
    }

    #[test]
    fn an_interval_excludes_zero_only_strictly_on_one_side() {
        let i = |low, high| Interval { low, high };
        assert!(i(0.5, 2.0).excludes_zero());
        assert!(i(-2.0, -0.5).excludes_zero());
        for (low, high) in [(-1.0, 1.0), (0.0, 1.0), (-1.0, 0.0), (0.0, 0.0)] {
            assert!(!i(low, high).excludes_zero(), "[{low}, {high}]");
        }
    }

    #[test]
    fn bad_inputs_are_refused() {
        let e = interval(&totals(&[(1.0, 1), (f64::NAN, 2), (1.0, 1)]), 100, SEED).unwrap_err();
        assert_eq!(e, NotDefined::NonFinite { sweep: 1 });
        assert_eq!(SweepTotal::of(&[1.0, f64::INFINITY]), Err(1));
        let t = totals(&[(1.0, 1), (2.0, 1)]);
        assert_eq!(interval(&t, 0, SEED).unwrap_err(), NotDefined::Resamples { resamples: 0 });
        // Too few for a 95% interval: one resample put the interval beside its estimate.
        assert_eq!(interval(&t, 1, SEED).unwrap_err(), NotDefined::Resamples { resamples: 1 });
        assert_eq!(interval(&t, MIN_RESAMPLES - 1, SEED).unwrap_err(), NotDefined::Resamples { resamples: 39 });
        assert!(interval(&t, MIN_RESAMPLES, SEED).is_ok());
        assert_eq!(
            interval(&t, MAX_RESAMPLES + 1, SEED).unwrap_err(),
            NotDefined::Resamples { resamples: MAX_RESAMPLES + 1 }
        );
    }

    #[test]
    fn same_inputs_same_interval() {
        let t = totals(&[(2.0, 1), (12.0, 3), (5.0, 2), (40.0, 4), (1.0, 5)]);
        assert_eq!(interval(&t, 2000, SEED), interval(&t, 2000, SEED));
        assert_ne!(interval(&t, 2000, SEED), interval(&t, 2000, SEED + 1));
    }
}
