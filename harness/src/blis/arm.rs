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
#[derive(Clone)]
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
    /// The form every point's lengths were stated in (`--form`).
    pub form: super::workload::LengthForm,
    /// The binary's SHA-256 as it ran (the sealed copy's) and its dialect, as the run found it.
    pub binary_sha256: String,
    pub target: super::Target,
    /// Per point: its cache key and whether it was modelled, for the per-point table.
    pub info: crate::score::points::BlisPoints,
}

impl Column {
    /// The lines a report carries about the column's form: which, and what no form states.
    pub fn form_lines(&self) -> String {
        form_lines(self.form)
    }
}

/// `BLIS form: ...`, and for a replayed form the one line on what replay cannot state.
pub fn form_lines(form: super::workload::LengthForm) -> String {
    let mut text = format!("BLIS form: {}\n", form.describe());
    if form.replayed() {
        text += &format!("BLIS form: not stated by any form of this release: {}\n", super::workload::TRACE_CAVEAT);
    }
    text
}

/// The BLIS column over resolved sweeps (`score::resolve`, the same values the scorer then
/// reads): every point planned, run or served from the cache with `opts`. The scorer drops
/// the sweeps of points without a value for every arm.
pub fn column(resolved: &[ResolvedSweep], scenarios_dir: &Path, opts: &RunOptions) -> Result<Column, TaskError> {
    let fixtures = FixtureSet::committed()?;
    let mut plan = plan(resolved, scenarios_dir, &fixtures, 0);
    let form = opts.form.unwrap_or_default();
    for (_, p) in &mut plan.points {
        p.form = form;
    }
    column_of_plan(&plan, opts)
}

/// The BLIS column over the points of `plan` (a subset of a selection's, for tests).
pub fn column_of_plan(plan: &Plan, opts: &RunOptions) -> Result<Column, TaskError> {
    let (arm, report) = run_arm(plan, opts)?;
    column_of_report(plan, opts, arm, report)
}

/// `column_of_plan` run in a seal the caller made (`runner::run_points_sealed`).
pub fn column_of_plan_sealed(plan: &Plan, opts: &RunOptions, sealed: super::Sealed) -> Result<Column, TaskError> {
    let specs: Vec<PointSpec> = plan.points.iter().map(|(_, s)| s.clone()).collect();
    let report = super::run_points_sealed(&specs, opts, sealed)?;
    column_of_report(plan, opts, arm_from(plan, &report.outcomes), report)
}

