//! The sensitivity table (docs/upstream.md §9; upstream IS `cmd/sensitivity`): the
//! baseline, then one setting at a time -- max_num_seqs x2, x4, /2, the token budget
//! (max_num_batched_tokens) x2, /2, each at least 1 -- and the reproduction manual's rows that
//! re-score with the numpy seed 1..4 length fixtures. Each row has n, TPOT shape, TTFT shape
//! and their deltas from the baseline; a row whose n differs from the baseline's fails.
//!
//! Scoring is injected (`score`): the corpus scorer owns the shape definitions; this module
//! only generates the variants, runs them in one pool and renders the table.

use super::{run_points, EngineSettings, PointOutcome, PointSpec, RunOptions};
use crate::task::TaskError;
use anyhow::Result;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Baseline,
    MaxNumSeqsTimes(u32),
    MaxNumSeqsDiv(u32),
    TokenBudgetTimes(u32),
    TokenBudgetDiv(u32),
    /// The length vectors (and seed) of numpy seed k instead of seed 0.
    NumpySeed(u64),
}

/// Every row, in table order.
pub fn variants() -> Vec<Variant> {
    use Variant::*;
    vec![
        Baseline,
        MaxNumSeqsTimes(2),
        MaxNumSeqsTimes(4),
        MaxNumSeqsDiv(2),
        TokenBudgetTimes(2),
        TokenBudgetDiv(2),
        NumpySeed(1),
        NumpySeed(2),
        NumpySeed(3),
        NumpySeed(4),
    ]
}

impl Variant {
    pub fn name(&self) -> String {
        match self {
            Variant::Baseline => "baseline".into(),
            Variant::MaxNumSeqsTimes(k) => format!("max_num_seqs x{k}"),
            Variant::MaxNumSeqsDiv(k) => format!("max_num_seqs /{k}"),
            Variant::TokenBudgetTimes(k) => format!("token budget x{k}"),
            Variant::TokenBudgetDiv(k) => format!("token budget /{k}"),
            Variant::NumpySeed(s) => format!("numpy seed {s}"),
        }
    }

    /// The row's stable key in task values: `seed0` (the baseline), `max_num_seqs_x2`,
    /// `token_budget_div2`, `seed3`, ...
    pub fn key(&self) -> String {
        match self {
            Variant::Baseline => "seed0".into(),
            Variant::MaxNumSeqsTimes(k) => format!("max_num_seqs_x{k}"),
            Variant::MaxNumSeqsDiv(k) => format!("max_num_seqs_div{k}"),
            Variant::TokenBudgetTimes(k) => format!("token_budget_x{k}"),
            Variant::TokenBudgetDiv(k) => format!("token_budget_div{k}"),
            Variant::NumpySeed(s) => format!("seed{s}"),
        }
    }

    /// The engine settings of this row (integer division, never below 1).
    pub fn apply(&self, e: &EngineSettings) -> EngineSettings {
        let mut out = *e;
        match *self {
            Variant::MaxNumSeqsTimes(k) => out.max_num_seqs = e.max_num_seqs.saturating_mul(k).max(1),
            Variant::MaxNumSeqsDiv(k) => out.max_num_seqs = (e.max_num_seqs / k).max(1),
            Variant::TokenBudgetTimes(k) => {
                out.max_num_batched_tokens = e.max_num_batched_tokens.saturating_mul(k).max(1)
            }
            Variant::TokenBudgetDiv(k) => out.max_num_batched_tokens = (e.max_num_batched_tokens / k).max(1),
            Variant::Baseline | Variant::NumpySeed(_) => {}
        }
        out
    }
}

/// What the injected scorer returns for one row's points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowScore {
    /// Scored points (comparisons) after sweeps with a failed point were dropped.
    pub n: u64,
    pub tpot_shape: f64,
    pub ttft_shape: f64,
    /// 95% bootstrap intervals over the row's sweeps (`harness::score::intervals`); `None`
    /// when not defined (fewer than two sweeps) or the scorer gives none.
    pub tpot_ci: Option<oracles::bootstrap::Interval>,
    pub ttft_ci: Option<oracles::bootstrap::Interval>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub variant: Variant,
    pub score: Result<RowScore, String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SensitivityTable {
    pub rows: Vec<Row>,
    /// Every point's record, all rows (`super::point_records`), for the gate's JSON report.
    pub records: Vec<serde_json::Value>,
}

/// The points of one row: engine rows transform the settings; seed rows take the lengths of
/// numpy seed k from `reseed` (the fixture loader).
pub fn row_points(variant: Variant, base: &[PointSpec], reseed: ReseedFn) -> Result<Vec<PointSpec>> {
    base.iter()
        .map(|p| match variant {
            Variant::NumpySeed(s) => reseed(p, s),
            _ => Ok(PointSpec { engine: variant.apply(&p.engine), ..p.clone() }),
        })
        .collect()
}

/// The injected scorer: one row's points and their outcomes to n and the two shapes.
pub type ScoreFn<'a> = &'a dyn Fn(&[PointSpec], &[PointOutcome]) -> Result<RowScore>;

/// The fixture loader for the seed rows: the point with the lengths of numpy seed k.
pub type ReseedFn<'a> = &'a dyn Fn(&PointSpec, u64) -> Result<PointSpec>;

