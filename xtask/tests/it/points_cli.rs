//! `--points FILE` on `score` as a user runs it (docs/points.md): the table to a file or to
//! stdout (the report then on stderr), the BLIS arm's run records refused without a BLIS arm,
//! and the old spelling of `blis run`'s point list still read.

use predicates::prelude::*;
use predicates::str::contains;

use crate::score_cli::tiny_inputs;
use crate::support::xtask_without_corpora as xtask;

const SCORE: [&str; 5] = ["score", "--measurements", "measurements", "--scenarios", "scenarios"];

#[test]
fn points_writes_one_row_per_point_and_arm_with_the_errors_that_enter_each_figure() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(SCORE)
        .args(["--points", "p.csv"])
        .assert()
        .code(0)
        .stdout(contains("## Headline"))
        .stderr(contains("4 point rows written to p.csv"));
    let table = std::fs::read_to_string(dir.path().join("p.csv")).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "{table}");
    assert!(lines[0].starts_with("arm,scenario,label,framework,gpu,model,parallelism,concurrency,anchor,"), "{table}");
    // The anchor has no shape error and says why; the second point has all four errors (0%).
    assert!(
        lines[1].starts_with("aisimulate,m.yaml,1k1k,vllm,h100,m,tp=1 pp=1 dp=1 moe_ep=- moe_tp=-,1,1,"),
        "{table}"
    );
    assert!(lines[1].ends_with(",,0,,0,anchor: no shape error,,,,"), "{table}");
    assert!(lines[2].ends_with(",0,0,0,0,,,,,"), "{table}");
    assert!(lines[3].starts_with("aic,"), "{table}");
}

#[test]
fn points_to_stdout_moves_the_report_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(SCORE)
        .args(["--points", "-"])
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with("arm,scenario,").and(contains("## Headline").not()))
        .stderr(contains("## Headline"));
}

#[test]
fn report_json_without_a_blis_arm_is_a_usage_error_naming_points() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    xtask(dir.path())
        .args(SCORE)
        .args(["--report-json", "s.json"])
        .assert()
        .code(64)
        .stderr(contains("needs --blis PATH").and(contains("--points FILE")));
    assert!(!dir.path().join("s.json").exists());
}

#[test]
fn points_with_a_baseline_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .args(["score", "--points", "p.csv", "--baseline-blis", "old"])
        .assert()
        .code(64)
        .stderr(contains("--points"));
}

#[test]
fn blis_run_reads_its_point_list_from_specs_and_still_from_the_old_points() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("specs.json"), "not json").unwrap();
    for flag in ["--specs", "--points"] {
        xtask(dir.path()).args(["blis", "run", flag, "specs.json"]).assert().code(1).stderr(contains("specs.json"));
    }
    xtask(dir.path())
        .args(["blis", "run", "--help"])
        .assert()
        .code(0)
        .stdout(contains("--specs <FILE>").and(contains("--points").not()));
}

#[test]
fn reproduce_points_with_the_corpora_given_blames_the_selection_not_the_corpora() {
    let dir = tempfile::tempdir().unwrap();
    tiny_inputs(dir.path());
    let reproduce = |given: &[&str]| {
        let out = xtask(dir.path())
            .args(["reproduce", "--only", "fixtures/", "--points", "p.csv"])
            .args(given)
            .timeout(std::time::Duration::from_secs(300))
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let given = reproduce(&["--measurements", "measurements"]);
    assert!(given.contains("points: no selected figure scores points"), "{given}");
    assert!(!given.contains("needs the corpora"), "{given}");
    let missing = reproduce(&[]);
    assert!(missing.contains("the headline needs the corpora"), "{missing}");
}
