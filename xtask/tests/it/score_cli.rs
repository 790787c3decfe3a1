//! `cargo xtask score` as a user runs it: refusals, usage errors, and the gaps file kept off
//! stdout. Each test is one fluent chain named after the behaviour; the builder clears every
//! BLIS_* variable so the caller's environment cannot leak in.

use predicates::prelude::*;
use std::path::Path;

use crate::support::xtask_without_corpora as xtask;

/// A one-sweep corpus and scenario tree (synthetic: no third-party data).
pub(crate) fn tiny_inputs(root: &Path) {
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
        .stderr(predicate::str::contains("--catalog no-such-dir").and(predicate::str::contains("found nothing")));
    assert!(!dir.path().join("gaps.txt").exists());
}

#[test]
fn unknown_framework_is_a_usage_error_listing_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    for framework in ["nope", "VLLM", ""] {
        xtask(dir.path())
            .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--framework", framework])
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
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("aisimulate_e2e.json").and(predicate::str::contains("found nothing")));
    std::fs::create_dir(&e2e).unwrap();
    xtask(dir.path())
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios"])
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
            predicate::str::contains("BLIS_SCENARIOS=empty").and(predicate::str::contains("holds no scenario file")),
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
    assert!(
        gaps.contains("gap m.yaml 1k1k sweep [catalog] missing catalog file (model graph): models/m/graph.yaml"),
        "{gaps}"
    );
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
    assert!(
        html.contains(&format!("<p>Written by cargo xtask {} (commit ", env!("CARGO_PKG_VERSION"))),
        "the page does not say which build wrote it"
    );
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

fn double() -> std::path::PathBuf {
    harness::blis::double::build().unwrap()
}

#[test]
fn blis_asked_for_and_every_point_failing_exits_1_with_counts() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--catalog", "catalog"])
        .args(["--registry", "registry", "--no-cache", "--blis"])
        .arg(double())
        .env("BLIS_DOUBLE_MODE", "exit1")
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("0 points with a value, 2 failed")
                .and(predicate::str::contains("no point has a value")),
        );
}

#[test]
fn blis_with_every_point_run_exits_0_and_fills_the_column() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--catalog", "catalog"])
        .args(["--registry", "registry", "--no-cache", "--blis"])
        .arg(double())
        .assert()
        .success()
        .stderr(predicate::str::contains("2 points with a value, 0 failed; 1 sweeps modelled, 0 not modelled"))
        // The corpus arms' report first (no BLIS arm in it), then every arm over the BLIS sweeps
        // (none here: without anchors the tiny corpus gives BLIS milliseconds no relatives).
        .stdout(predicate::str::is_match(r"(?m)^arms: AISimulate, AIC$").unwrap())
        .stdout(predicate::str::is_match(
            r"(?s)## Headline.*## BLIS and the comparison arms over the \d+ sweeps with a BLIS value \(not the published selection\)\n\n## Headline",
        ).unwrap());
}

#[test]
fn zero_jobs_or_zero_timeout_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    for flag in ["--jobs", "--timeout"] {
        xtask(dir.path()).args(["score", flag, "0"]).assert().code(64).stderr(
            predicate::str::contains(format!("invalid value '0' for '{flag}"))
                .and(predicate::str::contains("at least 1")),
        );
    }
}

