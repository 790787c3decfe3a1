//! How upstream scores a predictor against the measured sweeps (docs/upstream.md §6; IS
//! `cmd/metricscore` and `sim/kernelmodel/harness/`). Pure functions over one sweep's values
//! in concurrency order; errors are signed percentages, tables print the mean of |e|.
//!
//! Two kinds of arm feed these functions the same way:
//! - a published arm (AISimulate, AIC) gives relatives: value / MEASURED value at the sweep's
//!   lowest concurrency, so its own first point is not 1 (it carries level as well as shape);
//! - a simulated arm (BLIS) gives absolute times.
//!
//! Shape re-anchors each side to its own first point, so both kinds go through
//! [`shape_errors`] unchanged. MAPE compares like with like: a published arm's relative against
//! the measured relative, a simulated arm's absolute against the measured absolute
//! (`inferencex_absolutes.json`); both are [`level_errors`].

/// Signed shape errors in percent for the points after the anchor (index 0 is the anchor and
/// is excluded): `(predicted[i] / predicted[0]) / measured_rel[i] - 1`.
///
/// `measured_rel` is the measured value relative to the sweep's anchor (1 at index 0), as the
/// corpus stores it. Callers drop the sweep before calling if any value is non-positive
/// ([`first_non_positive`]).
pub fn shape_errors(measured_rel: &[f64], predicted: &[f64]) -> Vec<f64> {
    assert_eq!(measured_rel.len(), predicted.len(), "one predicted value per measured point");
    let Some(&anchor) = predicted.first() else { return Vec::new() };
    measured_rel.iter().zip(predicted).skip(1).map(|(&m, &p)| ((p / anchor) / m - 1.0) * 100.0).collect()
}

/// Signed level errors in percent for every point, the anchor included:
/// `predicted[i] / measured[i] - 1` (relatives against relatives, or absolutes against
/// absolutes).
pub fn level_errors(measured: &[f64], predicted: &[f64]) -> Vec<f64> {
    assert_eq!(measured.len(), predicted.len(), "one predicted value per measured point");
    measured.iter().zip(predicted).map(|(&m, &p)| (p / m - 1.0) * 100.0).collect()
}

/// The TTFT spike rule: an interior point whose measured TTFT relative exceeds 10 x the larger
/// of its two neighbours is an excursion. Returns one flag per point; the first and last
/// points are never flagged. Flagged points leave TTFT shape and TTFT MAPE for every arm; TPOT
/// keeps them.
pub fn ttft_excursions(measured_ttft_rel: &[f64]) -> Vec<bool> {
    let n = measured_ttft_rel.len();
    (0..n)
        .map(|i| {
            i > 0 && i + 1 < n && measured_ttft_rel[i] > 10.0 * measured_ttft_rel[i - 1].max(measured_ttft_rel[i + 1])
        })
        .collect()
}

/// Index of the first value that is absent, non-finite or <= 0: any such value drops the whole
/// sweep for every arm (a sweep is scored whole or not at all).
pub fn first_non_positive(values: &[Option<f64>]) -> Option<usize> {
    values.iter().position(|v| !matches!(v, Some(x) if x.is_finite() && *x > 0.0))
}

/// Keeps the elements whose flag is false (used to apply [`ttft_excursions`]).
pub fn without_flagged(values: &[f64], flagged: &[bool]) -> Vec<f64> {
    values.iter().zip(flagged).filter(|(_, &f)| !f).map(|(&v, _)| v).collect()
}

/// Mean of |e| (the number the headline table prints). `None` on no values.
pub fn mean_abs(errors: &[f64]) -> Option<f64> {
    if errors.is_empty() {
        return None;
    }
    Some(errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len() as f64)
}

/// numpy's default percentile (`method="linear"`): position q/100 x (n-1) in the sorted
/// values, linearly interpolated between the neighbours. `None` on no values.
pub fn percentile_linear(values: &[f64], q: f64) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let pos = q / 100.0 * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    Some(sorted[lo] + (sorted[hi] - sorted[lo]) * frac)
}

