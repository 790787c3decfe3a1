//! `cargo xtask score` as a user runs it: refusals, usage errors, and the gaps file kept off
//! stdout. Each test is one fluent chain named after the behaviour; the builder clears every
//! BLIS_* variable so the caller's environment cannot leak in.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::Path;

fn xtask(cwd: &Path) -> Command {
    let mut cmd = Command::cargo_bin("xtask").unwrap();
    cmd.current_dir(cwd);
    for var in [
        "BLIS_MEASUREMENTS",
        "BLIS_CATALOG",
        "BLIS_REGISTRY",
        "BLIS_SCENARIOS",
        "BLIS_BIN",
        "BLIS_IGNORE_VENDORED",
    ] {
        cmd.env_remove(var);
    }
    // Set but empty: no corpora, not even the ones `vendor --fetch` may have put in testdata/.
    cmd.env("BLIS_MEASUREMENTS", "");
    cmd
}

/// A one-sweep corpus and scenario tree (synthetic: no third-party data).
fn tiny_inputs(root: &Path) {
    let m = root.join("measurements");
    std::fs::create_dir_all(&m).unwrap();
    let point = |c: u32, r: f64| {
        format!(
            r#"{{"concurrency": {c}, "status": "success", "measured_tpot_relative": {r},
            "measured_ttft_relative": {r}, "aisimulate_tpot_relative": {r}, "aisimulate_ttft_relative": {r},
            "aic_tpot_relative": {r}, "aic_ttft_relative": {r}}}"#
        )
    };
    let totals = r#"{"points": 0, "tpot_mape_pct": 0, "tpot_shape_error_pct": 0, "ttft_mape_pct": 0, "ttft_shape_error_pct": 0}"#;
    let e2e = format!(
        r#"{{"source": "tiny", "measurement_source": "x", "snapshot": {{"release_tag": "r1"}}, "scope": {{}},
        "aisimulate_totals": {totals}, "aic_totals": {totals}, "selection": {{}},
        "sweeps": [{{"scenario": "m.yaml", "model": "m", "gpu": "h100", "workload": "1024:1024", "label": "1k1k",
          "framework": "vllm", "precision": "fp8", "serving": "aggregated", "spec_method": "none",
          "parallelism": {{"tp_size": 1, "pp_size": 1, "attention_dp_size": 1, "moe_ep_size": null, "moe_tp_size": null}},
          "topology_id": "t", "points": [{}, {}]}}]}}"#,
        point(1, 1.0),
        point(2, 2.0)
    );
    std::fs::write(m.join("aisimulate_e2e.json"), e2e).unwrap();
    std::fs::write(
        m.join("inferencex_absolutes.json"),
        r#"{"source": "s", "source_url": "u", "release_tag": "r1", "metrics": "m", "validation": "v", "anchors": []}"#,
    )
    .unwrap();
    std::fs::write(
        m.join("inferencex_engine_settings.json"),
        r#"{"source": "s", "source_url": "u", "release_tag": "r1", "run_selection": "x", "settings": []}"#,
    )
    .unwrap();
    std::fs::write(m.join("scoreable.json"), "[]").unwrap();
    let s = root.join("scenarios");
    std::fs::create_dir_all(&s).unwrap();
    std::fs::write(
        s.join("m.yaml"),
        "kind: Scenario\nname: m\nmodel: m\ncoefficients: [c]\ncluster: {hardware: h100, nodes: 1, gpus_per_node: 8}\n---\nkind: Deployment\nname: m\npools:\n  - {role: colocated, nodes: 1, parallel: {tp: 1, pp: 1, dp: 1}, engine: {max_num_seqs: 8}}\n",
    )
    .unwrap();
    for d in ["catalog", "registry"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
}

#[test]
fn missing_measurements_is_refused_naming_flag_and_variable() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(["score", "--framework", "vllm", "--scenarios", "scenarios"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("--measurements").and(predicate::str::contains("BLIS_MEASUREMENTS")));
}

#[test]
fn gaps_with_a_catalog_flag_pointing_nowhere_fails_before_scoring() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--registry", "registry"])
        .args(["--catalog", "no-such-dir", "--gaps", "gaps.txt"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            predicate::str::contains("--catalog no-such-dir")
                .and(predicate::str::contains("found nothing")),
        );
    assert!(!dir.path().join("gaps.txt").exists());
}