fn column_of_report(plan: &Plan, opts: &RunOptions, arm: Arm, report: RunReport) -> Result<Column, TaskError> {
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
    let mut expressed: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    for ((key, _), outcome) in plan.points.iter().zip(&report.outcomes) {
        let sweep = (key.scenario.clone(), key.label.clone());
        if !sweeps.contains(&sweep) {
            sweeps.push(sweep.clone());
        }
        match (&outcome.result, &outcome.run) {
            (Err(f), _) if f.kind == super::FailureKind::NotModelled => {
                not_modelled.entry(sweep).or_insert_with(|| f.reason.clone());
            }
            (_, Some(run)) => {
                if !run.expressed.is_empty() {
                    expressed.entry(sweep.clone()).or_insert_with(|| run.expressed.clone());
                }
                if !run.unexpressed.is_empty() {
                    unexpressed.entry(sweep).or_insert_with(|| run.unexpressed.clone());
                }
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
        if let (Some(settings), false) = (expressed.get(sweep), not_modelled.contains_key(sweep)) {
            sweep_notes.push(format!("{} {}: stated through the release: {}", sweep.0, sweep.1, settings.join("; ")));
        }
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
    let form = opts.form.or_else(|| plan.points.first().map(|(_, p)| p.form)).unwrap_or_default();
    let info = crate::score::points::BlisPoints {
        binary_sha256: report.binary_sha256.clone(),
        form: form.name().to_string(),
        points: plan
            .points
            .iter()
            .zip(&report.outcomes)
            .map(|((key, _), o)| {
                let modelled = !matches!(&o.result, Err(f) if f.kind == super::FailureKind::NotModelled);
                (key.clone(), crate::score::points::BlisPoint { cache_key: o.key.clone(), modelled })
            })
            .collect(),
    };
    let (outcomes, binary_sha256, target) = (report.outcomes, report.binary_sha256, report.target);
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
        form,
        binary_sha256,
        target,
        info,
    })
}

/// The headline's BLIS column (`score::BlisSource`, handed to `score::task_headline` by the
/// gate): the binary run with the default options, quietly, through the shared cache, over the
/// sweeps the headline resolved; the report's lines on what it models and what has no value.
pub fn headline_column(
    inputs: &crate::inputs::Inputs,
    resolved: &resolve::Resolved,
    selection: &'static str,
) -> Result<crate::score::BlisColumn, TaskError> {
    let needed_for = "the BLIS column";
    let opts = RunOptions::quiet_from_inputs(inputs, needed_for)?;
    let scenarios_dir = inputs.require_dir(crate::inputs::InputKind::Scenarios, needed_for)?;
    let col = column(&resolved.sweeps, scenarios_dir, &opts)?;
    let coverage = Coverage::of(&opts, &col, selection)?;
    let mut tail = form_lines(col.form);
    tail += &format!("\nblis: {}\n", coverage.line());
    for note in col.notes.iter().filter(|n| !n.contains("not modelled by this release")) {
        tail += &format!("blis: no value: {note}\n");
    }
    for note in &col.sweep_notes {
        tail += &format!("blis: {note}\n");
    }
    Ok(crate::score::BlisColumn {
        refused: (!coverage.complete()).then(|| coverage.refusal()),
        points: super::point_records(&col.outcomes),
        info: col.info,
        arm: col.arm,
        report_tail: tail,
    })
}

/// How much of a figure's selection a binary models: published BLIS figures are of a binary
/// that models every sweep of the selection they were published over; one that models fewer
/// cannot have produced them, so they are refused, never a mismatch (issue 23).
pub struct Coverage {
    /// The release (by its hash) and its dialect.
    pub label: String,
    pub modelled: usize,
    pub sweeps: usize,
    /// What the sweeps are, e.g. "sweeps of the vLLM headline".
    pub selection: &'static str,
}

impl Coverage {
    pub fn of(opts: &RunOptions, col: &Column, selection: &'static str) -> Result<Coverage, TaskError> {
        Ok(Coverage {
            label: release_label(opts)?,
            modelled: col.modelled_sweeps,
            sweeps: col.modelled_sweeps + col.not_modelled_sweeps,
            selection,
        })
    }

    pub fn complete(&self) -> bool {
        self.modelled == self.sweeps
    }

    pub fn line(&self) -> String {
        format!("{} models {} of the {} {}", self.label, self.modelled, self.sweeps, self.selection)
    }

    /// Why the published BLIS figures are refused, and the gate's one line for them
    /// (`TaskOutput::refuse`).
    pub fn refusal(&self) -> crate::score::RefusedCells {
        crate::score::RefusedCells {
            why: format!(
                "published over the {} {}; {} models {} of them, so it cannot have produced this figure (what it can compute is in this task's report, and under blis-release/<tag>/ for a release the manifest knows)",
                self.sweeps, self.selection, self.label, self.modelled
            ),
            what: format!(
                "a blis that models every sweep they were published over (a build of the latency-kernel era, scenario dialect: --blis PATH); {} models only",
                self.label
            ),
            by: format!("{} of the {} {}", self.modelled, self.sweeps, self.selection),
        }
    }
}

/// A binary as a refusal names it: the build `lockfiles/blis-releases.lock` records it as, else
/// its hash; and its dialect.
pub fn release_label(opts: &RunOptions) -> Result<String, TaskError> {
    let sealed = super::Sealed::of(&opts.binary, &opts.blis_root)?;
    let digest = sealed.binary_sha256().to_string();
    let tags: Vec<String> =
        super::binary::locked_builds()?.into_iter().filter(|(_, sha)| *sha == digest).map(|(tag, _)| tag).collect();
    let who = if tags.is_empty() {
        format!("the blis with sha256 {}", &digest[..digest.len().min(12)])
    } else {
        format!("inference-sim {}", tags.join(" = "))
    };
    let dialect = match super::Target::detect(opts, &sealed, false)?.dialect() {
        super::dialect::Dialect::Flags => "flag dialect",
        super::dialect::Dialect::Scenario => "scenario dialect",
    };
    Ok(format!("{who} ({dialect})"))
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
pub(crate) fn is_monotone(sweep: &crate::corpus::e2e::Sweep) -> bool {
    let mut points: Vec<_> = sweep.points.iter().collect();
    points.sort_by_key(|p| p.concurrency);
    let rel: Option<Vec<f64>> = points.iter().map(|p| p.measured_tpot_relative).collect();
    rel.is_some_and(|r| oracles::scoring::strictly_increasing(&r))
}

/// The sensitivity figure (harness/figures.yaml, task `sensitivity`): the vLLM sweeps whose
/// measured TPOT rises monotonically, every row of `sensitivity::variants()` run through the
/// binary in the headline's form, each row scored as the headline scores its BLIS column (every
/// arm, the headline's resolution) over the monotone sweeps (TPOT and TTFT shape, mean |e|, and
/// the four comparison counts). `n` is the TPOT-shape comparison count of the baseline; every
/// row names its form and must match the baseline's form and counts.
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
    let opts = run.unwrap_or_else(|| {
        let mut opts = RunOptions::new(binary, catalog, registry);
        opts.progress = super::ProgressMode::Quiet;
        opts
    });
    // The sweeps resolved as the headline resolves them (`task_headline`: the run's catalog),
    // so a row is scored over the headline's sweeps, cut to the monotone ones.
    let resolved = resolve::resolve(&corpora, &scenarios, Some(&opts.catalog), &selection);
    let mut plan = plan(&resolved.sweeps, &scenarios_dir, &fixtures, 0);
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
    // Every row in one form, the headline's (`--form`, default `LengthForm::default()`): the
    // rows are compared with the headline, so they state lengths as it does.
    let form = opts.form.unwrap_or_default();
    let base: Vec<PointSpec> = plan.points.iter().map(|(_, s)| PointSpec { form, ..s.clone() }).collect();
    let reseed = |p: &PointSpec, seed: u64| fixtures.reseed(p, seed).map(|r| PointSpec { form: p.form, ..r });
    let lengths_line = match form {
        super::workload::LengthForm::Uniform => format!(
            "form: {}; numpy seed k is then the simulator's own draw at seed k, not the numpy vectors",
            form.describe()
        ),
        _ => format!("form: {}\nnot stated by any form: {}", form.describe(), super::workload::TRACE_CAVEAT),
    };
    // The published rows are of a binary that models every monotone sweep; with one that
    // models fewer they are refused, and its own rows are scored over the sweeps it models
    // (values `release.<row>...`), the comparison its own figures make (issue 23).
    let probe_plan = Plan { points: keys.iter().cloned().zip(base.iter().cloned()).collect(), unplannable: Vec::new() };
    let probe = column_of_plan(&probe_plan, &opts)?;
    let coverage = Coverage::of(&opts, &probe, "monotone sweeps of the vLLM sensitivity table")?;
    let not_modelled: std::collections::BTreeSet<(String, String)> = probe_plan
        .points
        .iter()
        .zip(&probe.outcomes)
        .filter(|(_, o)| o.result.as_ref().is_err_and(|f| f.kind == super::FailureKind::NotModelled))
        .map(|((k, _), _)| (k.scenario.clone(), k.label.clone()))
        .collect();
    let (keys, base): (Vec<PointKey>, Vec<PointSpec>) = keys
        .into_iter()
        .zip(base)
        .filter(|(k, _)| !not_modelled.contains(&(k.scenario.clone(), k.label.clone())))
        .unzip();
    // Each row scored as the headline scores its BLIS column (`score_split`'s `with_blis`:
    // every arm, so a sweep any arm lacks is dropped as the headline drops it), over the
    // monotone sweeps; BLIS is arm 0 of `headline_arms`.
    let score = |_: &[PointSpec], outcomes: &[PointOutcome]| -> anyhow::Result<super::sensitivity::RowScore> {
        let blis = arm_values(&keys, outcomes, &plan.unplannable);
        let scored = crate::score::score_resolved(&resolved, &crate::score::headline_arms(&corpora.e2e, Some(blis)));
        let agg = scored.aggregate(scored.sweeps.iter().filter(|s| s.monotone));
        let mean = |m: ErrorMetric| agg.mean_abs.get(&(0, m)).copied().flatten();
        Ok(super::sensitivity::RowScore {
            n: agg.n[&ErrorMetric::TpotShape] as u64,
            n_mape: agg.n[&ErrorMetric::TpotMape] as u64,
            n_ttft_shape: agg.n[&ErrorMetric::TtftShape] as u64,
            n_ttft_mape: agg.n[&ErrorMetric::TtftMape] as u64,
            tpot_shape: mean(ErrorMetric::TpotShape).ok_or_else(|| anyhow::anyhow!("no TPOT shape comparisons"))?,
            ttft_shape: mean(ErrorMetric::TtftShape).ok_or_else(|| anyhow::anyhow!("no TTFT shape comparisons"))?,
            tpot_ci: agg.interval.get(&(0, ErrorMetric::TpotShape)).and_then(|c| c.as_ref().ok()).copied(),
            ttft_ci: agg.interval.get(&(0, ErrorMetric::TtftShape)).and_then(|c| c.as_ref().ok()).copied(),
        })
    };
    let head = format!(
        "BLIS sensitivity: {} monotone vLLM sweeps, {} points ({} not runnable)\n{lengths_line}\n",
        monotone.len(),
        probe_plan.points.len() + plan.unplannable.len(),
        plan.unplannable.len(),
    );
    if coverage.complete() {
        let mut out = super::sensitivity::sensitivity(&base, &reseed, &opts, &score)?.output();
        out.report = format!("{head}{}", out.report);
        return Ok(out);
    }
    let mut out = crate::task::TaskOutput::default();
    let mut published = vec!["n".to_string(), "rows_agree_on_n".to_string()];
    for v in super::sensitivity::variants() {
        published.extend(["n", "tpot_shape", "ttft_shape"].map(|m| format!("{}.{m}", v.key())));
    }
    let refusal = coverage.refusal();
    out.refuse(published, &refusal.why, &refusal.what, &refusal.by);
    // The binary was given: another one could compute these, so --require-all does not fail.
    out.text(crate::task::REFUSED_KIND, crate::task::GIVEN_INPUT_CANNOT);
    let own = if coverage.modelled == 0 {
        "no row: it models none of them\n".to_string()
    } else {
        let table = super::sensitivity::sensitivity(&base, &reseed, &opts, &score)?.output();
        out.blis_points = table.blis_points;
        out.values.extend(table.values.into_iter().map(|(k, v)| (format!("release.{k}"), v)));
        table.report
    };
    out.report = format!(
        "{head}{}: the published rows are refused; its own rows, over the {} sweeps it models:\n{own}",
        coverage.line(),
        coverage.modelled
    );
    Ok(out)
}

/// The form the `blis-release/<tag>/...` figures are computed in: the default of `--form`, so
/// `cargo xtask score --blis <that binary>` prints the same column. docs/blis-arm.md
/// compares the three forms on these sweeps.
pub const RELEASE_FORM: super::workload::LengthForm = super::workload::LengthForm::Uniform;
