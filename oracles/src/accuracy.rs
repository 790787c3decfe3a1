//! AISimulate's published accuracy definitions (docs/upstream.md §4), as pure functions.
//!
//! Source of the definitions: AIS `scripts/e2e_accuracy/build_e2e_accuracy_overview.py` and
//! its test `tests/test_e2e_accuracy_overview.py`. The arms (aisimulate, aic) and the metrics
//! (tpot, ttft) are data, so every definition is written once.
//!
//! The point of this module is that the three shape definitions differ: only
//! [`ShapeDefinition::AnchorExcluded`] is AISimulate's own; the other two exist so the audit can
//! show that they give different numbers on the same data.

use std::fmt;

/// A predictor whose published numbers ship inside the corpora (AISimulate, AIC); the scorer's
/// `harness::score::Arm` is any predictor with its values, simulated ones included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PublishedArm {
    Aisimulate,
    Aic,
}

impl PublishedArm {
    pub const ALL: [PublishedArm; 2] = [PublishedArm::Aisimulate, PublishedArm::Aic];

    /// The key used in the corpora and in value names (`aisimulate.tpot...`).
    pub fn key(self) -> &'static str {
        match self {
            PublishedArm::Aisimulate => "aisimulate",
            PublishedArm::Aic => "aic",
        }
    }
}

impl fmt::Display for PublishedArm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// A client-observed latency metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Metric {
    Tpot,
    Ttft,
}

impl Metric {
    pub const ALL: [Metric; 2] = [Metric::Tpot, Metric::Ttft];

    pub fn key(self) -> &'static str {
        match self {
            Metric::Tpot => "tpot",
            Metric::Ttft => "ttft",
        }
    }
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// How a predicted curve is compared with the measured one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShapeDefinition {
    /// AISimulate's definition: each side divided by ITS OWN anchor (the first kept row), and
    /// the anchor row itself is not a comparison.
    AnchorExcluded,
    /// The tempting variant: the same normalisation, but the anchor row counts as a comparison
    /// (it always scores 0, so it dilutes the mean).
    AnchorIncluded,
    /// Both sides divided by the MEASURED anchor (what `*_relative` already is), every row
    /// counted: level error leaks into the "shape".
    SharedMeasuredAnchor,
}

impl ShapeDefinition {
    pub const ALL: [ShapeDefinition; 3] =
        [ShapeDefinition::AnchorExcluded, ShapeDefinition::AnchorIncluded, ShapeDefinition::SharedMeasuredAnchor];

    pub fn key(self) -> &'static str {
        match self {
            ShapeDefinition::AnchorExcluded => "shape_anchor_excluded",
            ShapeDefinition::AnchorIncluded => "shape_anchor_included",
            ShapeDefinition::SharedMeasuredAnchor => "shape_shared_measured_anchor",
        }
    }
}

impl fmt::Display for ShapeDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// Python's `round(x, ndigits)` for floats: the decimal nearest to the EXACT binary value of
/// `x`, ties to even, converted back to the nearest double. So `round(2.675, 2) == 2.67`
/// (2.675 is stored as 2.67499999...), `round(0.125, 2) == 0.12` (an exact tie, even) and
/// `round(0.375, 2) == 0.38`. NaN and infinities come back unchanged, like Python.
///
/// `ndigits` is limited to 0..=22 so every intermediate fits in a u128 (m < 2^53, 10^22 < 2^74).
pub fn python_round(x: f64, ndigits: u32) -> f64 {
    assert!(ndigits <= 22, "python_round supports 0..=22 digits");
    // No case for NaN, infinities or zeros: the first two have the top exponent and come back
    // below as "already an integer", a zero's mantissa rounds to a zero of its sign.
    let bits = x.to_bits();
    let negative = bits >> 63 == 1;
    let exponent_bits = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1u64 << 52) - 1);
    // x = mantissa * 2^exponent exactly.
    let (mantissa, exponent) =
        if exponent_bits == 0 { (fraction, -1074) } else { (fraction + (1u64 << 52), exponent_bits - 1075) };
    if exponent >= 0 {
        return x; // already an integer
    }
    let shift = (-exponent) as u32;
    let scaled = mantissa as u128 * 10u128.pow(ndigits); // < 2^127
                                                         // scaled / 2^shift, rounded half to even, all in integers.
    let quotient = if shift >= 128 {
        0 // scaled < 2^127 <= 2^(shift-1): below half
    } else {
        let q = scaled >> shift;
        let remainder = scaled - (q << shift);
        let half = 1u128 << (shift - 1);
        if remainder > half || (remainder == half && q % 2 == 1) {
            q + 1
        } else {
            q
        }
    };
    // Rust's float parsing is correctly rounded, as is CPython's strtod on the same digits.
    let magnitude: f64 =
        format!("{quotient}e-{ndigits}").parse().expect("an integer with a decimal exponent always parses");
    if negative {
        -magnitude
    } else {
        magnitude
    }
}

