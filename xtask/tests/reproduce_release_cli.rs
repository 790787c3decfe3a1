//! `cargo xtask reproduce --blis <a tagged release>` on the team's corpora and vendored trees:
//! the release's `blis-release/<tag>/...` figures (lockfiles/blis-releases.lock knows its
//! build) are gated as numbers, and a tampered committed value is a named MISMATCH. Needs
//! BLIS_RELEASES (the unpacked releases) besides the team's inputs: without them the
//! trial is ignored with the reason; under CI=true, where `.ci/run` supplies them, it fails.

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

mod support;

const RELEASE: &str = "v0.7.13";

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        Trial::ignorable_test("reproduce/release/v0.7.13-gates-its-figures-and-names-a-tampered-one", || {
            with_release(a_release_gates_its_figures_and_names_a_tampered_one)
        }),
        Trial::ignorable_test("reproduce/release/v0.7.13-copied-without-its-files-says-which-file-is-missing", || {
            with_release(a_locked_build_copied_alone_says_which_release_file_is_missing)
        }),
    ];
    libtest_mimic::run(&args, trials).exit();
}

/// Runs `test` with the team's corpora and the release's `blis`, or says why it cannot.
fn with_release(test: fn(&Path, &Path) -> Result<(), Failed>) -> Result<Completion, Failed> {
    let var = harness::inputs::InputKind::Releases.env_var();
    let releases = std::env::var_os(var).filter(|v| !v.is_empty()).map(PathBuf::from);
    let inputs = support::team_inputs().and_then(|corpora| match releases {
        Some(dir) => Ok((corpora, dir.join(RELEASE).join("blis"))),
        None => Err(format!("needs {var} (the unpacked releases, one folder per tag)")),
    });
    support::requires(inputs, |(corpora, blis)| test(&corpora, &blis))
}

fn reproduce(corpora: &Path, blis: &Path) -> assert_cmd::Command {
    let trees = support::root().join("testdata");
    let mut cmd = support::xtask(&std::env::temp_dir());
    cmd.args(["reproduce", "--only", &format!("blis-release/{RELEASE}/"), "--measurements"]).arg(corpora);
    for tree in ["catalog", "registry", "scenarios"] {
        cmd.arg(format!("--{tree}")).arg(trees.join(tree));
    }
    cmd.arg("--blis").arg(blis);
    cmd
}

fn a_release_gates_its_figures_and_names_a_tampered_one(corpora: &Path, blis: &Path) -> Result<(), Failed> {
    let id = format!("blis-release/{RELEASE}/all/tpot-shape");
    reproduce(corpora, blis)
        .assert()
        .code(0)
        .stdout(
            predicate::str::is_match(format!(r"(?m)^ok +{id}  ours \d+\.\d\d, expected \d+\.\d\d \(computed here\)"))
                .unwrap(),
        )
        .stdout(
            predicate::str::is_match(format!(
                r"(?m)^ok +blis-release/{RELEASE}/all/n-shape  ours \d+, expected \d+ \(computed here\)$"
            ))
            .unwrap(),
        )
        .stdout(predicate::str::contains(" 0 mismatched,"))
        // Each release's line reaches the user as it finishes (a folder of releases is an hour cold).
        .stderr(
            predicate::str::is_match(format!(
                r"(?m)^blis-releases \(first rendering\): blis: release {RELEASE}: \d+ points with a value, \d+ failed, \d+ ran, \d+ from the cache \(\d+ s so far\)$"
            ))
            .unwrap(),
        );
    let text = std::fs::read_to_string(support::root().join("harness/figures.yaml"))?;
    let t = harness::tamper::raise(&text, &format!("- tag: {RELEASE}\n"), "all: {tpot_shape: ")?;
    let dir = tempfile::tempdir()?;
    let manifest = dir.path().join("figures.yaml");
    std::fs::write(&manifest, &t.text)?;
    reproduce(corpora, blis)
        .arg("--manifest")
        .arg(&manifest)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "MISMATCH {id}  ours {}, expected {} (computed here)",
            t.committed, t.tampered
        )))
        .stdout(predicate::str::contains(" 1 mismatched,"));
    Ok(())
}

/// The locked binary copied alone, without the files a release reads beside it: every figure
/// fails, and each report says why (the missing `hardware_config.json`), not only "produced no
/// value".
fn a_locked_build_copied_alone_says_which_release_file_is_missing(corpora: &Path, blis: &Path) -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let lonely = dir.path().join("blis");
    std::fs::copy(blis, &lonely)?;
    let (json, md) = (dir.path().join("gate.json"), dir.path().join("gate.md"));
    let missing = "v0.7.13/hardware_config.json: expected a file, found nothing (no such file)";
    let out = reproduce(corpora, &lonely).arg("--report-json").arg(&json).arg("--report-md").arg(&md).output()?;
    let stdout = String::from_utf8(out.stdout)?;
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let mismatched: Vec<&str> = stdout.lines().filter(|l| l.starts_with("MISMATCH ")).collect();
    assert_eq!(mismatched.len(), 8, "{stdout}");
    for line in mismatched {
        assert!(line.contains("produced no value") && line.contains(missing), "{line}");
    }
    for report in [&json, &md] {
        let text = std::fs::read_to_string(report)?;
        assert_eq!(text.matches(missing).count(), 8, "{}:\n{text}", report.display());
    }
    let id = format!("blis-release/{RELEASE}/all/tpot-shape");
    let trees = support::root().join("testdata");
    let mut explain = support::xtask(&std::env::temp_dir());
    explain.args(["explain", &id, "--measurements"]).arg(corpora);
    for tree in ["catalog", "registry", "scenarios"] {
        explain.arg(format!("--{tree}")).arg(trees.join(tree));
    }
    explain.arg("--blis").arg(&lonely).assert().stdout(predicate::str::contains(missing));
    Ok(())
}
