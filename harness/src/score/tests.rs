//! The scorer on small synthetic corpora: bad input (docs/upstream.md §6 says which is a
//! gap, which drops a sweep, which is an error), arms as data, tiers.

use super::*;
use crate::corpus::scenario::ScenarioSet;
use crate::inputs::InputKind;
use crate::task::TaskError;
use anyhow::Result;
use oracles::tiers::{ConfigTier, Tier};
use serde_json::json;
use std::collections::BTreeMap;

/// A vLLM sweep on h100 with measured relatives 1, 2, 4 and both arms off by known factors.
pub(crate) fn sweep(scenario: &str, label: &str, workload: &str) -> serde_json::Value {
    let point = |c: u32, m: f64| {
        json!({
            "concurrency": c, "status": "success",
            "measured_tpot_relative": m, "measured_ttft_relative": m,
            "aisimulate_tpot_relative": m * 1.1, "aisimulate_tpot_error_pct": 10.0,
            "aisimulate_ttft_relative": m * 1.1, "aisimulate_ttft_error_pct": 10.0,
            "aic_tpot_relative": if c == 1 { 1.0 } else { m * 1.5 }, "aic_tpot_error_pct": 0.0,
            "aic_ttft_relative": m, "aic_ttft_error_pct": 0.0
        })
    };
    json!({
        "scenario": scenario, "model": "m", "gpu": "h100", "workload": workload, "label": label,
        "framework": "vllm", "precision": "fp8", "serving": "aggregated", "spec_method": "none",
        "parallelism": {"tp_size": 2, "pp_size": 1, "attention_dp_size": 1, "moe_ep_size": null, "moe_tp_size": null},
        "topology_id": "t", "points": [point(1, 1.0), point(2, 2.0), point(4, 4.0)]
    })
}

fn totals() -> serde_json::Value {
    json!({"points": 0, "tpot_mape_pct": 0.0, "tpot_shape_error_pct": 0.0, "ttft_mape_pct": 0.0, "ttft_shape_error_pct": 0.0})
}

/// Writes a corpus folder (four files) and a scenario folder with `m-h100.yaml`.
pub(crate) struct Fixture {
    dir: tempfile::TempDir,
    pub(crate) sweeps: Vec<serde_json::Value>,
    pub(crate) settings: Vec<serde_json::Value>,
    pub(crate) anchors: Vec<serde_json::Value>,
}

impl Fixture {
    pub(crate) fn new() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().unwrap(),
            sweeps: vec![sweep("m-h100.yaml", "1k1k", "1024:1024")],
            settings: Vec::new(),
            anchors: Vec::new(),
        }
    }

    fn measurements(&self) -> std::path::PathBuf {
        self.dir.path().join("measurements")
    }
    fn scenarios(&self) -> std::path::PathBuf {
        self.dir.path().join("scenarios")
    }

    fn write(&self) {
        let m = self.measurements();
        std::fs::create_dir_all(&m).unwrap();
        let e2e = json!({"source": "test", "measurement_source": "x", "snapshot": {"release_tag": "r1"},
            "scope": {}, "aisimulate_totals": totals(), "aic_totals": totals(), "selection": {},
            "sweeps": self.sweeps});
        std::fs::write(m.join(E2E_FILE), e2e.to_string()).unwrap();
        let abs = json!({"source": "s", "source_url": "u", "release_tag": "r1", "metrics": "m",
            "validation": "v", "anchors": self.anchors});
        std::fs::write(m.join(ABSOLUTES_FILE), abs.to_string()).unwrap();
        let settings = json!({"source": "s", "source_url": "u", "release_tag": "r1",
            "run_selection": "x", "settings": self.settings});
        std::fs::write(m.join(SETTINGS_FILE), settings.to_string()).unwrap();
        std::fs::write(m.join(SCOREABLE_FILE), "[]").unwrap();
        let s = self.scenarios();
        std::fs::create_dir_all(&s).unwrap();
        let scenario = "kind: Scenario\nname: m-h100\nmodel: m\ncoefficients: [c1]\ncluster:\n  hardware: h100\n  nodes: 1\n  gpus_per_node: 8\n---\nkind: Deployment\nname: m-h100\npools:\n  - role: colocated\n    nodes: 1\n    parallel: {tp: 2, pp: 1, dp: 1}\n    engine: {block_size: 16, max_num_seqs: 256, max_model_len: 4096}\n";
        std::fs::write(s.join("m-h100.yaml"), scenario).unwrap();
    }

    pub(crate) fn load(&self) -> Result<(Corpora, ScenarioSet)> {
        self.write();
        Ok((Corpora::load(&self.measurements())?, crate::corpus::scenario::load_dir(&self.scenarios())?))
    }

    fn score(&self, arms: Option<Vec<Arm>>) -> Scored {
        let (c, s) = self.load().unwrap();
        let arms = arms.unwrap_or_else(|| headline_arms(&c.e2e, None));
        score(&c, &s, &arms, &Selection::vllm(None))
    }
}

