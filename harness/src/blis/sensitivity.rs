//! The sensitivity table (docs/upstream.md §9; upstream IS `cmd/sensitivity`): the
//! baseline, then one setting at a time -- max_num_seqs x2, x4, /2, the token budget
//! (max_num_batched_tokens) x2, /2, each at least 1 -- and the reproduction manual's rows that
//! re-score with the numpy seed 1..4 length fixtures. Each row has n, TPOT shape, TTFT shape
//! and their deltas from the baseline; a row whose n (any of its four counts) or whose form
//! differs from the baseline's fails. Every row names the form its points state lengths in.
//!
//! Scoring is injected (`score`): the corpus scorer owns the shape definitions; this module
//! only generates the variants, runs them in one pool and renders the table.

use super::workload::LengthForm;
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
    /// Scored points (comparisons) after sweeps with a failed point were dropped: TPOT shape.
    pub n: u64,
    /// The other three comparison counts, as the headline names them (`n_mape`,
    /// `n_ttft_shape`, `n_ttft_mape`): TPOT MAPE, TTFT shape, TTFT MAPE.
    pub n_mape: u64,
    pub n_ttft_shape: u64,
    pub n_ttft_mape: u64,
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
    /// The one form every point of the row states its lengths in; `None` when they mix forms
    /// (the row then fails).
    pub form: Option<LengthForm>,
    pub score: Result<RowScore, String>,
}

impl RowScore {
    /// The four comparison counts by the headline's names (`n_shape` is `n`).
    pub fn counts(&self) -> [(&'static str, u64); 4] {
        [
            ("n_shape", self.n),
            ("n_mape", self.n_mape),
            ("n_ttft_shape", self.n_ttft_shape),
            ("n_ttft_mape", self.n_ttft_mape),
        ]
    }
}

/// The form all of `points` are in, if they share one.
pub fn one_form(points: &[PointSpec]) -> Option<LengthForm> {
    let first = points.first()?.form;
    points.iter().all(|p| p.form == first).then_some(first)
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
            form: one_form(&all[start..start + len]),
            score: score(&all[start..start + len], &report.outcomes[start..start + len]).map_err(|e| format!("{e:#}")),
        })
        .collect();
    Ok(SensitivityTable { rows, records: super::point_records(&report.outcomes) })
}

impl SensitivityTable {
    pub fn baseline(&self) -> Option<&RowScore> {
        self.rows.iter().find(|r| r.variant == Variant::Baseline).and_then(|r| r.score.as_ref().ok())
    }

    /// The baseline row's form (every row must share it).
    pub fn form(&self) -> Option<LengthForm> {
        self.rows.iter().find(|r| r.variant == Variant::Baseline).and_then(|r| r.form)
    }

    /// Rows that fail: a scoring error, points in more than one form or another form than the
    /// baseline's, or a count (any of the four n) different from the baseline's.
    pub fn failures(&self) -> Vec<String> {
        self.rows.iter().filter_map(|r| self.row_failure(r).map(|why| format!("{}: {why}", r.variant.name()))).collect()
    }

    /// Why one row fails, if it does.
    fn row_failure(&self, row: &Row) -> Option<String> {
        let s = match &row.score {
            Err(e) => return Some(e.clone()),
            Ok(s) => s,
        };
        let Some(form) = row.form else { return Some("its points are not in one form".into()) };
        if let Some(base) = self.form().filter(|&b| b != form) {
            return Some(format!("form {} differs from the baseline's {}", form.name(), base.name()));
        }
        let Some(base) = self.baseline() else { return Some("no baseline to compare with".into()) };
        s.counts().iter().zip(base.counts()).find(|(a, b)| a.1 != b.1).map(|((name, v), (_, b))| {
            if *name == "n_shape" {
                format!("n = {v} differs from the baseline's {b}")
            } else {
                format!("{name} = {v} differs from the baseline's {b}")
            }
        })
    }

