//! A candidate `blis` against the release it replaces (`--baseline-blis`, docs/baseline.md).
//!
//! Both binaries run over the same planned points, each through its own dialect and cached by
//! its own identity (so a released baseline is simulated once and then served from the cache).
//! The two columns are scored together, as two arms of one table: the scorer drops a sweep a
//! point of which either binary cannot model, so both figures are over identical comparisons.
//! The regression rule (`baseline_rule` of harness/figures.yaml) says which figures are held,
//! by what margin and with how many resamples: a held figure is worse only when the paired
//! difference (candidate minus baseline, same sweeps) exceeds the margin AND its 95%
//! paired-bootstrap interval lies above zero; better symmetrically; else no change is detected.

use super::arm::{self, Column};
use super::RunOptions;
use crate::score::intervals::{self, CellInterval};
use crate::score::resolve::Resolved;
use crate::score::{self, Arm, ArmErrors, ErrorMetric, PointKey, Scored};
use crate::task::TaskError;
use oracles::tiers::Tier;
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The key and name of the baseline's arm (the candidate's is the usual `blis`).
pub const BASELINE_KEY: &str = "blis_baseline";
pub const BASELINE_NAME: &str = "BLIS baseline";

/// How many sweeps a worse figure names (those that moved most).
const MOVED_MOST: usize = 3;

/// The regression rule of `--baseline-blis` (docs/baseline.md): a figure named in `figures`
/// (`TIER.METRIC`, e.g. `all.tpot_shape`) is worse when the candidate's mean |e| exceeds the
/// baseline's by more than `margin` percentage points AND the paired-bootstrap interval of the
/// difference (over the sweeps both model, `resamples` resamples) lies above zero; better
/// symmetrically; otherwise no change is detected.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaselineRule {
    pub margin: f64,
    pub figures: Vec<String>,
    /// Resamples of the paired interval (`oracles::bootstrap`, seed `oracles::bootstrap::SEED`).
    #[serde(default = "default_resamples")]
    pub resamples: usize,
    pub why: String,
}

fn default_resamples() -> usize {
    oracles::bootstrap::DEFAULT_RESAMPLES
}

/// One binary's run: what it is and how its points were served.
#[derive(Clone, Debug)]
pub struct Side {
    /// The file name (never the machine path: the text is snapshotted).
    pub name: String,
    pub sha256: String,
    /// Extra environment it ran with (`NAME=value`), part of its cache identity.
    pub env: Vec<String>,
    pub ran: usize,
    pub cached: usize,
    pub with_value: usize,
    pub failed: usize,
    pub not_modelled_sweeps: usize,
}

impl Side {
    fn of(opts: &RunOptions, col: &Column) -> Result<Side, TaskError> {
        Ok(Side {
            name: opts.binary.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(),
            // The digest of the bytes that ran, not a second read of the path.
            sha256: col.binary_sha256.clone(),
            env: opts.child_env.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            ran: col.ran,
            cached: col.cached,
            with_value: col.succeeded,
            failed: col.failed,
            not_modelled_sweeps: col.not_modelled_sweeps,
        })
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Bit for bit the same value (its interval is exactly zero): no change detected.
    Same,
    /// Lower by more than the margin with the interval below zero: reported, never accepted
    /// silently.
    Better,
    /// Neither worse nor better: the difference is within the margin, or its interval holds
    /// zero, or the rule does not hold the figure.
    NoChange,
    /// Higher by more than the margin with the interval above zero, on a figure the rule holds.
    Worse,
    /// No comparison: neither binary has a value on any sweep of the tier.
    NotComputed,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Same => "no change detected (identical)",
            Verdict::Better => "better",
            Verdict::NoChange => "no change detected",
            Verdict::Worse => "WORSE",
            Verdict::NotComputed => "not computed",
        }
    }
}

/// One tier's figure of one metric, for both binaries.
#[derive(Clone, Debug)]
pub struct FigureRow {
    /// `TIER.METRIC`, as `baseline_rule.figures` names it.
    pub key: String,
    pub tier: Tier,
    pub metric: ErrorMetric,
    pub sweeps: usize,
    pub n: usize,
    pub candidate: Option<f64>,
    pub baseline: Option<f64>,
    /// The 95% paired-bootstrap interval of candidate minus baseline over the tier's sweeps
    /// (`None` when either has no value).
    pub interval: Option<CellInterval>,
    /// Held by the regression rule.
    pub held: bool,
    pub verdict: Verdict,
}

impl FigureRow {
    pub fn delta(&self) -> Option<f64> {
        Some(self.candidate? - self.baseline?)
    }
}

/// One scored sweep: per metric, the candidate's and the baseline's mean |e|.
#[derive(Clone, Debug)]
pub struct SweepRow {
    pub scenario: String,
    pub label: String,
    pub tier: Tier,
    pub means: BTreeMap<ErrorMetric, (Option<f64>, Option<f64>)>,
}

impl SweepRow {
    fn delta(&self, m: ErrorMetric) -> Option<f64> {
        let (c, b) = self.means.get(&m)?;
        Some((*c)? - (*b)?)
    }
}

pub struct Comparison {
    pub candidate: Side,
    pub baseline: Side,
    pub rule: BaselineRule,
    pub figures: Vec<FigureRow>,
    pub sweeps: Vec<SweepRow>,
    /// Points with a value from one binary only (their sweeps are scored for neither).
    pub only_candidate: Vec<PointKey>,
    pub only_baseline: Vec<PointKey>,
    /// The table with both arms (for the HTML report's curves).
    pub scored: Scored,
    pub arms: Vec<Arm>,
    /// Both ran from one folder (the files a release reads beside its binary are the same).
    pub same_folder: bool,
}

/// What a refusal or an error of the comparison says it was needed for.
const NEEDED_FOR: &str = "the baseline comparison (--baseline-blis)";

/// The comparison as `score` and `reproduce` both run it: refused without a candidate
/// (`--blis`/`BLIS_BIN`); then the baseline checked, the rule read from `manifest` (loaded from
/// `manifest_path`), and both binaries run over `resolved`. `candidate` builds the candidate's
/// run options (each command has its own run flags); the baseline runs with the same options
/// but from its own directory (`RunOptions::for_binary`).
pub fn compare_with_inputs(
    inputs: &crate::inputs::Inputs,
    candidate: impl FnOnce(&str) -> Result<RunOptions, TaskError>,
    baseline: &Path,
    resolved: &Resolved,
    rule: &BaselineRule,
) -> Result<Comparison, TaskError> {
    use crate::inputs::{InputKind, Refusal};
    if inputs.get(InputKind::Blis).is_none() {
        let why = "no candidate: --baseline-blis compares the --blis (or BLIS_BIN) binary with the baseline";
        return Err(Refusal::new(InputKind::Blis, NEEDED_FOR, why.into()).into());
    }
    let candidate = candidate(NEEDED_FOR)?;
    // The baseline runs from its own directory, with its own release files (and so its own
    // keys): never the candidate's `hardware_config.json`, `defaults.yaml`, `model_configs/`.
    let base = candidate.for_binary(validate_baseline(baseline)?);
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, NEEDED_FOR)?;
    compare(resolved, scenarios_dir, &candidate, &base, rule)
}

