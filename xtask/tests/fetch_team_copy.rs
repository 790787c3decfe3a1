//! `cargo xtask vendor --fetch` reaches every corpus figure: the team's trees and corpora are
//! made into local git repositories standing in for the upstreams (file:// URLs, since there is
//! no network here), fetched through a lock pinned to them, and the gate over what was fetched
//! must print the same counts as the gate over the team's copy. Needs `BLIS_MEASUREMENTS` and
//! the vendored trees (`.ci/run` provides both); ignored with the reason otherwise, failing
//! under `CI=true`.

use libtest_mimic::{Arguments, Failed, Trial};
use std::fs;
use std::path::{Path, PathBuf};

mod support;
use support::{root as workspace_root, xtask};

fn totals(out: &std::process::Output) -> Result<String, Failed> {
    let text = String::from_utf8(out.stdout.clone())?;
    // `N reproduced, M mismatched, K refused`, and what of the refusals is permanent.
    let is_totals = |l: &&str| l.contains(" reproduced, ") && l.contains(" mismatched, ") && l.contains(" refused");
    match text.lines().rev().find(is_totals) {
        Some(line) => Ok(line.to_string()),
        None => Err(format!("no totals line in:\n{text}").into()),
    }
}

fn fetched_corpora_reproduce_the_same_counts(corpora: &Path) -> Result<(), Failed> {
    let trees = workspace_root().join("testdata");
    let dir = tempfile::tempdir()?;
    let remotes = dir.path().join("remotes");
    let lock_path = dir.path().join("upstream.lock");
    let text = fs::read_to_string(workspace_root().join("lockfiles/upstream.lock"))?;
    let mut lock = harness::lock::file::parse(&text).map_err(|e| e.to_string())?;
    let source = |section: &str| if section == "measurements" { corpora.to_path_buf() } else { trees.join(section) };
    harness::stand_in::stand_in_upstreams(&remotes, source, &mut lock);
    fs::write(&lock_path, harness::lock::file::render(&lock))?;

    let fetched = dir.path().join("testdata");
    let out = xtask(dir.path())
        .args(["vendor", "--fetch", "--lockfile"])
        .arg(&lock_path)
        .arg("--testdata")
        .arg(&fetched)
        .output()?;
    if !out.status.success() {
        return Err(format!("vendor --fetch failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let said = String::from_utf8(out.stdout)?;
    if !said.contains("testdata/measurements: vendored 5 files") {
        return Err(format!("the corpora were not fetched:\n{said}").into());
    }

    let ours = xtask(dir.path())
        .args(["reproduce", "--lockfile"])
        .arg(&lock_path)
        .args(
            ["catalog", "registry", "scenarios", "measurements"]
                .iter()
                .flat_map(|s| [format!("--{s}").into(), fetched.join(s).into_os_string()]),
        )
        .output()?;
    let team = xtask(dir.path()).args(["reproduce", "--measurements"]).arg(corpora).output()?;
    let (ours_line, team_line) = (totals(&ours)?, totals(&team)?);
    if ours_line != team_line || !ours.status.success() {
        return Err(format!(
            "fetched: {ours_line} (exit {}), team's copy: {team_line}\n{}",
            ours.status,
            String::from_utf8_lossy(&ours.stdout)
        )
        .into());
    }
    let ours_text = String::from_utf8(ours.stdout)?;
    if !ours_text.lines().any(|l| l.starts_with("ok") && l.contains("inputs/lock-verify")) {
        return Err(format!("the fetched inputs did not verify against their lock:\n{ours_text}").into());
    }
    if !team_line.contains(" 0 mismatched") {
        return Err(format!("the team's copy should reproduce: {team_line}").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let name = "fetch/team_copy_through_stand_in_upstreams_reproduces_the_same_counts";
    let corpora = std::env::var_os("BLIS_MEASUREMENTS").filter(|v| !v.is_empty()).map(PathBuf::from);
    let trees = workspace_root().join("testdata");
    let have_trees = ["catalog", "registry", "scenarios"].iter().all(|t| trees.join(t).is_dir());
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    let trial = match corpora {
        Some(corpora) if have_trees => Trial::test(name, move || fetched_corpora_reproduce_the_same_counts(&corpora)),
        _ if ci => Trial::test(name, || {
            Err("CI=true but BLIS_MEASUREMENTS or the vendored trees are missing (.ci/run supplies both)".into())
        }),
        _ => Trial::test(name, || Ok(()))
            .with_ignored_flag(true)
            .with_kind("needs BLIS_MEASUREMENTS and the vendored trees (`cargo xtask vendor --from DIR`)"),
    };
    libtest_mimic::run(&args, vec![trial]).exit();
}
