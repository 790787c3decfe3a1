//! One name per thing (docs/naming.md): the renamed flags and variable work under their new
//! names, and the old ones, hidden from `--help`, still do for one release.

use predicates::prelude::*;
use predicates::str::contains;
use std::path::Path;

use crate::support::xtask;

/// A release folder holding the test double as `v1.0.0/blis`, beside the tiny corpus.
fn tiny_history(dir: &Path) -> assert_cmd::Command {
    crate::score_cli::tiny_inputs(dir);
    let release = dir.join("releases/v1.0.0");
    std::fs::create_dir_all(&release).unwrap();
    std::fs::copy(harness::blis::double::build().unwrap(), release.join("blis")).unwrap();
    let mut cmd = xtask(dir);
    cmd.args(["history", "--measurements", "measurements", "--scenarios", "scenarios"]);
    cmd.args(["--catalog", "catalog", "--registry", "registry", "--releases", "releases", "--cache-dir", "cache"]);
    cmd
}

#[test]
fn history_writes_its_report_json_and_the_old_json_flag_still_does() {
    let dir = tempfile::tempdir().unwrap();
    tiny_history(dir.path()).args(["--report-json", "new.json"]).assert().code(0);
    let new = std::fs::read_to_string(dir.path().join("new.json")).unwrap();
    assert!(new.contains("\"planned_points\": 2"), "{new}");
    tiny_history(dir.path()).args(["--json", "old.json"]).assert().code(0);
    assert_eq!(std::fs::read_to_string(dir.path().join("old.json")).unwrap(), new);
}

#[test]
fn the_old_names_are_hidden_from_help() {
    let dir = tempfile::tempdir().unwrap();
    for (command, old, new) in [
        (&["history"][..], "--json", "--report-json"),
        (&["bench", "fixtures"][..], "--repeats", "--runs"),
        (&["bench", "score"][..], "--iterations", "--runs"),
        (&["bench", "intervals"][..], "--iterations", "--runs"),
        (&["fuzz"][..], "--cases", "--runs"),
    ] {
        xtask(dir.path())
            .args(command)
            .arg("--help")
            .assert()
            .code(0)
            .stdout(contains(format!("{new} <")).and(contains(format!("{old} ")).not()));
    }
}

#[test]
fn the_old_repetition_flags_set_runs() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path()).args(["bench", "fixtures", "--repeats", "0"]).assert().code(1).stderr(contains("--runs must be"));
    xtask(dir.path())
        .args(["fuzz", "--only", "corpus/aisimulate-summary", "--cases", "3"])
        .assert()
        .code(0)
        .stdout(contains(" 3 cases in "));
    for bench in ["score", "intervals"] {
        // Accepted (not a usage error); the missing corpus stops it before any work.
        xtask(dir.path())
            .args(["bench", bench, "--iterations", "2", "--measurements", "/nonexistent/corpus"])
            .assert()
            .code(1)
            .stderr(contains("/nonexistent/corpus"));
    }
}

#[test]
fn blis_releases_is_the_variable_and_its_old_name_is_read_only_when_it_is_unset() {
    let dir = tempfile::tempdir().unwrap();
    xtask(dir.path())
        .env("BLIS_RELEASES", "/nonexistent/new")
        .env("BLIS_RELEASES_DIR", "/nonexistent/old")
        .arg("history")
        .assert()
        .code(1)
        .stderr(contains("BLIS_RELEASES=/nonexistent/new").and(contains("/nonexistent/old").not()));
    xtask(dir.path())
        .env("BLIS_RELEASES_DIR", "/nonexistent/old")
        .arg("history")
        .assert()
        .code(1)
        .stderr(contains("warning: BLIS_RELEASES_DIR is read as BLIS_RELEASES").and(contains("/nonexistent/old")));
}