/// The fixture sweep's absolutes (`inferencex_absolutes.json`): TPOT 10, 20, 40 ms and TTFT
/// 100, 200, 400 ms at c=1, 2, 4, in microseconds.
pub(crate) fn absolutes() -> serde_json::Value {
    json!({"scenario": "m-h100.yaml", "label": "1k1k", "framework": "vllm", "gpu": "h100",
        "absolute_tpot_us": {"1": 10000.0, "2": 20000.0, "4": 40000.0},
        "absolute_ttft_us": {"1": 100000.0, "2": 200000.0, "4": 400000.0},
        "source_run_date": "d", "source_config_id": 1, "relative_agreement": 0.0})
}

pub(crate) fn record(scenario: &str, label: &str, passed: serde_json::Value) -> serde_json::Value {
    let at = json!({"passed": passed, "resolved": {}});
    json!({"scenario": scenario, "label": label, "framework": "vllm", "gpu": "h100",
        "source_run_date": "d", "source_config_id": 1,
        "by_concurrency": {"1": at, "2": at, "4": at}})
}

#[test]
fn published_arms_score_by_the_definitions() {
    let s = Fixture::new().score(None);
    let all = s.aggregate(s.in_tier(Tier::All));
    assert_eq!((all.sweeps, all.n[&ErrorMetric::TpotShape], all.n[&ErrorMetric::TpotMape]), (1, 2, 3));
    // AISimulate is 10% high everywhere: no shape error, 10% level error.
    assert!(all.mean_abs[&(1, ErrorMetric::TpotShape)].unwrap().abs() < 1e-9);
    assert!((all.mean_abs[&(1, ErrorMetric::TpotMape)].unwrap() - 10.0).abs() < 1e-9);
    // AIC: anchor 1.0, then 1.5 x measured: re-anchored to its own first point, shape +50%.
    assert!((all.mean_abs[&(2, ErrorMetric::TpotShape)].unwrap() - 50.0).abs() < 1e-9);
    assert!((all.mean_abs[&(2, ErrorMetric::TpotMape)].unwrap() - 100.0 / 3.0).abs() < 1e-9);
    // BLIS was not run: no value, and its cells say so.
    assert_eq!(all.mean_abs[&(0, ErrorMetric::TpotShape)], None);
    assert!(render::headline(&s).contains("not run: needs --blis PATH"));
}

#[test]
fn simulated_arm_plugs_in_as_data() {
    let mut f = Fixture::new();
    f.anchors.push(absolutes());
    let (c, s) = f.load().unwrap();
    // 12 ms / 24 / 48 against 10 / 20 / 40 measured: shape exact, level +20%.
    let ms: BTreeMap<PointKey, ArmPoint> = [(1, 12.0), (2, 24.0), (4, 48.0)]
        .into_iter()
        .map(|(c, t)| (PointKey::new("m-h100.yaml", "1k1k", c), ArmPoint { tpot: Some(t), ttft: Some(t * 10.0) }))
        .collect();
    let arms = headline_arms(&c.e2e, Some(Arm::simulated("BLIS", "blis", ms)));
    let scored = score(&c, &s, &arms, &Selection::vllm(None));
    let out = headline_output(&scored);
    let v = |k: &str| match out.values.get(k) {
        Some(crate::task::Value::Number(x)) => *x,
        other => panic!("{k}: {other:?}"),
    };
    assert!(v("all.blis.tpot_shape").abs() < 1e-9);
    assert!((v("all.blis.tpot_mape") - 20.0).abs() < 1e-9);
    assert!((v("all.blis.ttft_mape") - 20.0).abs() < 1e-9);
}

#[test]
fn simulated_arm_missing_a_point_drops_the_sweep_for_every_arm() {
    let f = Fixture::new();
    let (c, s) = f.load().unwrap();
    let ms: BTreeMap<PointKey, ArmPoint> =
        [(PointKey::new("m-h100.yaml", "1k1k", 1), ArmPoint { tpot: Some(1.0), ttft: Some(1.0) })].into();
    let arms = headline_arms(&c.e2e, Some(Arm::simulated("BLIS", "blis", ms)));
    let scored = score(&c, &s, &arms, &Selection::vllm(None));
    assert!(scored.sweeps.is_empty());
    assert_eq!(scored.dropped[0].reason, "BLIS TPOT at c=2 is missing");
}

