//! The strict reader of `aisimulate_summary.json`: one small valid document, then one broken
//! copy per malformed-input case, each asserting the path and the message.

use harness::corpus::aisimulate::parse;
use serde_json::{json, Value};

fn figures(points: u64, counts: Option<(u64, u64)>, coverage: Option<f64>) -> Value {
    let mut f = json!({
        "points": points, "tpot_mape_pct": 1.0, "tpot_shape_error_pct": 2.0,
        "ttft_mape_pct": 3.0, "ttft_shape_error_pct": null
    });
    if let Some((success, failed)) = counts {
        f["status_counts"] = json!({"failed": failed, "success": success, "unknown": 0, "unsupported": 0});
    }
    if let Some(c) = coverage {
        f["coverage_pct"] = json!(c);
    }
    f
}

fn predicted(values: Option<(f64, f64)>) -> Value {
    match values {
        Some((rel, err)) => {
            json!({"tpot_error_pct": err, "tpot_relative": rel, "ttft_error_pct": err, "ttft_relative": rel})
        }
        None => json!({"tpot_error_pct": null, "tpot_relative": null, "ttft_error_pct": null, "ttft_relative": null}),
    }
}

/// One model / workload / gpu / topology with a success point and a failed point.
fn valid() -> Value {
    let level = |extra: Value| {
        let mut v = json!({
            "aic": figures(2, None, None),
            "aisimulate": figures(1, Some((1, 1)), Some(50.0)),
            "rows": 2
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    let topology = json!({
        "aic": figures(2, None, None),
        "aisimulate": figures(1, Some((1, 1)), None),
        "framework": "vllm", "id": "t0",
        "parallelism": {"attention_dp_size": 1, "moe_ep_size": 1, "moe_tp_size": 1, "pp_size": 1, "tp_size": 8},
        "points": [
            {"aic": predicted(Some((1.1, 10.0))), "aisimulate": predicted(Some((0.9, 10.0))), "concurrency": 1,
             "measured": {"tpot_relative": 1.0, "ttft_relative": 1.0}, "status": "success"},
            {"aic": predicted(Some((2.2, 10.0))), "aisimulate": predicted(None), "concurrency": 2,
             "measured": {"tpot_relative": 2.0, "ttft_relative": 2.0}, "status": "failed"}
        ],
        "precision": "fp8", "rows": 2, "serving": "aggregated", "spec_method": "none"
    });
    let gpu = level(json!({"gpu": "h200", "precisions": ["fp8"], "topologies": [topology]}));
    let workload = level(
        json!({"gpu_skus": ["h200"], "gpus": [gpu], "identity": "1024:1024", "label": "1k1k", "precisions": ["fp8"]}),
    );
    let model = level(
        json!({"frameworks": ["vllm"], "gpu_skus": ["h200"], "hf_model_paths": ["x/y"], "model": "m", "precisions": ["fp8"], "workloads": [workload]}),
    );
    let totals = level(
        json!({"frameworks": ["vllm"], "gpu_skus": ["h200"], "models": 1, "precisions": ["fp8"], "workloads": ["1024:1024"]}),
    );
    json!({
        "models": [model], "schema_version": 1,
        "scope": {"claim": "c", "excluded_multinode_rows": 0, "latency_scope": "client_observed",
                  "measurement_scope": "end_to_end", "metrics": ["TTFT", "TPOT"], "multinode": "excluded",
                  "published_rows": 2, "raw_rows": 2},
        "snapshot": {"release_tag": "r"}, "title": "t", "totals": totals
    })
}

const POINT: &str = "/models/0/workloads/0/gpus/0/topologies/0/points";
const POINT_PATH: &str = "models[0].workloads[0].gpus[0].topologies[0].points";

fn error_of(doc: &str) -> String {
    match parse(doc, "summary.json") {
        Ok(_) => panic!("accepted a malformed document"),
        Err(e) => e.to_string(),
    }
}

fn error_after(edit: impl FnOnce(&mut Value)) -> String {
    let mut doc = valid();
    edit(&mut doc);
    error_of(&doc.to_string())
}

fn set(doc: &mut Value, pointer: &str, value: Value) {
    *doc.pointer_mut(pointer).unwrap_or_else(|| panic!("{pointer} in the valid document")) = value;
}

#[test]
fn valid_document_is_accepted() {
    let summary = parse(&valid().to_string(), "summary.json").expect("valid");
    assert_eq!(summary.topologies().len(), 1);
    assert_eq!(summary.topologies()[0].path, "models[0].workloads[0].gpus[0].topologies[0]");
}

#[test]
fn empty_file_is_an_error() {
    assert_eq!(error_of("  \n"), "summary.json: .: the file is empty; expected AISimulate's summary JSON object");
}

#[test]
fn duplicate_key_names_its_path() {
    let doc = valid().to_string().replacen("\"concurrency\":2", "\"concurrency\":2,\"concurrency\":3", 1);
    let err = error_of(&doc);
    assert!(err.starts_with(&format!("summary.json: {POINT_PATH}[1]")), "{err}");
    assert!(err.contains("duplicate key `concurrency`"), "{err}");
}

#[test]
fn duplicate_key_inside_free_form_snapshot_is_caught_too() {
    let doc = valid().to_string().replacen("\"release_tag\":\"r\"", "\"release_tag\":\"r\",\"release_tag\":\"s\"", 1);
    let err = error_of(&doc);
    assert!(err.starts_with("summary.json: snapshot"), "{err}");
    assert!(err.contains("duplicate key `release_tag`"), "{err}");
}

#[test]
fn nan_names_its_path() {
    let doc = valid().to_string().replacen("\"concurrency\":2", "\"concurrency\":NaN", 1);
    let err = error_of(&doc);
    assert!(err.starts_with(&format!("summary.json: {POINT_PATH}[1].concurrency: NaN or infinite number")), "{err}");
}

#[test]
fn infinity_names_its_path() {
    let doc = valid().to_string().replacen("\"tpot_relative\":2.0", "\"tpot_relative\":-Infinity", 1);
    let err = error_of(&doc);
    assert!(
        err.starts_with(&format!("summary.json: {POINT_PATH}[1].measured.tpot_relative: NaN or infinite")),
        "{err}"
    );
}

#[test]
fn overflowing_number_names_its_path() {
    let doc = valid().to_string().replacen("\"tpot_relative\":2.0", "\"tpot_relative\":1e999", 1);
    let err = error_of(&doc);
    assert!(err.starts_with(&format!("summary.json: {POINT_PATH}[1].measured.tpot_relative: ")), "{err}");
    assert!(err.contains("number out of range"), "{err}");
}

#[test]
fn negative_count_names_its_path() {
    let err = error_after(|d| set(d, "/models/0/workloads/0/gpus/0/rows", json!(-2)));
    assert!(err.starts_with("summary.json: models[0].workloads[0].gpus[0].rows: invalid value: integer `-2`"), "{err}");
}

#[test]
fn unknown_status_names_its_path_and_the_accepted_values() {
    let err = error_after(|d| set(d, &format!("{POINT}/1/status"), json!("timeout")));
    assert!(err.starts_with(&format!("summary.json: {POINT_PATH}[1].status: unknown variant `timeout`")), "{err}");
    assert!(err.contains("`success`, `unsupported`, `failed`"), "{err}");
}

#[test]
fn missing_nullable_field_is_an_error_not_a_null() {
    let err = error_after(|d| {
        d.pointer_mut(&format!("{POINT}/0/aic")).unwrap().as_object_mut().unwrap().remove("ttft_relative");
    });
    assert!(err.starts_with(&format!("summary.json: {POINT_PATH}[0].aic: missing field `ttft_relative`")), "{err}");
}

#[test]
fn unknown_field_is_an_error() {
    let err = error_after(|d| {
        d.pointer_mut(&format!("{POINT}/0")).unwrap().as_object_mut().unwrap().insert("extra".into(), json!(1));
    });
    assert!(err.contains(&format!("{POINT_PATH}[0]")) && err.contains("unknown field `extra`"), "{err}");
}

#[test]
fn topology_rows_must_equal_its_points() {
    let err = error_after(|d| set(d, "/models/0/workloads/0/gpus/0/topologies/0/rows", json!(3)));
    assert_eq!(
        err,
        "summary.json: models[0].workloads[0].gpus[0].topologies[0].rows: is 3 but the rows of its points add up to 2"
    );
}

#[test]
fn gpu_rows_must_add_up_from_topologies() {
    let err = error_after(|d| set(d, "/models/0/workloads/0/gpus/0/rows", json!(5)));
    assert_eq!(
        err,
        "summary.json: models[0].workloads[0].gpus[0].rows: is 5 but the rows of its topologies add up to 2"
    );
}

#[test]
fn total_rows_must_add_up_from_models() {
    let err = error_after(|d| set(d, "/totals/rows", json!(7)));
    assert_eq!(err, "summary.json: totals.rows: is 7 but the rows of its models add up to 2");
}

#[test]
fn status_counts_must_sum_to_rows() {
    let err = error_after(|d| set(d, "/models/0/workloads/0/aisimulate/status_counts/unknown", json!(1)));
    assert_eq!(err, "summary.json: models[0].workloads[0].aisimulate.status_counts: sums to 3 but rows is 2");
}

#[test]
fn status_counts_must_match_the_points() {
    let err = error_after(|d| {
        set(d, "/models/0/workloads/0/gpus/0/topologies/0/aisimulate/status_counts/success", json!(2));
        set(d, "/models/0/workloads/0/gpus/0/topologies/0/aisimulate/status_counts/failed", json!(0));
    });
    assert_eq!(
        err,
        "summary.json: models[0].workloads[0].gpus[0].topologies[0].aisimulate.status_counts.success: is 2 but the success counts of its points add up to 1"
    );
}

#[test]
fn aisimulate_points_must_equal_success() {
    let err = error_after(|d| set(d, "/models/0/aisimulate/points", json!(2)));
    assert_eq!(err, "summary.json: models[0].aisimulate.points: is 2 but aisimulate.status_counts.success is 1");
}

#[test]
fn aic_points_must_add_up() {
    let err = error_after(|d| set(d, "/totals/aic/points", json!(1)));
    assert_eq!(err, "summary.json: totals.aic.points: is 1 but the AIC points of its models add up to 2");
}

#[test]
fn coverage_must_be_success_over_rows() {
    let err = error_after(|d| set(d, "/totals/aisimulate/coverage_pct", json!(99.0)));
    assert_eq!(err, "summary.json: totals.aisimulate.coverage_pct: is 99 but success / rows x 100 rounded to 2 is 50");
}

#[test]
fn failed_point_must_not_carry_aisimulate_values() {
    let err = error_after(|d| set(d, &format!("{POINT}/1/aisimulate/tpot_relative"), json!(1.5)));
    assert_eq!(
        err,
        format!("summary.json: {POINT_PATH}[1].aisimulate.tpot_relative: is a number on a failed point; only success points carry AISimulate values")
    );
}

#[test]
fn success_point_must_carry_aisimulate_values() {
    let err = error_after(|d| set(d, &format!("{POINT}/0/aisimulate/ttft_error_pct"), Value::Null));
    assert_eq!(
        err,
        format!(
            "summary.json: {POINT_PATH}[0].aisimulate.ttft_error_pct: is null on a success point; expected a number"
        )
    );
}

#[test]
fn negative_error_pct_is_an_error() {
    let err = error_after(|d| set(d, &format!("{POINT}/0/aic/tpot_error_pct"), json!(-1.0)));
    assert_eq!(err, format!("summary.json: {POINT_PATH}[0].aic.tpot_error_pct: is -1, expected a non-negative value"));
}

#[test]
fn repeated_concurrency_is_an_error() {
    let err = error_after(|d| set(d, &format!("{POINT}/1/concurrency"), json!(1)));
    assert_eq!(
        err,
        format!("summary.json: {POINT_PATH}[1].concurrency: 1 appears twice in this topology; expected one point per concurrency")
    );
}

#[test]
fn published_rows_must_equal_total_rows() {
    let err = error_after(|d| set(d, "/scope/published_rows", json!(3)));
    assert_eq!(err, "summary.json: scope.published_rows: is 3 but totals.rows is 2");
}

#[test]
fn model_count_must_match() {
    let err = error_after(|d| set(d, "/totals/models", json!(2)));
    assert_eq!(err, "summary.json: totals.models: is 2 but the models list has 1");
}

#[test]
fn published_rows_must_be_raw_rows_minus_excluded_multinode_rows() {
    let err = error_after(|d| set(d, "/scope/excluded_multinode_rows", json!(1)));
    assert_eq!(err, "summary.json: scope.published_rows: is 2 but scope.raw_rows - scope.excluded_multinode_rows is 1");
}