/// Runs every row's points in one pool (shared points are run once thanks to the cache) and
/// scores each row with `score`.
pub fn sensitivity(
    base: &[PointSpec],
    reseed: ReseedFn,
    opts: &RunOptions,
    score: ScoreFn,
) -> Result<SensitivityTable, TaskError> {
    let mut all = Vec::new();
    let mut spans = Vec::new();
    for variant in variants() {
        let points = row_points(variant, base, reseed)?;
        spans.push((variant, all.len(), points.len()));
        all.extend(points);
    }
    let report = run_points(&all, opts)?;
    let rows = spans
        .into_iter()
        .map(|(variant, start, len)| Row {
            variant,
            score: score(&all[start..start + len], &report.outcomes[start..start + len]).map_err(|e| format!("{e:#}")),
        })
        .collect();
    Ok(SensitivityTable { rows, records: super::point_records(&report.outcomes) })
}

impl SensitivityTable {
    pub fn baseline(&self) -> Option<&RowScore> {
        self.rows.iter().find(|r| r.variant == Variant::Baseline).and_then(|r| r.score.as_ref().ok())
    }

    /// Rows that fail: a scoring error, or an n different from the baseline's.
    pub fn failures(&self) -> Vec<String> {
        let base_n = self.baseline().map(|b| b.n);
        self.rows
            .iter()
            .filter_map(|r| match (&r.score, base_n) {
                (Err(e), _) => Some(format!("{}: {e}", r.variant.name())),
                (Ok(s), Some(n)) if s.n != n => {
                    Some(format!("{}: n = {} differs from the baseline's {n}", r.variant.name(), s.n))
                }
                (Ok(_), None) => Some(format!("{}: no baseline to compare with", r.variant.name())),
                _ => None,
            })
            .collect()
    }

    /// The task output the gate reads (harness/figures.yaml, task `sensitivity`): the table as
    /// the report; `n` (the baseline's), `rows_agree_on_n`, and per row `<key>.n`,
    /// `<key>.tpot_shape`, `<key>.ttft_shape` (the baseline is `seed0`).
    pub fn output(&self) -> crate::task::TaskOutput {
        let mut out =
            crate::task::TaskOutput { report: self.render(), blis_points: self.records.clone(), ..Default::default() };
        if let Some(base) = self.baseline() {
            out.count("n", base.n);
        }
        out.check("rows_agree_on_n", self.failures().is_empty());
        for row in &self.rows {
            if let Ok(s) = &row.score {
                let key = row.variant.key();
                out.count(format!("{key}.n"), s.n);
                out.number(format!("{key}.tpot_shape"), s.tpot_shape);
                out.number(format!("{key}.ttft_shape"), s.ttft_shape);
                for (name, ci) in [("tpot_shape", s.tpot_ci), ("ttft_shape", s.ttft_ci)] {
                    if let Some(i) = ci {
                        out.number(format!("{key}.{name}.ci_low"), i.low);
                        out.number(format!("{key}.{name}.ci_high"), i.high);
                    }
                }
            }
        }
        out
    }

    /// Fixed-width text, shapes in percent to 2 decimals, deltas signed.
    pub fn render(&self) -> String {
        let mut out = format!(
            "{:<18} {:>6} {:>11} {:>16} {:>8} {:>11} {:>16} {:>8}  {}\n",
            "variant", "n", "tpot_shape%", "95%", "delta", "ttft_shape%", "95%", "delta", "status"
        );
        let ci = |i: Option<oracles::bootstrap::Interval>| {
            i.map_or("-".to_string(), |i| crate::score::intervals::bracket(&i))
        };
        let base = self.baseline().copied();
        for row in &self.rows {
            match &row.score {
                Ok(s) => {
                    // Deltas rounded to the printed precision first, so no "-0.00".
                    let delta = |a: f64, b: f64| ((a - b) * 100.0).round() / 100.0 + 0.0;
                    let (dt, df) = base.map_or((f64::NAN, f64::NAN), |b| {
                        (delta(s.tpot_shape, b.tpot_shape), delta(s.ttft_shape, b.ttft_shape))
                    });
                    let status = match base {
                        Some(b) if b.n != s.n => format!("FAIL: n differs from the baseline's {}", b.n),
                        Some(_) => "ok".to_string(),
                        None => "FAIL: no baseline".to_string(),
                    };
                    out += &format!(
                        "{:<18} {:>6} {:>11.2} {:>16} {:>+8.2} {:>11.2} {:>16} {:>+8.2}  {status}\n",
                        row.variant.name(),
                        s.n,
                        s.tpot_shape,
                        ci(s.tpot_ci),
                        dt,
                        s.ttft_shape,
                        ci(s.ttft_ci),
                        df
                    );
                }
                Err(e) => {
                    out += &format!(
                        "{:<18} {:>6} {:>11} {:>16} {:>8} {:>11} {:>16} {:>8}  FAIL: {e}\n",
                        row.variant.name(),
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-"
                    )
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_never_drop_below_one() {
        let e =
            EngineSettings { max_num_seqs: 1, max_num_batched_tokens: 1, block_size: 16, enable_prefix_caching: true };
        assert_eq!(Variant::MaxNumSeqsDiv(2).apply(&e).max_num_seqs, 1);
        assert_eq!(Variant::TokenBudgetDiv(2).apply(&e).max_num_batched_tokens, 1);
        assert_eq!(Variant::MaxNumSeqsTimes(4).apply(&e).max_num_seqs, 4);
        assert_eq!(Variant::TokenBudgetTimes(2).apply(&e).block_size, 16);
    }

    #[test]
    fn a_row_with_another_n_fails() {
        let score = |n| Ok(RowScore { n, tpot_shape: 1.0, ttft_shape: 2.0, tpot_ci: None, ttft_ci: None });
        let table = SensitivityTable {
            rows: vec![
                Row { variant: Variant::Baseline, score: score(10) },
                Row { variant: Variant::NumpySeed(1), score: score(9) },
            ],
            records: Vec::new(),
        };
        assert_eq!(table.failures().len(), 1);
        assert!(table.render().contains("FAIL: n differs"));
    }
}
