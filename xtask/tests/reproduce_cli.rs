//! `cargo xtask reproduce` as a user runs it: one fluent chain per behaviour. Every run starts
//! in an empty temp dir (paths must resolve from the workspace root, not the cwd) with the
//! BLIS_* variables cleared, so nothing from the caller's environment leaks in; tests that want
//! an input pass it explicitly.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

const LEAKY_VARS: [&str; 6] = [
    "BLIS_MEASUREMENTS",
    "BLIS_CATALOG",
    "BLIS_REGISTRY",
    "BLIS_SCENARIOS",
    "BLIS_BIN",
    "BLIS_PUBLISHED_FIGURES",
];

struct Reproduce {
    cmd: Command,
    _cwd: tempfile::TempDir,
}

impl Reproduce {
    /// A fresh clone's view: no corpora, no binary, and no vendored trees (pointed at a folder
    /// that does not exist, whatever this checkout has under testdata/).
    fn fresh() -> Reproduce {
        let cwd = tempfile::tempdir().unwrap();
        let mut cmd = Command::cargo_bin("xtask").unwrap();
        cmd.current_dir(cwd.path()).arg("reproduce");
        for var in LEAKY_VARS {
            cmd.env_remove(var);
        }
        let nowhere = cwd.path().join("not-vendored");
        cmd.args(
            ["--catalog", "--registry", "--scenarios"]
                .iter()
                .flat_map(|f| [f.to_string(), nowhere.display().to_string()]),
        );
        Reproduce { cmd, _cwd: cwd }
    }

    fn arg(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.arg(arg);
        self
    }

    fn args<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(mut self, args: I) -> Self {
        self.cmd.args(args);
        self
    }

    fn assert(mut self) -> assert_cmd::assert::Assert {
        self.cmd.assert()
    }
}

fn summary_line() -> impl Predicate<str> {
    predicate::str::is_match(r"(?m)^\d+ reproduced, \d+ mismatched, \d+ refused$").unwrap()
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The committed manifest with one edit, written to a temp file.
fn edited_manifest(dir: &Path, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(workspace_root().join("harness/figures.yaml")).unwrap();
    assert!(
        text.contains(from),
        "the manifest no longer contains {from:?}"
    );
    let path = dir.join("figures.yaml");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

fn team_corpora() -> Option<PathBuf> {
    std::env::var_os("BLIS_MEASUREMENTS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

#[test]
fn fresh_clone_exits_zero_runs_the_embedded_figures_and_refuses_the_rest_by_name() {
    Reproduce::fresh()
        .assert()
        .code(0)
        .stdout(summary_line())
        .stdout(predicate::str::contains(" 0 mismatched,"))
        .stdout(predicate::str::is_match(r"(?m)^ok +fixtures/numpy-seed0-randint  991 866 936 1011 886").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^ok +definitions/aisimulate-test-rows").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^ok +gate/manifest-consistent").unwrap())
        .stdout(predicate::str::is_match(
            r"(?m)^refused +headline/all/aisimulate/tpot-shape  .*--measurements DIR or set BLIS_MEASUREMENTS",
        ).unwrap())
        .stdout(predicate::str::is_match(r"(?m)^refused +inputs/lock-verify  .*cargo xtask vendor --from DIR").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^refused +determinism/bit-identical-points  .*--blis PATH or set BLIS_BIN").unwrap());
}

#[test]
fn require_all_exits_two_when_anything_was_refused() {
    Reproduce::fresh()
        .arg("--require-all")
        .assert()
        .code(2)
        .stdout(summary_line());
}

#[test]
fn one_edited_published_digit_exits_one_naming_the_figure() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = edited_manifest(
        dir.path(),
        r#"expect: {text: "991 866 936 1011 886"}"#,
        r#"expect: {text: "991 866 936 1011 887"}"#,
    );
    Reproduce::fresh()
        .arg("--manifest")
        .arg(&manifest)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "MISMATCH fixtures/numpy-seed0-randint  published 991 866 936 1011 887, ours 991 866 936 1011 886",
        ))
        .stdout(predicate::str::contains(" 1 mismatched,"));
}

#[test]
fn only_selects_a_group_of_figures() {
    Reproduce::fresh()
        .args(["--only", "fixtures/"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "8 reproduced, 0 mismatched, 0 refused",
        ))
        .stdout(predicate::str::contains("headline/").not());
}

#[test]
fn an_only_that_selects_nothing_is_an_error() {
    Reproduce::fresh()
        .args(["--only", "no-such-figure"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("selects no figure"));
}

#[test]
fn reports_are_written_as_markdown_tables_per_document_and_stable_json() {
    let dir = tempfile::tempdir().unwrap();
    let (md, json) = (dir.path().join("report.md"), dir.path().join("report.json"));
    Reproduce::fresh()
        .arg("--report-md")
        .arg(&md)
        .arg("--report-json")
        .arg(&json)
        .assert()
        .code(0);
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("## PUBLISHED-FIGURES.md\n")
            && md.contains("| section | figure | status | published | ours | detail |"),
        "{md}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["schema"], 1);
    let figures = report["figures"].as_array().unwrap();
    let summary = &report["summary"];
    let total = ["reproduced", "mismatched", "refused"]
        .iter()
        .map(|k| summary[k].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(total as usize, figures.len());
    let keys: Vec<&String> = figures[0].as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "figure keys are in a stable, sorted order");
}

#[test]
fn a_corrupt_manifest_is_a_clear_error_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = edited_manifest(
        dir.path(),
        "tolerance: last-digit",
        "tolerance: no-such-tolerance",
    );
    Reproduce::fresh()
        .arg("--manifest")
        .arg(&manifest)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "unknown tolerance `no-such-tolerance`",
        ));
}

