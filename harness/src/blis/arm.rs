//! The BLIS arm of the corpus scorer: one `PointSpec` per point of every selected sweep, with
//! the engine settings `score::resolve` decided for it (the same value the scorer reads,
//! docs/upstream.md §6) and its numpy fixture vectors, run through `run_points`, and turned into the
//! scorer's `Arm` (milliseconds per `PointKey`). A point that cannot be planned or run has no
//! value, and the scorer drops its sweep for every arm.

use super::{run_points, EngineSettings, FixtureSet, PointOutcome, PointSpec, RunOptions, RunReport};
use crate::corpus::inferencex::SettingValue;
use crate::score::resolve::{self, ResolvedSweep};
use crate::score::{settings, Arm, ArmPoint, PointKey, Selection};
use crate::task::TaskError;
use std::collections::BTreeMap;
use std::path::Path;

/// What the arm will run, and the points it cannot (with why).
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub points: Vec<(PointKey, PointSpec)>,
    pub unplannable: Vec<(PointKey, String)>,
}

/// The points of the resolved sweeps (`score::resolve`), in corpus order, each with the
/// engine settings resolved there. `seed` picks the fixture vectors (0: the benchmark's own).
pub fn plan(resolved: &[ResolvedSweep], scenarios_dir: &Path, fixtures: &FixtureSet, seed: u64) -> Plan {
    let mut plan = Plan::default();
    for r in resolved {
        for p in &r.points {
            let key = PointKey::new(&r.sweep.scenario, &r.sweep.label, p.point.concurrency);
            let spec = (|| -> Result<PointSpec, String> {
                r.scenario.as_ref().map_err(Clone::clone)?;
                let (isl, osl) = r.lengths.clone()?;
                let engine = engine_settings(&p.settings)?;
                fixtures
                    .point(scenarios_dir.join(&r.sweep.scenario), engine, isl, osl, p.point.concurrency, seed)
                    .map_err(|e| format!("{e:#}"))
            })();
            match spec {
                Ok(spec) => plan.points.push((key, spec)),
                Err(why) => plan.unplannable.push((key, why)),
            }
        }
    }
    plan
}

fn engine_settings(values: &[settings::Setting]) -> Result<EngineSettings, String> {
    let get = |field: &str| {
        values.iter().find(|s| s.field == field).and_then(|s| s.value).ok_or_else(|| format!("no value for {field}"))
    };
    let int = |field: &str| match get(field)? {
        SettingValue::Int(v) => u32::try_from(v).map_err(|_| format!("{field} {v} out of range")),
        other => Err(format!("{field} is {other}, expected an integer")),
    };
    Ok(EngineSettings {
        max_num_seqs: int("max_num_seqs")?,
        max_num_batched_tokens: int("max_num_batched_tokens")?,
        block_size: int("block_size")?,
        enable_prefix_caching: match get("enable_prefix_caching")? {
            SettingValue::Bool(b) => b,
            other => return Err(format!("enable_prefix_caching is {other}, expected a bool")),
        },
    })
}

/// The outcomes as the scorer's arm: milliseconds where the point ran, no value otherwise.
pub fn arm_from(plan: &Plan, outcomes: &[PointOutcome]) -> Arm {
    let keys: Vec<PointKey> = plan.points.iter().map(|(k, _)| k.clone()).collect();
    arm_values(&keys, outcomes, &plan.unplannable)
}

fn arm_values(keys: &[PointKey], outcomes: &[PointOutcome], unplannable: &[(PointKey, String)]) -> Arm {
    let mut points = BTreeMap::new();
    for (key, outcome) in keys.iter().zip(outcomes) {
        let value = match &outcome.result {
            Ok(m) => ArmPoint { tpot: Some(m.tpot_ms), ttft: Some(m.ttft_ms) },
            Err(_) => ArmPoint::default(),
        };
        points.insert(key.clone(), value);
    }
    for (key, _) in unplannable {
        points.insert(key.clone(), ArmPoint::default());
    }
    Arm::simulated("BLIS", "blis", points)
}

