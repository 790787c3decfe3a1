//! Known answers from AISimulate's own test of its overview definitions
//! (AIS `tests/test_e2e_accuracy_overview.py`, docs/upstream.md §4), committed as
//! `testdata/aisimulate-test-rows/rows.json`. Every figure listed there is checked here, and
//! the anchor-inclusive variant is shown to give the discriminating 12.5 and 8.33 instead.

use oracles::accuracy::{
    arm_figures, published_rows, relatives, ArmFigures, Latencies, Metric, PublishedArm, Row, ShapeDefinition, Status,
    StatusCounts,
};
use serde_json::Value;

fn vectors() -> Value {
    let path = harness::paths::testdata().join("aisimulate-test-rows/rows.json");
    let text = std::fs::read_to_string(&path).expect("committed test vectors");
    serde_json::from_str(&text).expect("test vectors are JSON")
}

fn latencies(v: &Value) -> Latencies {
    if v.is_null() {
        return Latencies::default();
    }
    Latencies { ttft: v["ttft_ms"].as_f64(), tpot: v["tpot_ms"].as_f64() }
}

fn rows(v: &Value) -> Vec<Row> {
    v["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Row {
            topology: format!("{}/{}", r["model"].as_str().unwrap(), r["config"]),
            gpu: r["gpu"].as_str().unwrap().to_string(),
            gpus: oracles::accuracy::gpu_count(
                r["tp"].as_u64().unwrap(),
                r["pp"].as_u64().unwrap(),
                r["dp"].as_u64().unwrap(),
            ),
            concurrency: r["concurrency"].as_f64().unwrap(),
            status: Status::parse(r["status"].as_str().unwrap()).unwrap(),
            measured: latencies(&r["measured"]),
            aic: latencies(&r["aic"]),
            aisimulate: latencies(&r["aisimulate"]),
        })
        .collect()
}

fn expected(v: &Value, pointer: &str) -> f64 {
    v.pointer(pointer).and_then(Value::as_f64).unwrap_or_else(|| panic!("{pointer} in rows.json"))
}

fn alpha(rows: &[Row]) -> Vec<&Row> {
    rows.iter().filter(|r| r.topology.starts_with("Alpha/")).collect()
}

fn figures(rows: &[&Row], arm: PublishedArm, definition: ShapeDefinition) -> ArmFigures {
    arm_figures(rows, arm, definition)
}

#[test]
fn multi_node_gamma_is_excluded_from_the_published_rows() {
    let v = vectors();
    let rows = rows(&v);
    assert_eq!(rows.len() as f64, expected(&v, "/expected/raw_rows"));
    let published = published_rows(&rows);
    assert_eq!(published.len() as f64, expected(&v, "/expected/published_rows"));
    assert!(published.iter().all(|r| !r.topology.starts_with("Gamma/")));
}

#[test]
fn totals_match_aisimulate_test() {
    let v = vectors();
    let rows = rows(&v);
    let published = published_rows(&rows);
    let aic = figures(&published, PublishedArm::Aic, ShapeDefinition::AnchorExcluded);
    assert_eq!(aic.points as f64, expected(&v, "/expected/totals/aic/points"));
    assert_eq!(aic.mape(Metric::Ttft).published(), Some(expected(&v, "/expected/totals/aic/ttft_mape_pct")));
    assert_eq!(aic.mape(Metric::Tpot).published(), Some(expected(&v, "/expected/totals/aic/tpot_mape_pct")));

    let ais = figures(&published, PublishedArm::Aisimulate, ShapeDefinition::AnchorExcluded);
    assert_eq!(ais.points as f64, expected(&v, "/expected/totals/aisimulate/points"));
    let counts = StatusCounts::of(published.iter().map(|r| r.status));
    let want = |k: &str| expected(&v, &format!("/expected/totals/aisimulate/status_counts/{k}")) as u64;
    assert_eq!(
        counts,
        StatusCounts {
            success: want("success"),
            unsupported: want("unsupported"),
            failed: want("failed"),
            unknown: want("unknown"),
        }
    );
    assert_eq!(counts.coverage_pct(), Some(expected(&v, "/expected/totals/aisimulate/coverage_pct")));
}

