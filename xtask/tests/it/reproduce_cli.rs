//! `cargo xtask reproduce` as a user runs it: one fluent chain per behaviour. Every run starts
//! in an empty temp dir (paths must resolve from the workspace root, not the cwd) with the
//! BLIS_* variables cleared, so nothing from the caller's environment leaks in; tests that want
//! an input pass it explicitly.

use assert_cmd::Command;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

use crate::support::root as workspace_root;

struct Reproduce {
    cmd: Command,
    _cwd: tempfile::TempDir,
}

impl Reproduce {
    /// A fresh clone's view: no corpora, no binary, and no vendored trees (BLIS_IGNORE_VENDORED,
    /// whatever this checkout has under testdata/).
    fn fresh() -> Reproduce {
        let cwd = tempfile::tempdir().unwrap();
        let mut cmd = crate::support::xtask(cwd.path());
        cmd.arg("reproduce");
        cmd.env("BLIS_IGNORE_VENDORED", "1");
        Reproduce { cmd, _cwd: cwd }
    }

    fn env(mut self, name: &str, value: &str) -> Self {
        self.cmd.env(name, value);
        self
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
    predicate::str::is_match(
        r"(?m)^\d+ reproduced, \d+ mismatched, \d+ refused( \(\d+ of them permanently: no input here can supply them\))?$",
    )
    .unwrap()
}

/// The committed manifest with one edit, written to a temp file.
fn edited_manifest(dir: &Path, from: &str, to: &str) -> PathBuf {
    let text = std::fs::read_to_string(workspace_root().join("harness/figures.yaml")).unwrap();
    assert!(text.contains(from), "the manifest no longer contains {from:?}");
    let path = dir.join("figures.yaml");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    path
}

#[test]
fn fresh_clone_prints_one_screen_grouping_refusals_by_the_input_they_need() {
    let assert = Reproduce::fresh()
        .assert()
        .code(0)
        .stdout(summary_line())
        .stdout(predicate::str::is_match(r"(?m)^ok +fixtures/numpy-seed0-randint  ours 991 866 936 1011 886, published 991 866 936 1011 886 \(PUBLISHED-FIGURES.md §2\)$").unwrap())
        .stdout(predicate::str::is_match(
            r"(?m)^refused +\d+ figures lack the measurement corpora: pass --measurements DIR or set BLIS_MEASUREMENTS, or run `cargo xtask vendor --fetch`",
        ).unwrap())
        .stdout(predicate::str::is_match(r"(?m)^refused +\d+ figures lack a `blis` binary: pass --blis PATH or set BLIS_BIN$").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^refused +\d+ figures permanently: no input of this tool can supply").unwrap())
        .stdout(predicate::str::contains("refused  headline/").not())
        .stdout(predicate::str::contains("\x1b").not())
        .stderr(predicate::str::contains("\x1b").not());
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let lines = stdout.lines().count();
    assert!(lines <= 25, "{lines} lines on a fresh clone:\n{stdout}");
    let refused: Vec<&str> = stdout.lines().filter(|l| l.starts_with("refused")).collect();
    let distinct: std::collections::BTreeSet<&&str> = refused.iter().collect();
    assert_eq!(refused.len(), distinct.len(), "one line per input:\n{stdout}");
}

#[test]
fn verbose_prints_every_figure_on_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("report.json");
    let assert = Reproduce::fresh().arg("-v").arg("--report-json").arg(&json).assert().code(0);
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let figures = report["figures"].as_array().unwrap();
    for f in figures {
        let id = f["id"].as_str().unwrap();
        assert!(stdout.lines().any(|l| l.split_whitespace().nth(1) == Some(id)), "{id} missing from -v output");
    }
    assert_eq!(stdout.lines().count(), figures.len() + 1, "every figure, then the totals");
}

#[test]
fn fresh_clone_verbose_exits_zero_runs_the_embedded_figures_and_refuses_the_rest_by_name() {
    Reproduce::fresh()
        .arg("--verbose")
        .assert()
        .code(0)
        .stdout(summary_line())
        .stdout(predicate::str::contains(" 0 mismatched,"))
        .stdout(predicate::str::is_match(r"(?m)^ok +fixtures/numpy-seed0-randint  ours 991 866 936 1011 886, published 991 866 936 1011 886 \(PUBLISHED-FIGURES.md §2\)$").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^ok +definitions/aisimulate-test-rows").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^ok +gate/manifest-consistent").unwrap())
        .stdout(
            predicate::str::is_match(
                r"(?m)^refused +headline/all/aisimulate/tpot-shape  .*--measurements DIR or set BLIS_MEASUREMENTS",
            )
            .unwrap(),
        )
        .stdout(predicate::str::is_match(r"(?m)^refused +inputs/lock-verify  .*cargo xtask vendor --from DIR").unwrap())
        .stdout(
            predicate::str::is_match(r"(?m)^refused +determinism/bit-identical-points  .*--blis PATH or set BLIS_BIN")
                .unwrap(),
        );
}

