//! The sensitivity table over an injected scorer (the corpus scorer plugs in the same way):
//! every row is generated, run through the double, scored and rendered; a row whose n differs
//! from the baseline's fails.

use crate::support::blis as blis_support;

use anyhow::{bail, Result};
use blis_support::{point, Checkout};
use harness::blis::sensitivity::{sensitivity, variants, RowScore, Variant};
use harness::blis::{EngineSettings, PointOutcome, PointSpec};
use oracles::bootstrap::{self, SweepTotal};
use std::collections::BTreeMap;

/// A stand-in scorer: per sweep (scenario), drop the sweep if any point failed, anchor on the
/// lowest concurrency, and report the mean of sim(c)/sim(anchor) - 1 in percent over the
/// points after the anchor. n counts those comparisons. Not the published definition; only a
/// function of the outcomes the table can render.
fn toy_score(points: &[PointSpec], outcomes: &[PointOutcome]) -> Result<RowScore> {
    let mut sweeps: BTreeMap<String, Vec<(u32, f64, f64)>> = BTreeMap::new();
    let mut dropped = Vec::new();
    for (p, o) in points.iter().zip(outcomes) {
        match &o.result {
            Ok(m) => sweeps.entry(p.scenario_name()).or_default().push((p.concurrency, m.tpot_ms, m.ttft_ms)),
            Err(_) => dropped.push(p.scenario_name()),
        }
    }
    let (mut n, mut points_kept, mut tpot, mut ttft) = (0u64, 0u64, 0.0, 0.0);
    // Per sweep, the toy figure's sum and count: the interval is of the toy's own pooled mean.
    let (mut tpot_sweeps, mut ttft_sweeps) = (Vec::new(), Vec::new());
    for (name, mut rows) in sweeps {
        if dropped.contains(&name) {
            continue;
        }
        rows.sort_by_key(|r| r.0);
        let anchor = rows[0];
        points_kept += rows.len() as u64;
        let (mut st, mut sf) = (0.0, 0.0);
        for r in &rows[1..] {
            n += 1;
            st += (r.1 / anchor.1 - 1.0) * 100.0;
            sf += (r.2 / anchor.2 - 1.0) * 100.0;
        }
        tpot += st;
        ttft += sf;
        tpot_sweeps.push(SweepTotal { sum_abs: st, n: rows.len() - 1 });
        ttft_sweeps.push(SweepTotal { sum_abs: sf, n: rows.len() - 1 });
    }
    let ci = |t: &[SweepTotal]| bootstrap::interval(t, bootstrap::DEFAULT_RESAMPLES, bootstrap::SEED).ok();
    if n == 0 {
        bail!("no sweep survived");
    }
    Ok(RowScore {
        n,
        n_mape: points_kept,
        n_ttft_shape: n,
        n_ttft_mape: points_kept,
        tpot_shape: tpot / n as f64,
        ttft_shape: ttft / n as f64,
        tpot_ci: ci(&tpot_sweeps),
        ttft_ci: ci(&ttft_sweeps),
    })
}

fn base_points(checkout: &Checkout) -> Vec<PointSpec> {
    // Small limits, so that halving and doubling them bites at these concurrencies.
    let engine =
        EngineSettings { max_num_seqs: 4, max_num_batched_tokens: 512, block_size: 16, enable_prefix_caching: true };
    let mut points = Vec::new();
    for name in ["synthetic-h100-vllm-tp2", "synthetic-h100-vllm-tp4"] {
        for c in [1, 2, 4, 8] {
            points.push(PointSpec { engine, ..point(checkout.scenario(name), c, 0) });
        }
    }
    points
}

fn reseed(p: &PointSpec, seed: u64) -> Result<PointSpec> {
    Ok(point(p.scenario_file.clone(), p.concurrency, seed).with_engine(p.engine))
}

trait WithEngine {
    fn with_engine(self, engine: EngineSettings) -> Self;
}

impl WithEngine for PointSpec {
    fn with_engine(mut self, engine: EngineSettings) -> Self {
        self.engine = engine;
        self
    }
}