/// Python's `round(x, 2)`, the rounding of every published percentage.
pub fn round2(x: f64) -> f64 {
    python_round(x, 2)
}

/// A value AISimulate would keep in a shape or MAPE computation: finite and non-zero.
pub fn usable(value: f64) -> bool {
    value.is_finite() && value != 0.0
}

/// Per-point absolute percentage error, `|pred - meas| / meas * 100`, unrounded (the
/// published `*_error_pct` is this rounded to 2). `None` when the measured value is unusable.
pub fn ape(predicted: f64, measured: f64) -> Option<f64> {
    (usable(measured) && predicted.is_finite()).then(|| (predicted - measured).abs() / measured.abs() * 100.0)
}

/// The published per-point `*_error_pct`.
pub fn published_error_pct(predicted: f64, measured: f64) -> Option<f64> {
    ape(predicted, measured).map(round2)
}

/// A published `*_relative`: the value over the MEASURED value at the topology's
/// lowest-concurrency row, rounded to 6. The predictor's relative at the anchor is therefore
/// not 1: it carries level error as well as shape.
pub fn relative(value: f64, measured_anchor: f64) -> Option<f64> {
    (usable(measured_anchor) && value.is_finite()).then(|| python_round(value / measured_anchor, 6))
}

/// A mean with the count it was taken over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pooled {
    /// Unrounded plain mean; `None` when nothing was pooled (AISimulate publishes null).
    pub mean: Option<f64>,
    pub n: usize,
}

impl Pooled {
    /// The plain mean in input order (Python's `sum(values) / len(values)`).
    pub fn of(values: &[f64]) -> Pooled {
        let mean = (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64);
        Pooled { mean, n: values.len() }
    }

    /// As published: rounded to 2 at the very end.
    pub fn published(&self) -> Option<f64> {
        self.mean.map(round2)
    }
}

/// One row of one topology, as the shape definitions see it. Any positive scale works
/// (milliseconds or published relatives): every definition divides by an anchor.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapePoint {
    pub concurrency: f64,
    pub measured: Option<f64>,
    pub predicted: Option<f64>,
}

/// One comparison of a shape definition: a row's values and the anchors they are divided by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Comparison {
    pub measured: f64,
    pub predicted: f64,
    /// What the measured value is divided by.
    pub measured_anchor: f64,
    /// What the predicted value is divided by (the measured anchor under
    /// [`ShapeDefinition::SharedMeasuredAnchor`]).
    pub predicted_anchor: f64,
}

impl Comparison {
    /// `|pred_shape - meas_shape| / meas_shape x 100`.
    pub fn error(&self) -> f64 {
        let predicted_shape = self.predicted / self.predicted_anchor;
        let measured_shape = self.measured / self.measured_anchor;
        (predicted_shape - measured_shape).abs() / measured_shape * 100.0
    }
}