#[test]
fn non_positive_relative_drops_the_whole_sweep() {
    let mut f = Fixture::new();
    f.sweeps[0]["points"][1]["aic_ttft_relative"] = json!(0.0);
    let s = f.score(None);
    assert!(s.sweeps.is_empty());
    assert_eq!(s.dropped[0].reason, "AIC TTFT at c=2 is not positive (0)");
    assert!(render::dropped(&s).contains("m-h100.yaml 1k1k: AIC TTFT at c=2 is not positive"));
}

#[test]
fn missing_measured_relative_drops_the_whole_sweep() {
    let mut f = Fixture::new();
    f.sweeps[0]["points"][2].as_object_mut().unwrap().remove("measured_tpot_relative");
    let s = f.score(None);
    assert_eq!(s.dropped[0].reason, "measured TPOT relative at c=4 is missing");
}

#[test]
fn failed_point_drops_the_whole_sweep() {
    let mut f = Fixture::new();
    f.sweeps[0]["points"][0]["status"] = json!("failed");
    assert_eq!(f.score(None).dropped[0].reason, "c=1 status failed");
}

#[test]
fn settings_record_for_a_sweep_that_does_not_exist_is_an_error() {
    let mut f = Fixture::new();
    f.settings.push(record("ghost.yaml", "1k1k", json!({})));
    let e = format!("{:#}", f.load().unwrap_err());
    assert!(e.contains(SETTINGS_FILE) && e.contains("settings[0]") && e.contains("ghost.yaml 1k1k"), "{e}");
}

#[test]
fn concurrency_key_not_a_number_is_an_error_naming_file_and_entry() {
    let mut f = Fixture::new();
    let mut r = record("m-h100.yaml", "1k1k", json!({}));
    r["by_concurrency"]["four"] = r["by_concurrency"]["4"].clone();
    f.settings.push(r);
    let e = format!("{:#}", f.load().unwrap_err());
    assert!(e.contains(SETTINGS_FILE) && e.contains("settings[0].by_concurrency") && e.contains("\"four\""), "{e}");
}

#[test]
fn missing_corpus_file_is_an_error_naming_it() {
    let f = Fixture::new();
    f.write();
    std::fs::remove_file(f.measurements().join(ABSOLUTES_FILE)).unwrap();
    let e = format!("{:#}", Corpora::load(&f.measurements()).unwrap_err());
    assert!(e.contains(ABSOLUTES_FILE) && e.contains("BLIS_MEASUREMENTS"), "{e}");
}

/// A catalog with `m`'s graph and h100's descriptor and a registry with `c1`, in `f`'s folder.
fn trees(f: &Fixture) -> (std::path::PathBuf, std::path::PathBuf) {
    let catalog = f.dir.path().join("catalog");
    let registry = f.dir.path().join("registry");
    std::fs::create_dir_all(catalog.join("models/m")).unwrap();
    std::fs::create_dir_all(catalog.join("hardware")).unwrap();
    std::fs::create_dir_all(registry.join("coefficients")).unwrap();
    std::fs::write(catalog.join("models/m/graph.yaml"), "x: 1\n").unwrap();
    std::fs::write(catalog.join("hardware/h100.yaml"), "MemoryGiB: 80.0\n").unwrap();
    std::fs::write(registry.join("coefficients/c1.yaml"), "x: 1\n").unwrap();
    (catalog, registry)
}

fn gaps_of(f: &Fixture) -> Vec<gaps::Gap> {
    let (c, s) = f.load().unwrap();
    let (catalog, registry) = trees(f);
    gaps::gaps(&c, &s, &catalog, &registry, "vllm")
}

#[test]
fn sweep_whose_scenario_file_is_missing_is_a_gap_not_an_error() {
    let mut f = Fixture::new();
    f.sweeps.push(sweep("gone.yaml", "1k1k", "1024:1024"));
    let g = gaps_of(&f);
    let lines: Vec<String> = g.iter().filter(|g| g.concurrency.is_none()).map(|g| g.line()).collect();
    assert_eq!(
        lines,
        ["gap gone.yaml 1k1k sweep [scenarios] no loadable scenario: no file gone.yaml in the scenario tree"]
    );
    // still scored by the corpus arms, which need no scenario
    assert_eq!(f.score(None).sweeps.len(), 2);
}

#[test]
fn workload_not_isl_osl_is_a_gap() {
    let mut f = Fixture::new();
    f.sweeps[0]["workload"] = json!("1k1k");
    let g = gaps_of(&f);
    assert!(g.iter().any(|g| g.line()
        == "gap m-h100.yaml 1k1k sweep [corpus] workload not isl:osl: workload \"1k1k\" is not isl:osl (two positive integers)"));
}