/// The BLIS column and what a reader needs to trust it.
pub struct Column {
    pub arm: Arm,
    /// One note per point without a value (and for points left to other shards).
    pub notes: Vec<String>,
    /// Per sweep: what the release could not model, or the settings it had no flag for.
    pub sweep_notes: Vec<String>,
    /// Points with a value.
    pub succeeded: usize,
    /// Points that failed (run, input or cache), not counting not-modelled or other-shard ones.
    pub failed: usize,
    /// Sweeps with at least one point the release cannot model (left out and counted).
    pub not_modelled_sweeps: usize,
    pub modelled_sweeps: usize,
    /// Every planned point's outcome, in plan order (for `--report-json`).
    pub outcomes: Vec<super::PointOutcome>,
    /// Points this call ran through the binary, and points served from the cache.
    pub ran: usize,
    pub cached: usize,
}

/// The BLIS column over resolved sweeps (`score::resolve`, the same values the scorer then
/// reads): every point planned, run or served from the cache with `opts`. The scorer drops
/// the sweeps of points without a value for every arm.
pub fn column(resolved: &[ResolvedSweep], scenarios_dir: &Path, opts: &RunOptions) -> Result<Column, TaskError> {
    let fixtures = FixtureSet::committed()?;
    let plan = plan(resolved, scenarios_dir, &fixtures, 0);
    column_of_plan(&plan, opts)
}

/// The BLIS column over the points of `plan` (a subset of a selection's, for tests).
pub fn column_of_plan(plan: &Plan, opts: &RunOptions) -> Result<Column, TaskError> {
    let (arm, report) = run_arm(plan, opts)?;
    let mut notes = missing_points(plan, &report);
    if report.summary.other_shard > 0 {
        notes.push(format!(
            "{} points belong to other shards: this table is partial; merge the shard caches and score with --cache-only",
            report.summary.other_shard
        ));
    }
    // Per sweep, in plan order: the first not-modelled reason, else the unexpressed settings.
    let mut sweeps: Vec<(String, String)> = Vec::new();
    let mut not_modelled: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut unexpressed: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for ((key, _), outcome) in plan.points.iter().zip(&report.outcomes) {
        let sweep = (key.scenario.clone(), key.label.clone());
        if !sweeps.contains(&sweep) {
            sweeps.push(sweep.clone());
        }
        match (&outcome.result, &outcome.run) {
            (Err(f), _) if f.kind == super::FailureKind::NotModelled => {
                not_modelled.entry(sweep).or_insert_with(|| f.reason.clone());
            }
            (_, Some(run)) if !run.unexpressed.is_empty() => {
                unexpressed.entry(sweep).or_insert_with(|| run.unexpressed.clone());
            }
            _ => {}
        }
    }
    let mut sweep_notes = Vec::new();
    if !not_modelled.is_empty() {
        sweep_notes
            .push(format!("{} sweeps not modelled by this release (left out of the BLIS column):", not_modelled.len()));
        for ((scenario, label), why) in &not_modelled {
            sweep_notes.push(format!("  {scenario} {label}: {why}"));
        }
    }
    for sweep in &sweeps {
        if let (Some(settings), false) = (unexpressed.get(sweep), not_modelled.contains_key(sweep)) {
            sweep_notes.push(format!(
                "{} {}: settings this release has no flag for: {}",
                sweep.0,
                sweep.1,
                settings.join(", ")
            ));
        }
    }
    let not_modelled_sweeps = not_modelled.len();
    let modelled_sweeps = sweeps.len() - not_modelled_sweeps;
    let succeeded = report.outcomes.iter().filter(|o| o.result.is_ok()).count();
    let failed = report.summary.failed;
    let (ran, cached) = (report.summary.ran, report.summary.cached);
    let outcomes = report.outcomes;
    Ok(Column {
        arm,
        notes,
        sweep_notes,
        succeeded,
        failed,
        not_modelled_sweeps,
        modelled_sweeps,
        outcomes,
        ran,
        cached,
    })
}