/// The comparisons of one topology under `definition`, in concurrency order.
///
/// Rows are kept only if concurrency, measured and predicted are finite and non-zero; rows are
/// sorted by concurrency (stable); a topology with fewer than 2 kept rows contributes nothing
/// under any definition; the anchor is the first kept row.
pub fn shape_comparisons(points: &[ShapePoint], definition: ShapeDefinition) -> Vec<Comparison> {
    let mut kept: Vec<(f64, f64, f64)> = points
        .iter()
        .filter_map(|p| match (p.measured, p.predicted) {
            (Some(m), Some(q)) if usable(p.concurrency) && usable(m) && usable(q) => Some((p.concurrency, m, q)),
            _ => None,
        })
        .collect();
    kept.sort_by(|a, b| a.0.total_cmp(&b.0));
    if kept.len() < 2 {
        return Vec::new();
    }
    let (_, measured_anchor, own_anchor) = kept[0];
    let (skip, predicted_anchor) = match definition {
        ShapeDefinition::AnchorExcluded => (1, own_anchor),
        ShapeDefinition::AnchorIncluded => (0, own_anchor),
        ShapeDefinition::SharedMeasuredAnchor => (0, measured_anchor),
    };
    kept[skip..]
        .iter()
        .map(|&(_, measured, predicted)| Comparison { measured, predicted, measured_anchor, predicted_anchor })
        .collect()
}

/// The per-comparison errors of one topology under `definition` (see [`shape_comparisons`]).
pub fn shape_errors(points: &[ShapePoint], definition: ShapeDefinition) -> Vec<f64> {
    shape_comparisons(points, definition).iter().map(Comparison::error).collect()
}

/// Every comparison of every topology pooled into one plain mean (never a mean of means).
pub fn pooled_shape_error<'a>(
    topologies: impl IntoIterator<Item = &'a [ShapePoint]>,
    definition: ShapeDefinition,
) -> Pooled {
    let errors: Vec<f64> = topologies.into_iter().flat_map(|t| shape_errors(t, definition)).collect();
    Pooled::of(&errors)
}

/// MAPE over per-point APEs (computed from raw values, or the published `*_error_pct`).
pub fn mape(apes: &[f64]) -> Pooled {
    Pooled::of(apes)
}

/// AISimulate's per-row outcome. Only success rows carry AISimulate latencies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Status {
    Success,
    Unsupported,
    Failed,
}

impl Status {
    pub const ALL: [Status; 3] = [Status::Success, Status::Unsupported, Status::Failed];

    pub fn key(self) -> &'static str {
        match self {
            Status::Success => "success",
            Status::Unsupported => "unsupported",
            Status::Failed => "failed",
        }
    }

    /// Only the three statuses AISimulate writes; anything else is for the caller to reject.
    pub fn parse(text: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|s| s.key() == text)
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

/// `status_counts` as published: `unknown` counts rows whose status is none of the three
/// (always 0 in anything this project accepts, since readers reject such rows).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatusCounts {
    pub success: u64,
    pub unsupported: u64,
    pub failed: u64,
    pub unknown: u64,
}

impl StatusCounts {
    pub fn of(statuses: impl IntoIterator<Item = Status>) -> StatusCounts {
        let mut counts = StatusCounts::default();
        for status in statuses {
            match status {
                Status::Success => counts.success += 1,
                Status::Unsupported => counts.unsupported += 1,
                Status::Failed => counts.failed += 1,
            }
        }
        counts
    }

    pub fn rows(&self) -> u64 {
        self.success + self.unsupported + self.failed + self.unknown
    }

    pub fn add(&self, other: &StatusCounts) -> StatusCounts {
        StatusCounts {
            success: self.success + other.success,
            unsupported: self.unsupported + other.unsupported,
            failed: self.failed + other.failed,
            unknown: self.unknown + other.unknown,
        }
    }

    /// `coverage_pct` = success / rows x 100, rounded to 2; `None` for no rows.
    pub fn coverage_pct(&self) -> Option<f64> {
        let rows = self.rows();
        (rows > 0).then(|| round2(self.success as f64 / rows as f64 * 100.0))
    }
}

/// GPUs of one row: tensor x pipeline x data parallel.
pub fn gpu_count(tp: u64, pp: u64, dp: u64) -> u64 {
    tp.saturating_mul(pp).saturating_mul(dp)
}

/// AISimulate's default exclusion: more GPUs than one node holds (8 for a100, b200, b300,
/// h100, h200; 4 for gb200, gb300). `None` for a GPU family the rule does not name.
pub fn is_multi_node(gpu: &str, gpus: u64) -> Option<bool> {
    let per_node = match gpu.to_ascii_lowercase().as_str() {
        "a100" | "b200" | "b300" | "h100" | "h200" => 8,
        "gb200" | "gb300" => 4,
        _ => return None,
    };
    Some(gpus > per_node)
}