/// The gate's comparison (`reproduce --baseline-blis`): the headline's points (vLLM, both
/// config tiers), each binary run quietly with the default options through the shared cache,
/// as the headline task runs BLIS.
pub fn for_gate(inputs: &crate::inputs::Inputs, baseline: &Path, rule: &BaselineRule) -> Result<Comparison, TaskError> {
    let (corpora, scenarios) = score::load_inputs(inputs)?;
    let catalog = inputs.get(crate::inputs::InputKind::Catalog).map(|c| c.path.as_path());
    let resolved = crate::score::resolve::resolve(&corpora, &scenarios, catalog, &score::Selection::vllm(None));
    let candidate = |needed_for: &str| RunOptions::quiet_from_inputs(inputs, needed_for);
    compare_with_inputs(inputs, candidate, baseline, &resolved, rule)
}

/// Runs both binaries over the planned points of `resolved` and compares their figures.
pub fn compare(
    resolved: &Resolved,
    scenarios_dir: &Path,
    candidate: &RunOptions,
    baseline: &RunOptions,
    rule: &BaselineRule,
) -> Result<Comparison, TaskError> {
    let fixtures = super::FixtureSet::committed()?;
    let plan = arm::plan(&resolved.sweeps, scenarios_dir, &fixtures, 0);
    compare_plan(resolved, &plan, candidate, baseline, rule)
}

/// `compare` over the points of `plan` (the selection's, or a subset of them), scored on the
/// sweeps of `resolved`.
pub fn compare_plan(
    resolved: &Resolved,
    plan: &arm::Plan,
    candidate: &RunOptions,
    baseline: &RunOptions,
    rule: &BaselineRule,
) -> Result<Comparison, TaskError> {
    let cand = arm::column_of_plan(plan, candidate)?;
    let base = arm::column_of_plan(plan, baseline)?;
    compare_columns(resolved, (candidate, &cand), (baseline, &base), rule)
}

/// The comparison of two columns already run over the same planned points (`cargo xtask
/// history` compares each release with the one before it without running either again).
pub fn compare_columns(
    resolved: &Resolved,
    (candidate, cand): (&RunOptions, &Column),
    (baseline, base): (&RunOptions, &Column),
    rule: &BaselineRule,
) -> Result<Comparison, TaskError> {
    let candidate_side = Side::of(candidate, cand)?;
    let baseline_side = Side::of(baseline, base)?;
    let (only_candidate, only_baseline) = one_sided(&cand.arm, &base.arm);
    let mut base_arm = base.arm.clone();
    base_arm.name = BASELINE_NAME.into();
    base_arm.key = BASELINE_KEY.into();
    let mut arms = score::headline_arms(&resolved.corpora.e2e, Some(cand.arm.clone()));
    arms.push(base_arm);
    let scored = score::score_resolved(resolved, &arms);
    let mut scored = scored;
    scored.resamples = rule.resamples;
    let (ci, bi) = arm_indices(&scored)?;
    let mut figures = Vec::new();
    for (tier, agg) in scored.tiers() {
        let tier_sweeps: Vec<&score::ScoredSweep> = scored.in_tier(tier).collect();
        for m in ErrorMetric::ALL {
            let key = format!("{}.{}", tier.key(), m.key());
            let candidate = agg.mean_abs.get(&(ci, m)).copied().flatten();
            let baseline = agg.mean_abs.get(&(bi, m)).copied().flatten();
            let held = rule.figures.contains(&key);
            let interval = match (candidate, baseline) {
                (Some(_), Some(_)) => {
                    intervals::paired(&tier_sweeps, ci, bi, m, rule.resamples).map(|p| p.and_then(|p| p.ci))
                }
                _ => None,
            };
            let verdict = verdict(candidate, baseline, interval.as_ref(), held, rule.margin);
            figures.push(FigureRow {
                key,
                tier,
                metric: m,
                sweeps: agg.sweeps,
                n: agg.n[&m],
                candidate,
                baseline,
                interval,
                held,
                verdict,
            });
        }
    }
    let mean = |e: &Option<ArmErrors>, m: ErrorMetric| {
        e.as_ref().and_then(|e| oracles::scoring::mean_abs(&e.get(m).iter().map(|x| x.1).collect::<Vec<_>>()))
    };
    let sweeps = scored
        .sweeps
        .iter()
        .map(|s| SweepRow {
            scenario: s.scenario.clone(),
            label: s.label.clone(),
            tier: s.tier,
            means: ErrorMetric::ALL.iter().map(|&m| (m, (mean(&s.errors[ci], m), mean(&s.errors[bi], m)))).collect(),
        })
        .collect();
    Ok(Comparison {
        candidate: candidate_side,
        baseline: baseline_side,
        rule: rule.clone(),
        figures,
        sweeps,
        only_candidate,
        only_baseline,
        scored,
        arms,
        same_folder: candidate.blis_root == baseline.blis_root,
    })
}

fn arm_indices(scored: &Scored) -> Result<(usize, usize), TaskError> {
    let find = |key: &str| {
        scored
            .arms
            .iter()
            .position(|(_, k, _)| k == key)
            .ok_or_else(|| TaskError::Failed(anyhow::anyhow!("the scored table has no `{key}` arm")))
    };
    Ok((find("blis")?, find(BASELINE_KEY)?))
}

/// The rule, in one place: worse only beyond the margin AND with the paired interval above
/// zero (held figures only); better beyond the margin with the interval below zero; anything
/// else is no change detected. Where the interval is not defined (fewer than 2 comparable
/// sweeps), the margin rule alone decides: a gate that passed any move on one sweep would not
/// be a gate ([`margin_alone`] says which figures were judged so).
pub fn verdict(
    candidate: Option<f64>,
    baseline: Option<f64>,
    interval: Option<&CellInterval>,
    held: bool,
    margin: f64,
) -> Verdict {
    match (candidate, baseline) {
        (Some(c), Some(b)) if c.to_bits() == b.to_bits() => Verdict::Same,
        (Some(c), Some(b)) => match interval {
            Some(Ok(i)) if held && c - b > margin && i.low > 0.0 => Verdict::Worse,
            Some(Ok(i)) if b - c > margin && i.high < 0.0 => Verdict::Better,
            Some(Ok(_)) => Verdict::NoChange,
            _ if held && c - b > margin => Verdict::Worse,
            _ if b - c > margin => Verdict::Better,
            _ => Verdict::NoChange,
        },
        _ => Verdict::NotComputed,
    }
}