#[test]
fn with_the_team_corpora_and_trees_every_corpus_figure_reproduces() {
    let Some(corpora) = team_corpora() else {
        eprintln!("skipped: needs BLIS_MEASUREMENTS (the team's corpora) and the vendored trees");
        return;
    };
    let trees = workspace_root().join("testdata");
    Command::cargo_bin("xtask")
        .unwrap()
        .current_dir(std::env::temp_dir())
        .env_remove("BLIS_BIN")
        .args(["reproduce", "--measurements"])
        .arg(&corpora)
        .arg("--catalog")
        .arg(trees.join("catalog"))
        .arg("--registry")
        .arg(trees.join("registry"))
        .arg("--scenarios")
        .arg(trees.join("scenarios"))
        .assert()
        .code(0)
        .stdout(predicate::str::is_match(r"(?m)^ok +inputs/lock-verify").unwrap())
        .stdout(
            predicate::str::is_match(
                r"(?m)^ok +error-definition/aisimulate-tpot-shape-anchor-excluded  10\.05",
            )
            .unwrap(),
        )
        .stdout(
            predicate::str::is_match(r"(?m)^ok +headline-measured/all/aic/tpot-shape  12\.00")
                .unwrap(),
        )
        .stdout(predicate::str::contains(" 0 mismatched,"));
}

#[test]
fn with_the_team_corpora_an_edited_published_total_exits_one_naming_it() {
    let Some(corpora) = team_corpora() else {
        eprintln!("skipped: needs BLIS_MEASUREMENTS");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let manifest = edited_manifest(
        dir.path(),
        r#"expect: {number: "10.05"}"#,
        r#"expect: {number: "10.06"}"#,
    );
    Reproduce::fresh()
        .arg("--measurements")
        .arg(&corpora)
        .arg("--manifest")
        .arg(&manifest)
        .args(["--only", "error-definition/aisimulate-tpot-shape-anchor-excluded"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "MISMATCH error-definition/aisimulate-tpot-shape-anchor-excluded  published 10.06, ours 10.05",
        ));
}