#[test]
fn an_empty_blis_flag_is_a_usage_error_and_an_empty_variable_a_refusal() {
    // The code and docs/blis-arm.md must agree (the docs once promised exit 2 for both).
    let docs = std::fs::read_to_string(crate::support::root().join("docs/blis-arm.md")).unwrap();
    assert!(
        docs.contains("An empty `--blis \"\"` is a\n  usage error (exit 64)"),
        "docs/blis-arm.md must say --blis \"\" exits 64"
    );
    assert!(
        docs.contains("or an\n  empty `BLIS_BIN`, is refused"),
        "docs/blis-arm.md must say an empty BLIS_BIN is refused"
    );
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path()).args(["blis", "determinism", "--blis", ""]).assert().code(64);
    xtask(dir.path())
        .env("BLIS_BIN", "")
        .args(["blis", "determinism"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--blis").and(predicate::str::contains("BLIS_BIN")));
}

/// A `blis` that logs every `run` it is asked for (not `run --help`), then runs the double.
fn logging_double(dir: &Path) -> std::path::PathBuf {
    let script = dir.join("blis");
    let log = dir.join("runs.log");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n[ \"$2\" = --help ] || echo run >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            double().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

const TINY_HEADLINE_MANIFEST: &str = "tolerances: {}\nexternal_inputs: {}\nfigures:\n  - id: tiny/dropped\n    what: dropped sweeps\n    document: tiny\n    section: \"-\"\n    task: headline\n    key: dropped_sweeps\n    expect: {count: 0}\n    snapshot: tiny__headline\n";

/// `reproduce` over the tiny inputs and manifest with this `blis` and extra flags.
fn tiny_gate(dir: &Path, blis: &Path, extra: &[&str]) -> assert_cmd::assert::Assert {
    xtask(dir)
        .args([
            "reproduce",
            "--manifest",
            "manifest.yaml",
            "--measurements",
            "measurements",
            "--scenarios",
            "scenarios",
        ])
        .args(["--catalog", "catalog", "--registry", "registry", "--report-json", "gate.json", "--blis"])
        .arg(blis)
        .args(extra)
        .assert()
}

fn runs_logged(dir: &Path) -> usize {
    let runs = std::fs::read_to_string(dir.join("runs.log")).unwrap_or_default();
    std::fs::remove_file(dir.join("runs.log")).unwrap_or_default();
    runs.lines().count()
}

#[test]
fn the_gate_simulates_each_point_once_and_reruns_one_per_sweep_outside_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    let blis = logging_double(dir.path());
    std::fs::write(dir.path().join("manifest.yaml"), TINY_HEADLINE_MANIFEST).unwrap();
    // Cold: the first rendering runs both points of the one sweep; the second reads them from
    // the run's store and re-runs one (the cheaper) outside the cache.
    tiny_gate(dir.path(), &blis, &[]).stdout(predicate::str::contains("tiny/dropped")).stdout(
        predicate::str::contains("determinism: 1 BLIS points re-run outside the cache")
            .and(predicate::str::contains("all identical")),
    );
    assert_eq!(runs_logged(dir.path()), 3, "2 points by the first rendering, 1 re-run by the second");
    // Warm: the first rendering is served from the cache; only the sampled re-run runs.
    tiny_gate(dir.path(), &blis, &[]).stdout(predicate::str::contains("all identical"));
    assert_eq!(runs_logged(dir.path()), 1, "only the sampled point, re-run outside the cache");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("gate.json")).unwrap()).unwrap();
    let reruns = report["determinism_reruns"]["tasks"]["headline"].as_array().expect("determinism_reruns");
    assert_eq!(reruns.len(), 1, "{reruns:?}");
    assert_eq!(reruns[0]["identical"], true);
    assert_eq!(report["determinism_reruns"]["mode"], "sample");
    // The sampled point is the sweep's cheapest, concurrency 1.
    let points = report["blis_points"]["headline"].as_array().expect("blis_points.headline");
    assert_eq!(points.len(), 2);
    let cheapest = points.iter().find(|p| p["label"].as_str().unwrap().contains(" c=1 ")).expect("the c=1 point");
    assert_eq!(reruns[0]["key"], cheapest["key"]);
    for p in points {
        assert!(p["run"]["command"][0].as_str().unwrap().ends_with("/blis"), "{p}");
        assert_eq!(p["run"]["workload_sha256"].as_str().unwrap().len(), 64, "{p}");
        assert!(p["result"]["ok"]["metrics_sha256"].is_string(), "{p}");
    }
    // --determinism full re-runs every point in the second rendering.
    tiny_gate(dir.path(), &blis, &["--determinism", "full"])
        .stdout(predicate::str::contains("determinism: 2 BLIS points re-run outside the cache (every point"));
    assert_eq!(runs_logged(dir.path()), 2, "every point re-run, the first rendering from the cache");
}