#[test]
fn unknown_framework_is_a_usage_error_listing_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    for framework in ["nope", "VLLM", ""] {
        xtask(dir.path())
            .args([
                "score",
                "--measurements",
                "measurements",
                "--scenarios",
                "scenarios",
                "--framework",
                framework,
            ])
            .assert()
            .code(64)
            .stdout("")
            .stderr(
                predicate::str::contains("--framework")
                    .and(predicate::str::contains("vllm"))
                    .and(predicate::str::contains("sglang"))
                    .and(predicate::str::contains("trt")),
            );
    }
}

#[test]
fn a_corpus_file_missing_from_the_given_folder_is_bad_input_saying_what_stands_there() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    let e2e = dir.path().join("measurements/aisimulate_e2e.json");
    std::fs::remove_file(&e2e).unwrap();
    // Exit 1, as `oracle error-definition` says of the same folder.
    xtask(dir.path())
        .args([
            "score",
            "--measurements",
            "measurements",
            "--scenarios",
            "scenarios",
        ])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("aisimulate_e2e.json")
                .and(predicate::str::contains("found nothing")),
        );
    std::fs::create_dir(&e2e).unwrap();
    xtask(dir.path())
        .args([
            "score",
            "--measurements",
            "measurements",
            "--scenarios",
            "scenarios",
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("found a directory"));
}

#[test]
fn an_empty_scenario_folder_given_by_variable_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    xtask(dir.path())
        .args(["score", "--measurements", "measurements"])
        .env("BLIS_SCENARIOS", "empty")
        .assert()
        .code(1)
        .stdout("")
        .stderr(
            predicate::str::contains("BLIS_SCENARIOS=empty")
                .and(predicate::str::contains("holds no scenario file")),
        );
}

#[test]
fn unknown_config_tier_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .args(["score", "--config-tier", "strict"])
        .assert()
        .code(64)
        .stderr(predicate::str::contains("expected measured or resolved"));
}

#[test]
fn gaps_go_to_the_file_and_never_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(["score", "--framework", "vllm", "--measurements", "measurements", "--scenarios", "scenarios"])
        .args(["--catalog", "catalog", "--registry", "registry", "--gaps", "gaps.txt"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("ALL (approximate): 1 sweeps, n 1 / 2")
                .and(predicate::str::contains("not run: needs --blis PATH"))
                .and(predicate::str::contains("gap ").not()),
        );
    let gaps = std::fs::read_to_string(dir.path().join("gaps.txt")).unwrap();
    assert!(gaps.starts_with("coverage gaps of aisimulate_e2e.json (release r1"), "{gaps}");
    assert!(gaps.contains("gap m.yaml 1k1k sweep [catalog] missing catalog file (model graph): models/m/graph.yaml"), "{gaps}");
}

#[test]
fn environment_variables_supply_the_inputs() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .env("BLIS_MEASUREMENTS", dir.path().join("measurements"))
        .env("BLIS_SCENARIOS", dir.path().join("scenarios"))
        .args(["score", "--config-tier", "resolved"])
        .assert()
        .success()
        .stdout(predicate::str::contains("config tier resolved"));
}

#[test]
fn report_html_writes_one_chart_per_scored_sweep_and_is_byte_identical_twice() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    let run = |name: &str| {
        xtask(dir.path())
            .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--report-html", name])
            .assert()
            .code(0)
            .stderr(predicate::str::contains(format!("HTML report written to {name}")));
        std::fs::read(dir.path().join(name)).unwrap()
    };
    let (first, second) = (run("a.html"), run("b.html"));
    assert!(first == second, "two runs on the same inputs wrote different bytes");
    let html = String::from_utf8(first).unwrap();
    assert_eq!(html.matches("<figure id=\"sweep-m-1k1k\">").count(), 1, "{html}");
    assert!(html.contains("BLIS not run: needs --blis PATH."), "{html}");
}

#[test]
fn report_html_is_not_written_when_the_corpora_are_missing() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .args(["score", "--report-html", "r.html"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("BLIS_MEASUREMENTS"));
    assert!(!dir.path().join("r.html").exists());
}