/// The headline table for the release gate, with the BLIS column when a binary is supplied
/// (run with the default options, quietly, through the shared cache).
pub fn task_headline(
    inputs: &crate::inputs::Inputs,
    config_tier: Option<oracles::tiers::ConfigTier>,
) -> crate::task::TaskResult {
    use crate::inputs::InputKind;
    if inputs.get(InputKind::Blis).is_none() {
        return crate::score::task_headline(inputs, config_tier);
    }
    let needed_for = "the BLIS column";
    let opts = RunOptions::quiet_from_inputs(inputs, needed_for)?;
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, needed_for)?.to_path_buf();
    let (corpora, scenarios) = crate::score::load_inputs(inputs)?;
    let selection = Selection::vllm(config_tier);
    let resolved = resolve::resolve(&corpora, &scenarios, Some(&opts.catalog), &selection);
    let col = column(&resolved.sweeps, &scenarios_dir, &opts)?;
    let arms = crate::score::headline_arms(&corpora.e2e, Some(col.arm));
    let scored = crate::score::score_resolved(&resolved, &arms);
    let mut out = crate::score::headline_output(&scored);
    out.blis_points = super::point_records(&col.outcomes);
    for note in col.notes.iter().filter(|n| !n.contains("not modelled by this release")) {
        out.report.push_str(&format!("blis: no value: {note}\n"));
    }
    for note in &col.sweep_notes {
        out.report.push_str(&format!("blis: {note}\n"));
    }
    Ok(out)
}

pub fn run_arm(plan: &Plan, opts: &RunOptions) -> Result<(Arm, RunReport), TaskError> {
    let specs: Vec<PointSpec> = plan.points.iter().map(|(_, s)| s.clone()).collect();
    let report = run_points(&specs, opts)?;
    Ok((arm_from(plan, &report.outcomes), report))
}

/// Points without a value, one line each (`scenario label c=N: why`), plus stderr tails.
/// Points left to other shards are not listed (the summary line counts them).
pub fn missing_points(plan: &Plan, report: &RunReport) -> Vec<String> {
    let mut lines: Vec<String> = plan
        .unplannable
        .iter()
        .map(|(k, why)| format!("{} {} c={}: not run: {why}", k.scenario, k.label, k.concurrency))
        .collect();
    for ((key, _), outcome) in plan.points.iter().zip(&report.outcomes) {
        if let Some(f) = outcome.result.as_ref().err().filter(|f| f.kind != super::FailureKind::OtherShard) {
            let mut line = format!("{} {} c={}: {:?}: {}", key.scenario, key.label, key.concurrency, f.kind, f.reason);
            for l in &f.stderr_tail {
                line += &format!("\n    stderr: {l}");
            }
            lines.push(line);
        }
    }
    lines
}

/// Sweeps whose measured TPOT relative strictly increases with concurrency (the sensitivity
/// table's "monotone" points, docs/upstream.md §9; the scorer's `ScoredSweep::monotone`).
fn is_monotone(sweep: &crate::corpus::e2e::Sweep) -> bool {
    let mut points: Vec<_> = sweep.points.iter().collect();
    points.sort_by_key(|p| p.concurrency);
    let rel: Option<Vec<f64>> = points.iter().map(|p| p.measured_tpot_relative).collect();
    rel.is_some_and(|r| oracles::scoring::strictly_increasing(&r))
}

/// The sensitivity figure (harness/figures.yaml, task `sensitivity`): the vLLM sweeps whose
/// measured TPOT rises monotonically, every row of `sensitivity::variants()` run through the
/// binary, each row scored by the corpus scorer (BLIS arm only, monotone sweeps, TPOT and TTFT
/// shape, mean |e|). `n` is the TPOT-shape comparison count of the baseline.
pub fn task_sensitivity(inputs: &crate::inputs::Inputs) -> crate::task::TaskResult {
    task_sensitivity_with(inputs, None)
}

