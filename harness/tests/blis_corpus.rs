//! The BLIS arm planned over the team's corpora and scored with the test double.
//!
//! Runs when BLIS_MEASUREMENTS is set (CI sets it); otherwise every trial is listed as ignored
//! with the reason. With it set, a missing corpus file or scenario tree FAILS.

mod support;
use support::blis as blis_support;

use harness::blis::{arm, CacheMode, FixtureSet, ProgressMode, RunOptions};
use harness::inputs::{Flags, InputKind, Inputs};
use harness::score::{self, Selection};
use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeSet;

fn setup() -> Result<(score::Corpora, harness::corpus::scenario::ScenarioSet, std::path::PathBuf), Failed> {
    let inputs = Inputs::from_process(&Flags::default());
    let (corpora, scenarios) = score::load_inputs(&inputs).map_err(|e| e.to_string())?;
    let dir = inputs.require_dir(InputKind::Scenarios, "the BLIS arm test").map_err(|e| e.to_string())?;
    Ok((corpora, scenarios, dir.to_path_buf()))
}

/// Every point of the 113 vLLM sweeps gets a spec: resolved settings and seed-0 vectors.
fn plan_covers_every_vllm_point() -> Result<(), Failed> {
    let (corpora, scenarios, dir) = setup()?;
    let fixtures = FixtureSet::committed().map_err(|e| e.to_string())?;
    let resolved = score::resolve::resolve(&corpora, &scenarios, None, &Selection::vllm(None));
    let plan = arm::plan(&resolved, &dir, &fixtures, 0);
    if !plan.unplannable.is_empty() {
        return Err(format!("{:?}", plan.unplannable).into());
    }
    if plan.points.len() != 573 {
        return Err(format!("{} points planned, the vLLM sweeps have 573", plan.points.len()).into());
    }
    for (key, spec) in &plan.points {
        if spec.input_lens.len() != 10 * spec.concurrency as usize || spec.engine.max_num_seqs == 0 {
            return Err(format!("{key:?}: {:?}", spec.engine).into());
        }
    }
    Ok(())
}

/// Five sweeps run through the double fill their BLIS cells; every other sweep lacks BLIS
/// values and is dropped for every arm, with a reason naming BLIS.
fn five_sweeps_scored_with_the_double() -> Result<(), Failed> {
    let (corpora, scenarios, dir) = setup()?;
    let fixtures = FixtureSet::committed().map_err(|e| e.to_string())?;
    let selection = Selection::vllm(None);
    let resolved = score::resolve::resolve(&corpora, &scenarios, None, &selection);
    let mut plan = arm::plan(&resolved, &dir, &fixtures, 0);
    let chosen: BTreeSet<(String, String)> = plan
        .points
        .iter()
        .map(|(k, _)| (k.scenario.clone(), k.label.clone()))
        .filter(|(s, _)| !s.contains("gpt-oss"))
        .take(5)
        .collect();
    plan.points.retain(|(k, _)| chosen.contains(&(k.scenario.clone(), k.label.clone())));
    let empty = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut opts = RunOptions::new(blis_support::double(), empty.path().into(), empty.path().into());
    opts.cache = CacheMode::Off;
    opts.progress = ProgressMode::Silent;
    let (blis_arm, report) = arm::run_arm(&plan, &opts).map_err(|e| e.to_string())?;
    if report.summary.failed != 0 {
        return Err(arm::missing_points(&plan, &report).join("\n").into());
    }
    let arms = score::headline_arms(&corpora.e2e, Some(blis_arm));
    let scored = score::score_resolved(&corpora, &scenarios, &resolved, &arms, &selection);
    let with_blis: BTreeSet<(String, String)> = scored
        .sweeps
        .iter()
        .filter(|s| s.errors[0].is_some())
        .map(|s| (s.scenario.clone(), s.label.clone()))
        .collect();
    if with_blis != chosen {
        return Err(format!("scored with BLIS: {with_blis:?}, expected {chosen:?}").into());
    }
    if let Some(d) = scored.dropped.iter().find(|d| !d.reason.contains("BLIS")) {
        return Err(format!("a sweep dropped for another reason: {d:?}").into());
    }
    if scored.sweeps.len() + scored.dropped.len() != 113 {
        return Err(format!("{} scored + {} dropped != 113", scored.sweeps.len(), scored.dropped.len()).into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let missing = support::missing_corpora();
    let trials = vec![
        Trial::test("blis_arm/vllm/plan_covers_all_573_points", plan_covers_every_vllm_point),
        Trial::test("blis_arm/vllm/five_sweeps_scored_with_the_double", five_sweeps_scored_with_the_double),
    ];
    let trials = trials.into_iter().map(|t| support::unless_missing(t, missing.as_deref())).collect();
    libtest_mimic::run(&args, trials).exit();
}
