//! The HTML report on a small synthetic corpus run through the real scorer: one sweep with a
//! TTFT excursion, both published arms and a BLIS arm, and a gate figure table with every
//! verdict. Pins one sweep's SVG and the figure table (not the whole page).

use super::*;
use crate::chart;
use crate::gate::evaluate::FigureResult;
use crate::score::{
    headline_arms, score, ArmPoint, PointKey, Selection, ABSOLUTES_FILE, E2E_FILE, SCOREABLE_FILE, SETTINGS_FILE,
};
use serde_json::json;

const CONC: [u32; 5] = [4, 8, 16, 32, 64];
/// Measured TPOT relatives, and TTFT with an excursion at c=16 (40 > 10 x max(1.4, 2.2)).
const TPOT: [f64; 5] = [1.0, 1.15, 1.4, 1.9, 2.8];
const TTFT: [f64; 5] = [1.0, 1.4, 40.0, 2.2, 3.5];

fn totals() -> serde_json::Value {
    json!({"points": 0, "tpot_mape_pct": 0.0, "tpot_shape_error_pct": 0.0, "ttft_mape_pct": 0.0, "ttft_shape_error_pct": 0.0})
}

struct Fixture {
    _dir: tempfile::TempDir,
    corpora: Corpora,
    scored: Scored,
    arms: Vec<Arm>,
}

/// The scorer on one sweep: AISimulate off by a constant 10%, AIC by a slope, BLIS (ms)
/// close at the anchor and low at the top.
fn fixture() -> Fixture {
    fixture_with_baseline(false)
}

/// The fixture, with `baseline` a second BLIS arm as `--baseline-blis` adds it (the release
/// the candidate replaces: closer to the measurement at the top).
fn fixture_with_baseline(baseline: bool) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("measurements");
    let s = dir.path().join("scenarios");
    std::fs::create_dir_all(&m).unwrap();
    std::fs::create_dir_all(&s).unwrap();
    let points: Vec<serde_json::Value> = (0..5)
        .map(|i| {
            let slope = 1.0 + 0.08 * i as f64;
            json!({
                "concurrency": CONC[i], "status": "success",
                "measured_tpot_relative": TPOT[i], "measured_ttft_relative": TTFT[i],
                "aisimulate_tpot_relative": if i == 0 { 1.0 } else { TPOT[i] * 1.1 }, "aisimulate_tpot_error_pct": 0.0,
                "aisimulate_ttft_relative": if i == 0 { 1.0 } else { TTFT[i] * 0.9 }, "aisimulate_ttft_error_pct": 0.0,
                "aic_tpot_relative": TPOT[i] * slope, "aic_tpot_error_pct": 0.0,
                "aic_ttft_relative": TTFT[i] / slope, "aic_ttft_error_pct": 0.0
            })
        })
        .collect();
    let sweep = json!({
        "scenario": "m-h100.yaml", "model": "llama-x-70b", "gpu": "h100", "workload": "1024:1024", "label": "1k1k",
        "framework": "vllm", "precision": "fp8", "serving": "aggregated", "spec_method": "none",
        "parallelism": {"tp_size": 4, "pp_size": 1, "attention_dp_size": 1, "moe_ep_size": null, "moe_tp_size": null},
        "topology_id": "t", "points": points
    });
    let e2e = json!({"source": "test", "measurement_source": "x", "snapshot": {"release_tag": "r1"},
        "scope": {}, "aisimulate_totals": totals(), "aic_totals": totals(), "selection": {}, "sweeps": [sweep]});
    std::fs::write(m.join(E2E_FILE), e2e.to_string()).unwrap();
    let us = |base: f64, rel: &[f64]| -> serde_json::Value {
        CONC.iter().zip(rel).map(|(c, r)| (c.to_string(), json!(base * r))).collect::<serde_json::Map<_, _>>().into()
    };
    let anchor = json!({"scenario": "m-h100.yaml", "label": "1k1k", "framework": "vllm", "gpu": "h100",
        "absolute_tpot_us": us(10000.0, &TPOT), "absolute_ttft_us": us(100000.0, &TTFT),
        "source_run_date": "d", "source_config_id": 1, "relative_agreement": 0.0});
    let abs = json!({"source": "s", "source_url": "u", "release_tag": "r1", "metrics": "m", "validation": "v", "anchors": [anchor]});
    std::fs::write(m.join(ABSOLUTES_FILE), abs.to_string()).unwrap();
    let settings = json!({"source": "s", "source_url": "u", "release_tag": "r1", "run_selection": "x", "settings": []});
    std::fs::write(m.join(SETTINGS_FILE), settings.to_string()).unwrap();
    std::fs::write(m.join(SCOREABLE_FILE), "[]").unwrap();
    let scenario = "kind: Scenario\nname: m-h100\nmodel: m\ncoefficients: [c1]\ncluster:\n  hardware: h100\n  nodes: 1\n  gpus_per_node: 8\n---\nkind: Deployment\nname: m-h100\npools:\n  - role: colocated\n    nodes: 1\n    parallel: {tp: 4, pp: 1, dp: 1}\n    engine: {block_size: 16, max_num_seqs: 256, max_model_len: 4096}\n";
    std::fs::write(s.join("m-h100.yaml"), scenario).unwrap();
    let corpora = Corpora::load(&m).unwrap();
    let scenarios = crate::corpus::scenario::load_dir(&s).unwrap();
    let blis_ms: BTreeMap<PointKey, ArmPoint> = CONC
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let low = 1.0 - 0.05 * i as f64;
            (
                PointKey::new("m-h100.yaml", "1k1k", c),
                ArmPoint { tpot: Some(10.0 * TPOT[i] * low), ttft: Some(100.0 * TTFT[i] * low) },
            )
        })
        .collect();
    let baseline_ms: BTreeMap<PointKey, ArmPoint> = CONC
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let low = 1.0 - 0.02 * i as f64;
            (
                PointKey::new("m-h100.yaml", "1k1k", c),
                ArmPoint { tpot: Some(10.0 * TPOT[i] * low), ttft: Some(100.0 * TTFT[i] * low) },
            )
        })
        .collect();
    let mut arms = headline_arms(&corpora.e2e, Some(Arm::simulated("BLIS", "blis", blis_ms)));
    if baseline {
        arms.push(Arm::simulated(
            crate::blis::baseline::BASELINE_NAME,
            crate::blis::baseline::BASELINE_KEY,
            baseline_ms,
        ));
    }
    let scored = score(&corpora, &scenarios, &arms, &Selection::vllm(None));
    Fixture { _dir: dir, corpora, scored, arms }
}