/// The double behind a script setting `BLIS_DOUBLE_NOISE=fraction` (named after its folder, so
/// its hash, and so its cache entries, are its own).
fn noisy_double(dir: &Path, fraction: &str) -> std::path::PathBuf {
    let script = dir.join("blis");
    std::fs::write(
        &script,
        format!("#!/bin/sh\n# {}\nBLIS_DOUBLE_NOISE={fraction} exec '{}' \"$@\"\n", dir.display(), double().display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// A lock the tiny trees verify against (a file in each tree), so the gate's verdict on a
/// figure is its task's and not the lock's. The corpora's pin is left wrong: that only adds a note.
fn tiny_lock(root: &Path) {
    std::fs::write(root.join("catalog/x.yaml"), "a\n").unwrap();
    std::fs::write(root.join("registry/x.yaml"), "b\n").unwrap();
    let mut lock = String::new();
    for (section, dir, file, glob) in [
        ("catalog", "catalog", "x.yaml", "*.yaml"),
        ("registry", "registry", "x.yaml", "*.yaml"),
        ("scenarios", "scenarios", "m.yaml", "*.yaml"),
        ("measurements", "measurements", "scoreable.json", "*.json"),
    ] {
        let bytes = std::fs::read(root.join(dir).join(file)).unwrap();
        let sha = if section == "measurements" { "0".repeat(64) } else { oracles::hashing::sha256(&bytes).to_hex() };
        lock += &format!(
            "[{section}]\nrepo = https://example.invalid/{section}\ncommit = {}\npath = .\nglob = {glob}\nfile = {sha}  {file}\n",
            "0".repeat(40)
        );
    }
    std::fs::write(root.join("upstream.lock"), lock).unwrap();
}

#[test]
fn a_nondeterministic_simulator_fails_the_gate_cold_warm_and_under_full() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    tiny_lock(dir.path());
    // The figure is a corpus count, which a BLIS binary never changes (issue 23); the noise
    // reaches the rendered report through the BLIS column.
    std::fs::write(dir.path().join("manifest.yaml"), TINY_HEADLINE_MANIFEST).unwrap();
    let exact = noisy_double(dir.path(), "0");
    let lock = ["--lockfile", "upstream.lock"];
    // With the lock verified, an exact simulator reproduces the figure ...
    tiny_gate(dir.path(), &exact, &lock).success().stdout(predicate::str::contains("1 reproduced, 0 mismatched"));
    // ... and one that adds noise on every point fails it, cold, warm and under full.
    let noisy_dir = dir.path().join("noisy");
    std::fs::create_dir(&noisy_dir).unwrap();
    let blis = noisy_double(&noisy_dir, "1");
    for extra in [&lock[..], &lock[..], &["--lockfile", "upstream.lock", "--determinism", "full"][..]] {
        tiny_gate(dir.path(), &blis, extra)
            .code(1)
            .stdout(predicate::str::contains("MISMATCH").and(predicate::str::contains("not deterministic")))
            .stdout(predicate::str::contains("DIFFERS: metrics file sha256"));
    }
}

#[test]
fn the_json_report_records_each_point_command_line_and_workload_hash() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--catalog", "catalog"])
        .args(["--registry", "registry", "--no-cache", "--report-json", "points.json", "--blis"])
        .arg(double())
        .assert()
        .success();
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("points.json")).unwrap()).unwrap();
    let points = report["points"].as_array().unwrap();
    assert_eq!(points.len(), 2);
    for p in points {
        let run = &p["run"];
        let command: Vec<&str> = run["command"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
        assert!(command[0].ends_with("blis-double") && command[1] == "run", "{command:?}");
        assert!(command.contains(&"<point-dir>/workload.yaml"), "{command:?}");
        assert_eq!(run["workload_sha256"].as_str().unwrap().len(), 64);
        assert!(p["result"]["ok"]["tpot_ms"].as_f64().unwrap() > 0.0, "{p}");
    }
}