/// Whether `figure`'s verdict was reached by the margin alone (its interval is not defined).
pub fn margin_alone(figure: &FigureRow) -> bool {
    figure.candidate.is_some() && figure.baseline.is_some() && !matches!(figure.interval, Some(Ok(_)))
}

/// `[0.12, 0.98]`, or why there is no interval.
fn interval_text(i: Option<&CellInterval>) -> String {
    match i {
        None => "-".into(),
        Some(Ok(i)) => intervals::bracket(i),
        Some(Err(why)) => why.clone(),
    }
}

/// Points with a TPOT value from one arm only.
fn one_sided(candidate: &Arm, baseline: &Arm) -> (Vec<PointKey>, Vec<PointKey>) {
    let has = |arm: &Arm, key: &PointKey| match &arm.run {
        score::ArmRun::Ran(points) => points.get(key).is_some_and(|p| p.tpot.is_some()),
        score::ArmRun::NotRun(_) => false,
    };
    let keys = |arm: &Arm| match &arm.run {
        score::ArmRun::Ran(points) => points.keys().cloned().collect::<Vec<_>>(),
        score::ArmRun::NotRun(_) => Vec::new(),
    };
    let mut all = keys(candidate);
    all.extend(keys(baseline));
    all.sort();
    all.dedup();
    let only_c = all.iter().filter(|k| has(candidate, k) && !has(baseline, k)).cloned().collect();
    let only_b = all.iter().filter(|k| has(baseline, k) && !has(candidate, k)).cloned().collect();
    (only_c, only_b)
}

fn num(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2}"))
}

fn signed(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| if v == 0.0 { "0".into() } else { format!("{v:+.4}") })
}

fn tier_name(t: Tier) -> &'static str {
    t.key()
}

impl Comparison {
    /// The figures the rule holds that are worse.
    pub fn worse(&self) -> Vec<&FigureRow> {
        self.figures.iter().filter(|f| f.verdict == Verdict::Worse).collect()
    }

    pub fn better(&self) -> Vec<&FigureRow> {
        self.figures.iter().filter(|f| f.verdict == Verdict::Better).collect()
    }

    /// The figures the rule holds that could not be compared (neither binary's value is over a
    /// sweep both model). When every held figure is one of them, the comparison compared
    /// nothing: a gate must fail then, never pass ([`Comparison::compared_nothing`]).
    pub fn not_compared(&self) -> Vec<&FigureRow> {
        self.figures.iter().filter(|f| f.held && f.verdict == Verdict::NotComputed).collect()
    }

    /// No figure the rule holds was compared (the binaries model no sweep in common, or the
    /// rule holds no figure of this table): a comparison that cannot pass.
    pub fn compared_nothing(&self) -> bool {
        !self.figures.iter().any(|f| f.held && f.verdict != Verdict::NotComputed)
    }

    /// Every computed figure is bit for bit the same.
    pub fn no_difference(&self) -> bool {
        let computed: Vec<_> = self.figures.iter().filter(|f| f.verdict != Verdict::NotComputed).collect();
        !computed.is_empty()
            && computed.iter().all(|f| f.verdict == Verdict::Same)
            && self.only_candidate.is_empty()
            && self.only_baseline.is_empty()
    }

    /// The sweeps of `figure`'s tier whose mean |e| moved most (largest |difference| first).
    pub fn moved_most(&self, figure: &FigureRow) -> Vec<(&SweepRow, f64)> {
        let mut moved: Vec<(&SweepRow, f64)> = self
            .sweeps
            .iter()
            .filter(|s| oracles::tiers::in_tier(s.tier, figure.tier))
            .filter_map(|s| s.delta(figure.metric).map(|d| (s, d)))
            .filter(|(_, d)| *d != 0.0)
            .collect();
        moved.sort_by(|a, b| b.1.abs().total_cmp(&a.1.abs()).then_with(|| a.0.scenario.cmp(&b.0.scenario)));
        moved.truncate(MOVED_MOST);
        moved
    }

    /// How each binary's points were served (differs between a cold and a warm run: never
    /// part of the snapshotted text).
    pub fn cache_lines(&self) -> String {
        let line = |role: &str, s: &Side| format!("{role}: {} points ran, {} served from the cache\n", s.ran, s.cached);
        format!("{}{}", line("candidate", &self.candidate), line("baseline", &self.baseline))
    }

    /// The verdict, one line per worse or better figure, with the sweeps that moved most.
    pub fn verdict_text(&self) -> String {
        let mut out = String::new();
        if self.compared_nothing() {
            let _ = writeln!(
                out,
                "NOT COMPARED: no figure the rule holds ({}) has a value for both binaries over a sweep both model: \
                 the comparison compared nothing, and fails",
                self.rule.figures.join(", ")
            );
        }
        if self.no_difference() {
            out.push_str("no difference: every BLIS figure computed is the same for both binaries\n");
        }
        for f in self.worse() {
            let _ = writeln!(
                out,
                "WORSE: {} candidate {} vs baseline {} ({} > margin {}, {})",
                f.key,
                num(f.candidate),
                num(f.baseline),
                signed(f.delta()),
                self.rule.margin,
                self.interval_reason(f, "above")
            );
            for (s, d) in self.moved_most(f) {
                let _ = writeln!(out, "  moved most: {} {} {}", s.scenario, s.label, signed(Some(d)));
            }
        }
        for f in self.better() {
            let _ = writeln!(
                out,
                "better: {} candidate {} vs baseline {} ({}, {}); review it before taking it into a snapshot",
                f.key,
                num(f.candidate),
                num(f.baseline),
                signed(f.delta()),
                self.interval_reason(f, "below")
            );
        }
        for f in self.figures.iter().filter(|f| f.held && matches!(f.verdict, Verdict::NoChange | Verdict::Same)) {
            let alone = if margin_alone(f) && f.verdict == Verdict::NoChange {
                "; fewer than 2 comparable sweeps: the margin rule alone decides"
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "no change detected: {} ({}, 95% interval {}{alone})",
                f.key,
                signed(f.delta()),
                interval_text(f.interval.as_ref())
            );
        }
        out
    }