fn figure(id: &str, status: Status, published: &str, ours: Option<&str>, detail: &str) -> FigureResult {
    FigureResult {
        detail: detail.into(),
        document: "PUBLISHED-FIGURES.md".into(),
        expected_source: crate::gate::manifest::ExpectedSource::Published,
        id: id.into(),
        need: None,
        ours: ours.map(String::from),
        refusal: (status == Status::Refused).then_some(crate::gate::evaluate::RefusalKind::MissingInput),
        published: published.into(),
        section: "3".into(),
        status,
        what: String::new(),
    }
}

fn manifest() -> Manifest {
    crate::gate::load_manifest(&crate::gate::manifest_path()).unwrap()
}

fn figures() -> Vec<FigureResult> {
    vec![
        figure("headline/all/aisimulate/tpot-shape", Status::Ok, "10.43", Some("10.43"), ""),
        figure("headline/all/blis/tpot-shape", Status::Mismatch, "5.61", Some("7.20"), "differs by 1.59"),
        figure("headline/strict/sweeps", Status::Refused, "0", None, "needs BLIS_MEASUREMENTS <or> --measurements DIR"),
        figure("error-definition/aisimulate-tpot-shape-anchor-excluded", Status::Ok, "10.05", Some("10.05"), ""),
    ]
}

#[test]
fn the_synthetic_sweep_is_scored_with_all_three_arms_and_one_excursion() {
    let f = fixture();
    assert_eq!(f.scored.sweeps.len(), 1, "dropped: {:?}", f.scored.dropped);
    assert_eq!(f.scored.excursions.len(), 1);
    let views = views::sweep_views(&f.scored, &f.corpora, &f.arms);
    let names: Vec<&str> = views[0].arms.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["BLIS", "AISimulate", "AIC"]);
    assert_eq!(views[0].excluded, [false, false, true, false, false]);
    // Each arm's curve is relative to its own anchor.
    assert!(views[0].arms.iter().all(|a| a.tpot[0] == 1.0 && a.ttft[0] == 1.0));
}