/// Latencies of one row for one arm, in milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Latencies {
    pub ttft: Option<f64>,
    pub tpot: Option<f64>,
}

impl Latencies {
    pub fn get(&self, metric: Metric) -> Option<f64> {
        match metric {
            Metric::Tpot => self.tpot,
            Metric::Ttft => self.ttft,
        }
    }

    /// Both metrics present: the condition for a row to count in MAPE.
    pub fn complete(&self) -> bool {
        self.ttft.is_some() && self.tpot.is_some()
    }
}

/// One raw row of AISimulate's overview input: a measured operating point and both
/// predictions in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Rows with the same key form one topology (model, config, gpu, workload, ...).
    pub topology: String,
    pub gpu: String,
    pub gpus: u64,
    pub concurrency: f64,
    pub status: Status,
    pub measured: Latencies,
    pub aic: Latencies,
    pub aisimulate: Latencies,
}

impl Row {
    /// The arm's latencies as the overview uses them: AISimulate's only on success rows.
    pub fn arm(&self, arm: PublishedArm) -> Latencies {
        match arm {
            PublishedArm::Aic => self.aic,
            PublishedArm::Aisimulate if self.status == Status::Success => self.aisimulate,
            PublishedArm::Aisimulate => Latencies::default(),
        }
    }
}

/// Published relatives of one row for one arm and metric, anchored on the measured value of
/// the lowest-concurrency row of the row's topology.
pub fn relatives(rows: &[Row], arm: Option<PublishedArm>, metric: Metric) -> Vec<Option<f64>> {
    rows.iter()
        .map(|row| {
            let anchor = rows
                .iter()
                .filter(|r| r.topology == row.topology)
                .min_by(|a, b| a.concurrency.total_cmp(&b.concurrency))
                .and_then(|r| r.measured.get(metric))?;
            let value = match arm {
                None => row.measured.get(metric),
                Some(arm) => row.arm(arm).get(metric),
            }?;
            relative(value, anchor)
        })
        .collect()
}

/// One arm's published figures over a set of raw rows.
#[derive(Clone, Debug, PartialEq)]
pub struct ArmFigures {
    /// Rows where both of the arm's metrics are present.
    pub points: usize,
    pub mape: [(Metric, Pooled); 2],
    pub shape: [(Metric, Pooled); 2],
}

impl ArmFigures {
    pub fn mape(&self, metric: Metric) -> Pooled {
        self.mape.iter().find(|(m, _)| *m == metric).expect("both metrics").1
    }
    pub fn shape(&self, metric: Metric) -> Pooled {
        self.shape.iter().find(|(m, _)| *m == metric).expect("both metrics").1
    }
}

/// Rows that AISimulate publishes by default: multi-node rows left out (a GPU family the rule
/// does not name is kept).
pub fn published_rows(rows: &[Row]) -> Vec<&Row> {
    rows.iter().filter(|r| is_multi_node(&r.gpu, r.gpus) != Some(true)).collect()
}