#[test]
fn alpha_figures_match_aisimulate_test_for_both_arms_and_metrics() {
    let v = vectors();
    let rows = rows(&v);
    let alpha = alpha(&rows);
    for arm in PublishedArm::ALL {
        let got = figures(&alpha, arm, ShapeDefinition::AnchorExcluded);
        for metric in Metric::ALL {
            let base = format!("/expected/models/Alpha/{arm}/{metric}");
            assert_eq!(
                got.mape(metric).published(),
                Some(expected(&v, &format!("{base}_mape_pct"))),
                "{arm} {metric} mape"
            );
            assert_eq!(
                got.shape(metric).published(),
                Some(expected(&v, &format!("{base}_shape_error_pct"))),
                "{arm} {metric} shape"
            );
        }
    }
}

#[test]
fn anchor_inclusive_variant_gives_the_discriminators_and_the_real_definition_does_not() {
    let v = vectors();
    let rows = rows(&v);
    let alpha = alpha(&rows);
    for (arm, metric) in [(PublishedArm::Aic, Metric::Tpot), (PublishedArm::Aisimulate, Metric::Ttft)] {
        let wrong =
            expected(&v, &format!("/expected/anchor_inclusive_discriminators/Alpha/{arm}/{metric}_shape_error_pct"));
        let inclusive = figures(&alpha, arm, ShapeDefinition::AnchorIncluded).shape(metric);
        assert_eq!(inclusive.published(), Some(wrong), "{arm} {metric}: the wrong definition");
        let real = figures(&alpha, arm, ShapeDefinition::AnchorExcluded).shape(metric);
        assert_ne!(real.published(), Some(wrong), "{arm} {metric}: the real definition");
        assert_eq!(
            real.published(),
            Some(expected(&v, &format!("/expected/models/Alpha/{arm}/{metric}_shape_error_pct")))
        );
    }
}

#[test]
fn relatives_after_a_failed_replay_stay_anchored_on_the_measured_value() {
    let v = vectors();
    let mut rows = rows(&v);
    rows[1].status = Status::Failed;
    rows[1].aisimulate = Latencies::default();
    let alpha: Vec<Row> = alpha(&rows).into_iter().cloned().collect();
    let at = |values: &[Option<f64>], concurrency: f64| {
        let i = alpha.iter().position(|r| r.concurrency == concurrency).unwrap();
        values[i]
    };
    let e = "/expected/row_1_aisimulate_failed";
    let measured = relatives(&alpha, None, Metric::Ttft);
    assert_eq!(at(&measured, 1.0), Some(expected(&v, &format!("{e}/measured_ttft_relative/1"))));
    assert_eq!(at(&measured, 2.0), Some(expected(&v, &format!("{e}/measured_ttft_relative/2"))));
    let ais = relatives(&alpha, Some(PublishedArm::Aisimulate), Metric::Ttft);
    assert_eq!(at(&ais, 1.0), Some(expected(&v, &format!("{e}/aisimulate_ttft_relative/1"))));
    assert_eq!(at(&ais, 2.0), None, "a failed replay carries no AISimulate relative");
    let ape = oracles::accuracy::published_error_pct(
        alpha[0].arm(PublishedArm::Aisimulate).ttft.unwrap(),
        alpha[0].measured.ttft.unwrap(),
    );
    assert_eq!(ape, Some(expected(&v, &format!("{e}/aisimulate_ttft_error_pct/1"))));
    let aic = relatives(&alpha, Some(PublishedArm::Aic), Metric::Ttft);
    assert_eq!(at(&aic, 2.0), Some(expected(&v, &format!("{e}/aic_ttft_relative/2"))));
    // Anchoring on AIC's own first value (110) would give 2.0, not 2.2.
    assert_ne!(at(&aic, 2.0), Some(2.0));
}

#[test]
fn known_answers_task_matches_every_figure() {
    let output = harness::oracle_report::known_answers::task().expect("committed vectors");
    assert_eq!(output.values.get("all_match"), Some(&harness::task::Value::Check(true)));
    assert_eq!(output.values.get("anchor_inclusive_would_fail"), Some(&harness::task::Value::Check(true)));
    // The report is pinned by the figures suite (harness/tests/figures.rs).
}