#[test]
fn require_all_exits_two_when_anything_was_refused() {
    Reproduce::fresh().arg("--require-all").assert().code(2).stdout(summary_line());
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
            "MISMATCH fixtures/numpy-seed0-randint  ours 991 866 936 1011 886, published 991 866 936 1011 887 (PUBLISHED-FIGURES.md",
        ))
        .stdout(predicate::str::contains(" 1 mismatched,"));
}

/// A group by its prefix, with or without the trailing `/` (no figure's id is `fixtures`).
#[test]
fn only_selects_a_group_of_figures() {
    for group in ["fixtures/", "fixtures"] {
        Reproduce::fresh()
            .args(["--only", group])
            .assert()
            .code(0)
            .stdout(predicate::str::contains("8 reproduced, 0 mismatched, 0 refused"))
            .stdout(predicate::str::contains("headline/").not());
    }
}

#[test]
fn an_only_that_selects_nothing_is_a_usage_error_naming_the_nearest_ids() {
    Reproduce::fresh()
        .args(["--only", "no-such-figure"])
        .assert()
        .code(64)
        .stderr(predicate::str::contains("selects no figure"));
    // One typo among good ids is not quietly dropped.
    Reproduce::fresh().args(["--only", "fixtures/", "--only", "fixturs"]).assert().code(64).stderr(
        predicate::str::contains("--only fixturs selects no figure").and(predicate::str::contains("fixtures/")),
    );
}

#[test]
fn reports_are_written_as_markdown_tables_per_document_and_stable_json() {
    let dir = tempfile::tempdir().unwrap();
    let (md, json) = (dir.path().join("report.md"), dir.path().join("report.json"));
    Reproduce::fresh().arg("--report-md").arg(&md).arg("--report-json").arg(&json).assert().code(0);
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains("## PUBLISHED-FIGURES.md\n")
            && md.contains("| section | figure | status | expected | source | ours | detail |"),
        "{md}"
    );
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["schema"], 1);
    let figures = report["figures"].as_array().unwrap();
    let summary = &report["summary"];
    let total = ["reproduced", "mismatched", "refused"].iter().map(|k| summary[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(total as usize, figures.len());
    let keys: Vec<&String> = figures[0].as_object().unwrap().keys().collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted, "figure keys are in a stable, sorted order");
}

#[test]
fn report_html_on_a_fresh_clone_has_the_figure_table_and_names_what_the_charts_need() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    Reproduce::fresh().arg("--report-html").arg(&html).assert().code(0).stdout(summary_line());
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("<h2 id=\"figures\">Figures of the gate</h2>"),
        "{html}"
    );
    assert!(html.contains("<td class=\"refused\">refused</td>") && html.contains("<td class=\"ok\">ok</td>"), "{html}");
    assert!(html.contains("No charts: the sweep and arm charts need the scorer") && html.contains("BLIS_MEASUREMENTS"));
    assert!(!html.contains("<script") && !html.contains("<svg "), "no script, and no chart without the corpora");
}

