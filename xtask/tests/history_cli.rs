//! `cargo xtask history` over a folder of releases made here from the test double: wrapper
//! scripts that start it with a knob of their own (a slow-down, garbage metrics on some
//! points), beside entries that are not releases. Needs the team's corpora and the vendored
//! trees (the headline selection); without them each trial is ignored with the reason, and
//! under CI=true, where `.ci/run` supplies both, it fails instead.

use libtest_mimic::{Arguments, Failed, Trial};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

mod support;

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        Trial::ignorable_test("history/double/names-the-first-worse-release-groups-and-rows-for-every-entry", || {
            support::with_team_inputs(names_the_first_worse_release_groups_and_rows_for_every_entry)
        }),
        Trial::ignorable_test("history/double/an-empty-folder-is-an-error-naming-it", || {
            support::with_team_inputs(an_empty_folder_is_an_error_naming_it)
        }),
        Trial::ignorable_test("history/double/the-html-page-loads-in-headless-chromium-with-no-console-error", || {
            let chromium = harness::report_html::browser::find_chromium()
                .ok_or_else(|| "needs chromium on PATH (Debian: apt-get install -y chromium)".to_string());
            support::requires(chromium.and_then(|c| Ok((c, support::team_inputs()?))), |(chromium, corpora)| {
                the_html_page_loads_in_headless_chromium(&chromium, &corpora)
            })
        }),
    ];
    let conclusion = libtest_mimic::run(&args, trials);
    // The shared run's folder, removed once every trial that reads it is done.
    drop(RUN.lock().unwrap_or_else(|e| e.into_inner()).take());
    conclusion.exit();
}

/// One history over the releases below, run once for the trials that read it (its text and
/// JSON, and its page in a browser): the double's points are simulated once, not per trial.
struct HistoryRun {
    dir: tempfile::TempDir,
    stdout: String,
    json: PathBuf,
    html: PathBuf,
}

static RUN: std::sync::Mutex<Option<Result<std::sync::Arc<HistoryRun>, String>>> = std::sync::Mutex::new(None);

/// The shared run, started by the first trial that asks (the others wait for it).
fn shared_run(corpora: &Path) -> Result<std::sync::Arc<HistoryRun>, Failed> {
    let mut slot = RUN.lock().unwrap_or_else(|e| e.into_inner());
    let run = slot.get_or_insert_with(|| {
        run_history(corpora)
            .map(std::sync::Arc::new)
            .map_err(|e| e.message().unwrap_or("the shared history failed").to_string())
    });
    run.clone().map_err(Failed::from)
}

fn history(corpora: &Path, cwd: &Path) -> assert_cmd::Command {
    let trees = support::root().join("testdata");
    let mut cmd = support::xtask(cwd);
    cmd.args(["history", "--measurements"]).arg(corpora);
    for tree in ["catalog", "registry", "scenarios"] {
        cmd.arg(format!("--{tree}")).arg(trees.join(tree));
    }
    cmd
}

/// A release folder whose `blis` starts the double with `knobs` set.
fn release(dir: &Path, tag: &str, double: &Path, knobs: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let folder = dir.join(tag);
    std::fs::create_dir_all(&folder).unwrap();
    let blis = folder.join("blis");
    std::fs::write(&blis, format!("#!/bin/sh\n{knobs} exec '{}' \"$@\"\n", double.display())).unwrap();
    std::fs::set_permissions(&blis, std::fs::Permissions::from_mode(0o755)).unwrap();
    blis
}

