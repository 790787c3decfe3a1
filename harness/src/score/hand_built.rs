//! A score built by hand for unit tests of what reads it (the report, the named values): two
//! sweeps, one arm not run, errors chosen so that every figure follows from the definitions by
//! hand (each arm's sweeps have the same |e| total, so every bootstrap interval over both is a
//! point, whatever the draws).

use super::{ArmErrors, Dropped, ErrorMetric, Excursion, Scored, ScoredSweep, Selection};
use oracles::tiers::{ConfigTier, Provenance, Tier};

fn errors(tpot_shape: [(u32, f64); 2], tpot_mape: [f64; 3], ttft_mape: f64) -> ArmErrors {
    ArmErrors {
        tpot_shape: tpot_shape.to_vec(),
        tpot_mape: vec![(1, tpot_mape[0]), (2, tpot_mape[1]), (4, tpot_mape[2])],
        ttft_shape: Vec::new(),
        ttft_mape: vec![(1, ttft_mape)],
    }
}

fn sweep(scenario: &str, model: &str, gpu: &str, tier: Tier, monotone: bool, ais: [(u32, f64); 2]) -> ScoredSweep {
    let comparisons = [
        (ErrorMetric::TpotShape, 2),
        (ErrorMetric::TpotMape, 3),
        (ErrorMetric::TtftShape, 0),
        (ErrorMetric::TtftMape, 1),
    ];
    ScoredSweep {
        scenario: scenario.into(),
        label: "1k1k".into(),
        model: model.into(),
        gpu: gpu.into(),
        framework: "vllm".into(),
        tier,
        monotone,
        comparisons: comparisons.into_iter().collect(),
        errors: vec![None, Some(errors(ais, [1.0, 2.0, 3.0], 4.0)), Some(errors([(2, 5.0), (4, 5.0)], [1.0; 3], -2.0))],
    }
}

/// BLIS not run; AISimulate's TPOT shape errors 10, -20 on a STRICT h100 sweep and 20, -10 on
/// an ALL b200 one (|e| 15 on each); AIC 5 everywhere.
pub(crate) fn scored() -> Scored {
    Scored {
        corpus_source: "test corpus".into(),
        release: "r1".into(),
        selection: Selection::vllm(Some(ConfigTier::Measured)),
        arms: vec![
            ("BLIS".into(), "blis".into(), Some("needs --blis PATH".into())),
            ("AISimulate".into(), "aisimulate".into(), None),
            ("AIC".into(), "aic".into(), None),
        ],
        sweeps: vec![
            sweep("a.yaml", "m1", "NVIDIA-H100-SXM", Tier::Strict, true, [(2, 10.0), (4, -20.0)]),
            sweep("b.yaml", "m2", "b200", Tier::All, false, [(2, 20.0), (4, -10.0)]),
        ],
        dropped: vec![Dropped { scenario: "c.yaml".into(), label: "8k1k".into(), reason: "point c=8 failed".into() }],
        excursions: vec![Excursion {
            scenario: "a.yaml".into(),
            label: "1k1k".into(),
            concurrency: 4,
            measured_ttft_rel: 25.5,
            neighbours: (1.25, 2.0),
        }],
        prefix_caching_points: 3,
        provenance_counts: [
            (("block_size", Provenance::Measured), 4),
            (("block_size", Provenance::Resolved), 2),
            (("max_num_seqs", Provenance::Scenario), 6),
        ]
        .into_iter()
        .collect(),
        inexpressible_keys: ["b-key".to_string(), "a-key".to_string()].into_iter().collect(),
        resamples: 200,
    }
}

/// A table's rows as cells: a table line is indented two spaces and its columns are two or
/// more spaces apart (no cell holds two spaces); empty cells vanish.
pub(crate) fn cells(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with("  "))
        .map(|l| l.split("  ").map(str::trim).filter(|c| !c.is_empty()).map(String::from).collect())
        .collect()
}

pub(crate) fn row(items: &[&str]) -> Vec<String> {
    items.iter().map(|x| x.to_string()).collect()
}

/// The lines of `text` from the one that is `title` up to the next blank line.
pub(crate) fn block<'a>(text: &'a str, title: &str) -> &'a str {
    let start = text.find(&format!("\n{title}\n")).unwrap_or_else(|| panic!("no {title:?} in:\n{text}")) + 1;
    let rest = &text[start..];
    &rest[..rest.find("\n\n").map_or(rest.len(), |e| e + 1)]
}