    /// The task output the gate reads (harness/figures.yaml, task `sensitivity`): the table as
    /// the report; `n` (the baseline's), `form` (the baseline's), `rows_agree_on_n`, and per
    /// row `<key>.form`, `<key>.n`, `<key>.n_mape`, `<key>.n_ttft_shape`, `<key>.n_ttft_mape`,
    /// `<key>.tpot_shape`, `<key>.ttft_shape` (the baseline is `seed0`).
    pub fn output(&self) -> crate::task::TaskOutput {
        let mut out =
            crate::task::TaskOutput { report: self.render(), blis_points: self.records.clone(), ..Default::default() };
        if let Some(base) = self.baseline() {
            out.count("n", base.n);
        }
        if let Some(form) = self.form() {
            out.text("form", form.name());
        }
        out.check("rows_agree_on_n", self.failures().is_empty());
        for row in &self.rows {
            let key = row.variant.key();
            if let Some(form) = row.form {
                out.text(format!("{key}.form"), form.name());
            }
            if let Ok(s) = &row.score {
                out.count(format!("{key}.n"), s.n);
                for (name, v) in &s.counts()[1..] {
                    out.count(format!("{key}.{name}"), *v);
                }
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

    /// Fixed-width text: the row's form, n (TPOT shape) and n_mape, shapes in percent to 2
    /// decimals, deltas signed. The TTFT counts are in the values and the status.
    pub fn render(&self) -> String {
        let mut out = format!(
            "{:<18} {:<13} {:>6} {:>6} {:>11} {:>16} {:>8} {:>11} {:>16} {:>8}  {}\n",
            "variant", "form", "n", "n_mape", "tpot_shape%", "95%", "delta", "ttft_shape%", "95%", "delta", "status"
        );
        let ci = |i: Option<oracles::bootstrap::Interval>| {
            i.map_or("-".to_string(), |i| crate::score::intervals::bracket(&i))
        };
        let base = self.baseline().copied();
        for row in &self.rows {
            let form = row.form.map_or("mixed", |f| f.name());
            let status = self.row_failure(row).map_or("ok".to_string(), |why| format!("FAIL: {why}"));
            match &row.score {
                Ok(s) => {
                    // Deltas rounded to the printed precision first, so no "-0.00".
                    let delta = |a: f64, b: f64| ((a - b) * 100.0).round() / 100.0 + 0.0;
                    let (dt, df) = base.map_or((f64::NAN, f64::NAN), |b| {
                        (delta(s.tpot_shape, b.tpot_shape), delta(s.ttft_shape, b.ttft_shape))
                    });
                    out += &format!(
                        "{:<18} {:<13} {:>6} {:>6} {:>11.2} {:>16} {:>+8.2} {:>11.2} {:>16} {:>+8.2}  {status}\n",
                        row.variant.name(),
                        form,
                        s.n,
                        s.n_mape,
                        s.tpot_shape,
                        ci(s.tpot_ci),
                        dt,
                        s.ttft_shape,
                        ci(s.ttft_ci),
                        df
                    );
                }
                Err(_) => {
                    out += &format!(
                        "{:<18} {:<13} {:>6} {:>6} {:>11} {:>16} {:>8} {:>11} {:>16} {:>8}  {status}\n",
                        row.variant.name(),
                        form,
                        "-",
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
        let score = |n, n_ttft_shape| {
            Ok(RowScore {
                n,
                n_mape: n + 1,
                n_ttft_shape,
                n_ttft_mape: n + 1,
                tpot_shape: 1.0,
                ttft_shape: 2.0,
                tpot_ci: None,
                ttft_ci: None,
            })
        };
        let uniform = Some(LengthForm::Uniform);
        let table = SensitivityTable {
            rows: vec![
                Row { variant: Variant::Baseline, form: uniform, score: score(10, 10) },
                Row { variant: Variant::NumpySeed(1), form: uniform, score: score(9, 9) },
                Row { variant: Variant::NumpySeed(2), form: uniform, score: score(10, 8) },
                Row { variant: Variant::NumpySeed(3), form: uniform, score: score(10, 10) },
            ],
            records: Vec::new(),
        };
        assert_eq!(
            table.failures(),
            [
                "numpy seed 1: n = 9 differs from the baseline's 10",
                "numpy seed 2: n_ttft_shape = 8 differs from the baseline's 10"
            ]
        );
        assert!(table.render().contains("FAIL: n = 9 differs"));
    }

    #[test]
    fn a_row_in_another_form_or_mixed_forms_fails() {
        let score = Ok(RowScore {
            n: 4,
            n_mape: 6,
            n_ttft_shape: 4,
            n_ttft_mape: 6,
            tpot_shape: 1.0,
            ttft_shape: 2.0,
            tpot_ci: None,
            ttft_ci: None,
        });
        let row = |variant, form| Row { variant, form, score: score.clone() };
        let table = SensitivityTable {
            rows: vec![
                row(Variant::Baseline, Some(LengthForm::Uniform)),
                row(Variant::MaxNumSeqsTimes(2), Some(LengthForm::Uniform)),
                row(Variant::NumpySeed(1), Some(LengthForm::Vectors)),
                row(Variant::NumpySeed(2), None),
            ],
            records: Vec::new(),
        };
        assert_eq!(
            table.failures(),
            [
                "numpy seed 1: form vectors differs from the baseline's uniform",
                "numpy seed 2: its points are not in one form"
            ]
        );
        let out = table.output();
        assert_eq!(out.values["form"], crate::task::Value::Text("uniform".into()));
        assert_eq!(out.values["seed1.form"], crate::task::Value::Text("vectors".into()));
        assert_eq!(out.values["rows_agree_on_n"], crate::task::Value::Check(false));
        let engine =
            EngineSettings { max_num_seqs: 1, max_num_batched_tokens: 8, block_size: 16, enable_prefix_caching: false };
        let point = |form| PointSpec {
            scenario_file: "s.yaml".into(),
            engine,
            isl: 8,
            osl: 8,
            concurrency: 1,
            seed: 0,
            input_lens: vec![8; 10],
            output_lens: vec![8; 10],
            form,
        };
        assert_eq!(one_form(&[point(LengthForm::Vectors), point(LengthForm::Vectors)]), Some(LengthForm::Vectors));
        assert_eq!(one_form(&[point(LengthForm::Vectors), point(LengthForm::Uniform)]), None);
    }
}