/// One arm's MAPE and shape error over `rows`, recomputed from raw values (never from the
/// figures of sub-levels).
pub fn arm_figures(rows: &[&Row], arm: PublishedArm, definition: ShapeDefinition) -> ArmFigures {
    let complete: Vec<&Row> = rows.iter().copied().filter(|r| r.measured.complete() && r.arm(arm).complete()).collect();
    let mape_of = |metric: Metric| {
        let apes: Vec<f64> =
            complete.iter().filter_map(|r| ape(r.arm(arm).get(metric)?, r.measured.get(metric)?)).collect();
        mape(&apes)
    };
    let mut topologies: Vec<&str> = Vec::new();
    for row in rows {
        if !topologies.contains(&row.topology.as_str()) {
            topologies.push(&row.topology);
        }
    }
    let shape_of = |metric: Metric| {
        let groups: Vec<Vec<ShapePoint>> = topologies
            .iter()
            .map(|t| {
                rows.iter()
                    .filter(|r| r.topology == *t)
                    .map(|r| ShapePoint {
                        concurrency: r.concurrency,
                        measured: r.measured.get(metric),
                        predicted: r.arm(arm).get(metric),
                    })
                    .collect()
            })
            .collect();
        pooled_shape_error(groups.iter().map(|g| g.as_slice()), definition)
    };
    ArmFigures {
        points: rows.iter().filter(|r| r.arm(arm).complete()).count(),
        mape: [(Metric::Tpot, mape_of(Metric::Tpot)), (Metric::Ttft, mape_of(Metric::Ttft))],
        shape: [(Metric::Tpot, shape_of(Metric::Tpot)), (Metric::Ttft, shape_of(Metric::Ttft))],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ape_is_the_distance_over_the_measured_value_and_none_when_either_side_is_unusable() {
        // By hand: |110 - 100| / 100 x 100 = 10, the same below; a negative measured value
        // is divided by its size: |-90 - -100| / 100 x 100 = 10.
        assert_eq!(ape(110.0, 100.0), Some(10.0));
        assert_eq!(ape(90.0, 100.0), Some(10.0));
        assert_eq!(ape(-90.0, -100.0), Some(10.0));
        // Both sides must be usable: one unusable side alone leaves no error.
        for (predicted, measured) in [(f64::NAN, 100.0), (f64::INFINITY, 100.0), (100.0, 0.0), (100.0, f64::NAN)] {
            assert_eq!(ape(predicted, measured), None, "ape({predicted}, {measured})");
        }
    }

    #[test]
    fn a_comparison_divides_each_side_by_its_own_anchor() {
        // Predicted 24 over its anchor 6 is 4; measured 30 over 10 is 3: |4 - 3| / 3 x 100.
        let c = Comparison { measured: 30.0, predicted: 24.0, measured_anchor: 10.0, predicted_anchor: 6.0 };
        assert!((c.error() - 100.0 / 3.0).abs() < 1e-12, "{}", c.error());
    }

    #[test]
    fn python_round_matches_python_on_ties_and_near_ties() {
        // Each expectation is what CPython 3 prints for round(x, n); the first is the example
        // in Python's own documentation of round().
        let cases: &[(f64, u32, f64)] = &[
            (2.675, 2, 2.67),
            (0.125, 2, 0.12),
            (0.375, 2, 0.38),
            (-0.125, 2, -0.12),
            (2.5, 0, 2.0),
            (3.5, 0, 4.0),
            (0.5, 0, 0.0),
            (1.005, 2, 1.0),
            (10.046993044104807, 2, 10.05),
            (8.033934328528252, 2, 8.03),
            (0.1234565, 6, 0.123456),
            (1e-300, 2, 0.0),
            (123456789.125, 2, 123456789.12),
            (4503599627370497.0, 2, 4503599627370497.0),
        ];
        for &(x, n, expected) in cases {
            assert_eq!(python_round(x, n), expected, "round({x:?}, {n})");
        }
        assert!(python_round(f64::NAN, 2).is_nan());
        assert_eq!(python_round(f64::INFINITY, 2), f64::INFINITY);
    }

    #[test]
    fn python_round_matches_cpython_on_committed_vectors() {
        // testdata/python-round/vectors.txt: CPython's own round(), written by make_vectors.py.
        let vectors = include_str!("../../testdata/python-round/vectors.txt");
        let mut checked = 0;
        for line in vectors.lines().filter(|l| !l.starts_with('#')) {
            let fields: Vec<&str> = line.split(' ').collect();
            let x: f64 = fields[0].parse().unwrap();
            let n: u32 = fields[1].parse().unwrap();
            let expected: f64 = fields[2].parse().unwrap();
            assert_eq!(python_round(x, n).to_bits(), expected.to_bits(), "round({x:?}, {n})");
            checked += 1;
        }
        assert!(checked > 1000, "{checked}");
    }

    #[test]
    fn naive_scaling_is_not_python_round() {
        // The obvious (x * 100).round() / 100 rounds ties away from zero: 0.125 -> 0.13.
        let naive = |x: f64| (x * 100.0).round() / 100.0;
        assert_eq!(naive(0.125), 0.13);
        assert_eq!(round2(0.125), 0.12);
    }

    fn curve(points: &[(f64, f64, f64)]) -> Vec<ShapePoint> {
        points.iter().map(|&(c, m, p)| ShapePoint { concurrency: c, measured: Some(m), predicted: Some(p) }).collect()
    }

    #[test]
    fn shape_excludes_the_anchor_and_normalises_each_side_by_its_own_anchor() {
        // A prediction 10% high everywhere has a perfect shape.
        let scaled = curve(&[(1.0, 1.0, 1.1), (2.0, 2.0, 2.2), (4.0, 3.0, 3.3)]);
        let own = shape_errors(&scaled, ShapeDefinition::AnchorExcluded);
        assert_eq!(own.len(), 2);
        assert!(own.iter().all(|e| e.abs() < 1e-9), "{own:?}");
        let shared = shape_errors(&scaled, ShapeDefinition::SharedMeasuredAnchor);
        assert_eq!(shared.len(), 3);
        assert!(shared.iter().all(|e| (e - 10.0).abs() < 1e-9), "{shared:?}");
    }

    #[test]
    fn shape_sorts_by_concurrency_and_drops_unusable_rows() {
        let points = vec![
            ShapePoint { concurrency: 4.0, measured: Some(4.0), predicted: Some(2.0) },
            ShapePoint { concurrency: 0.0, measured: Some(9.0), predicted: Some(9.0) },
            ShapePoint { concurrency: 2.0, measured: Some(2.0), predicted: None },
            ShapePoint { concurrency: 1.0, measured: Some(1.0), predicted: Some(1.0) },
            ShapePoint { concurrency: 8.0, measured: Some(f64::NAN), predicted: Some(1.0) },
        ];
        assert_eq!(shape_errors(&points, ShapeDefinition::AnchorExcluded), vec![50.0]);
        assert_eq!(shape_errors(&points, ShapeDefinition::AnchorIncluded), vec![0.0, 50.0]);
        assert!(shape_errors(&points[..3], ShapeDefinition::AnchorIncluded).is_empty());
    }

    #[test]
    fn pooling_is_one_mean_over_all_comparisons_not_a_mean_of_topologies() {
        let a = curve(&[(1.0, 1.0, 1.0), (2.0, 2.0, 3.0)]); // one comparison: 50
        let b = curve(&[(1.0, 1.0, 1.0), (2.0, 1.0, 1.0), (4.0, 1.0, 1.0), (8.0, 1.0, 1.0)]);
        let pooled = pooled_shape_error([a.as_slice(), b.as_slice()], ShapeDefinition::AnchorExcluded);
        assert_eq!(pooled, Pooled { mean: Some(12.5), n: 4 });
        assert_eq!(Pooled::of(&[]).published(), None);
    }

    #[test]
    fn multi_node_rule_depends_on_the_gpu_family() {
        assert_eq!(is_multi_node("h200", 8), Some(false));
        assert_eq!(is_multi_node("h200", 16), Some(true));
        assert_eq!(is_multi_node("B300", 9), Some(true));
        assert_eq!(is_multi_node("gb200", 4), Some(false));
        assert_eq!(is_multi_node("gb300", 8), Some(true));
        assert_eq!(is_multi_node("mi300x", 64), None);
        assert_eq!(gpu_count(4, 2, 2), 16);
    }

    #[test]
    fn coverage_is_success_over_all_rows() {
        let counts = StatusCounts::of([Status::Success, Status::Success, Status::Unsupported]);
        assert_eq!(counts.rows(), 3);
        assert_eq!(counts.coverage_pct(), Some(66.67));
        assert_eq!(StatusCounts::default().coverage_pct(), None);
        assert_eq!(Status::parse("failed"), Some(Status::Failed));
        assert_eq!(Status::parse("unknown"), None);
    }

    #[test]
    fn relatives_are_anchored_on_the_measured_lowest_concurrency_value() {
        assert_eq!(relative(220.0, 100.0), Some(2.2));
        assert_eq!(relative(1.0, 3.0), Some(0.333333));
        assert_eq!(relative(1.0, 0.0), None);
        assert_eq!(published_error_pct(110.0, 100.0), Some(10.0));
    }

    #[test]
    fn a_subnormal_rounds_to_zero_like_any_value_below_half_a_unit() {
        // CPython: round(5e-324, 2) == 0.0 and round(-1e-310, 2) == -0.0.
        assert_eq!(python_round(5e-324, 2).to_bits(), 0.0f64.to_bits());
        assert_eq!(python_round(-1e-310, 2).to_bits(), (-0.0f64).to_bits());
        assert_eq!(python_round(-2.5, 0), -2.0);
        // Zeros keep their sign (CPython: round(-0.0, 2) is -0.0); infinities come back.
        assert_eq!(python_round(-0.0, 2).to_bits(), (-0.0f64).to_bits());
        assert_eq!(python_round(0.0, 2).to_bits(), 0.0f64.to_bits());
        assert_eq!(python_round(f64::NEG_INFINITY, 6), f64::NEG_INFINITY);
    }

    #[test]
    fn names_are_the_corpora_field_names_and_the_value_keys() {
        // The corpora's arm and metric fields (`aisimulate_tpot_ms`, `aic_ttft_ms`, ...,
        // docs/upstream.md §4) and the manifest's value keys.
        assert_eq!([PublishedArm::Aisimulate.to_string(), PublishedArm::Aic.to_string()], ["aisimulate", "aic"]);
        assert_eq!([Metric::Tpot.to_string(), Metric::Ttft.to_string()], ["tpot", "ttft"]);
        let shapes: Vec<String> = ShapeDefinition::ALL.iter().map(|d| d.to_string()).collect();
        assert_eq!(shapes, ["shape_anchor_excluded", "shape_anchor_included", "shape_shared_measured_anchor"]);
        let statuses: Vec<String> = Status::ALL.iter().map(|s| s.to_string()).collect();
        assert_eq!(statuses, ["success", "unsupported", "failed"]);
    }

    #[test]
    fn a_pooled_mean_is_published_rounded_to_two() {
        // (10.04 + 10.05 + 10.050979133) / 3 = 10.04699..., published 10.05.
        assert_eq!(Pooled::of(&[10.04, 10.05, 10.050979133]).published(), Some(10.05));
        assert_eq!(Pooled::of(&[1.0, 2.0]), Pooled { mean: Some(1.5), n: 2 });
    }

    #[test]
    fn status_counts_count_each_status_once_and_add_field_by_field() {
        let counts =
            StatusCounts::of([Status::Failed, Status::Success, Status::Unsupported, Status::Success, Status::Failed]);
        assert_eq!(counts, StatusCounts { success: 2, unsupported: 1, failed: 2, unknown: 0 });
        let a = StatusCounts { success: 1, unsupported: 2, failed: 3, unknown: 4 };
        assert_eq!(a.rows(), 10);
        let b = StatusCounts { success: 5, unsupported: 6, failed: 7, unknown: 8 };
        assert_eq!(a.add(&b), StatusCounts { success: 6, unsupported: 8, failed: 10, unknown: 12 });
        // 1 of 10 rows succeeded.
        assert_eq!(a.coverage_pct(), Some(10.0));
    }

    #[test]
    fn latencies_give_each_metric_and_are_complete_only_with_both() {
        let both = Latencies { ttft: Some(100.0), tpot: Some(7.0) };
        assert_eq!((both.get(Metric::Tpot), both.get(Metric::Ttft)), (Some(7.0), Some(100.0)));
        assert!(both.complete());
        assert!(!Latencies { ttft: Some(100.0), tpot: None }.complete());
        assert!(!Latencies { ttft: None, tpot: Some(7.0) }.complete());
    }

    fn row(topology: &str, concurrency: f64, status: Status, measured: (f64, f64), aic: (f64, Option<f64>)) -> Row {
        Row {
            topology: topology.into(),
            gpu: "h100".into(),
            gpus: 8,
            concurrency,
            status,
            measured: Latencies { tpot: Some(measured.0), ttft: Some(measured.1) },
            aic: Latencies { tpot: Some(aic.0), ttft: aic.1 },
            aisimulate: Latencies { tpot: Some(aic.0 * 2.0), ttft: aic.1 },
        }
    }

    #[test]
    fn aisimulate_latencies_count_on_success_rows_only_and_aic_on_every_row() {
        let failed = row("t", 1.0, Status::Failed, (1.0, 1.0), (3.0, Some(4.0)));
        assert_eq!(failed.arm(PublishedArm::Aisimulate), Latencies::default());
        assert_eq!(failed.arm(PublishedArm::Aic), failed.aic);
        let ok = Row { status: Status::Success, ..failed.clone() };
        assert_eq!(ok.arm(PublishedArm::Aisimulate), Latencies { tpot: Some(6.0), ttft: Some(4.0) });
    }

    #[test]
    fn each_rows_relative_is_over_its_own_topologys_lowest_concurrency_measured_value() {
        // Topology a is anchored on its c=1 row (measured 10), b on its c=4 row (measured 4),
        // whatever the row order.
        let rows = [
            row("b", 8.0, Status::Success, (2.0, 1.0), (3.0, None)),
            row("a", 2.0, Status::Success, (15.0, 1.0), (30.0, None)),
            row("b", 4.0, Status::Success, (4.0, 1.0), (5.0, None)),
            row("a", 1.0, Status::Success, (10.0, 1.0), (12.0, None)),
        ];
        assert_eq!(relatives(&rows, None, Metric::Tpot), [Some(0.5), Some(1.5), Some(1.0), Some(1.0)]);
        assert_eq!(
            relatives(&rows, Some(PublishedArm::Aic), Metric::Tpot),
            [Some(0.75), Some(3.0), Some(1.25), Some(1.2)]
        );
    }

    #[test]
    fn published_rows_leave_out_multi_node_rows_only() {
        let mut rows = vec![row("t", 1.0, Status::Success, (1.0, 1.0), (1.0, None)); 3];
        rows[1].gpus = 16; // two h100 nodes
        rows[2].gpu = "mi300x".into(); // a family the rule does not name: kept
        rows[2].gpus = 64;
        let kept: Vec<u64> = published_rows(&rows).iter().map(|r| r.gpus).collect();
        assert_eq!(kept, [8, 64]);
    }

    #[test]
    fn arm_figures_take_mape_over_complete_rows_and_shape_per_topology() {
        // t1: c=1 measured (tpot 10, ttft 100), aic (11, 120); c=2 measured (20, 150), aic (24, 150).
        // t2: c=1 measured (5, 50), aic (5, none); c=2 measured (10, 60), aic (15, 90).
        let rows = [
            row("t1", 1.0, Status::Success, (10.0, 100.0), (11.0, Some(120.0))),
            row("t2", 1.0, Status::Success, (5.0, 50.0), (5.0, None)),
            row("t1", 2.0, Status::Success, (20.0, 150.0), (24.0, Some(150.0))),
            row("t2", 2.0, Status::Success, (10.0, 60.0), (15.0, Some(90.0))),
            row("t3", 4.0, Status::Success, (16.0, 160.0), (20.0, Some(200.0))),
            row("t3", 1.0, Status::Success, (8.0, 80.0), (8.0, Some(80.0))),
        ];
        let refs: Vec<&Row> = rows.iter().collect();
        let f = arm_figures(&refs, PublishedArm::Aic, ShapeDefinition::AnchorExcluded);
        let close = |p: Pooled, mean: f64, n: usize| {
            assert_eq!(p.n, n, "{p:?}");
            assert!((p.mean.unwrap() - mean).abs() < 1e-9, "{p:?} against {mean}");
        };
        // Rows with both of the arm's metrics: t1 c=1, t1 c=2, t2 c=2, and t3's two.
        assert_eq!(f.points, 5);
        // TPOT APEs over those rows: 10%, 20%, 50%, 25%, 0%; TTFT: 20%, 0%, 50%, 25%, 0%.
        close(f.mape(Metric::Tpot), 105.0 / 5.0, 5);
        close(f.mape(Metric::Ttft), 95.0 / 5.0, 5);
        // TPOT shape: t1 (24/11 against 20/10) is |2.1818... - 2| / 2 = 9.0909...%, t2 (15/5
        // against 10/5) is 50%; TTFT shape: t1 (150/120 against 150/100) is 16.666...%, t2 has
        // one usable row (its c=1 prediction is missing), so no comparison; t3 (20/8 against
        // 16/8, 200/80 against 160/80) is 25% on both. Three topologies, so a row grouped with
        // the wrong ones changes the figures.
        close(f.shape(Metric::Tpot), (100.0 / 11.0 + 50.0 + 25.0) / 3.0, 3);
        close(f.shape(Metric::Ttft), (50.0 / 3.0 + 25.0) / 2.0, 2);
    }
}
