//! The BLIS arm planned over the team's corpora and scored with the test double.
//!
//! Runs when BLIS_MEASUREMENTS is set (CI sets it); otherwise every trial is listed as ignored
//! with the reason. With it set, a missing corpus file or scenario tree FAILS.

mod support;
use support::blis as blis_support;

use harness::blis::{arm, baseline, sensitivity, CacheMode, FixtureSet, ProgressMode, RunOptions};
use harness::inputs::{Flags, InputKind, Inputs};
use harness::score::{self, Selection};
use harness::task::Value;
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
    let plan = arm::plan(&resolved.sweeps, &dir, &fixtures, 0);
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

/// The plan of `resolved` cut to its first five sweeps (gpt-oss aside), and those sweeps.
fn five_sweep_plan(
    resolved: &score::resolve::Resolved,
    dir: &std::path::Path,
) -> Result<(arm::Plan, BTreeSet<(String, String)>), Failed> {
    let fixtures = FixtureSet::committed().map_err(|e| e.to_string())?;
    let mut plan = arm::plan(&resolved.sweeps, dir, &fixtures, 0);
    let chosen: BTreeSet<(String, String)> = plan
        .points
        .iter()
        .map(|(k, _)| (k.scenario.clone(), k.label.clone()))
        .filter(|(s, _)| !s.contains("gpt-oss"))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .take(5)
        .collect();
    plan.points.retain(|(k, _)| chosen.contains(&(k.scenario.clone(), k.label.clone())));
    Ok((plan, chosen))
}

