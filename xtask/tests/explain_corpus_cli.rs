//! `cargo xtask explain` on the team's corpora and vendored trees: the output for one headline
//! cell, pinned by its snapshot. Without BLIS_MEASUREMENTS (or the vendored trees) the trial is
//! reported ignored with the reason; under CI=true, where `.ci/run` supplies both, it fails.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;

fn main() {
    let args = Arguments::from_args();
    let trials = vec![Trial::ignorable_test("explain/corpus/headline-all-aic-ttft-shape", || {
        support::with_team_inputs(headline_all_aic_ttft_shape)
    })];
    libtest_mimic::run(&args, trials).exit();
}

mod support;

fn headline_all_aic_ttft_shape(corpora: &Path) -> Result<(), Failed> {
    let out = support::xtask(&support::root())
        .args(["explain", "headline/all/aic/ttft-shape", "--measurements"])
        .arg(corpora)
        .output()?;
    if out.status.code() != Some(0) {
        return Err(format!("exit {:?}: {}", out.status.code(), String::from_utf8_lossy(&out.stderr)).into());
    }
    let text = String::from_utf8(out.stdout)?;
    // One screen: the bound on what an auditor reads first.
    if text.lines().count() > 40 {
        return Err(format!("{} lines: more than a screen", text.lines().count()).into());
    }
    harness::assert_figure_snapshot!("explain__headline_all_aic_ttft_shape", text);
    Ok(())
}