#[test]
fn sweep_chart_svg_is_pinned() {
    let f = fixture();
    let views = views::sweep_views(&f.scored, &f.corpora, &f.arms);
    let svg = sweep_chart(&views[0]);
    crate::assert_figure_snapshot!("report_html__sweep_chart_three_arms_with_excursion", svg);
}

#[test]
fn with_a_baseline_every_sweep_chart_draws_both_blis_curves() {
    let f = fixture_with_baseline(true);
    let views = views::sweep_views(&f.scored, &f.corpora, &f.arms);
    let names: Vec<&str> = views[0].arms.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["BLIS", "AISimulate", "AIC", "BLIS baseline"]);
    let svg = sweep_chart(&views[0]);
    assert!(svg.contains("#0072B2") && svg.contains("#56B4E9"), "both BLIS colours drawn");
    crate::assert_figure_snapshot!("report_html__sweep_chart_candidate_and_baseline_blis", svg);
}

#[test]
fn figure_table_is_pinned_with_links_to_charts_on_the_page() {
    let anchors: BTreeSet<String> = ["arm-aisimulate", "arm-blis", "tier-all"].map(String::from).into();
    let results = figures();
    let m = manifest();
    let table = figure_table(&Figures { results: &results, manifest: &m }, &anchors);
    assert!(table.contains("href=\"#arm-blis\"") && table.contains("href=\"#arm-aisimulate\""), "{table}");
    // tier-strict is not on the page: no dangling link.
    assert!(!table.contains("#tier-strict"), "{table}");
    crate::assert_figure_snapshot!("report_html__figure_table", table);
}

#[test]
fn page_has_one_chart_per_sweep_plus_two_per_arm_and_every_link_lands() {
    let f = fixture();
    let results = figures();
    let m = manifest();
    let html = render(&Page {
        heading: "test",
        figures: Some(Figures { results: &results, manifest: &m }),
        scoring: Ok(Scoring { scored: &f.scored, corpora: &f.corpora, arms: &f.arms }),
        notes: vec![],
    });
    assert_eq!(html.matches("<svg ").count(), 1 + 2 * 3);
    assert_eq!(html.matches("<title id=").count(), html.matches("<svg ").count(), "every chart has a title");
    assert_eq!(html.matches("<desc id=").count(), html.matches("<svg ").count(), "every chart has a description");
    for link in html.split("href=\"#").skip(1) {
        let id = &link[..link.find('"').unwrap()];
        assert!(html.contains(&format!("id=\"{id}\"")), "link to #{id} lands nowhere");
    }
    let without_namespace = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!html.contains("<script") && !without_namespace.contains("http:") && !without_namespace.contains("https:"));
}

#[test]
fn same_inputs_give_the_same_bytes() {
    let (a, b) = (fixture(), fixture());
    assert_eq!(for_score(&a.scored, &a.corpora, &a.arms, vec![]), for_score(&b.scored, &b.corpora, &b.arms, vec![]));
}

#[test]
fn a_page_without_scoring_says_what_it_needs() {
    let results = figures();
    let m = manifest();
    let html = render(&Page {
        heading: "gate",
        figures: Some(Figures { results: &results, manifest: &m }),
        scoring: Err("the sweep charts need the measurement corpora (--measurements DIR or BLIS_MEASUREMENTS)".into()),
        notes: vec![],
    });
    assert!(html.contains("BLIS_MEASUREMENTS") && !html.contains("<svg "), "{html}");
    // The figure table links only to charts on the page: there are none.
    assert!(!html.contains("href=\"#arm-"), "{html}");
}

#[test]
fn an_arm_off_by_orders_of_magnitude_clips_the_scale_and_says_so() {
    let draw = |arm: &[f64]| {
        let mut svg = chart::Svg::new("t", 400.0, 300.0, "t", "t");
        let f = chart::Frame { x: 40.0, y: 20.0, w: 300.0, h: 200.0 };
        let style = chart::arm_style("blis");
        panel(&mut svg, f, "TTFT", &[1, 2, 4], &[1.0, 2.0, 3.0], &[(style, arm)], &[false, false, false]);
        svg.finish()
    };
    let wild = draw(&[1.0, 900.0, 20000.0]);
    assert!(wild.contains("scale clipped at 30.000: higher points on the top edge"), "{wild}");
    // The measured curve keeps its shape: its top point is well above the axis.
    assert!(!draw(&[1.0, 2.5, 4.0]).contains("scale clipped"));
}