#[test]
fn point_gaps_follow_the_settings_record() {
    let mut f = Fixture::new();
    f.settings.push(record(
        "m-h100.yaml",
        "1k1k",
        json!({"max_num_seqs": 64, "max_model_len": 2048, "max_cudagraph_capture_size": 512, "model": "/m"}),
    ));
    let g = gaps_of(&f);
    let at1: Vec<String> = g.iter().filter(|g| g.concurrency == Some(1)).map(|g| g.line()).collect();
    assert_eq!(at1, [
        "gap m-h100.yaml 1k1k c=1 [inferencex] measured setting absent: max_num_batched_tokens (resolved value used)",
        "gap m-h100.yaml 1k1k c=1 [inferencex] measured setting absent: block_size (resolved value used)",
        "gap m-h100.yaml 1k1k c=1 [inferencex] measured setting absent: enable_prefix_caching (resolved value used)",
        "gap m-h100.yaml 1k1k c=1 [blis-schemas] run setting blis-schemas cannot express: max_cudagraph_capture_size",
        "gap m-h100.yaml 1k1k c=1 [runner] run setting not carried into the simulation: max_model_len",
    ]);
}

#[test]
fn parallelism_differing_from_the_corpus_is_a_gap() {
    let mut f = Fixture::new();
    f.sweeps[0]["parallelism"]["tp_size"] = json!(4);
    let g = gaps_of(&f);
    assert!(g.iter().any(|g| g.line()
        == "gap m-h100.yaml 1k1k sweep [scenarios] parallelism differs from the corpus: tp 2 in the scenario, 4 in the corpus"));
}

#[test]
fn gaps_summary_counts_points_largest_first() {
    let mut f = Fixture::new();
    f.sweeps[0]["framework"] = json!("sglang");
    let (c, _) = f.load().unwrap();
    let text = gaps::render(&c, &gaps_of(&f), "vllm");
    let summary = text.split("summary").nth(1).unwrap();
    assert!(summary.contains("     3  corpus        framework not vllm"), "{summary}");
}

#[test]
fn tier_follows_the_settings_record_and_the_scenario_fields() {
    // no record: ALL only
    let s = Fixture::new().score(None);
    assert_eq!(s.sweeps[0].tier, Tier::All);
    // a record passing only keys the scenario files spell (or the tracked settings): M-O-R
    let mut f = Fixture::new();
    f.settings.push(record("m-h100.yaml", "1k1k", json!({"max_num_seqs": 64, "max_model_len": 2048})));
    assert_eq!(f.score(None).sweeps[0].tier, Tier::MeasuredOrResolved);
    // a key no scenario file has: back to ALL
    let mut f = Fixture::new();
    f.settings.push(record("m-h100.yaml", "1k1k", json!({"max_cudagraph_capture_size": 512})));
    let s = f.score(None);
    assert_eq!(s.sweeps[0].tier, Tier::All);
    assert!(s.inexpressible_keys.contains("max_cudagraph_capture_size"));
    // all four tracked settings at every point: STRICT
    let mut f = Fixture::new();
    f.settings.push(record(
        "m-h100.yaml",
        "1k1k",
        json!({"max_num_seqs": 64, "max_num_batched_tokens": 2048,
        "block_size": 16, "enable_prefix_caching": false}),
    ));
    let s = f.score(None);
    assert_eq!(s.sweeps[0].tier, Tier::Strict);
    assert_eq!(s.prefix_caching_points, 0);
}

#[test]
fn config_tier_selects_on_the_record_at_the_anchor() {
    let mut f = Fixture::new();
    f.sweeps.push(sweep("m-h100.yaml", "8k1k", "8192:1024"));
    f.settings.push(record("m-h100.yaml", "8k1k", json!({})));
    let (c, s) = f.load().unwrap();
    let arms = corpus_arms(&c.e2e);
    let measured = score(&c, &s, &arms, &Selection::vllm(Some(ConfigTier::Measured)));
    let resolved = score(&c, &s, &arms, &Selection::vllm(Some(ConfigTier::Resolved)));
    assert_eq!(measured.sweeps.iter().map(|s| s.label.as_str()).collect::<Vec<_>>(), ["8k1k"]);
    assert_eq!(resolved.sweeps.iter().map(|s| s.label.as_str()).collect::<Vec<_>>(), ["1k1k"]);
}

#[test]
fn ttft_excursion_leaves_ttft_metrics_for_every_arm_but_not_tpot() {
    let mut f = Fixture::new();
    let mut s = sweep("m-h100.yaml", "1k8k", "1024:8192");
    s["points"][1]["measured_ttft_relative"] = json!(50.0);
    f.sweeps = vec![s];
    let scored = f.score(None);
    assert_eq!(scored.excursions.len(), 1);
    assert_eq!(scored.excursions[0].concurrency, 2);
    let agg = scored.aggregate(scored.in_tier(Tier::All));
    assert_eq!((agg.n[&ErrorMetric::TpotShape], agg.n[&ErrorMetric::TpotMape]), (2, 3));
    assert_eq!((agg.n[&ErrorMetric::TtftShape], agg.n[&ErrorMetric::TtftMape]), (1, 2));
}