/// Seven entries written out of order: releases of the double with knobs of their own (one
/// slower, one whose gpt-oss points give garbage), a byte-identical copy, and entries that are
/// not releases.
fn run_history(corpora: &Path) -> Result<HistoryRun, Failed> {
    use std::os::unix::fs::PermissionsExt;
    let double = harness::blis::double::build().map_err(|e| e.to_string())?;
    let dir = tempfile::tempdir()?;
    let releases = dir.path().join("releases");
    // Written out of order: the history orders by version (v1.10.0 after v1.9.0).
    release(&releases, "v1.10.0", &double, "BLIS_DOUBLE_MODE=malformed BLIS_DOUBLE_ONLY=gpt-oss");
    release(&releases, "v1.9.0", &double, "BLIS_DOUBLE_SLOWDOWN=0.3");
    std::fs::create_dir_all(releases.join("v1.9.1"))?;
    std::fs::copy(releases.join("v1.9.0/blis"), releases.join("v1.9.1/blis"))?;
    // The same binary again, with a release file of its own: a different identity, simulated
    // apart, never "byte-identical ... simulated once" (the double does not read the file, so
    // its points agree).
    std::fs::create_dir_all(releases.join("v1.9.2"))?;
    std::fs::copy(releases.join("v1.9.0/blis"), releases.join("v1.9.2/blis"))?;
    std::fs::write(releases.join("v1.9.2/coefficients.yaml"), "alpha: [1, 2, 3]\n")?;
    release(&releases, "v1.2.0", &double, "");
    release(&releases, "iter27", &double, "");
    let not_executable = release(&releases, "v1.0.0", &double, "");
    std::fs::set_permissions(&not_executable, std::fs::Permissions::from_mode(0o644))?;
    std::fs::write(releases.join("NOTES.txt"), "not a release")?;
    let (json, html) = (dir.path().join("history.json"), dir.path().join("history.html"));
    let out = history(corpora, dir.path())
        .arg("--releases")
        .arg(&releases)
        .arg("--no-cache")
        .arg("--report-json")
        .arg(&json)
        .arg("--report-html")
        .arg(&html)
        .output()?;
    if !out.status.success() {
        return Err(format!("history exited {}: {}", out.status, String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(HistoryRun { dir, stdout: String::from_utf8(out.stdout)?, json, html })
}

fn names_the_first_worse_release_groups_and_rows_for_every_entry(corpora: &Path) -> Result<(), Failed> {
    let run = shared_run(corpora)?;
    let (dir, json, html) = (&run.dir, &run.json, &run.html);
    let text = &run.stdout;
    let stdout = |needle: &str| -> Result<(), Failed> {
        match text.contains(needle) {
            true => Ok(()),
            false => Err(format!("the history does not say {needle:?}:\n{text}").into()),
        }
    };
    stdout("| v1.9.1 | ")?;
    stdout("(= v1.9.0, simulated once)")?;
    stdout("- v1.9.0, v1.9.1: byte-identical binaries")?;
    stdout("- v1.9.0, v1.9.1, v1.9.2: one binary with different release files; every planned point gave the same")?;
    let row = text.lines().find(|l| l.starts_with("| v1.9.2 | ")).unwrap_or_default();
    if row.is_empty() || row.contains("simulated once") {
        return Err(format!("v1.9.2 (its own release file) is simulated, not served v1.9.0's points:\n{text}").into());
    }
    stdout("- all.tpot_shape: first worse at v1.9.0 (from v1.2.0)")?;
    stdout("- all.tpot_shape: first better at v1.10.0 (from v1.9.2)")?;
    stdout("- v1.9.0 -> v1.9.1: identical on every planned point")?;
    stdout("- v1.9.1 -> v1.9.2: identical on every planned point")?;
    stdout("| iter27 | - | - | not a release: the tag `iter27` is not a version")?;
    stdout("| v1.0.0 | - | - | not a release: v1.0.0/blis is not executable (mode 644)")?;
    stdout("| NOTES.txt | - | - | not a release: a file, not a folder")?;
    let failed_sweeps = r"(?m)^- 28 sweeps: failed: c=\d+: ";
    if !predicate::str::is_match(failed_sweeps)?.eval(text) {
        return Err(format!("no line matches {failed_sweeps:?}:\n{text}").into());
    }
    // Version order, not string order, and no path of this machine in the report.
    let at = |tag: &str| text.find(&format!("| {tag} | ")).unwrap_or(usize::MAX);
    assert!(at("v1.2.0") < at("v1.9.0") && at("v1.9.0") < at("v1.9.1") && at("v1.9.2") < at("v1.10.0"), "{text}");
    assert!(!text.contains(&dir.path().display().to_string()), "a machine path in the report:\n{text}");
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json)?)?;
    let tags: Vec<&str> =
        json["history"]["releases"].as_array().unwrap().iter().map(|r| r["tag"].as_str().unwrap()).collect();
    assert_eq!(tags, ["v1.2.0", "v1.9.0", "v1.9.1", "v1.9.2", "v1.10.0", "NOTES.txt", "iter27", "v1.0.0"]);
    let page = std::fs::read_to_string(html)?;
    assert!(
        page.contains(&format!("<p>Written by cargo xtask {} (commit ", env!("CARGO_PKG_VERSION"))),
        "the page does not say which build wrote it"
    );
    assert_eq!(json["history"]["distinct_runs"], 4);
    let first = &json["history"]["first_changes"];
    assert!(first
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["figure"] == "all.tpot_shape" && f["direction"] == "worse" && f["release"] == "v1.9.0"));
    let page = std::fs::read_to_string(html)?;
    for chart in ["history-all-tpot-shape", "history-all-ttft-mape"] {
        assert!(page.contains(&format!("id=\"{chart}\"")), "no chart {chart}");
    }
    assert!(page.contains("Per sweep: BLIS TPOT shape error"));
    Ok(())
}

fn an_empty_folder_is_an_error_naming_it(corpora: &Path) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let empty = dir.path().join("none");
    std::fs::create_dir(&empty)?;
    history(corpora, dir.path())
        .arg("--releases")
        .arg(&empty)
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("--releases ").and(predicate::str::contains("none: a folder of BLIS releases")),
        )
        .stderr(predicate::str::contains("is empty: expected one folder per release"));
    Ok(())
}

/// The shared history's page in a real browser: no network request, no console error, and
/// the charts and grid are there.
fn the_html_page_loads_in_headless_chromium(chromium: &Path, corpora: &Path) -> Result<(), Failed> {
    let run = shared_run(corpora)?;
    let page = &run.html;
    let load = harness::report_html::browser::load(chromium, page, std::time::Duration::from_millis(500))
        .map_err(|e| format!("{e:#}"))?;
    if let Some(problems) = load.problems() {
        return Err(problems.into());
    }
    let html = std::fs::read_to_string(page)?;
    for needle in ["id=\"history-all-tpot-shape\"", "Per sweep: BLIS TPOT shape error", "v1.9.0"] {
        if !html.contains(needle) {
            return Err(format!("the page lacks {needle}").into());
        }
    }
    Ok(())
}