/// `task_sensitivity` with the caller's run options (workers, cache, shard: `cargo xtask blis
/// sensitivity` flags); `None` is the defaults over `--blis`, `--catalog` and `--registry`.
pub fn task_sensitivity_with(inputs: &crate::inputs::Inputs, run: Option<RunOptions>) -> crate::task::TaskResult {
    use crate::inputs::InputKind;
    use crate::score::ErrorMetric;
    let needed_for = "the BLIS sensitivity table";
    let binary = super::binary::require(inputs, needed_for)?;
    let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?.to_path_buf();
    let registry = inputs.require_dir(InputKind::Registry, needed_for)?.to_path_buf();
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, needed_for)?.to_path_buf();
    let (corpora, scenarios) = crate::score::load_inputs(inputs)?;
    let fixtures = FixtureSet::committed()?;
    let selection = Selection::vllm(None);
    let resolved = resolve::resolve(&corpora, &scenarios, Some(&catalog), &selection);
    let mut plan = plan(&resolved.sweeps, &scenarios_dir, &fixtures, 0);
    let catalog = run.as_ref().map_or(catalog, |o| o.catalog.clone());
    let monotone: std::collections::BTreeSet<(String, String)> = corpora
        .e2e
        .sweeps
        .iter()
        .filter(|s| s.framework == selection.framework && is_monotone(s))
        .map(|s| (s.scenario.clone(), s.label.clone()))
        .collect();
    let keep = |k: &PointKey| monotone.contains(&(k.scenario.clone(), k.label.clone()));
    plan.points.retain(|(k, _)| keep(k));
    plan.unplannable.retain(|(k, _)| keep(k));
    let keys: Vec<PointKey> = plan.points.iter().map(|(k, _)| k.clone()).collect();
    let opts = run.unwrap_or_else(|| {
        let mut opts = RunOptions::new(binary, catalog, registry);
        opts.progress = super::ProgressMode::Quiet;
        opts
    });
    // The seed rows are defined by the numpy vectors: they reach the simulator only through
    // TraceV2 replay, where the binary offers it; otherwise every row uses the uniform PDF.
    let digest = super::binary::digest(&opts.binary)?;
    let form = match super::Target::detect(&opts, &digest)? {
        super::Target::Flags(release) if release.replay => super::workload::LengthForm::Vectors,
        _ => super::workload::LengthForm::Uniform,
    };
    let base: Vec<PointSpec> = plan.points.iter().map(|(_, s)| PointSpec { form, ..s.clone() }).collect();
    let reseed = |p: &PointSpec, seed: u64| fixtures.reseed(p, seed).map(|r| PointSpec { form: p.form, ..r });
    let lengths_line = match form {
        super::workload::LengthForm::Vectors => format!("lengths: {}", super::workload::TRACE_CAVEAT),
        super::workload::LengthForm::Uniform => "lengths: this binary offers no TraceV2 replay, so every row states lengths as the workload spec's uniform PDF and numpy seed k is the simulator's own draw at seed k, not the numpy vectors".to_string(),
    };
    let score = |_: &[PointSpec], outcomes: &[PointOutcome]| -> anyhow::Result<super::sensitivity::RowScore> {
        let arms = [arm_values(&keys, outcomes, &plan.unplannable)];
        let scored = crate::score::score(&corpora, &scenarios, &arms, &selection);
        let agg = scored.aggregate(scored.sweeps.iter().filter(|s| s.monotone));
        let mean = |m: ErrorMetric| agg.mean_abs.get(&(0, m)).copied().flatten();
        Ok(super::sensitivity::RowScore {
            n: agg.n[&ErrorMetric::TpotShape] as u64,
            tpot_shape: mean(ErrorMetric::TpotShape).ok_or_else(|| anyhow::anyhow!("no TPOT shape comparisons"))?,
            ttft_shape: mean(ErrorMetric::TtftShape).ok_or_else(|| anyhow::anyhow!("no TTFT shape comparisons"))?,
            tpot_ci: agg.interval.get(&(0, ErrorMetric::TpotShape)).and_then(|c| c.as_ref().ok()).copied(),
            ttft_ci: agg.interval.get(&(0, ErrorMetric::TtftShape)).and_then(|c| c.as_ref().ok()).copied(),
        })
    };
    let table = super::sensitivity::sensitivity(&base, &reseed, &opts, &score)?;
    let mut out = table.output();
    out.report = format!(
        "BLIS sensitivity: {} monotone vLLM sweeps, {} points ({} not runnable)\n{lengths_line}\n{}",
        monotone.len(),
        base.len() + plan.unplannable.len(),
        plan.unplannable.len(),
        out.report
    );
    Ok(out)
}