#[test]
fn resolved_settings_come_from_device_memory() {
    let f = Fixture::new();
    let (c, s) = f.load().unwrap();
    let sweep = &c.e2e.sweeps[0];
    let mem = settings::device_memory(None, "h200", "h200").unwrap();
    assert_eq!(settings::memory_source_label(&mem), "public fact");
    let values = settings::point_settings(sweep, 1, None, s.get("m-h100.yaml").ok(), Some(mem));
    let v: Vec<String> = values.iter().map(|s| format!("{}={} {}", s.field, s.value.unwrap(), s.provenance)).collect();
    assert_eq!(
        v,
        [
            "max_num_seqs=1024 resolved",
            "max_num_batched_tokens=8192 resolved",
            "block_size=16 resolved",
            "enable_prefix_caching=true resolved",
        ]
    );
}

#[test]
fn headline_task_refuses_without_measurements() {
    match task_headline(&crate::inputs::Inputs::none(), None, |_, _, _| unreachable!("no binary was given")) {
        Err(TaskError::Refused(r)) => {
            assert_eq!(r.kind, InputKind::Measurements);
            assert!(r.to_string().contains("BLIS_MEASUREMENTS"));
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn provenance_counts_every_tracked_setting_of_every_point() {
    let mut f = Fixture::new();
    f.settings.push(record("m-h100.yaml", "1k1k", json!({"max_num_seqs": 64})));
    let s = f.score(None);
    assert_eq!(s.provenance_counts[&("max_num_seqs", oracles::tiers::Provenance::Measured)], 3);
    assert_eq!(s.provenance_counts[&("block_size", oracles::tiers::Provenance::Resolved)], 3);
    assert!(render::header(&s).contains("max_num_seqs: measured 3"));
}

#[test]
fn counts_do_not_depend_on_which_arms_ran() {
    let f = Fixture::new();
    let (c, s) = f.load().unwrap();
    let none = vec![Arm::not_run("BLIS", "blis", ArmKind::Simulated, "needs --blis PATH")];
    let scored = score(&c, &s, &none, &Selection::vllm(None));
    let agg = scored.aggregate(scored.in_tier(Tier::All));
    assert_eq!((agg.n[&ErrorMetric::TpotShape], agg.n[&ErrorMetric::TtftMape]), (2, 3));
    assert_eq!(agg.mean_abs[&(0, ErrorMetric::TpotShape)], None);
}

/// `x` close to `y` entry by entry, concurrencies equal.
fn assert_errors(x: &[(u32, f64)], y: &[(u32, f64)], what: &str) {
    let close = x.len() == y.len() && x.iter().zip(y).all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() < 1e-9);
    assert!(close, "{what}: {x:?}, expected {y:?}");
}

#[test]
fn an_excursion_names_its_neighbours_and_leaves_ttft_errors_at_the_other_points_for_every_arm() {
    let mut f = Fixture::new();
    f.sweeps[0]["points"][1]["measured_ttft_relative"] = json!(50.0);
    f.anchors.push(absolutes());
    let (c, s) = f.load().unwrap();
    // BLIS in ms: TPOT 11, 23, 50 against 10, 20, 40 measured; TTFT 110, (any), 500 against 100, 400.
    let ms: BTreeMap<PointKey, ArmPoint> = [(1, 11.0, 110.0), (2, 23.0, 9999.0), (4, 50.0, 500.0)]
        .into_iter()
        .map(|(c, tpot, ttft)| {
            (PointKey::new("m-h100.yaml", "1k1k", c), ArmPoint { tpot: Some(tpot), ttft: Some(ttft) })
        })
        .collect();
    let arms = headline_arms(&c.e2e, Some(Arm::simulated("BLIS", "blis", ms)));
    let scored = score(&c, &s, &arms, &Selection::vllm(None));
    assert_eq!(
        scored.excursions,
        [Excursion {
            scenario: "m-h100.yaml".into(),
            label: "1k1k".into(),
            concurrency: 2,
            measured_ttft_rel: 50.0,
            neighbours: (1.0, 4.0)
        }]
    );
    let sweep = &scored.sweeps[0];
    let comparisons: Vec<usize> = ErrorMetric::ALL.iter().map(|m| sweep.comparisons[m]).collect();
    assert_eq!(comparisons, [2, 3, 1, 2]);
    // shape: ((p / p_anchor) / measured relative - 1) x 100; level: (p / measured - 1) x 100.
    let shape = |p: f64, anchor: f64, m: f64| ((p / anchor) / m - 1.0) * 100.0;
    let blis = sweep.errors[0].as_ref().unwrap();
    assert_errors(&blis.tpot_shape, &[(2, shape(23.0, 11.0, 2.0)), (4, shape(50.0, 11.0, 4.0))], "BLIS TPOT shape");
    assert_errors(&blis.tpot_mape, &[(1, 10.0), (2, 15.0), (4, 25.0)], "BLIS TPOT level");
    assert_errors(&blis.ttft_shape, &[(4, shape(500.0, 110.0, 4.0))], "BLIS TTFT shape");
    assert_errors(&blis.ttft_mape, &[(1, 10.0), (4, 25.0)], "BLIS TTFT level");
    // AISimulate's relatives are 1.1 x measured (1, 2, 4: the 50 is the corpus's measured value).
    let ais = sweep.errors[1].as_ref().unwrap();
    assert_errors(&ais.ttft_shape, &[(4, 0.0)], "AISimulate TTFT shape");
    assert_errors(&ais.ttft_mape, &[(1, 10.0), (4, 10.0)], "AISimulate TTFT level");
    assert_errors(&ais.tpot_mape, &[(1, 10.0), (2, 10.0), (4, 10.0)], "AISimulate TPOT level");
    let line = "  m-h100.yaml 1k1k c=2: measured TTFT relative 50.000000 > 10 x max(1.000000, 4.000000)\n";
    assert!(render::excursions(&scored).ends_with(line));
}

#[test]
fn a_sweep_needs_an_anchor_and_one_more_point() {
    let mut f = Fixture::new();
    f.sweeps[0]["points"].as_array_mut().unwrap().truncate(2);
    let two = f.score(None);
    assert_eq!(two.sweeps.len(), 1);
    assert_eq!(two.sweeps[0].comparisons[&ErrorMetric::TpotShape], 1);
    f.sweeps[0]["points"].as_array_mut().unwrap().truncate(1);
    assert_eq!(f.score(None).dropped[0].reason, "1 point(s): a shape needs an anchor and one more");
}

#[test]
fn prefix_caching_points_and_monotone_follow_each_scored_sweep() {
    // No record: vLLM's default turns prefix caching on at each of the three points.
    let mut f = Fixture::new();
    let mut flat = sweep("m-h100.yaml", "8k1k", "8192:1024");
    flat["points"][2]["measured_tpot_relative"] = json!(2.0);
    f.sweeps.push(flat);
    let s = f.score(None);
    assert_eq!(s.prefix_caching_points, 6);
    assert_eq!(s.sweeps.iter().map(|w| w.monotone).collect::<Vec<_>>(), [true, false]);
    assert!(render::header(&s).contains("points with prefix caching (scored sweeps): 6\n"));
}

/// A second scenario, `n-h200.yaml`: a model and a device the team's copy lacks, a network and
/// a coefficient set no tree has, and pp 2, dp 4 where its corpus sweep has 1 and 1.
fn with_h200_sweep(f: &mut Fixture) {
    let mut n = sweep("n-h200.yaml", "1k1k", "1024:1024");
    n["serving"] = json!("disaggregated");
    n["spec_method"] = json!("mtp");
    f.sweeps.push(n);
    f.write();
    let scenario = "kind: Scenario\nname: n-h200\nmodel: deepseek-v3\ncoefficients: [c2]\ncluster:\n  hardware: h200\n  network: ib\n  nodes: 1\n  gpus_per_node: 8\n---\nkind: Deployment\nname: n-h200\npools:\n  - role: colocated\n    nodes: 1\n    parallel: {tp: 2, pp: 2, dp: 4}\n    engine: {block_size: 16}\n";
    std::fs::write(f.scenarios().join("n-h200.yaml"), scenario).unwrap();
}

#[test]
fn sweep_gaps_name_each_missing_file_its_tree_and_each_parallelism_that_differs() {
    let mut f = Fixture::new();
    with_h200_sweep(&mut f);
    let g = gaps_of(&f);
    let team = "(absent from the team's partial copy, docs/upstream.md §8; not a gap in the published run)";
    let sweep_lines: Vec<String> = g.iter().filter(|g| g.concurrency.is_none()).map(|g| g.line()).collect();
    assert_eq!(
        sweep_lines,
        [
            "gap n-h200.yaml 1k1k sweep [corpus] serving not aggregated: disaggregated".to_string(),
            "gap n-h200.yaml 1k1k sweep [corpus] speculative method: mtp".into(),
            format!("gap n-h200.yaml 1k1k sweep [team-copy] missing catalog file (model graph): models/deepseek-v3/graph.yaml {team}"),
            format!("gap n-h200.yaml 1k1k sweep [team-copy] missing catalog file (hardware): hardware/h200.yaml {team}"),
            "gap n-h200.yaml 1k1k sweep [catalog] missing catalog file (network): networks/ib.yaml".into(),
            "gap n-h200.yaml 1k1k sweep [registry] missing registry file (coefficient set): coefficients/c2.yaml".into(),
            "gap n-h200.yaml 1k1k sweep [scenarios] parallelism differs from the corpus: attention dp 4 in the scenario, 1 in the corpus".into(),
            "gap n-h200.yaml 1k1k sweep [scenarios] parallelism differs from the corpus: pp 2 in the scenario, 1 in the corpus".into(),
        ]
    );
    assert!(g.iter().all(|g| g.points == if g.concurrency.is_none() { 3 } else { 1 }));
    // Without a record every tracked setting of every point is resolved: 4 x 3 per sweep.
    let points: Vec<&gaps::Gap> = g.iter().filter(|g| g.concurrency.is_some()).collect();
    assert_eq!(points.len(), 24);
    assert_eq!(
        points[0].line(),
        "gap m-h100.yaml 1k1k c=1 [inferencex] measured setting absent: max_num_seqs (resolved value used)"
    );

    let (c, _) = f.load().unwrap();
    let absent = |field: &str| format!("     6  inferencex    measured setting absent: {field} (resolved value used)");
    let summary = [
        "summary: points per (cause, owner), largest first".to_string(),
        "points  owner         cause".into(),
        absent("block_size"),
        absent("enable_prefix_caching"),
        absent("max_num_batched_tokens"),
        absent("max_num_seqs"),
        "     6  scenarios     parallelism differs from the corpus".into(),
        "     3  team-copy     missing catalog file (hardware)".into(),
        "     3  team-copy     missing catalog file (model graph)".into(),
        "     3  catalog       missing catalog file (network)".into(),
        "     3  registry      missing registry file (coefficient set)".into(),
        "     3  corpus        serving not aggregated".into(),
        "     3  corpus        speculative method".into(),
    ];
    let text = gaps::render(&c, &g, "vllm");
    let head = "coverage gaps of aisimulate_e2e.json (release r1, 2 sweeps, 6 points), framework vllm, checked against the scenarios, catalog and registry\n";
    assert!(text.starts_with(head), "{text}");
    assert!(text.ends_with(&format!("\n\n{}\n", summary.join("\n"))), "{text}");
    assert_eq!(text.lines().count(), 1 + g.len() + 1 + summary.len());
}

#[test]
fn only_vllm_sweeps_of_the_selected_framework_have_point_gaps() {
    // Point gaps are vLLM's settings: none for another framework's sweep, selected or not.
    let mut f = Fixture::new();
    f.sweeps.push(sweep("m-h100.yaml", "8k1k", "8192:1024"));
    f.sweeps[0]["framework"] = json!("sglang");
    let (c, s) = f.load().unwrap();
    let (catalog, registry) = trees(&f);
    let lines = |framework: &str| -> Vec<String> {
        gaps::gaps(&c, &s, &catalog, &registry, framework).iter().map(|g| g.line()).collect()
    };
    let vllm = lines("vllm");
    assert_eq!(vllm[0], "gap m-h100.yaml 1k1k sweep [corpus] framework not vllm: sglang");
    assert_eq!(vllm.len(), 1 + 12, "{vllm:#?}");
    assert!(vllm[1..].iter().all(|l| l.starts_with("gap m-h100.yaml 8k1k c=")), "{vllm:#?}");
    assert_eq!(lines("sglang"), ["gap m-h100.yaml 8k1k sweep [corpus] framework not sglang: vllm"]);
}

#[test]
fn prefix_caching_follows_a_passed_value_and_is_off_for_another_framework() {
    let mut f = Fixture::new();
    f.settings.push(record("m-h100.yaml", "1k1k", json!({"enable_prefix_caching": true})));
    assert_eq!(f.score(None).prefix_caching_points, 3);
    let mut f = Fixture::new();
    f.settings.push(record("m-h100.yaml", "1k1k", json!({"enable_prefix_caching": false})));
    assert_eq!(f.score(None).prefix_caching_points, 0);
    let (c, _) = Fixture::new().load().unwrap();
    let mut other = c.e2e.sweeps[0].clone();
    other.framework = "sglang".into();
    assert!(settings::prefix_caching_on(&c.e2e.sweeps[0], 1, None));
    assert!(!settings::prefix_caching_on(&other, 1, None));
}

#[test]
fn point_settings_are_passed_values_defaults_or_the_scenarios_by_provenance() {
    use crate::corpus::inferencex::SettingValue;
    let mut f = Fixture::new();
    f.settings.push(record("m-h100.yaml", "1k1k", json!({"max_num_seqs": 64})));
    let (c, s) = f.load().unwrap();
    let sweep = &c.e2e.sweeps[0];
    let scenario = s.get("m-h100.yaml").ok();
    let record = c.settings.settings.first();
    let mem = settings::device_memory(None, "h100", "h100");
    let of = |v: Vec<settings::Setting>| v.into_iter().map(|s| (s.field, s.value, s.provenance)).collect::<Vec<_>>();
    use oracles::tiers::Provenance::{Measured, Resolved, Scenario};
    // vLLM on an 80 GB h100 (>= 70 GiB, not an A100): 1024 sequences, 8192 batched tokens.
    assert_eq!(
        of(settings::point_settings(sweep, 2, record, scenario, mem)),
        [
            ("max_num_seqs", Some(SettingValue::Int(64)), Measured),
            ("max_num_batched_tokens", Some(SettingValue::Int(8192)), Resolved),
            ("block_size", Some(SettingValue::Int(16)), Resolved),
            ("enable_prefix_caching", Some(SettingValue::Bool(true)), Resolved),
        ]
    );
    assert!(of(settings::point_settings(sweep, 2, record, scenario, None)).iter().skip(1).all(|s| s.1.is_none()));
    // Another framework: the scenario's engine block (block_size 16, max_num_seqs 256) or nothing.
    let mut other = sweep.clone();
    other.framework = "sglang".into();
    assert_eq!(
        of(settings::point_settings(&other, 2, record, scenario, mem)),
        [
            ("max_num_seqs", Some(SettingValue::Int(256)), Scenario),
            ("max_num_batched_tokens", None, Scenario),
            ("block_size", Some(SettingValue::Int(16)), Scenario),
            ("enable_prefix_caching", None, Scenario),
        ]
    );
}

#[test]
fn defaults_table_names_each_devices_memory_its_source_and_the_defaults() {
    let mut f = Fixture::new();
    f.sweeps.push(sweep("gone.yaml", "1k1k", "1024:1024"));
    f.sweeps[1]["gpu"] = json!("a100");
    f.sweeps.push(sweep("gone.yaml", "8k1k", "8192:1024"));
    f.sweeps[2]["gpu"] = json!("mi999");
    let (c, s) = f.load().unwrap();
    let (catalog, _) = trees(&f);
    let head = "## vLLM defaults for resolved settings (vllm/engine/arg_utils.py get_batch_defaults; prefix caching on; block size 16)\n";
    // 80 GB is 74.5 GiB; an A100 keeps the smaller defaults whatever its memory.
    let public = format!(
        "{head}  a100: 74.5 GiB (public fact): max_num_seqs 256, max_num_batched_tokens 2048\n  \
         h100: 74.5 GiB (public fact): max_num_seqs 1024, max_num_batched_tokens 8192\n  \
         mi999: memory unknown (no catalog descriptor, no public fact): not resolvable\n"
    );
    assert_eq!(settings::defaults_table(&c, &s, None, "vllm"), public);
    let with_catalog = settings::defaults_table(&c, &s, Some(&catalog), "vllm");
    assert!(
        with_catalog.contains("\n  h100: 80.0 GiB (catalog): max_num_seqs 1024, max_num_batched_tokens 8192\n"),
        "{with_catalog}"
    );
    assert_eq!(settings::defaults_table(&c, &s, None, "sglang"), head);
}

#[test]
fn a_split_report_is_the_corpus_report_then_every_arms_headline_over_the_sweeps_with_a_blis_value() {
    let mut f = Fixture::new();
    f.sweeps.push(sweep("m-h100.yaml", "8k1k", "8192:1024"));
    f.anchors.push(absolutes());
    let (c, s) = f.load().unwrap();
    // BLIS values for 1k1k only: one of the two sweeps.
    let ms: BTreeMap<PointKey, ArmPoint> = [1, 2, 4]
        .into_iter()
        .map(|c| (PointKey::new("m-h100.yaml", "1k1k", c), ArmPoint { tpot: Some(c as f64), ttft: Some(c as f64) }))
        .collect();
    let resolved = resolve::resolve(&c, &s, None, &Selection::vllm(None));
    let split = score_split(&resolved, Arm::simulated("BLIS", "blis", ms));
    assert_eq!((split.corpus.sweeps.len(), split.with_blis.sweeps.len()), (2, 1));
    let text = split.report();
    let middle =
        "\n## BLIS and the comparison arms over the 1 sweeps with a BLIS value (not the published selection)\n\n";
    assert_eq!(text, format!("{}{middle}{}", render::report(&split.corpus), render::headline(&split.with_blis)));
}