#[test]
fn every_row_is_run_scored_and_rendered() {
    let checkout = Checkout::new();
    let table = sensitivity(&base_points(&checkout), &reseed, &checkout.options(None), &toy_score).unwrap();
    assert_eq!(table.rows.iter().map(|r| r.variant).collect::<Vec<_>>(), variants());
    assert!(table.failures().is_empty(), "{:?}", table.failures());
    let base = table.baseline().copied().unwrap();
    assert_eq!(base.n, 6);
    for row in &table.rows[1..] {
        let s = row.score.as_ref().unwrap();
        assert_ne!(s.tpot_shape, base.tpot_shape, "{} scored like the baseline", row.variant.name());
    }
    harness::assert_figure_snapshot!("blis__sensitivity_table_with_double_and_toy_scorer", table.render());
    let out = table.output();
    assert_eq!(out.values["n"], harness::task::Value::Count(6));
    assert_eq!(out.values["rows_agree_on_n"], harness::task::Value::Check(true));
    assert_eq!(out.values["seed0.tpot_shape"], harness::task::Value::Number(base.tpot_shape));
    for key in [
        "max_num_seqs_x2",
        "max_num_seqs_x4",
        "max_num_seqs_div2",
        "token_budget_x2",
        "token_budget_div2",
        "seed1",
        "seed4",
    ] {
        assert!(out.values.contains_key(&format!("{key}.ttft_shape")), "{key}");
    }
}

#[test]
fn a_row_that_loses_a_sweep_fails_on_n() {
    let checkout = Checkout::new();
    // Seed 3's vectors for c=8 are one short: that point fails, its sweep is dropped.
    let broken = |p: &PointSpec, seed: u64| {
        let mut q = reseed(p, seed)?;
        if seed == 3 && q.concurrency == 8 && q.scenario_name().contains("tp4") {
            q.input_lens.pop();
        }
        Ok(q)
    };
    let table = sensitivity(&base_points(&checkout), &broken, &checkout.options(None), &toy_score).unwrap();
    let failures = table.failures();
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].starts_with("numpy seed 3: n = 3 differs from the baseline's 6"), "{failures:?}");
    assert!(table.render().lines().any(|l| l.starts_with("numpy seed 3") && l.contains("FAIL")));
    assert_eq!(table.rows.iter().filter(|r| r.variant == Variant::NumpySeed(3)).count(), 1);
}

#[test]
fn points_take_their_lengths_from_the_committed_fixtures() {
    let fixtures = harness::blis::FixtureSet::committed().unwrap();
    let engine = blis_support::engine();
    let p = fixtures.point("s.yaml".into(), engine, 1024, 1024, 1, 0).unwrap();
    // docs/upstream.md §1: seed 0, the first draws on [819, 1024].
    assert_eq!(p.input_lens[..5], [991, 866, 936, 1011, 886]);
    assert_eq!(p.input_lens.len(), 10);
    let q = fixtures.reseed(&p, 3).unwrap();
    assert_eq!((q.seed, q.engine, q.concurrency), (3, engine, 1));
    assert_ne!(q.input_lens, p.input_lens);
    let err = fixtures.point("s.yaml".into(), engine, 1024, 1024, 3, 0).unwrap_err().to_string();
    assert!(err.contains("no point 1024:1024 at concurrency 3"), "{err}");
}

#[test]
fn the_table_runs_on_fixture_points_with_the_fixture_reseed() {
    let checkout = Checkout::new();
    let fixtures = harness::blis::FixtureSet::committed().unwrap();
    let engine =
        EngineSettings { max_num_seqs: 2, max_num_batched_tokens: 2048, block_size: 16, enable_prefix_caching: true };
    let base: Vec<PointSpec> = [1, 2, 4]
        .iter()
        .map(|&c| fixtures.point(checkout.scenario("synthetic-h100-vllm-tp2"), engine, 1024, 1024, c, 0).unwrap())
        .collect();
    let reseed = |p: &PointSpec, s: u64| fixtures.reseed(p, s);
    let table = sensitivity(&base, &reseed, &checkout.options(None), &toy_score).unwrap();
    assert!(table.failures().is_empty(), "{}", table.render());
    assert_eq!(table.rows.len(), 10);
}
