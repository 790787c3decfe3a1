//! The 95% interval beside every mean |e| the scorer prints, and the paired differences of
//! two arms over the same sweeps (definition: `oracles::bootstrap`; docs/scoring.md,
//! "Intervals"). Resample tables depend only on (sweeps, resamples), so one table serves every
//! cell of that many sweeps in the process.

use super::{ErrorMetric, ScoredSweep};
use oracles::bootstrap::{self, Interval, NotDefined, Resamples, SweepTotal};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// An interval, or why there is none (not defined; refused naming the sweep).
pub type CellInterval = Result<Interval, String>;

/// Drawn tables by (sweeps, resamples), at [`bootstrap::SEED`].
static TABLES: Mutex<BTreeMap<(usize, usize), Arc<Resamples>>> = Mutex::new(BTreeMap::new());

fn table(sweeps: usize, resamples: usize) -> Result<Arc<Resamples>, NotDefined> {
    let mut tables = TABLES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(t) = tables.get(&(sweeps, resamples)) {
        return Ok(t.clone());
    }
    let t = Arc::new(Resamples::draw(sweeps, resamples, bootstrap::SEED)?);
    tables.insert((sweeps, resamples), t.clone());
    Ok(t)
}

/// Drops every drawn table (the intervals bench times a fresh process's first draw).
pub fn forget_tables() {
    TABLES.lock().unwrap_or_else(|p| p.into_inner()).clear();
}

/// One arm's per-sweep totals of metric `m`; `None` when a sweep has no errors for the arm
/// (not run). A non-finite error is refused, naming the sweep and the point.
pub fn totals(sweeps: &[&ScoredSweep], arm: usize, m: ErrorMetric) -> Option<Result<Vec<SweepTotal>, String>> {
    let mut out = Vec::with_capacity(sweeps.len());
    for s in sweeps {
        let errors = s.errors.get(arm)?.as_ref()?.get(m);
        let values: Vec<f64> = errors.iter().map(|x| x.1).collect();
        match SweepTotal::of(&values) {
            Ok(t) => out.push(t),
            Err(i) => {
                return Some(Err(format!(
                    "refused: sweep {} {} has a non-finite {} error at c={}",
                    s.scenario,
                    s.label,
                    m.title(),
                    errors[i].0
                )))
            }
        }
    }
    Some(Ok(out))
}

fn kept(t: &[SweepTotal]) -> Vec<SweepTotal> {
    t.iter().copied().filter(|t| t.n > 0).collect()
}

/// The interval of one arm's mean |e| over `sweeps`; `None` when the arm was not run.
pub fn cell(sweeps: &[&ScoredSweep], arm: usize, m: ErrorMetric, resamples: usize) -> Option<CellInterval> {
    Some(totals(sweeps, arm, m)?.and_then(|t| {
        let t = kept(&t);
        let table = table(t.len(), resamples).map_err(|e| short(&e))?;
        Ok(bootstrap::interval_with(&t, &table))
    }))
}

/// Two arms over the same sweeps: the difference of their mean |e| and its paired interval.
#[derive(Clone, Debug, PartialEq)]
pub struct Paired {
    pub diff: f64,
    pub ci: CellInterval,
}

/// `mean|e|(a) - mean|e|(b)` over `sweeps` (paired, [`bootstrap::paired_interval_with`]);
/// `None` when an arm was not run or no sweep has a comparison; `Some(Err)` when refused.
pub fn paired(
    sweeps: &[&ScoredSweep],
    a: usize,
    b: usize,
    m: ErrorMetric,
    resamples: usize,
) -> Option<Result<Paired, String>> {
    let (ta, tb) = (totals(sweeps, a, m)?, totals(sweeps, b, m)?);
    let (ta, tb) = match (ta, tb) {
        (Ok(x), Ok(y)) => (x, y),
        (Err(e), _) | (_, Err(e)) => return Some(Err(e)),
    };
    let pairs: Vec<(SweepTotal, SweepTotal)> = ta.into_iter().zip(tb).filter(|(x, y)| x.n > 0 && y.n > 0).collect();
    if pairs.is_empty() {
        return None;
    }
    let pooled = |side: fn(&(SweepTotal, SweepTotal)) -> SweepTotal| {
        let (s, n) = pairs.iter().map(side).fold((0.0, 0usize), |(s, n), t| (s + t.sum_abs, n + t.n));
        s / n as f64
    };
    let diff = pooled(|p| p.0) - pooled(|p| p.1);
    let ci = table(pairs.len(), resamples).map_err(|e| short(&e)).map(|t| bootstrap::paired_interval_with(&pairs, &t));
    Some(Ok(Paired { diff, ci }))
}

/// A reason short enough for a table cell.
fn short(e: &NotDefined) -> String {
    match e {
        NotDefined::TooFewSweeps { sweeps } => format!("not defined: {sweeps} sweep"),
        other => other.to_string(),
    }
}

/// `9.64 [8.90, 10.41]`: the value and its interval, two decimals like every percentage.
pub fn with_interval(value: f64, ci: Option<&CellInterval>) -> String {
    match ci {
        None => format!("{value:.2}"),
        Some(Ok(i)) => format!("{value:.2} {}", bracket(i)),
        Some(Err(why)) => format!("{value:.2} [{why}]"),
    }
}

/// `[8.90, 10.41]`.
pub fn bracket(i: &Interval) -> String {
    format!("[{}, {}]", pct(i.low), pct(i.high))
}

/// Two decimals, correctly rounded from the binary value (as Python's `f"{x:.2f}"`), with a
/// rounded-away negative zero printed as 0.00.
pub fn pct(v: f64) -> String {
    let s = format!("{v:.2}");
    if s == "-0.00" {
        "0.00".into()
    } else {
        s
    }
}

/// A signed difference, two decimals (`+0.13`, `-1.20`, `0.00`).
pub fn signed(v: f64) -> String {
    let s = format!("{v:+.2}");
    if s == "-0.00" || s == "+0.00" {
        "0.00".into()
    } else {
        s
    }
}

/// The words after a paired interval.
pub fn zero_line(ci: &CellInterval) -> &'static str {
    match ci {
        Ok(i) if i.excludes_zero() => "excludes zero: a difference",
        Ok(_) => "includes zero: no difference shown",
        Err(_) => "no interval",
    }
}

#[cfg(test)]
mod tests;