/// The tiny inputs with the absolute anchors a simulated arm is scored against, and a
/// measured TPOT that barely grows with concurrency (as the plain double's does), so a
/// candidate slower at high concurrency is the worse one. A second sweep (`n.yaml`, the same
/// deployment) is added: the regression rule's paired interval needs two sweeps.
fn tiny_inputs_with_anchors(root: &Path) {
    tiny_inputs(root);
    let e2e = root.join("measurements/aisimulate_e2e.json");
    let text = std::fs::read_to_string(&e2e).unwrap();
    let flat = text.replacen("\"measured_tpot_relative\": 2,", "\"measured_tpot_relative\": 1.02,", 1);
    assert_ne!(flat, text, "the tiny corpus changed shape");
    let start = flat.find("{\"scenario\": \"m.yaml\"").expect("the tiny corpus has its sweep");
    let end = flat.rfind("]}").expect("the sweeps list ends the file");
    let sweep = flat[start..end].to_string();
    let two = format!("{}, {}{}", &flat[..end], sweep.replace("\"m.yaml\"", "\"n.yaml\""), &flat[end..]);
    std::fs::write(&e2e, two).unwrap();
    let scenario = std::fs::read_to_string(root.join("scenarios/m.yaml")).unwrap();
    std::fs::write(root.join("scenarios/n.yaml"), scenario.replace("name: m\n", "name: n\n")).unwrap();
    let anchor = |scenario: &str| {
        format!(
            r#"{{"scenario": "{scenario}", "label": "1k1k", "framework": "vllm", "gpu": "h100",
           "absolute_tpot_us": {{"1": 10000.0, "2": 20000.0}}, "absolute_ttft_us": {{"1": 100000.0, "2": 200000.0}},
           "source_run_date": "d", "source_config_id": 1, "relative_agreement": 0.0}}"#
        )
    };
    std::fs::write(
        root.join("measurements/inferencex_absolutes.json"),
        format!(
            r#"{{"source": "s", "source_url": "u", "release_tag": "r1", "metrics": "m", "validation": "v", "anchors": [{}, {}]}}"#,
            anchor("m.yaml"),
            anchor("n.yaml")
        ),
    )
    .unwrap();
}

/// A manifest with one figure of the tiny corpus and a baseline rule holding its TPOT shape.
fn baseline_manifest(dir: &Path) {
    std::fs::write(
        dir.join("manifest.yaml"),
        "tolerances: {}\nexternal_inputs: {}\nbaseline_rule:\n  margin: 0.5\n  figures: [all.tpot_shape]\n  why: test\nfigures:\n  - id: tiny/dropped\n    what: dropped sweeps\n    document: tiny\n    section: \"-\"\n    task: headline\n    key: dropped_sweeps\n    expect: {count: 0}\n    snapshot: tiny__headline\n",
    )
    .unwrap();
}

/// The double behind a script setting `BLIS_DOUBLE_SLOWDOWN` (the script names its folder, so
/// each test run is a binary of its own hash and never meets an earlier run's cache entries).
fn slow_double(dir: &Path) -> std::path::PathBuf {
    let script = dir.join("slow-blis");
    std::fs::write(
        &script,
        format!("#!/bin/sh\n# {}\nBLIS_DOUBLE_SLOWDOWN=1 exec '{}' \"$@\"\n", dir.display(), double().display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn score_with_baseline(dir: &Path, candidate: &Path, baseline: &Path) -> assert_cmd::assert::Assert {
    xtask(dir)
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--catalog", "catalog"])
        .args(["--registry", "registry", "--cache-dir", "cache", "--report-json", "cmp.json", "--blis"])
        .arg(candidate)
        .arg("--baseline-blis")
        .arg(baseline)
        .assert()
}

#[test]
fn score_fails_naming_the_figure_a_slowed_candidate_is_worse_on() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs_with_anchors(dir.path());
    score_with_baseline(dir.path(), &slow_double(dir.path()), &double())
        .code(1)
        .stdout(
            predicate::str::contains("WORSE: all.tpot_shape")
                .and(predicate::str::contains("above zero)"))
                .and(predicate::str::contains("moved most: m.yaml 1k1k")),
        )
        .stderr(predicate::str::contains("worse than the baseline on all.tpot_shape"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("cmp.json")).unwrap()).unwrap();
    assert_eq!(report["baseline_comparison"]["worse"][0], "all.tpot_shape");
}

#[test]
fn score_with_one_binary_as_both_reports_no_difference_and_the_baseline_from_cache() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs_with_anchors(dir.path());
    score_with_baseline(dir.path(), &double(), &double()).success().stdout(
        predicate::str::contains("no difference")
            .and(predicate::str::contains("no change detected: all.tpot_shape (0, 95% interval [0.00, 0.00])"))
            .and(predicate::str::contains("candidate: 4 points ran, 0 served from the cache"))
            .and(predicate::str::contains("baseline: 0 points ran, 4 served from the cache"))
            .and(predicate::str::contains("- the two are the same binary, run from the same folder")),
    );
}

/// One binary's bytes copied to another folder: the same sha256, but each runs from its own
/// folder (its own release files), which the report says rather than "the same binary".
#[test]
fn one_binary_run_from_two_folders_is_said_as_such() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs_with_anchors(dir.path());
    std::fs::create_dir(dir.path().join("other")).unwrap();
    let copy = dir.path().join("other/blis-double");
    std::fs::copy(double(), &copy).unwrap();
    score_with_baseline(dir.path(), &double(), &copy).success().stdout(
        predicate::str::contains("- the same binary's bytes, run from two folders")
            .and(predicate::str::contains("the two are the same binary").not()),
    );
}