/// Five sweeps run through the double fill their BLIS cells; every other sweep lacks BLIS
/// values and is dropped for every arm, with a reason naming BLIS.
fn five_sweeps_scored_with_the_double() -> Result<(), Failed> {
    let (corpora, scenarios, dir) = setup()?;
    let resolved = score::resolve::resolve(&corpora, &scenarios, None, &Selection::vllm(None));
    let (plan, chosen) = five_sweep_plan(&resolved, &dir)?;
    let empty = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut opts = RunOptions::new(blis_support::double(), empty.path().into(), empty.path().into());
    opts.cache = CacheMode::Off;
    opts.progress = ProgressMode::Silent;
    let (blis_arm, report) = arm::run_arm(&plan, &opts).map_err(|e| e.to_string())?;
    if report.summary.failed != 0 {
        return Err(arm::missing_points(&plan, &report).join("\n").into());
    }
    let arms = score::headline_arms(&corpora.e2e, Some(blis_arm));
    let scored = score::score_resolved(&resolved, &arms);
    let with_blis: BTreeSet<(String, String)> =
        scored.sweeps.iter().filter(|s| s.errors[0].is_some()).map(|s| (s.scenario.clone(), s.label.clone())).collect();
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

/// A comparison, the sweeps it ran over and its number of points.
type Compared = (baseline::Comparison, BTreeSet<(String, String)>, usize);

/// The double over five sweeps, through one fresh cache, as both candidate and baseline
/// (the candidate with `candidate_env`), judged by the committed `baseline_rule`.
fn compare_doubles(candidate_env: &[(&str, &str)]) -> Result<Compared, Failed> {
    let (corpora, scenarios, dir) = setup()?;
    let resolved = score::resolve::resolve(&corpora, &scenarios, None, &Selection::vllm(None));
    let (plan, chosen) = five_sweep_plan(&resolved, &dir)?;
    let manifest_path = harness::gate::manifest_path();
    let manifest = harness::gate::load_manifest(&manifest_path).map_err(|e| format!("{e:#}"))?;
    let rule = manifest.rule(&manifest_path).map_err(|e| e.to_string())?;
    let cache = tempfile::tempdir().map_err(|e| e.to_string())?;
    let empty = tempfile::tempdir().map_err(|e| e.to_string())?;
    let mut base = RunOptions::new(blis_support::double(), empty.path().into(), empty.path().into());
    base.cache = CacheMode::ReadWrite(cache.path().into());
    base.progress = ProgressMode::Silent;
    let mut candidate = base.clone();
    candidate.child_env = candidate_env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let cmp = baseline::compare_plan(&resolved, &plan, &candidate, &base, &rule).map_err(|e| e.to_string())?;
    Ok((cmp, chosen, plan.points.len()))
}

/// The double against itself: no difference on any figure, and the baseline (same binary,
/// same environment) served entirely from the cache the candidate filled.
fn double_against_itself() -> Result<(), Failed> {
    let (cmp, _, points) = compare_doubles(&[])?;
    // Every interval defined is exactly zero: each resample sums the same numbers for both.
    let zero = oracles::bootstrap::Interval { low: 0.0, high: 0.0 };
    let defined: Vec<_> = cmp.figures.iter().filter_map(|f| f.interval.as_ref()?.as_ref().ok()).collect();
    if defined.is_empty()
        || defined.iter().any(|i| **i != zero)
        || !cmp.verdict_text().contains("no change detected: all.tpot_shape (0, 95% interval [0.00, 0.00])")
    {
        return Err(cmp.render().into());
    }
    if !cmp.no_difference() || !cmp.verdict_text().starts_with("no difference") {
        return Err(cmp.render().into());
    }
    if (cmp.candidate.ran, cmp.baseline.ran, cmp.baseline.cached) != (points, 0, points) {
        return Err(format!("{points} points; {}", cmp.cache_lines()).into());
    }
    Ok(())
}

/// `BLIS_DOUBLE_SLOWDOWN` makes the candidate slower at high concurrency: its shape errors
/// grow past the margin; a figure whose paired interval lies above zero is flagged WORSE with
/// the sweeps that moved most (on these five sweeps TTFT shape is; TPOT shape moves by more
/// than the margin too, but one sweep moves the other way and its interval holds zero, so it
/// is "no change detected"), and the candidate's points are its own (the knob is part of the
/// cache key), not the baseline's.
fn slower_double_flagged_worse() -> Result<(), Failed> {
    let (cmp, chosen, points) = compare_doubles(&[("BLIS_DOUBLE_SLOWDOWN", "0.05")])?;
    let worse: Vec<&str> = cmp.worse().iter().map(|f| f.key.as_str()).collect();
    if !worse.contains(&"all.ttft_shape") {
        return Err(format!("expected all.ttft_shape worse, got {worse:?}\n{}", cmp.render()).into());
    }
    for f in cmp.worse() {
        match &f.interval {
            Some(Ok(i)) if i.low > 0.0 && f.delta().is_some_and(|d| d > cmp.rule.margin) => {}
            other => return Err(format!("{} is worse without margin and interval above zero: {other:?}", f.key).into()),
        }
    }
    let text = cmp.verdict_text();
    let named = chosen.iter().filter(|(s, l)| text.contains(&format!("moved most: {s} {l} "))).count();
    if named == 0 {
        return Err(format!("no sweep named:\n{text}").into());
    }
    if (cmp.candidate.ran, cmp.baseline.ran) != (points, points) {
        return Err(format!("{points} points; {}", cmp.cache_lines()).into());
    }
    harness::assert_figure_snapshot!("baseline__double_with_slowdown_against_plain_double_verdict", text);
    Ok(())
}

/// Issue 18: the sensitivity table's baseline and rows share one form, the headline's, and one
/// n, the headline's. The flag-dialect double stands in for inference-sim f90a1e3a: its release
/// folder knows only H100 and llama-3.1-70b-instruct, so it models the 9 h100 fp8 llama sweeps
/// (all monotone), as the release does. The headline's BLIS column over them is computed as
/// `task_headline` computes it (`arm::column`, then `score_split`'s `with_blis`); every row of
/// the table must name that column's form and carry its four comparison counts.
fn sensitivity_rows_share_the_headline_form_and_n() -> Result<(), Failed> {
    let release = tempfile::tempdir().map_err(|e| e.to_string())?;
    let cache = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = release.path();
    let write = |path: &str, text: &str| -> Result<(), Failed> {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).map_err(|e| e.to_string())?;
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()).into())
    };
    write("hardware_config.json", r#"{"H100": {"MemoryGiB": 80.0}}"#)?;
    write("defaults.yaml", "defaults:\n  meta-llama/llama-3.1-70b-instruct:\n    GPU: H100\n")?;
    write("model_configs/llama-3.1-70b-instruct/config.json", blis_support::SYNTHETIC_MODEL_CONFIG)?;
    let double = blis_support::double();
    let inputs = Inputs::from_process(&Flags { blis: Some(double.clone()), ..Flags::default() });
    let need =
        |kind| inputs.require_dir(kind, "the sensitivity test").map(|d| d.to_path_buf()).map_err(|e| e.to_string());
    let (catalog, registry, scenarios_dir) =
        (need(InputKind::Catalog)?, need(InputKind::Registry)?, need(InputKind::Scenarios)?);
    let mut opts = RunOptions::new(double, catalog, registry);
    opts.blis_root = root.to_path_buf();
    opts.cache = CacheMode::ReadWrite(cache.path().into());
    opts.progress = ProgressMode::Silent;
    opts.child_env = vec![("BLIS_DOUBLE_DIALECT".into(), "flags".into())];

    // The headline's BLIS column and its counts, as task_headline computes them.
    let (corpora, scenarios) = score::load_inputs(&inputs).map_err(|e| e.to_string())?;
    let resolved = score::resolve::resolve(&corpora, &scenarios, Some(&opts.catalog), &Selection::vllm(None));
    let col = arm::column(&resolved.sweeps, &scenarios_dir, &opts).map_err(|e| e.to_string())?;
    if (col.modelled_sweeps, col.failed) != (9, 0) {
        return Err(
            format!("{} sweeps modelled, {} failed points: {:?}", col.modelled_sweeps, col.failed, col.notes).into()
        );
    }
    let headline = score::headline_output(&score::score_split(&resolved, col.arm.clone()).with_blis);

    let table = arm::task_sensitivity_with(&inputs, Some(opts)).map_err(|e| e.to_string())?;
    let mut wrong = Vec::new();
    let value = |key: &str| table.values.get(&format!("release.{key}")).cloned();
    let form = Some(Value::Text(col.form.name().to_string()));
    if value("form") != form {
        wrong.push(format!("baseline form {:?}, the headline's is {:?}", value("form"), form));
    }
    for (row, headline_key) in [("n", "all.n_shape")] {
        if value(row) != headline.values.get(headline_key).cloned() {
            wrong.push(format!(
                "{row} {:?}, the headline's {headline_key} {:?}",
                value(row),
                headline.values.get(headline_key)
            ));
        }
    }
    for v in sensitivity::variants() {
        let key = v.key();
        if value(&format!("{key}.form")) != form {
            wrong.push(format!("{}: form {:?}, the headline's {:?}", v.name(), value(&format!("{key}.form")), form));
        }
        for (count, headline_key) in [
            ("n", "all.n_shape"),
            ("n_mape", "all.n_mape"),
            ("n_ttft_shape", "all.n_ttft_shape"),
            ("n_ttft_mape", "all.n_ttft_mape"),
        ] {
            let (ours, theirs) = (value(&format!("{key}.{count}")), headline.values.get(headline_key).cloned());
            if ours.is_none() || ours != theirs {
                wrong.push(format!("{}: {count} {ours:?}, the headline's {headline_key} {theirs:?}", v.name()));
            }
        }
    }
    if value("rows_agree_on_n") != Some(Value::Check(true)) {
        wrong.push("rows_agree_on_n is not true".into());
    }
    if !wrong.is_empty() {
        return Err(format!("{}\n{}", wrong.join("\n"), table.report).into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let missing = support::missing_corpora();
    let trials = vec![
        Trial::test("blis_arm/vllm/plan_covers_all_573_points", plan_covers_every_vllm_point),
        Trial::test("blis_arm/vllm/five_sweeps_scored_with_the_double", five_sweeps_scored_with_the_double),
        Trial::test("blis_arm/baseline/double_against_itself_no_difference_from_cache", double_against_itself),
        Trial::test("blis_arm/baseline/double_slowdown_flagged_worse_naming_sweeps", slower_double_flagged_worse),
        Trial::test(
            "blis_arm/sensitivity/rows_share_the_headline_form_and_n",
            sensitivity_rows_share_the_headline_form_and_n,
        ),
    ];
    let trials = trials.into_iter().map(|t| support::unless_missing(t, missing.as_deref())).collect();
    libtest_mimic::run(&args, trials).exit();
}