/// SHA-256 of the `blis` built from inference-sim at f90a1e3a (the team's copy; its build
/// script reproduces it byte for byte). The `blis-release/f90a1e3a/...` figures are of this
/// binary only.
pub const RELEASE_F90A1E3A_SHA256: &str = "3cbf80df198cbf45a185103d3baa2a6139f180f7c051c969f584be426da80576";

/// The BLIS column of one real release (harness/figures.yaml, task `blis-release-f90a1e3a`):
/// the vLLM headline with every sweep the release can model filled by it, the others counted
/// as not modelled, and the settings it has no flag for listed per sweep. These figures are
/// new (nobody published a BLIS column for this release); the gate checks they are computed,
/// complete and unchanged (the snapshot pins the numbers).
pub fn task_release_f90a1e3a(inputs: &crate::inputs::Inputs) -> crate::task::TaskResult {
    use crate::inputs::{InputKind, Refusal};
    let needed_for = "the BLIS figures of inference-sim f90a1e3a";
    let binary = super::binary::require(inputs, needed_for)?;
    let digest = super::binary::digest(&binary)?;
    if digest != RELEASE_F90A1E3A_SHA256 {
        return Err(Refusal::new(
            InputKind::Blis,
            needed_for,
            format!(
                "{} is another binary (sha256 {digest}); these figures need the build of inference-sim f90a1e3a (sha256 {RELEASE_F90A1E3A_SHA256})",
                binary.display()
            ),
        )
        .into());
    }
    let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?.to_path_buf();
    let registry = inputs.require_dir(InputKind::Registry, needed_for)?.to_path_buf();
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, needed_for)?.to_path_buf();
    let (corpora, scenarios) = crate::score::load_inputs(inputs)?;
    let selection = Selection::vllm(None);
    let mut opts = RunOptions::new(binary, catalog, registry);
    opts.progress = super::ProgressMode::Silent;
    let resolved = resolve::resolve(&corpora, &scenarios, Some(&opts.catalog), &selection);
    let col = column(&resolved.sweeps, &scenarios_dir, &opts)?;
    let arms = crate::score::headline_arms(&corpora.e2e, Some(col.arm));
    let scored = crate::score::score_resolved(&resolved, &arms);
    let mut out = crate::score::headline_output(&scored);
    let mut head = format!(
        "BLIS release: inference-sim f90a1e3a (flag dialect), the vLLM sweeps it can model\n\
         {} sweeps modelled, {} not modelled by this release; {} points with a value, {} failed\n",
        col.modelled_sweeps, col.not_modelled_sweeps, col.succeeded, col.failed
    );
    for note in &col.sweep_notes {
        head += &format!("blis: {note}\n");
    }
    for note in col.notes.iter().filter(|n| !n.contains("not modelled by this release")) {
        head += &format!("blis: no value: {note}\n");
    }
    out.report = format!("{head}\n{}", out.report);
    out.blis_points = super::point_records(&col.outcomes);
    out.count("modelled_sweeps", col.modelled_sweeps as u64);
    out.count("not_modelled_sweeps", col.not_modelled_sweeps as u64);
    out.count("failed_points", col.failed as u64);
    out.count("points_with_value", col.succeeded as u64);
    let blis_scored = out.values.contains_key("all.blis.tpot_shape") && out.values.contains_key("all.blis.ttft_shape");
    out.check("blis_column_scored", blis_scored);
    Ok(out)
}