#[test]
fn the_gate_names_the_worse_figure_and_records_the_comparison_in_its_reports() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs_with_anchors(dir.path());
    baseline_manifest(dir.path());
    xtask(dir.path())
        .args([
            "reproduce",
            "--manifest",
            "manifest.yaml",
            "--measurements",
            "measurements",
            "--scenarios",
            "scenarios",
        ])
        .args([
            "--catalog",
            "catalog",
            "--registry",
            "registry",
            "--report-json",
            "gate.json",
            "--report-md",
            "gate.md",
        ])
        .arg("--blis")
        .arg(slow_double(dir.path()))
        .arg("--baseline-blis")
        .arg(double())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("WORSE: all.tpot_shape"))
        .stderr(predicate::str::contains("worse than the baseline on all.tpot_shape"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("gate.json")).unwrap()).unwrap();
    assert_eq!(report["baseline_comparison"]["worse"][0], "all.tpot_shape");
    let md = std::fs::read_to_string(dir.path().join("gate.md")).unwrap();
    assert!(md.contains("## BLIS candidate against baseline") && md.contains("| `all.tpot_shape` |"), "{md}");
}
#[test]
fn a_baseline_that_cannot_run_or_has_no_candidate_is_said_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path()).args(["score", "--baseline-blis", ""]).assert().code(64);
    xtask(dir.path())
        .args(["reproduce", "--only", "fixtures/", "--blis"])
        .arg(double())
        .args(["--baseline-blis", "no-such-blis"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--baseline-blis no-such-blis"));
    xtask(dir.path())
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--catalog", "catalog"])
        .args(["--registry", "registry", "--baseline-blis"])
        .arg(double())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no candidate"));
}

#[test]
fn a_shard_with_a_baseline_or_without_a_cache_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    // A shard's comparison compares nothing; a shard that stores nothing leaves nothing to merge.
    for extra in [["--baseline-blis", "b"], ["--no-cache", "--jobs"]] {
        let mut args = vec!["score", "--shard", "1/2"];
        args.extend(extra);
        if extra[1] == "--jobs" {
            args.push("1");
        }
        xtask(dir.path()).args(&args).assert().code(64).stderr(predicate::str::contains("cannot be used with"));
    }
}

#[test]
fn a_report_file_named_dash_goes_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    let out = xtask(dir.path())
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--catalog", "catalog"])
        .args(["--registry", "registry", "--no-cache", "--report-json", "-", "--report-html"])
        .arg(dir.path().join("r.html"))
        .arg("--blis")
        .arg(double())
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    // The records alone own stdout: one JSON document, the table moved to stderr.
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout:.400}"));
    assert!(!json["points"].is_null(), "{stdout:.400}");
    assert!(std::fs::read_to_string(dir.path().join("r.html")).unwrap().contains("<html"));
    assert!(!dir.path().join("-").exists(), "a file named `-` was written");
}

#[test]
fn a_resample_count_too_small_for_a_95_interval_or_absurdly_many_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    // One resample printed `8.73 [10.72, 10.72]`: an interval beside its own estimate.
    for n in ["0", "1", "39", "1000001", "many"] {
        xtask(dir.path())
            .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--resamples", n])
            .assert()
            .code(64)
            .stdout("")
            .stderr(predicate::str::contains("--resamples"));
    }
    // In range it is stated in the report; one sweep has no interval, and says why.
    xtask(dir.path())
        .args(["score", "--measurements", "measurements", "--scenarios", "scenarios", "--resamples", "500"])
        .assert()
        .success()
        .stdout(predicate::str::contains("500 resamples").and(predicate::str::contains("[not defined: 1 sweep]")));
}

