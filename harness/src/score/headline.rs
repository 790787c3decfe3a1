//! The headline task (figures `headline/...` of harness/figures.yaml): the vLLM table of every
//! arm over the corpora, with the BLIS column when a binary is given. The column comes from
//! the arm through a `BlisSource` the gate hands in: the scorer sits below the arm, so it never
//! calls the arm itself.

use super::{headline_arms, points, score_resolved, score_split, Arm};
use super::{intervals, load_inputs, render, resolve, ErrorMetric, Scored, ScoredSweep, Selection};
use crate::inputs::{InputKind, Inputs};
use crate::task::{TaskError, TaskOutput, TaskResult};
use oracles::tiers::{ConfigTier, Tier};

/// The BLIS column as the headline takes it from the arm.
pub struct BlisColumn {
    pub arm: Arm,
    /// The published BLIS cells refused, when the binary models only part of the selection
    /// (they were published over all of it).
    pub refused: Option<RefusedCells>,
    /// The lines the report ends with: the form, what the binary models, the points without a
    /// value, the per-sweep notes.
    pub report_tail: String,
    /// One record per point (`TaskOutput::blis_points`).
    pub points: Vec<serde_json::Value>,
    /// Each point's cache key and whether it was modelled, for the per-point table.
    pub info: super::points::BlisPoints,
}

/// Why a value is refused, and the gate's one line for it (`TaskOutput::refuse`).
pub struct RefusedCells {
    pub why: String,
    pub what: String,
    pub by: String,
}