/// The signed statistics kernelscore prints for a set of signed errors (percent).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignedStats {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub mean_abs: f64,
    /// Share of errors strictly above 0, in percent (the prediction too high / rising too fast).
    pub share_over_zero_pct: f64,
    pub p10: f64,
    pub p90: f64,
}

/// `None` on no values.
pub fn signed_stats(errors: &[f64]) -> Option<SignedStats> {
    let n = errors.len();
    if n == 0 {
        return None;
    }
    Some(SignedStats {
        n,
        mean: errors.iter().sum::<f64>() / n as f64,
        median: percentile_linear(errors, 50.0)?,
        mean_abs: mean_abs(errors)?,
        share_over_zero_pct: errors.iter().filter(|&&e| e > 0.0).count() as f64 / n as f64 * 100.0,
        p10: percentile_linear(errors, 10.0)?,
        p90: percentile_linear(errors, 90.0)?,
    })
}

/// Log-space statistics of signed percentage errors: x = ln(1 + e/100) for every e > -100
/// (smaller errors have no logarithm and are dropped, counted in `dropped`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogStats {
    pub n: usize,
    pub dropped: usize,
    pub mean: f64,
    /// Sample standard deviation (n - 1 in the denominator); `None` for n < 2.
    pub sd: Option<f64>,
    /// 100 x (exp(mean) - 1): the geometric-mean bias in percent.
    pub bias_pct: f64,
}