    /// `95% interval [a, b] above zero`, or, for a verdict of the margin alone, why.
    fn interval_reason(&self, f: &FigureRow, side: &str) -> String {
        let interval = interval_text(f.interval.as_ref());
        if margin_alone(f) {
            format!("95% interval {interval}, fewer than 2 comparable sweeps: the margin rule alone decides")
        } else {
            format!("95% interval {interval} {side} zero")
        }
    }

    /// The deterministic report (markdown tables; also what the terminal shows).
    pub fn render(&self) -> String {
        let mut out = String::from("## BLIS candidate against baseline\n\n");
        for (role, s) in [("candidate", &self.candidate), ("baseline", &self.baseline)] {
            let env = if s.env.is_empty() { String::new() } else { format!(" with {}", s.env.join(" ")) };
            let _ = writeln!(
                out,
                "- {role}: `{}` sha256 {}{env}: {} points with a value, {} failed, {} sweeps not modelled",
                s.name, s.sha256, s.with_value, s.failed, s.not_modelled_sweeps
            );
        }
        if self.candidate.sha256 == self.baseline.sha256 && self.candidate.env == self.baseline.env {
            out.push_str(if self.same_folder {
                "- the two are the same binary, run from the same folder\n"
            } else {
                "- the same binary's bytes, run from two folders: each reads the release files of its own folder\n"
            });
        }
        let _ = writeln!(
            out,
            "- rule (`baseline_rule` of the manifest): a held figure is worse when the candidate's mean |e| \
             exceeds the baseline's by more than {} points AND the 95% paired-bootstrap interval of the \
             difference ({} resamples over the sweeps both model, seed {}) lies above zero; better \
             symmetrically; else no change detected; held: {}",
            self.rule.margin,
            self.rule.resamples,
            oracles::bootstrap::SEED,
            self.rule.figures.join(", ")
        );
        // A sweep one binary cannot model whole is scored for neither: the comparison is over
        // the sweeps both model, and these are the rest.
        let mut left_out: Vec<(&str, &str)> = self
            .only_candidate
            .iter()
            .chain(&self.only_baseline)
            .map(|k| (k.scenario.as_str(), k.label.as_str()))
            .collect();
        left_out.sort();
        left_out.dedup();
        let _ = writeln!(
            out,
            "- compared over the sweeps both binaries model; left out (modelled by one only): {}\n",
            left_out.len()
        );
        for (scenario, label) in &left_out {
            let _ = writeln!(out, "  - {scenario} {label}");
        }
        if !left_out.is_empty() {
            out.push('\n');
        }
        out.push_str("| figure | sweeps | n | candidate | baseline | difference | 95% interval | held | verdict |\n");
        out.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for f in &self.figures {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} | {} | {} | {} | {} |",
                f.key,
                f.sweeps,
                f.n,
                num(f.candidate),
                num(f.baseline),
                signed(f.delta()),
                interval_text(f.interval.as_ref()),
                if f.held { "yes" } else { "no" },
                f.verdict.word()
            );
        }
        out.push_str("\nPer sweep, mean |e| (TPOT shape, TTFT shape):\n\n");
        out.push_str(
            "| scenario | label | tier | TPOT cand | TPOT base | TPOT diff | TTFT cand | TTFT base | TTFT diff |\n",
        );
        out.push_str("|---|---|---|---|---|---|---|---|---|\n");
        for s in &self.sweeps {
            let (tc, tb) = s.means[&ErrorMetric::TpotShape];
            let (fc, fb) = s.means[&ErrorMetric::TtftShape];
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.scenario,
                s.label,
                tier_name(s.tier),
                num(tc),
                num(tb),
                signed(s.delta(ErrorMetric::TpotShape)),
                num(fc),
                num(fb),
                signed(s.delta(ErrorMetric::TtftShape))
            );
        }
        for (who, points) in [("candidate", &self.only_candidate), ("baseline", &self.only_baseline)] {
            let _ = writeln!(out, "\nPoints only the {who} can model: {}", points.len());
            for k in points {
                let _ = writeln!(out, "- {} {} c={}", k.scenario, k.label, k.concurrency);
            }
        }
        out.push('\n');
        out.push_str(&self.verdict_text());
        out
    }

    /// The JSON record (`baseline_comparison` of the reports): both columns and the deltas.
    pub fn json(&self) -> serde_json::Value {
        let side = |s: &Side| {
            json!({
                "name": s.name, "sha256": s.sha256, "env": s.env, "ran": s.ran, "cached": s.cached,
                "points_with_value": s.with_value, "failed": s.failed, "not_modelled_sweeps": s.not_modelled_sweeps,
            })
        };
        let points = |p: &[PointKey]| {
            p.iter()
                .map(|k| json!({"scenario": k.scenario, "label": k.label, "concurrency": k.concurrency}))
                .collect::<Vec<_>>()
        };
        json!({
            "candidate": side(&self.candidate),
            "baseline": side(&self.baseline),
            "rule": {
                "margin": self.rule.margin, "figures": self.rule.figures, "why": self.rule.why,
                "resamples": self.rule.resamples, "seed": oracles::bootstrap::SEED, "confidence": 0.95,
            },
            "figures": self.figures.iter().map(|f| json!({
                "figure": f.key, "sweeps": f.sweeps, "n": f.n, "candidate": f.candidate, "baseline": f.baseline,
                "difference": f.delta(), "held": f.held, "verdict": f.verdict.word(),
                "margin_alone": margin_alone(f),
                "interval": match &f.interval {
                    None => json!(null),
                    Some(Ok(i)) => json!({"low": i.low, "high": i.high}),
                    Some(Err(why)) => json!({"not_defined": why}),
                },
            })).collect::<Vec<_>>(),
            "sweeps": self.sweeps.iter().map(|s| json!({
                "scenario": s.scenario, "label": s.label, "tier": s.tier.key(),
                "metrics": s.means.iter().map(|(m, (c, b))| (m.key().to_string(), json!({
                    "candidate": c, "baseline": b, "difference": s.delta(*m),
                }))).collect::<serde_json::Map<_, _>>(),
            })).collect::<Vec<_>>(),
            "only_candidate": points(&self.only_candidate),
            "only_baseline": points(&self.only_baseline),
            "worse": self.worse().iter().map(|f| f.key.clone()).collect::<Vec<_>>(),
            "better": self.better().iter().map(|f| f.key.clone()).collect::<Vec<_>>(),
            "no_difference": self.no_difference(),
            "same_folder": self.same_folder,
            "compared_nothing": self.compared_nothing(),
        })
    }
}