#[test]
fn bench_shards_plans_the_scored_points_and_reads_the_times_their_entries_recorded() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    let inputs = [
        "--measurements",
        "measurements",
        "--scenarios",
        "scenarios",
        "--catalog",
        "catalog",
        "--registry",
        "registry",
    ];
    let bench = |extra: &[&str]| {
        let mut cmd = xtask(dir.path());
        cmd.args(["bench", "shards", "--n", "1,2"]).args(inputs).args(extra);
        String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
    };
    // No binary: the model alone, point texts standing in for keys.
    let model = bench(&[]);
    assert!(model.contains("headline: 2 points, 2 planned (2 distinct, point texts as keys"), "{model}");
    assert!(!model.contains("recorded times"), "{model}");
    let double = double();
    let with_binary = ["--cache-dir", "cache", "--blis", double.to_str().unwrap()];
    // An empty cache records nothing yet (a named cache that is no folder is an error), then
    // every scored point's time.
    std::fs::create_dir(dir.path().join("cache")).unwrap();
    assert!(bench(&with_binary).contains("recorded times: 0 of the 2 distinct planned points"));
    xtask(dir.path()).arg("score").args(inputs).args(with_binary).assert().success();
    let recorded = bench(&with_binary);
    assert!(recorded.contains("headline: 2 points, 2 planned (2 distinct, the binary's content keys)"), "{recorded}");
    assert!(recorded.contains("recorded times: 2 of the 2 distinct planned points"), "{recorded}");
    // One shard holds everything: 1.000 by every measure.
    let one = recorded.lines().find(|l| l.trim_start().starts_with("1 ")).expect(&recorded);
    assert_eq!(one.split_whitespace().collect::<Vec<_>>(), ["1", "1.000", "1.000", "1.000", "1.000"], "{one}");
}

/// The double behind a script setting `env` (`NAME=value ...`), named `name` in `dir`.
fn double_with(dir: &Path, name: &str, env: &str) -> std::path::PathBuf {
    let script = dir.join(name);
    std::fs::write(&script, format!("#!/bin/sh\n# {}\n{env} exec '{}' \"$@\"\n", dir.display(), double().display()))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// A candidate and a baseline that model disjoint sweeps (each fails on the sweep the other
/// models): every figure is "not computed", which is a comparison that compared nothing and
/// fails, said as such, never a pass.
#[test]
fn a_baseline_comparison_over_disjoint_sweeps_compared_nothing_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs_with_anchors(dir.path());
    let candidate = double_with(dir.path(), "cand-blis", "BLIS_DOUBLE_MODE=exit1 BLIS_DOUBLE_ONLY=n.yaml");
    let baseline = double_with(dir.path(), "base-blis", "BLIS_DOUBLE_MODE=exit1 BLIS_DOUBLE_ONLY=m.yaml");
    score_with_baseline(dir.path(), &candidate, &baseline)
        .code(1)
        .stdout(
            predicate::str::contains("NOT COMPARED: no figure the rule holds (")
                .and(predicate::str::contains("the comparison compared nothing, and fails")),
        )
        .stderr(predicate::str::contains("the comparison compared nothing (exit 1)"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("cmp.json")).unwrap()).unwrap();
    assert_eq!(report["baseline_comparison"]["compared_nothing"], true);
}

/// With one comparable sweep the interval is not defined: a slowed candidate is worse by the
/// margin rule alone, and the verdict line says so.
#[test]
fn with_one_comparable_sweep_the_margin_rule_alone_finds_the_slowed_candidate_worse() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs_with_anchors(dir.path());
    let candidate =
        double_with(dir.path(), "slow-one", "BLIS_DOUBLE_SLOWDOWN=1 BLIS_DOUBLE_MODE=exit1 BLIS_DOUBLE_ONLY=n.yaml");
    score_with_baseline(dir.path(), &candidate, &double())
        .code(1)
        .stdout(
            predicate::str::contains("WORSE: all.tpot_shape")
                .and(predicate::str::contains("fewer than 2 comparable sweeps: the margin rule alone decides")),
        )
        .stderr(predicate::str::contains("worse than the baseline on all.tpot_shape"));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("cmp.json")).unwrap()).unwrap();
    let figure = report["baseline_comparison"]["figures"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["figure"] == "all.tpot_shape")
        .unwrap()
        .clone();
    assert_eq!(figure["margin_alone"], true, "{figure}");
}