/// `None` when no error is above -100.
pub fn log_stats(errors: &[f64]) -> Option<LogStats> {
    let logs: Vec<f64> = errors.iter().filter(|&&e| e > -100.0).map(|e| (e / 100.0).ln_1p()).collect();
    let n = logs.len();
    if n == 0 {
        return None;
    }
    let mean = logs.iter().sum::<f64>() / n as f64;
    let sd = (n >= 2).then(|| (logs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt());
    Some(LogStats { n, dropped: errors.len() - n, mean, sd, bias_pct: 100.0 * mean.exp_m1() })
}

/// The monotone subset: a sweep belongs when its measured TPOT relative strictly increases
/// with concurrency at every step.
pub fn strictly_increasing(measured_tpot_rel: &[f64]) -> bool {
    measured_tpot_rel.windows(2).all(|w| w[1] > w[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    // AISimulate's own test rows (AIS tests/test_e2e_accuracy_overview.py, docs/upstream.md
    // §4): topology Alpha, concurrency 1 and 2, times in ms. Relatives are against the
    // MEASURED anchor, as the corpus stores them.
    const MEASURED_TTFT: [f64; 2] = [100.0, 200.0];
    const MEASURED_TPOT: [f64; 2] = [10.0, 20.0];
    const AIC_TTFT: [f64; 2] = [110.0, 220.0];
    const AIC_TPOT: [f64; 2] = [12.0, 18.0];
    const AISIM_TTFT: [f64; 2] = [90.0, 210.0];
    const AISIM_TPOT: [f64; 2] = [11.0, 22.0];

    fn rel(values: [f64; 2], anchor: f64) -> Vec<f64> {
        values.iter().map(|v| v / anchor).collect()
    }

    fn shape(measured: [f64; 2], predicted: [f64; 2]) -> f64 {
        let m = rel(measured, measured[0]);
        let p = rel(predicted, measured[0]);
        mean_abs(&shape_errors(&m, &p)).unwrap()
    }

    fn mape(measured: [f64; 2], predicted: [f64; 2]) -> f64 {
        let m = rel(measured, measured[0]);
        let p = rel(predicted, measured[0]);
        mean_abs(&level_errors(&m, &p)).unwrap()
    }

    #[test]
    fn shape_matches_aisimulate_test_rows() {
        assert!(close(shape(MEASURED_TPOT, AIC_TPOT), 25.0));
        assert!(close(shape(MEASURED_TTFT, AIC_TTFT), 0.0));
        assert_eq!(format!("{:.2}", shape(MEASURED_TTFT, AISIM_TTFT)), "16.67");
        assert!(close(shape(MEASURED_TPOT, AISIM_TPOT), 0.0));
    }

    #[test]
    fn mape_matches_aisimulate_test_rows() {
        assert!(close(mape(MEASURED_TTFT, AIC_TTFT), 10.0));
        assert!(close(mape(MEASURED_TPOT, AIC_TPOT), 15.0));
        assert!(close(mape(MEASURED_TTFT, AISIM_TTFT), 7.5));
        assert!(close(mape(MEASURED_TPOT, AISIM_TPOT), 10.0));
    }

    /// The anchor-inclusive variant gives 12.5 and 8.33 on the same rows: the vectors
    /// discriminate, and our definition is not that one.
    #[test]
    fn anchor_inclusive_variant_gives_other_numbers() {
        let inclusive = |measured: [f64; 2], predicted: [f64; 2]| {
            let m = rel(measured, measured[0]);
            let p = rel(predicted, measured[0]);
            let mut e = vec![0.0]; // the anchor compares with itself after re-anchoring
            e.extend(shape_errors(&m, &p));
            mean_abs(&e).unwrap()
        };
        assert!(close(inclusive(MEASURED_TPOT, AIC_TPOT), 12.5));
        assert_eq!(format!("{:.2}", inclusive(MEASURED_TTFT, AISIM_TTFT)), "8.33");
        assert!(!close(inclusive(MEASURED_TPOT, AIC_TPOT), shape(MEASURED_TPOT, AIC_TPOT)));
    }

    /// A simulated arm in absolute time scores the same shape as its relatives: only ratios
    /// to its own first point matter.
    #[test]
    fn shape_is_invariant_to_the_arms_level() {
        let m = [1.0, 1.5, 2.5];
        let p = [3.0, 4.0, 9.0];
        let scaled: Vec<f64> = p.iter().map(|x| x * 1000.0).collect();
        let a = shape_errors(&m, &p);
        let b = shape_errors(&m, &scaled);
        assert_eq!(a.len(), 2);
        assert!(a.iter().zip(&b).all(|(x, y)| close(*x, *y)));
        assert!(close(a[0], (4.0 / 3.0 / 1.5 - 1.0) * 100.0));
    }

    #[test]
    fn errors_are_signed() {
        assert!(close(level_errors(&[2.0], &[1.0])[0], -50.0));
        assert!(close(shape_errors(&[1.0, 2.0], &[1.0, 3.0])[0], 50.0));
    }

    #[test]
    fn excursion_is_an_interior_point_above_ten_times_both_neighbours() {
        assert_eq!(ttft_excursions(&[1.0, 2.0, 24.01, 2.4, 3.0]), [false, false, true, false, false]);
        // exactly 10 x is not above it
        assert_eq!(ttft_excursions(&[1.0, 2.0, 24.0, 2.4]), [false; 4]);
        // endpoints are never excursions, however large
        assert_eq!(ttft_excursions(&[100.0, 1.0, 1.0, 100.0]), [false; 4]);
        // compared with the LARGER neighbour
        assert_eq!(ttft_excursions(&[1.0, 15.0, 2.0]), [false, false, false]);
        assert_eq!(ttft_excursions(&[1.0, 21.0, 2.0]), [false, true, false]);
        // ... on either side: the left one here (21 is under 10 x 3)
        assert_eq!(ttft_excursions(&[3.0, 21.0, 2.0]), [false; 3]);
        assert!(ttft_excursions(&[]).is_empty());
    }

    #[test]
    fn flagged_points_are_left_out_and_the_rest_kept_in_order() {
        assert_eq!(without_flagged(&[1.0, 2.0, 3.0, 4.0], &[false, true, false, false]), [1.0, 3.0, 4.0]);
        assert_eq!(without_flagged(&[1.0, 2.0], &[true, true]), Vec::<f64>::new());
    }

    #[test]
    fn non_positive_or_absent_value_is_found() {
        assert_eq!(first_non_positive(&[Some(1.0), Some(2.0)]), None);
        assert_eq!(first_non_positive(&[Some(1.0), Some(0.0)]), Some(1));
        assert_eq!(first_non_positive(&[Some(-1.0)]), Some(0));
        assert_eq!(first_non_positive(&[Some(1.0), None]), Some(1));
        assert_eq!(first_non_positive(&[Some(f64::NAN)]), Some(0));
    }

    /// numpy's documented example: a = [[10, 7, 4], [3, 2, 1]]; np.percentile(a, 50) == 3.5,
    /// and along axis 0 [6.5, 4.5, 2.5]. np.percentile([1, 2, 3, 4], [10, 90]) == [1.3, 3.7].
    #[test]
    fn percentile_is_numpys_linear() {
        assert_eq!(percentile_linear(&[10.0, 7.0, 4.0, 3.0, 2.0, 1.0], 50.0), Some(3.5));
        assert_eq!(percentile_linear(&[10.0, 3.0], 50.0), Some(6.5));
        assert!(close(percentile_linear(&[1.0, 2.0, 3.0, 4.0], 10.0).unwrap(), 1.3));
        assert!(close(percentile_linear(&[1.0, 2.0, 3.0, 4.0], 90.0).unwrap(), 3.7));
        assert_eq!(percentile_linear(&[5.0], 90.0), Some(5.0));
        assert_eq!(percentile_linear(&[], 50.0), None);
    }

    #[test]
    fn signed_stats_known_answer() {
        let s = signed_stats(&[-10.0, 0.0, 5.0, 25.0]).unwrap();
        assert_eq!(s.n, 4);
        assert!(close(s.mean, 5.0));
        assert!(close(s.median, 2.5));
        assert!(close(s.mean_abs, 10.0));
        assert!(close(s.share_over_zero_pct, 50.0));
        assert!(close(s.p10, -7.0)); // pos 0.3: -10 + 0.3 x 10
        assert!(close(s.p90, 19.0)); // pos 2.7: 5 + 0.7 x 20
    }

    #[test]
    fn log_stats_known_answer() {
        // ln(1.1) and ln(0.9); -100 and below have no logarithm and are dropped
        let s = log_stats(&[10.0, -10.0, -100.0, -150.0]).unwrap();
        assert_eq!((s.n, s.dropped), (2, 2));
        let (a, b) = (1.1f64.ln(), 0.9f64.ln());
        let mean = (a + b) / 2.0;
        assert!(close(s.mean, mean));
        assert!(close(s.sd.unwrap(), ((a - mean).powi(2) * 2.0).sqrt()));
        assert!(close(s.bias_pct, 100.0 * (0.99f64.sqrt() - 1.0)));
        assert_eq!(log_stats(&[5.0]).unwrap().sd, None);
        // Three kept, two dropped; logs ln 2, ln 0.5, ln 4, whose squared deviations sum above 1.
        let s = log_stats(&[100.0, -50.0, -100.0, 300.0, -200.0]).unwrap();
        assert_eq!((s.n, s.dropped), (3, 2));
        let logs = [2f64.ln(), 0.5f64.ln(), 4f64.ln()];
        let mean = logs.iter().sum::<f64>() / 3.0;
        let var = logs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 2.0;
        assert!(close(s.sd.unwrap(), var.sqrt()), "{s:?}");
    }

    #[test]
    fn monotone_means_strictly_increasing() {
        assert!(strictly_increasing(&[1.0, 1.1, 2.0]));
        assert!(!strictly_increasing(&[1.0, 1.1, 1.1]));
        assert!(!strictly_increasing(&[1.0, 0.9]));
        assert!(strictly_increasing(&[1.0]));
    }
}