/// The BLIS column over the resolved sweeps of a selection described as `selection` (e.g.
/// "sweeps of the vLLM headline"): `harness::blis::arm::headline_column`.
pub type BlisSource = fn(&Inputs, &resolve::Resolved, &'static str) -> Result<BlisColumn, TaskError>;

/// The headline table's AISimulate and AIC columns (PUBLISHED-FIGURES.md section 3) for the
/// release gate. Values are keyed `<tier>.sweeps`, `<tier>.n_shape`, `<tier>.n_mape`,
/// `<tier>.n_ttft_shape`, `<tier>.n_ttft_mape`, `<tier>.<arm>.<metric>` (tier: `strict`,
/// `measured_or_resolved`, `all`; arm: `aisimulate`, `aic`, and `blis` once it is run; metric:
/// `tpot_shape`, `tpot_mape`, `ttft_shape`, `ttft_mape`), plus `ttft_excursions`,
/// `prefix_caching_points` and `dropped_sweeps`. A cell with no comparisons has no value.
///
/// With a `blis` binary (`--blis`), `blis` computes its column over the same resolved sweeps:
/// the corpus arms, counts and tiers are those of the whole selection, as without a binary; the
/// published BLIS cells come from the binary only when it models every sweep of the selection,
/// and are refused otherwise. The report adds every arm over the sweeps with a BLIS value.
pub fn task_headline(inputs: &Inputs, config_tier: Option<ConfigTier>, blis: BlisSource) -> TaskResult {
    let (corpora, scenarios) = load_inputs(inputs)?;
    let selection = Selection::vllm(config_tier);
    if inputs.get(InputKind::Blis).is_none() {
        let arms = headline_arms(&corpora.e2e, None);
        let resolved = resolve::resolve(&corpora, &scenarios, None, &selection);
        let scored = score_resolved(&resolved, &arms);
        let mut out = headline_output(&scored);
        out.points = points::to_values(&points::rows(&resolved, &scored, &arms, None));
        return Ok(out);
    }
    let catalog = inputs.require_dir(InputKind::Catalog, "the BLIS column")?;
    let resolved = resolve::resolve(&corpora, &scenarios, Some(catalog), &selection);
    let described = match config_tier {
        None => "sweeps of the vLLM headline",
        Some(_) => "sweeps of the vLLM measured-tier table",
    };
    let col = blis(inputs, &resolved, described)?;
    let split = score_split(&resolved, col.arm.clone());
    let mut out = headline_output(&split.corpus);
    match &col.refused {
        None => {
            let with_blis = headline_output(&split.with_blis);
            out.values.extend(with_blis.values.into_iter().filter(|(k, _)| k.contains(".blis.")));
        }
        Some(r) => {
            // Every BLIS cell the corpus table has a corpus cell for.
            let keys: Vec<String> = out
                .values
                .keys()
                .filter(|k| k.contains(".aisimulate."))
                .map(|k| k.replace(".aisimulate.", ".blis."))
                .collect();
            out.refuse(keys, &r.why, &r.what, &r.by);
            // The binary was given: another one could compute these (--require-all passes).
            out.text(crate::task::REFUSED_KIND, crate::task::GIVEN_INPUT_CANNOT);
        }
    }
    out.report = split.report();
    out.report.push_str(&col.report_tail);
    out.blis_points = col.points;
    let corpus_arms = super::corpus_arms(&corpora.e2e);
    let rows = points::table(&resolved, &split.corpus, &corpus_arms, Some((&split.with_blis, &col.arm, &col.info)));
    out.points = points::to_values(&rows);
    Ok(out)
}

/// The report text and the named values of a scored run.
pub fn headline_output(scored: &Scored) -> TaskOutput {
    let mut out = TaskOutput { report: render::report(scored), ..TaskOutput::default() };
    for (tier, agg) in scored.tiers() {
        let t = tier.key();
        out.count(format!("{t}.sweeps"), agg.sweeps as u64);
        for m in ErrorMetric::ALL {
            out.count(format!("{t}.{}", m.count_key()), agg.n[&m] as u64);
        }
        for (i, (_, key, _)) in scored.arms.iter().enumerate() {
            for m in ErrorMetric::ALL {
                if let Some(Some(v)) = agg.mean_abs.get(&(i, m)) {
                    out.number(format!("{t}.{key}.{}", m.key()), *v);
                }
                if let Some(Ok(ci)) = agg.interval.get(&(i, m)) {
                    out.number(format!("{t}.{key}.{}.ci_low", m.key()), ci.low);
                    out.number(format!("{t}.{key}.{}.ci_high", m.key()), ci.high);
                }
            }
        }
    }
    // The paired differences of the report's pairs, per tier and metric.
    for tier in Tier::ORDER {
        let sweeps: Vec<&ScoredSweep> = scored.in_tier(tier).collect();
        let index = |key: &str| scored.arms.iter().position(|(_, k, _)| k == key);
        for (a, b) in render::PAIRS {
            let (Some(ia), Some(ib)) = (index(a), index(b)) else { continue };
            for m in ErrorMetric::ALL {
                if let Some(Ok(p)) = intervals::paired(&sweeps, ia, ib, m, scored.resamples) {
                    let k = format!("{}.{a}_minus_{b}.{}", tier.key(), m.key());
                    out.number(format!("{k}.difference"), p.diff);
                    if let Ok(ci) = p.ci {
                        out.number(format!("{k}.ci_low"), ci.low);
                        out.number(format!("{k}.ci_high"), ci.high);
                    }
                }
            }
        }
    }
    out.count("ttft_excursions", scored.excursions.len() as u64);
    out.count("prefix_caching_points", scored.prefix_caching_points as u64);
    out.count("dropped_sweeps", scored.dropped.len() as u64);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::Value;
    use std::collections::BTreeMap;

    /// The named values of the hand-built score, from the definitions by hand: AISimulate's |e|
    /// 15 (TPOT shape), 2 (TPOT mape), 4 (TTFT mape) on each sweep, AIC's 5, 1, 2; no TTFT shape
    /// comparisons; one sweep in STRICT and MEASURED-OR-RESOLVED (no interval), two in ALL (each
    /// interval a point, the pair's difference 10, 1, 2).
    #[test]
    fn named_values_are_each_tier_count_mean_interval_and_pair_difference() {
        let scored = crate::score::hand_built::scored();
        let out = headline_output(&scored);
        let mut expected: BTreeMap<String, Value> = BTreeMap::new();
        let mut count = |k: &str, v: u64| expected.insert(k.to_string(), Value::Count(v));
        for (t, sweeps) in [("strict", 1), ("measured_or_resolved", 1), ("all", 2)] {
            count(&format!("{t}.sweeps"), sweeps);
            count(&format!("{t}.n_shape"), 2 * sweeps);
            count(&format!("{t}.n_mape"), 3 * sweeps);
            count(&format!("{t}.n_ttft_shape"), 0);
            count(&format!("{t}.n_ttft_mape"), sweeps);
        }
        count("ttft_excursions", 1);
        count("prefix_caching_points", 3);
        count("dropped_sweeps", 1);
        for (t, ci) in [("strict", false), ("measured_or_resolved", false), ("all", true)] {
            let figures = [
                ("aisimulate", [15.0, 2.0, 4.0]),
                ("aic", [5.0, 1.0, 2.0]),
                ("aisimulate_minus_aic", [10.0, 1.0, 2.0]),
            ];
            for (arm, values) in figures {
                for (m, v) in ["tpot_shape", "tpot_mape", "ttft_mape"].into_iter().zip(values) {
                    let k = format!("{t}.{arm}.{m}");
                    let value = if arm.contains("_minus_") { format!("{k}.difference") } else { k.clone() };
                    expected.insert(value, Value::Number(v));
                    if ci {
                        expected.insert(format!("{k}.ci_low"), Value::Number(v));
                        expected.insert(format!("{k}.ci_high"), Value::Number(v));
                    }
                }
            }
        }
        assert_eq!(out.values, expected);
        assert_eq!(out.report, render::report(&scored));
    }
}