/// The baseline binary from `--baseline-blis`: a path given that cannot run is bad input (exit
/// 1), naming the flag.
pub fn validate_baseline(path: &Path) -> Result<std::path::PathBuf, TaskError> {
    super::binary::validate(path, "the baseline comparison")
        .map_err(|r| TaskError::Failed(anyhow::anyhow!("--baseline-blis {}: {}", path.display(), r.detail)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::ArmPoint;
    use oracles::bootstrap::{self, Interval, SweepTotal};

    fn totals(v: &[f64]) -> Vec<SweepTotal> {
        v.iter().map(|&m| SweepTotal { sum_abs: m * 4.0, n: 4 }).collect()
    }

    fn judged(candidate: &[f64], baseline: &[f64], margin: f64) -> (Verdict, Interval) {
        let (c, b) = (totals(candidate), totals(baseline));
        let mean =
            |t: &[SweepTotal]| t.iter().map(|t| t.sum_abs).sum::<f64>() / t.iter().map(|t| t.n as f64).sum::<f64>();
        let i = bootstrap::paired_interval(&c, &b, 2000, bootstrap::SEED).unwrap();
        (verdict(Some(mean(&c)), Some(mean(&b)), Some(&Ok(i)), true, margin), i)
    }

    #[test]
    fn worse_needs_the_margin_and_an_interval_above_zero() {
        let base = [5.0, 9.0, 12.0, 7.0, 30.0, 4.0, 11.0, 8.0, 6.0];
        // Every sweep 2 points worse: beyond the margin, the interval is [2, 2].
        let slower: Vec<f64> = base.iter().map(|m| m + 2.0).collect();
        assert_eq!(judged(&slower, &base, 0.5).0, Verdict::Worse);
        // The same shift under a margin of 3: no change detected.
        assert_eq!(judged(&slower, &base, 3.0).0, Verdict::NoChange);
        // Better symmetrically.
        assert_eq!(judged(&base, &slower, 0.5).0, Verdict::Better);
    }

    #[test]
    fn a_big_move_on_one_sweep_among_noise_is_no_change() {
        // The mean moves by +1 (beyond the 0.5 margin), but one sweep carries all of it and
        // others move both ways: the interval holds zero, so nothing is detected.
        let base = [5.0, 9.0, 12.0, 7.0, 30.0, 4.0, 11.0, 8.0, 6.0];
        let cand = [4.0, 10.0, 11.0, 8.0, 39.0 + 1.0, 3.0, 12.0, 7.0, 5.0];
        let (v, i) = judged(&cand, &base, 0.5);
        assert!(i.low < 0.0 && i.high > 0.0, "{i:?}");
        assert_eq!(v, Verdict::NoChange);
    }

    #[test]
    fn a_tiny_change_below_the_noise_is_no_change_and_identical_is_exactly_zero() {
        let base = [5.0, 9.0, 12.0, 7.0, 30.0, 4.0, 11.0, 8.0, 6.0];
        let cand: Vec<f64> = base.iter().enumerate().map(|(k, m)| m + if k % 2 == 0 { 0.01 } else { -0.01 }).collect();
        assert_eq!(judged(&cand, &base, 0.5).0, Verdict::NoChange);
        let (v, i) = judged(&base, &base, 0.5);
        assert_eq!((v, i), (Verdict::Same, Interval { low: 0.0, high: 0.0 }));
        assert_eq!(v.word(), "no change detected (identical)");
        // A figure the rule does not hold is never worse.
        let i = Interval { low: 1.0, high: 3.0 };
        assert_eq!(verdict(Some(12.0), Some(10.0), Some(&Ok(i)), false, 0.5), Verdict::NoChange);
    }

    #[test]
    fn with_fewer_than_two_sweeps_the_margin_rule_alone_decides() {
        let undefined: CellInterval = Err("not defined: 1 sweep".into());
        // A +16-point move on the one comparable sweep of a held figure is worse.
        assert_eq!(verdict(Some(26.0), Some(10.0), Some(&undefined), true, 0.5), Verdict::Worse);
        assert_eq!(verdict(Some(10.0), Some(26.0), Some(&undefined), true, 0.5), Verdict::Better);
        // Within the margin, or on a figure the rule does not hold: no change detected.
        assert_eq!(verdict(Some(10.3), Some(10.0), Some(&undefined), true, 0.5), Verdict::NoChange);
        assert_eq!(verdict(Some(26.0), Some(10.0), Some(&undefined), false, 0.5), Verdict::NoChange);
    }

    // The rule at its edges: "more than the margin" and "above zero" are strict (docs/baseline.md).
    #[test]
    fn the_margin_and_zero_are_strict_edges_and_the_difference_is_a_subtraction() {
        let ok = |low: f64, high: f64| -> CellInterval { Ok(Interval { low, high }) };
        let v = |c: f64, b: f64, i: &CellInterval, held: bool, margin: f64| {
            verdict(Some(c), Some(b), Some(i), held, margin)
        };
        // 10.5 - 10.0 is exactly the margin 0.5: not more than it.
        assert_eq!(v(10.5, 10.0, &ok(0.1, 0.9), true, 0.5), Verdict::NoChange);
        assert_eq!(v(10.0, 10.5, &ok(-0.9, -0.1), true, 0.5), Verdict::NoChange);
        // An interval touching zero does not lie above (or below) it.
        assert_eq!(v(12.0, 10.0, &ok(0.0, 3.0), true, 0.5), Verdict::NoChange);
        assert_eq!(v(10.0, 12.0, &ok(-3.0, 0.0), true, 0.5), Verdict::NoChange);
        // A 2-point difference beyond a 1.5 margin (their ratio, 1.2, is not).
        assert_eq!(v(12.0, 10.0, &ok(1.0, 3.0), true, 1.5), Verdict::Worse);
        assert_eq!(v(10.0, 12.0, &ok(-3.0, -1.0), true, 1.5), Verdict::Better);
        // Better needs both the margin and the interval below zero.
        assert_eq!(v(10.0, 12.0, &ok(-3.0, 1.0), true, 0.5), Verdict::NoChange);
        // Worse by 2 is not better, whatever the interval says.
        assert_eq!(v(12.0, 10.0, &ok(-3.0, -1.0), false, 0.5), Verdict::NoChange);
        // The margin alone, at its edge.
        let undefined: CellInterval = Err("not defined: 1 sweep".into());
        assert_eq!(v(10.5, 10.0, &undefined, true, 0.5), Verdict::NoChange);
        assert_eq!(v(10.0, 10.5, &undefined, true, 0.5), Verdict::NoChange);
        assert_eq!(verdict(None, Some(1.0), None, true, 0.5), Verdict::NotComputed);
    }

    #[test]
    fn a_rule_without_resamples_takes_the_documented_ten_thousand() {
        let rule: BaselineRule = serde_yaml::from_str("margin: 0.5\nfigures: [all.tpot_shape]\nwhy: w\n").unwrap();
        assert_eq!(rule.resamples, 10_000);
    }

    fn side(sha: &str) -> Side {
        Side {
            name: "blis".into(),
            sha256: sha.into(),
            env: vec![],
            ran: 3,
            cached: 1,
            with_value: 4,
            failed: 0,
            not_modelled_sweeps: 0,
        }
    }

    fn row(
        key: &str,
        candidate: Option<f64>,
        baseline: Option<f64>,
        interval: Option<CellInterval>,
        held: bool,
    ) -> FigureRow {
        let verdict = verdict(candidate, baseline, interval.as_ref(), held, 0.5);
        FigureRow {
            key: key.into(),
            tier: Tier::All,
            metric: ErrorMetric::TpotShape,
            sweeps: 3,
            n: 12,
            candidate,
            baseline,
            interval,
            held,
            verdict,
        }
    }

    fn sweep(scenario: &str, tier: Tier, c: Option<f64>, b: Option<f64>) -> SweepRow {
        let means = ErrorMetric::ALL.iter().map(|&m| (m, (c, b))).collect();
        SweepRow { scenario: scenario.into(), label: "L".into(), tier, means }
    }

    fn comparison(figures: Vec<FigureRow>, sweeps: Vec<SweepRow>) -> Comparison {
        let scored = Scored {
            corpus_source: String::new(),
            release: String::new(),
            selection: score::Selection::vllm(None),
            arms: vec![],
            sweeps: vec![],
            dropped: vec![],
            excursions: vec![],
            prefix_caching_points: 0,
            provenance_counts: BTreeMap::new(),
            inexpressible_keys: Default::default(),
            resamples: 2000,
        };
        Comparison {
            candidate: side("aa"),
            baseline: side("bb"),
            rule: BaselineRule {
                margin: 0.5,
                figures: vec!["all.tpot_shape".into()],
                resamples: 2000,
                why: "w".into(),
            },
            figures,
            sweeps,
            only_candidate: vec![],
            only_baseline: vec![],
            scored,
            arms: vec![],
            same_folder: false,
        }
    }

    #[test]
    fn a_difference_is_candidate_minus_baseline_and_needs_both() {
        assert_eq!(row("k", Some(12.5), Some(10.0), None, true).delta(), Some(2.5));
        assert_eq!(row("k", Some(12.5), None, None, true).delta(), None);
        assert_eq!(sweep("s", Tier::All, Some(3.0), Some(7.5)).delta(ErrorMetric::TtftShape), Some(-4.5));
        assert_eq!(sweep("s", Tier::All, None, Some(7.5)).delta(ErrorMetric::TtftShape), None);
    }

    #[test]
    fn the_margin_alone_decides_only_where_both_have_a_value_and_no_interval() {
        let undefined = || Some(Err::<Interval, String>("not defined: 1 sweep".into()));
        assert!(margin_alone(&row("k", Some(1.0), Some(2.0), undefined(), true)));
        assert!(!margin_alone(&row("k", Some(1.0), Some(2.0), Some(Ok(Interval { low: -2.0, high: -0.5 })), true)));
        assert!(!margin_alone(&row("k", None, Some(2.0), undefined(), true)));
        assert!(!margin_alone(&row("k", Some(1.0), None, undefined(), true)));
    }

    #[test]
    fn numbers_print_two_decimals_and_signed_differences_four() {
        assert_eq!((num(Some(1.234)), num(None)), ("1.23".to_string(), "-".to_string()));
        assert_eq!(signed(Some(0.0)), "0");
        assert_eq!(signed(Some(0.5)), "+0.5000");
        assert_eq!(signed(Some(-0.25)), "-0.2500");
        assert_eq!(signed(None), "-");
        assert_eq!(interval_text(None), "-");
        assert_eq!(interval_text(Some(&Err("why".into()))), "why");
        assert_eq!(interval_text(Some(&Ok(Interval { low: 0.125, high: 2.0 }))), "[0.12, 2.00]");
        assert_eq!(tier_name(Tier::MeasuredOrResolved), "measured_or_resolved");
    }

    #[test]
    fn worse_better_and_not_compared_name_their_figures() {
        let c = comparison(
            vec![
                row("all.tpot_shape", Some(12.0), Some(10.0), Some(Ok(Interval { low: 1.0, high: 3.0 })), true),
                row("all.ttft_shape", Some(10.0), Some(12.0), Some(Ok(Interval { low: -3.0, high: -1.0 })), true),
                row("all.tpot_mape", None, Some(12.0), None, true),
                row("all.ttft_mape", None, None, None, false),
            ],
            vec![],
        );
        let keys = |v: Vec<&FigureRow>| v.iter().map(|f| f.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys(c.worse()), ["all.tpot_shape"]);
        assert_eq!(keys(c.better()), ["all.ttft_shape"]);
        assert_eq!(keys(c.not_compared()), ["all.tpot_mape"]);
        assert!(!c.compared_nothing());
        assert!(!c.no_difference());
        // Only an unheld figure computed, or only held ones not computed: nothing was compared.
        let unheld =
            comparison(vec![row("a", Some(1.0), Some(1.0), None, false), row("b", None, None, None, true)], vec![]);
        assert!(unheld.compared_nothing());
        assert!(comparison(vec![], vec![]).compared_nothing());
    }

    #[test]
    fn no_difference_needs_a_computed_figure_all_identical_and_no_one_sided_point() {
        let same = |held| row("all.tpot_shape", Some(3.0), Some(3.0), None, held);
        assert!(comparison(vec![same(true), row("x", None, None, None, true)], vec![]).no_difference());
        assert!(!comparison(vec![row("x", None, None, None, true)], vec![]).no_difference());
        assert!(!comparison(vec![same(true), row("y", Some(3.0), Some(4.0), None, false)], vec![]).no_difference());
        let mut one_sided = comparison(vec![same(true)], vec![]);
        one_sided.only_candidate.push(PointKey::new("s", "L", 8));
        assert!(!one_sided.no_difference());
        let mut one_sided = comparison(vec![same(true)], vec![]);
        one_sided.only_baseline.push(PointKey::new("s", "L", 8));
        assert!(!one_sided.no_difference());
    }

    #[test]
    fn the_sweeps_that_moved_most_are_the_largest_moves_of_the_tier_and_never_a_still_one() {
        let c = comparison(
            vec![],
            vec![
                sweep("a", Tier::All, Some(5.0), Some(4.0)),
                sweep("b", Tier::Strict, Some(1.0), Some(9.0)),
                sweep("c", Tier::All, Some(2.0), Some(2.0)),
                sweep("d", Tier::All, Some(2.0), Some(4.5)),
                sweep("e", Tier::All, Some(2.0), Some(2.5)),
                sweep("f", Tier::All, None, Some(2.5)),
            ],
        );
        let all = row("all.tpot_shape", Some(1.0), Some(2.0), None, true);
        let moved: Vec<_> = c.moved_most(&all).iter().map(|(s, d)| (s.scenario.clone(), *d)).collect();
        assert_eq!(moved, [("b".to_string(), -8.0), ("d".to_string(), -2.5), ("a".to_string(), 1.0)]);
        let mut strict = all.clone();
        strict.tier = Tier::Strict;
        let moved: Vec<_> = c.moved_most(&strict).iter().map(|(s, _)| s.scenario.clone()).collect();
        assert_eq!(moved, ["b"]);
    }

    #[test]
    fn the_report_states_each_verdict_with_its_figures() {
        let worse = row("all.tpot_shape", Some(12.0), Some(10.0), Some(Ok(Interval { low: 1.0, high: 3.0 })), true);
        let better = row("all.ttft_shape", Some(10.0), Some(12.0), Some(Ok(Interval { low: -3.0, high: -1.0 })), true);
        let alone = row("all.tpot_mape", Some(10.2), Some(10.0), Some(Err("not defined: 1 sweep".into())), true);
        let mut c = comparison(vec![worse, better, alone], vec![sweep("s1", Tier::All, Some(12.0), Some(10.0))]);
        c.only_baseline.push(PointKey::new("s2", "L2", 16));
        let text = c.verdict_text();
        assert!(text.contains("WORSE: all.tpot_shape candidate 12.00 vs baseline 10.00 (+2.0000 > margin 0.5, 95% interval [1.00, 3.00] above zero)"), "{text}");
        assert!(text.contains("  moved most: s1 L +2.0000"), "{text}");
        assert!(text.contains("better: all.ttft_shape candidate 10.00 vs baseline 12.00 (-2.0000, 95% interval [-3.00, -1.00] below zero)"), "{text}");
        assert!(text.contains("no change detected: all.tpot_mape (+0.2000, 95% interval not defined: 1 sweep; fewer than 2 comparable sweeps: the margin rule alone decides)"), "{text}");
        assert!(!text.contains("NOT COMPARED") && !text.contains("no difference"), "{text}");
        let render = c.render();
        assert!(
            render.contains("- candidate: `blis` sha256 aa: 4 points with a value, 0 failed, 0 sweeps not modelled"),
            "{render}"
        );
        assert!(render.contains("left out (modelled by one only): 1\n\n  - s2 L2\n"), "{render}");
        assert!(
            render.contains("| `all.tpot_shape` | 3 | 12 | 12.00 | 10.00 | +2.0000 | [1.00, 3.00] | yes | WORSE |"),
            "{render}"
        );
        assert!(render.contains("| s1 | L | all | 12.00 | 10.00 | +2.0000 | 12.00 | 10.00 | +2.0000 |"), "{render}");
        assert!(render.contains("Points only the baseline can model: 1\n- s2 L2 c=16"), "{render}");
        assert!(!render.contains("the same binary"), "{render}");
        assert!(render.ends_with(&text));
        assert_eq!(
            c.cache_lines(),
            "candidate: 3 points ran, 1 served from the cache\nbaseline: 3 points ran, 1 served from the cache\n"
        );
        let json = c.json();
        assert_eq!(json["worse"], json!(["all.tpot_shape"]));
        assert_eq!(json["better"], json!(["all.ttft_shape"]));
        assert_eq!(json["figures"][0]["difference"], json!(2.0));
        assert_eq!(json["figures"][2]["margin_alone"], json!(true));
        assert_eq!(json["sweeps"][0]["metrics"]["ttft_shape"]["difference"], json!(2.0));
        assert_eq!(json["only_baseline"][0]["concurrency"], json!(16));
        // One binary, one folder; one binary's bytes from two folders.
        let mut same = comparison(vec![row("all.tpot_shape", Some(3.0), Some(3.0), None, true)], vec![]);
        same.baseline.sha256 = "aa".into();
        assert!(same.render().contains("- the same binary's bytes, run from two folders"));
        same.same_folder = true;
        assert!(same.render().contains("- the two are the same binary, run from the same folder"));
        assert!(same.verdict_text().starts_with("no difference: every BLIS figure computed is the same"));
        same.baseline.env.push("X=1".into());
        assert!(!same.render().contains("the same binary"));
        assert!(comparison(vec![], vec![])
            .verdict_text()
            .starts_with("NOT COMPARED: no figure the rule holds (all.tpot_shape)"));
    }

    #[test]
    fn only_held_figures_without_a_detected_change_get_a_no_change_line_and_only_a_changed_one_the_margin_note() {
        let undefined = || Some(Err::<Interval, String>("not defined: 1 sweep".into()));
        let worse = row("all.tpot_shape", Some(12.0), Some(10.0), Some(Ok(Interval { low: 1.0, high: 3.0 })), true);
        let unheld = row("all.ttft_shape", Some(10.2), Some(10.0), Some(Ok(Interval { low: -1.0, high: 1.0 })), false);
        let same = row("all.tpot_mape", Some(3.0), Some(3.0), undefined(), true);
        let moved = row("all.ttft_mape", Some(3.2), Some(3.0), undefined(), true);
        assert_eq!((same.verdict, moved.verdict), (Verdict::Same, Verdict::NoChange));
        let text = comparison(vec![worse, unheld, same, moved], vec![]).verdict_text();
        let no_change: Vec<&str> = text.lines().filter(|l| l.starts_with("no change detected")).collect();
        assert_eq!(
            no_change,
            [
                "no change detected: all.tpot_mape (0, 95% interval not defined: 1 sweep)",
                "no change detected: all.ttft_mape (+0.2000, 95% interval not defined: 1 sweep; \
                 fewer than 2 comparable sweeps: the margin rule alone decides)",
            ]
        );
    }

    #[test]
    fn the_figure_table_follows_the_left_out_sweeps_after_one_blank_line() {
        let mut c = comparison(vec![], vec![]);
        assert!(c.render().contains("left out (modelled by one only): 0\n\n| figure |"), "{}", c.render());
        c.only_candidate.push(PointKey::new("s2", "L2", 16));
        assert!(c.render().contains("left out (modelled by one only): 1\n\n  - s2 L2\n\n| figure |"), "{}", c.render());
    }

    #[test]
    fn points_with_a_tpot_value_from_one_binary_only_are_one_sided() {
        let p = |tpot: Option<f64>| ArmPoint { tpot, ttft: Some(1.0) };
        let a = Arm::simulated(
            "A",
            "blis",
            [
                (PointKey::new("s", "x", 1), p(Some(1.0))),
                (PointKey::new("s", "y", 1), p(Some(1.0))),
                (PointKey::new("s", "z", 1), p(None)),
            ]
            .into(),
        );
        let b = Arm::simulated(
            "B",
            "b",
            [
                (PointKey::new("s", "y", 1), p(Some(2.0))),
                (PointKey::new("s", "z", 1), p(Some(2.0))),
                (PointKey::new("s", "w", 1), p(Some(2.0))),
            ]
            .into(),
        );
        let (only_a, only_b) = one_sided(&a, &b);
        let labels = |v: Vec<PointKey>| v.into_iter().map(|k| k.label).collect::<Vec<_>>();
        assert_eq!(labels(only_a), ["x"]);
        assert_eq!(labels(only_b), ["w", "z"]);
    }

    /// A column of simulated milliseconds (TPOT; TTFT ten times it) per sweep label.
    fn column(ms: &[(&str, [f64; 3])]) -> Column {
        let points = ms
            .iter()
            .flat_map(|(label, tpot)| {
                [1, 2, 4].into_iter().zip(*tpot).map(move |(c, t)| {
                    (PointKey::new("m-h100.yaml", label, c), ArmPoint { tpot: Some(t), ttft: Some(t * 10.0) })
                })
            })
            .collect();
        Column {
            arm: Arm::simulated("BLIS", "blis", points),
            notes: vec![],
            sweep_notes: vec![],
            succeeded: 6,
            failed: 0,
            not_modelled_sweeps: 0,
            modelled_sweeps: 2,
            outcomes: vec![],
            ran: 6,
            cached: 0,
            form: Default::default(),
            binary_sha256: "sha".into(),
            target: super::super::Target::Scenario,
            info: Default::default(),
        }
    }

    /// Two binaries over two sweeps whose measured TPOT relatives are 1, 2, 4: the candidate
    /// keeps that shape exactly, the baseline is 10% (first sweep) and 20% (second) high at
    /// c=2 and c=4. By the anchor-exclusive definition the candidate's TPOT shape error is 0
    /// and the baseline's the mean of |10|, |10|, |20|, |20| = 15; each sweep's paired
    /// difference is -10 and -20, so every resample's interval lies within [-20, -10].
    #[test]
    fn two_columns_are_scored_each_as_its_own_arm_with_a_paired_interval_per_figure() {
        let mut f = crate::score::tests::Fixture::new();
        f.sweeps.push(crate::score::tests::sweep("m-h100.yaml", "8k1k", "8192:1024"));
        for label in ["1k1k", "8k1k"] {
            f.anchors.push(json!({"scenario": "m-h100.yaml", "label": label, "framework": "vllm", "gpu": "h100",
                "absolute_tpot_us": {"1": 10000.0, "2": 20000.0, "4": 40000.0},
                "absolute_ttft_us": {"1": 100000.0, "2": 200000.0, "4": 400000.0},
                "source_run_date": "d", "source_config_id": 1, "relative_agreement": 0.0}));
        }
        let (corpora, scenarios) = f.load().unwrap();
        let resolved = crate::score::resolve::resolve(&corpora, &scenarios, None, &score::Selection::vllm(None));
        let cand = column(&[("1k1k", [10.0, 20.0, 40.0]), ("8k1k", [10.0, 20.0, 40.0])]);
        let base = column(&[("1k1k", [10.0, 22.0, 44.0]), ("8k1k", [10.0, 24.0, 48.0])]);
        let rule =
            BaselineRule { margin: 1.0, figures: vec!["all.tpot_shape".into()], resamples: 2000, why: "w".into() };
        let opts = |binary: &str, root: &str| {
            let mut o = RunOptions::new(binary.into(), "catalog".into(), "registry".into());
            o.blis_root = root.into();
            o
        };
        let (c_opts, b_opts) = (opts("/a/blis", "/a"), opts("/b/blis-old", "/b"));
        let cmp = compare_columns(&resolved, (&c_opts, &cand), (&b_opts, &base), &rule).unwrap();
        assert!(cmp.scored.dropped.is_empty(), "{:?}", cmp.scored.dropped);
        assert_eq!((cmp.candidate.name.as_str(), cmp.baseline.name.as_str()), ("blis", "blis-old"));
        assert!(!cmp.same_folder);
        let shape = cmp.figures.iter().find(|f| f.key == "all.tpot_shape").unwrap();
        assert!(shape.held && shape.sweeps == 2 && shape.n == 4, "{shape:?}");
        assert!(shape.candidate.unwrap().abs() < 1e-9, "{shape:?}");
        assert!((shape.baseline.unwrap() - 15.0).abs() < 1e-9, "{shape:?}");
        let i = shape.interval.clone().expect("both have a value: the paired interval is computed").unwrap();
        assert!(-20.0 - 1e-9 <= i.low && i.low <= i.high && i.high <= -10.0 + 1e-9, "{i:?}");
        assert_eq!(shape.verdict, Verdict::Better);
        // Each sweep's row holds its own means: (candidate, baseline).
        let row = |label: &str| cmp.sweeps.iter().find(|s| s.label == label).unwrap().means[&ErrorMetric::TpotShape];
        let (c1, b1) = row("1k1k");
        let (c2, b2) = row("8k1k");
        assert!(c1.unwrap().abs() < 1e-9 && c2.unwrap().abs() < 1e-9);
        assert!((b1.unwrap() - 10.0).abs() < 1e-9 && (b2.unwrap() - 20.0).abs() < 1e-9);
        // Both from one folder is said so (the report then warns that they share its files).
        let same = compare_columns(&resolved, (&c_opts, &cand), (&opts("/a/blis-old", "/a"), &base), &rule).unwrap();
        assert!(same.same_folder);
    }

    #[test]
    fn a_baseline_path_that_cannot_run_is_refused_naming_the_flag() {
        let missing = Path::new("/nonexistent/blis-baseline");
        let err = validate_baseline(missing).unwrap_err().to_string();
        assert!(err.starts_with("--baseline-blis /nonexistent/blis-baseline: "), "{err}");
    }
}