#[test]
fn a_corrupt_manifest_is_a_clear_error_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = edited_manifest(dir.path(), "tolerance: last-digit", "tolerance: no-such-tolerance");
    Reproduce::fresh()
        .arg("--manifest")
        .arg(&manifest)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("unknown tolerance `no-such-tolerance`"));
}

#[test]
fn a_tree_variable_pointing_nowhere_is_an_error_naming_it_not_a_refusal() {
    Reproduce::fresh().env("BLIS_CATALOG", "/nonexistent/catalog").assert().code(1).stdout("").stderr(
        predicate::str::contains(
            "BLIS_CATALOG=/nonexistent/catalog: the vendored blis-catalog tree must be a folder, found nothing",
        ),
    );
}

/// An empty folder of releases given is one error before any work, naming it, never one
/// MISMATCH line per release figure; `history` says the same.
#[test]
fn an_empty_releases_folder_is_one_error_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("releases");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join(".hidden"), "").unwrap();
    let said = format!("BLIS_RELEASES={}: a folder of BLIS releases", empty.display());
    let out = Reproduce::fresh().env("BLIS_RELEASES", empty.to_str().unwrap()).assert().code(1).stdout("");
    let stderr = String::from_utf8_lossy(&out.get_output().stderr);
    assert_eq!(stderr.lines().filter(|l| l.contains(&said)).count(), 1, "{stderr}");
    assert!(stderr.contains("is empty: expected one folder per release"), "{stderr}");
    crate::support::xtask(dir.path())
        .arg("history")
        .env("BLIS_RELEASES", &empty)
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains(said.as_str()).and(predicate::str::contains("is empty")));
}

#[test]
fn a_nonfinite_or_negative_tolerance_is_refused_by_the_manifest_check() {
    let dir = tempfile::tempdir().unwrap();
    for (abs, shown) in [(".inf", "found inf"), ("-1", "found -1"), (".nan", "found NaN")] {
        let manifest =
            edited_manifest(dir.path(), "  exact-copy:\n    abs: 0.0\n", &format!("  exact-copy:\n    abs: {abs}\n"));
        Reproduce::fresh()
            .arg("--manifest")
            .arg(&manifest)
            .args(["--only", "gate/manifest-consistent"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "tolerance `exact-copy`: `abs` must be a finite number >= 0, {shown}"
            )));
    }
}

#[test]
fn the_manifest_figure_says_when_the_published_digits_could_not_be_checked() {
    Reproduce::fresh()
        .env("BLIS_PUBLISHED_FIGURES", "/nonexistent/PUBLISHED-FIGURES.md")
        .args(["--only", "gate/manifest-consistent"])
        .assert()
        .code(0)
        .stdout(predicate::str::is_match(
            r"(?m)^ok +gate/manifest-consistent .*published digits not checked: BLIS_PUBLISHED_FIGURES names /nonexistent/PUBLISHED-FIGURES.md, which is not a readable file",
        ).unwrap());
    // Unset, the line says which variable to set, and names no path of anyone's machine.
    Reproduce::fresh()
        .args(["--only", "gate/manifest-consistent"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "published digits not checked: set BLIS_PUBLISHED_FIGURES to your copy of PUBLISHED-FIGURES.md",
        ))
        .stdout(predicate::str::contains("shared").not());
}

/// Issue 32: refusals no input can lift are counted apart, and `--require-all` passes over them.
#[test]
fn require_all_passes_when_only_permanent_refusals_remain() {
    Reproduce::fresh()
        .args(["--only", "calibration/decode-attention-h200-gqa-all", "fixtures/", "--require-all"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("refused  1 figure permanently: no input of this tool can supply"))
        .stdout(predicate::str::contains(", 1 refused (1 of them permanently: no input here can supply them)"));
}

/// Issue 32: `--version` names the commit the binary was built from, and every report records it.
#[test]
fn version_names_the_commit_and_the_reports_record_it() {
    let assert = crate::support::xtask(&workspace_root()).arg("--version").assert().code(0);
    let version = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    let re = regex_lite(&version);
    assert!(re, "{version:?}");
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git").args(args).current_dir(workspace_root()).output();
        out.ok().filter(|o| o.status.success()).map(|o| String::from_utf8(o.stdout).unwrap())
    };
    if let Some(head) = git(&["rev-parse", "HEAD"]) {
        assert!(version.contains(head.trim()), "{version:?} is not built from HEAD {head}");
        // The build says when it is not the commit's: a change to xtask's own source is marked,
        // and a tree with no change at all is not.
        let marked = version.contains(" with uncommitted changes)");
        if git(&["status", "--porcelain", "--untracked-files=all", "--", "xtask/src"]).is_some_and(|s| !s.is_empty()) {
            assert!(marked, "{version:?} is built from a changed xtask/src and does not say so");
        }
        if git(&["status", "--porcelain", "--untracked-files=all"]).is_some_and(|s| s.is_empty()) {
            assert!(!marked, "{version:?} says uncommitted changes in a clean tree");
        }
    }
    let built = version.trim().strip_prefix("cargo xtask ").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (md, html) = (dir.path().join("r.md"), dir.path().join("r.html"));
    let assert = Reproduce::fresh()
        .args(["--only", "fixtures/", "--report-json", "-", "--report-md"])
        .arg(&md)
        .arg("--report-html")
        .arg(&html)
        .assert()
        .code(0);
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(json["tool"], built);
    assert!(std::fs::read_to_string(&md).unwrap().contains(&format!("Written by cargo xtask {built}.")));
    assert!(std::fs::read_to_string(&html).unwrap().contains(&format!("Written by cargo xtask {built}.")));
}

/// `cargo xtask 0.1.0 (commit <40 hex>[ with uncommitted changes|, uncommitted changes unknown]|unknown)`.
fn regex_lite(version: &str) -> bool {
    let Some(rest) = version.strip_prefix("cargo xtask ").and_then(|r| r.strip_suffix(")\n")) else {
        return false;
    };
    let rest = rest.trim_end_matches(" with uncommitted changes").trim_end_matches(", uncommitted changes unknown");
    let Some((semver, commit)) = rest.split_once(" (commit ") else { return false };
    semver == env!("CARGO_PKG_VERSION")
        && (commit == "unknown" || (commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit())))
}

/// Issue 32: a report on stdout owns stdout, so it can be piped; the summary goes to stderr.
#[test]
fn a_report_on_stdout_pipes_and_the_summary_goes_to_stderr() {
    for flag in ["--report-json", "--report-md", "--report-html"] {
        let assert =
            Reproduce::fresh().args(["--only", "fixtures/", flag, "-"]).assert().code(0).stderr(summary_line());
        let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
        assert!(!summary_line().eval(&stdout), "{flag}: the summary is not on stdout:\n{stdout}");
        match flag {
            "--report-json" => {
                let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
                assert_eq!(report["schema"], 1, "{stdout}");
            }
            "--report-md" => assert!(stdout.starts_with("# blis-repro: published figures"), "{stdout}"),
            _ => assert!(stdout.starts_with("<!DOCTYPE html>"), "{stdout}"),
        }
    }
}

#[test]
fn a_report_to_a_symlink_lands_in_its_target_and_the_link_stays() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("t.md"), "old").unwrap();
    std::os::unix::fs::symlink("t.md", dir.path().join("l.md")).unwrap();
    Reproduce::fresh().args(["--only", "fixtures/", "--report-md"]).arg(dir.path().join("l.md")).assert().code(0);
    assert!(std::fs::symlink_metadata(dir.path().join("l.md")).unwrap().file_type().is_symlink());
    let md = std::fs::read_to_string(dir.path().join("t.md")).unwrap();
    assert!(md.contains("| section | figure | status |"), "{md}");
}

#[test]
fn a_report_to_a_fifo_is_refused_and_the_fifo_stays() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    Reproduce::fresh()
        .args(["--only", "fixtures/", "--report-json"])
        .arg(&fifo)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("refusing to replace a FIFO"));
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
}
