//! `cargo xtask history`: the BLIS arm of one selection run by every release of a history,
//! each from its own folder through the dialect its own help describes, over the same planned
//! points; then each release against the one before it by the baseline rule
//! (`blis::baseline::compare_columns`), and for each held figure the first release at which it
//! got worse, or better, by more than the margin: what `git bisect` would answer, over
//! releases (docs/history.md).

pub mod html;
pub mod releases;
pub mod render;
pub mod task;

pub use task::{task_releases, ReleaseFigures, RELEASES_TASK};

use crate::blis::arm::{self, Column, Plan};
use crate::blis::baseline::BaselineRule;
use crate::blis::baseline::{self, Comparison, Verdict};
use crate::blis::{self, RunOptions};
use crate::score::resolve::Resolved;
use crate::score::{self, ErrorMetric, Scored};
use crate::task::TaskError;
use oracles::tiers::Tier;
use releases::{Listing, Version};
use std::collections::BTreeMap;

/// What happened to one entry of the history.
pub enum Status {
    /// Not a release (`releases::Rejected`).
    Rejected(String),
    /// A release the arm cannot run at all: its help lists neither dialect, or the help or
    /// its release files cannot be read.
    Unusable(String),
    Ran(Box<Ran>),
}

pub struct Ran {
    pub sha256: String,
    /// The latency model every point ran with: the pin, else the release's default read from
    /// its help, else `dialect::BUILT_IN_LATENCY_MODEL`.
    pub latency_model: String,
    /// The names its `--latency-model` offers (empty: no such flag, or no list in its help).
    pub latency_choices: Vec<String>,
    /// It takes `--latency-model`.
    pub takes_latency_flag: bool,
    pub column: Column,
    pub scored: Scored,
    /// The earlier release with the same binary and files whose points these are.
    pub same_as: Option<String>,
}

pub struct Row {
    pub tag: String,
    pub version: Option<Version>,
    pub status: Status,
}

impl Row {
    pub fn ran(&self) -> Option<&Ran> {
        match &self.status {
            Status::Ran(r) => Some(r),
            _ => None,
        }
    }

    /// A release with at least one point with a value.
    pub fn has_values(&self) -> bool {
        self.ran().is_some_and(|r| r.column.succeeded > 0)
    }
}

impl Ran {
    fn blis_index(&self) -> Option<usize> {
        self.scored.arms.iter().position(|(_, key, _)| key == "blis")
    }

    /// The BLIS figure of `tier` (mean |e|, %), `None` without a value.
    pub fn figure(&self, tier: Tier, m: ErrorMetric) -> Option<f64> {
        let i = self.blis_index()?;
        self.scored.aggregate(self.scored.in_tier(tier)).mean_abs.get(&(i, m)).copied().flatten()
    }

    /// Sweeps and comparisons behind the tier's figures.
    pub fn counts(&self, tier: Tier) -> (usize, BTreeMap<ErrorMetric, usize>) {
        let agg = self.scored.aggregate(self.scored.in_tier(tier));
        (agg.sweeps, agg.n)
    }

    /// Per scored sweep, the BLIS mean |e| of `m`.
    pub fn per_sweep(&self, m: ErrorMetric) -> BTreeMap<(String, String), f64> {
        let Some(i) = self.blis_index() else { return BTreeMap::new() };
        self.scored
            .sweeps
            .iter()
            .filter_map(|s| {
                let e = s.errors[i].as_ref()?;
                let v = oracles::scoring::mean_abs(&e.get(m).iter().map(|x| x.1).collect::<Vec<_>>())?;
                Some(((s.scenario.clone(), s.label.clone()), v))
            })
            .collect()
    }
}

/// Two releases (or more) that behave as one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    pub tags: Vec<String>,
    pub why: GroupWhy,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupWhy {
    /// The same binary (and the same release files): simulated once.
    ByteIdentical { sha256: String },
    /// Releases simulated apart (different binaries, or a binary with different release files;
    /// `binaries` counts the distinct binaries) whose every planned point gave the same summary
    /// (TPOT, TTFT, counts).
    SameMetrics { binaries: usize },
}

/// One release against the one before it (among those with values).
pub struct Step {
    pub from: usize,
    pub to: usize,
    pub comparison: Comparison,
    /// Every planned point gave the same outcome (values and failures alike).
    pub identical: bool,
    /// Identical, and every metrics file the same bytes too.
    pub same_files: bool,
    /// The latency model that ran changed (`from`, `to`).
    pub latency_change: Option<(String, String)>,
    /// Where the default latency model changed: the later release run again with the earlier
    /// one's model pinned, which tells a change of default from a change of the model.
    pub attribution: Option<Attribution>,
}

pub struct Attribution {
    /// The model pinned on the later release (the earlier release's default).
    pub pinned: String,
    /// With it pinned, every planned point gave the earlier release's outcome.
    pub same_as_earlier: bool,
    /// The pinned run against the earlier release (by the rule), when they differ.
    pub comparison: Option<Comparison>,
    /// Why no attribution could be made (the pinned run gave no value on any point): then
    /// neither `same_as_earlier` nor `comparison` says anything.
    pub not_made: Option<String>,
}

impl Attribution {
    /// What pinning `pinned` on the later release gave, judged against the earlier release's
    /// column: no attribution at all when the pinned run has no value on any point (a run
    /// that failed everywhere tells nothing about the model).
    fn of(
        pinned: &str,
        earlier: &Column,
        column: &Column,
        compare: impl FnOnce() -> Result<Comparison, TaskError>,
    ) -> Result<Attribution, TaskError> {
        if column.succeeded == 0 {
            let not_made = format!(
                "the re-run with --latency-model {pinned} pinned gave no value on any of its {} planned points{}",
                column.outcomes.len(),
                why_no_value(column)
            );
            return Ok(Attribution {
                pinned: pinned.into(),
                same_as_earlier: false,
                comparison: None,
                not_made: Some(not_made),
            });
        }
        let same_as_earlier = same_outcomes(earlier, column);
        let comparison = if same_as_earlier { None } else { Some(compare()?) };
        Ok(Attribution { pinned: pinned.into(), same_as_earlier, comparison, not_made: None })
    }
}

/// Why a column has no value, in brackets: its most frequent failure with the count of points
/// it stopped, then how many failed otherwise and how many the release does not model (a point
/// not modelled is no failure, so it never stands for why the run failed).
pub(crate) fn why_no_value(column: &Column) -> String {
    let errors: Vec<&crate::blis::PointFailure> =
        column.outcomes.iter().filter_map(|o| o.result.as_ref().err()).collect();
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for f in errors.iter().filter(|f| f.kind.is_failure()) {
        match counts.iter_mut().find(|(r, _)| *r == f.reason) {
            Some((_, n)) => *n += 1,
            None => counts.push((&f.reason, 1)),
        }
    }
    let not_modelled = errors.iter().filter(|f| f.kind == crate::blis::FailureKind::NotModelled).count();
    let mut parts = Vec::new();
    // The most frequent reason, the first of equals.
    if let Some(&(reason, n)) = counts.iter().rev().max_by_key(|(_, n)| *n) {
        parts.push(format!("the failure on {n} of them: {reason}"));
        let others: usize = counts.iter().map(|(_, n)| n).sum::<usize>() - n;
        if others > 0 {
            parts.push(format!("{others} failed otherwise"));
        }
    }
    if not_modelled > 0 {
        parts.push(format!("{not_modelled} not modelled by this release"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join("; "))
    }
}

/// The first step at which a held figure moved beyond the margin, one way.
pub struct FirstChange {
    pub figure: String,
    pub step: usize,
    pub verdict: Verdict,
}

pub struct History {
    pub rows: Vec<Row>,
    pub steps: Vec<Step>,
    pub groups: Vec<Group>,
    pub firsts: Vec<FirstChange>,
    pub rule: BaselineRule,
    pub form: crate::blis::workload::LengthForm,
    pub pinned_latency_model: Option<String>,
    /// Points planned for every release, and the sweeps they belong to.
    pub planned_points: usize,
    pub planned_sweeps: usize,
    /// Releases run through the binary (the others served another's points or did not run).
    pub distinct_runs: usize,
}

/// What a history needs besides the releases.
pub struct Settings<'a> {
    pub resolved: &'a Resolved<'a>,
    pub plan: Plan,
    /// Run options every release starts from (`RunOptions::for_binary` gives each its own
    /// binary and folder).
    pub template: RunOptions,
    pub rule: BaselineRule,
    /// `--latency-model`: every release that takes the flag runs this model.
    pub latency_model: Option<String>,
    /// Called with each release's tag, column and the earlier release it is the same as, as
    /// it finishes (progress on stderr).
    pub on_release: &'a dyn Fn(&str, &Column, Option<&str>),
}

/// The line said on stderr as a release finishes (`history`, and the gate's `blis-releases`
/// task, whose renderings forward lines that start with `blis: `), after `prefix`.
pub fn release_line(
    prefix: &str,
    tag: &str,
    col: &Column,
    same_as: Option<&str>,
    elapsed: std::time::Duration,
) -> String {
    match same_as {
        Some(earlier) => format!("{prefix}{tag}: the binary and files of {earlier}: its points, not simulated again"),
        None => format!(
            "{prefix}{tag}: {} points with a value, {} failed, {} ran, {} from the cache ({:.0} s so far)",
            col.succeeded,
            col.failed,
            col.ran,
            col.cached,
            elapsed.as_secs_f64()
        ),
    }
}

/// The planned points of `resolved` in `form` (what every release runs).
pub fn plan(resolved: &Resolved, scenarios_dir: &std::path::Path, form: crate::blis::workload::LengthForm) -> Plan {
    let fixtures = match crate::blis::FixtureSet::committed() {
        Ok(f) => f,
        Err(e) => {
            return Plan {
                points: Vec::new(),
                unplannable: vec![(
                    score::PointKey::new("-", "-", 0),
                    format!("the committed fixture vectors cannot be read: {e:#}"),
                )],
            }
        }
    };
    let mut plan = arm::plan(&resolved.sweeps, scenarios_dir, &fixtures, 0);
    for (_, p) in &mut plan.points {
        p.form = form;
    }
    plan
}

/// Runs every release of `listing` over `settings.plan`, then compares and groups them.
pub fn run(listing: &Listing, settings: &Settings) -> Result<History, TaskError> {
    let mut rows: Vec<Row> = Vec::new();
    let mut identities: Vec<(String, usize)> = Vec::new();
    let mut distinct_runs = 0;
    for release in &listing.releases {
        let mut opts = settings.template.for_binary(release.binary.clone());
        opts.latency_model = settings.latency_model.clone();
        let status = match run_release(&opts, settings, &identities, &rows) {
            Ok((mut ran, identity)) => {
                for outcome in &mut ran.column.outcomes {
                    if let Err(f) = &mut outcome.result {
                        f.reason = by_tag(&f.reason, release);
                    }
                }
                if ran.same_as.is_none() {
                    distinct_runs += 1;
                    identities.push((identity, rows.len()));
                }
                (settings.on_release)(&release.tag, &ran.column, ran.same_as.as_deref());
                Status::Ran(Box::new(ran))
            }
            Err(why) => Status::Unusable(by_tag(&why, release)),
        };
        rows.push(Row { tag: release.tag.clone(), version: release.version.clone(), status });
    }
    for r in &listing.rejected {
        rows.push(Row { tag: r.tag.clone(), version: None, status: Status::Rejected(r.reason.clone()) });
    }
    let steps = steps(&rows, listing, settings)?;
    let groups = groups(&rows);
    let firsts = firsts(&steps, &settings.rule);
    let planned_sweeps = {
        let mut sweeps: Vec<(&str, &str)> =
            settings.plan.points.iter().map(|(k, _)| (k.scenario.as_str(), k.label.as_str())).collect();
        sweeps.dedup();
        sweeps.len()
    };
    Ok(History {
        rows,
        steps,
        groups,
        firsts,
        rule: settings.rule.clone(),
        form: settings.template.form.unwrap_or_default(),
        pinned_latency_model: settings.latency_model.clone(),
        planned_points: settings.plan.points.len(),
        planned_sweeps,
        distinct_runs,
    })
}

/// `text` (a reason) with the release's own paths shown by its tag: the binary as `TAG/blis`,
/// its folder as `TAG`, any other path as `paths::display` shows it. The report is snapshotted
/// and holds no machine's paths.
fn by_tag(text: &str, release: &releases::Release) -> String {
    let mut out = text.replace(&release.binary.display().to_string(), &format!("{}/blis", release.tag));
    if let Some(folder) = release.binary.parent().filter(|p| !p.as_os_str().is_empty()) {
        out = out.replace(&folder.display().to_string(), &release.tag);
    }
    let root = crate::paths::workspace_root().display().to_string();
    out.replace(&format!("{root}/"), "")
}

/// One release's column, or why it has none. A release with the binary and files of one
/// already run is served that one's column.
fn run_release(
    opts: &RunOptions,
    settings: &Settings,
    identities: &[(String, usize)],
    rows: &[Row],
) -> Result<(Ran, String), String> {
    // One seal per release: its digest names the row, its identity finds an earlier release
    // with the same binary and files, and its points run in it.
    let sealed = blis::Sealed::of(&opts.binary, &opts.blis_root).map_err(|e| format!("{e:#}"))?;
    let (sha256, identity) = (sealed.binary_sha256().to_string(), sealed.identity());
    if let Some((_, row)) = identities.iter().find(|(id, _)| *id == identity) {
        drop(sealed);
        let earlier = rows[*row].ran().expect("identities name rows that ran");
        // The same binary says the same help: the earlier row's latency model is this one's.
        let ran = Ran {
            sha256,
            latency_model: earlier.latency_model.clone(),
            latency_choices: earlier.latency_choices.clone(),
            takes_latency_flag: earlier.takes_latency_flag,
            column: earlier.column.clone(),
            scored: earlier.scored.clone(),
            same_as: Some(rows[*row].tag.clone()),
        };
        return Ok((ran, identity));
    }
    let column = arm::column_of_plan_sealed(&settings.plan, opts, sealed).map_err(|e| match e {
        TaskError::Refused(r) => r.detail,
        TaskError::Failed(e) => format!("{e:#}"),
    })?;
    let (latency_model, takes_latency_flag, latency_choices) = latency_model(opts, &column.target);
    let arms = score::headline_arms(&settings.resolved.corpora.e2e, Some(column.arm.clone()));
    let mut scored = score::score_resolved(settings.resolved, &arms);
    scored.resamples = settings.rule.resamples;
    Ok((Ran { sha256, latency_model, latency_choices, takes_latency_flag, column, scored, same_as: None }, identity))
}

/// The latency model the release's points ran with, whether it takes `--latency-model`, and
/// the names it offers, as its help said.
fn latency_model(opts: &RunOptions, target: &blis::Target) -> (String, bool, Vec<String>) {
    match target {
        blis::Target::Flags(release) => (
            release.latency_model_run(opts.latency_model.as_deref()),
            release.latency_model.is_some(),
            release.latency_model.as_ref().map(|m| m.choices.clone()).unwrap_or_default(),
        ),
        blis::Target::Scenario => ("the scenario's (scenario dialect)".into(), false, Vec::new()),
    }
}

/// Each release with values against the one before it that has values.
fn steps(rows: &[Row], listing: &Listing, settings: &Settings) -> Result<Vec<Step>, TaskError> {
    let with_values: Vec<usize> = (0..rows.len()).filter(|&i| rows[i].has_values()).collect();
    let mut steps = Vec::new();
    for pair in with_values.windows(2) {
        let (from, to) = (pair[0], pair[1]);
        let (a, b) = (rows[from].ran().unwrap(), rows[to].ran().unwrap());
        let opts_of = |row: &Row| {
            let release = listing.releases.iter().find(|r| r.tag == row.tag).expect("a row that ran was listed");
            settings.template.for_binary(release.binary.clone())
        };
        let comparison = baseline::compare_columns(
            settings.resolved,
            (&opts_of(&rows[to]), &b.column),
            (&opts_of(&rows[from]), &a.column),
            &settings.rule,
        )?;
        let identical = same_outcomes(&a.column, &b.column);
        let same_files = identical && same_files(&a.column, &b.column);
        let latency_change =
            (a.latency_model != b.latency_model).then(|| (a.latency_model.clone(), b.latency_model.clone()));
        let offers = |r: &Ran, name: &str| {
            r.takes_latency_flag && (r.latency_choices.is_empty() || r.latency_choices.iter().any(|c| c == name))
        };
        let attribution = match &latency_change {
            Some((earlier, _)) if !identical && settings.latency_model.is_none() && offers(b, earlier) => {
                let mut pinned = opts_of(&rows[to]);
                pinned.latency_model = Some(earlier.clone());
                let column = arm::column_of_plan(&settings.plan, &pinned)?;
                Some(Attribution::of(earlier, &a.column, &column, || {
                    baseline::compare_columns(
                        settings.resolved,
                        (&pinned, &column),
                        (&opts_of(&rows[from]), &a.column),
                        &settings.rule,
                    )
                })?)
            }
            _ => None,
        };
        steps.push(Step { from, to, comparison, identical, same_files, latency_change, attribution });
    }
    Ok(steps)
}

/// Every planned point has the same summary (TPOT, TTFT, completions and the requests behind
/// each mean), or fails the same way. The metrics files' bytes may differ: releases add
/// fields the arm does not read (docs/releases.md).
fn same_outcomes(a: &Column, b: &Column) -> bool {
    let summary = |m: &crate::blis::PointMetrics| {
        (m.tpot_ms.to_bits(), m.ttft_ms.to_bits(), m.completed, m.tpot_samples, m.ttft_samples)
    };
    a.outcomes.len() == b.outcomes.len()
        && a.outcomes.iter().zip(&b.outcomes).all(|(x, y)| match (&x.result, &y.result) {
            (Ok(m), Ok(n)) => summary(m) == summary(n),
            (Err(f), Err(g)) => f.kind == g.kind,
            _ => false,
        })
}

/// Every point with a value wrote the same metrics file, byte for byte.
fn same_files(a: &Column, b: &Column) -> bool {
    a.outcomes.iter().zip(&b.outcomes).all(|(x, y)| match (&x.result, &y.result) {
        (Ok(m), Ok(n)) => m.metrics_sha256 == n.metrics_sha256,
        _ => true,
    })
}

/// Byte-identical releases, then releases with the same metrics on every point, each group
/// in version order. A release is in at most one group of each kind.
///
/// A byte-identical group is a release and those served its points (`Ran::same_as`): the same
/// identity the points were keyed by, binary and every sealed release file, so "simulated once"
/// is true of every group by construction.
fn groups(rows: &[Row]) -> Vec<Group> {
    let mut groups = Vec::new();
    let ran: Vec<(usize, &Ran)> = rows.iter().enumerate().filter_map(|(i, r)| r.ran().map(|x| (i, x))).collect();
    // Each release's source: the row whose points it has (itself when simulated).
    let source =
        |i: usize, r: &Ran| r.same_as.as_ref().and_then(|tag| rows.iter().position(|row| row.tag == *tag)).unwrap_or(i);
    let mut by_source: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, r) in &ran {
        by_source.entry(source(*i, r)).or_default().push(*i);
    }
    for members in by_source.values().filter(|v| v.len() > 1) {
        let sha256 = rows[members[0]].ran().unwrap().sha256.clone();
        groups.push(Group {
            tags: members.iter().map(|&i| rows[i].tag.clone()).collect(),
            why: GroupWhy::ByteIdentical { sha256 },
        });
    }
    // Classes of equal outcomes among releases with values (byte-identical ones count once
    // more here only when a release simulated apart joins them).
    let mut classes: Vec<Vec<usize>> = Vec::new();
    for (i, r) in ran.iter().filter(|(_, r)| r.column.succeeded > 0) {
        match classes.iter_mut().find(|c| same_outcomes(&rows[c[0]].ran().unwrap().column, &r.column)) {
            Some(c) => c.push(*i),
            None => classes.push(vec![*i]),
        }
    }
    for class in classes {
        let sources: std::collections::BTreeSet<usize> =
            class.iter().map(|&i| source(i, rows[i].ran().unwrap())).collect();
        let binaries: std::collections::BTreeSet<&str> =
            class.iter().map(|&i| rows[i].ran().unwrap().sha256.as_str()).collect();
        if sources.len() > 1 {
            groups.push(Group {
                tags: class.iter().map(|&i| rows[i].tag.clone()).collect(),
                why: GroupWhy::SameMetrics { binaries: binaries.len() },
            });
        }
    }
    groups
}

/// For each held figure, the first step at which it was worse, and the first at which it was
/// better, by the rule.
fn firsts(steps: &[Step], rule: &BaselineRule) -> Vec<FirstChange> {
    let mut out = Vec::new();
    for figure in &rule.figures {
        for verdict in [Verdict::Worse, Verdict::Better] {
            let first = steps
                .iter()
                .position(|s| s.comparison.figures.iter().any(|f| &f.key == figure && f.verdict == verdict));
            if let Some(step) = first {
                out.push(FirstChange { figure: figure.clone(), step, verdict });
            }
        }
    }
    out
}

/// How one planned sweep fared on one release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SweepStatus {
    Modelled,
    NotModelled(String),
    /// A point without a value for another reason (the first such point's).
    Failed(String),
}

impl Ran {
    /// Every planned sweep, in plan order of first appearance.
    pub fn sweeps(&self, plan: &Plan) -> Vec<((String, String), SweepStatus)> {
        let mut out: Vec<((String, String), SweepStatus)> = Vec::new();
        for ((key, _), outcome) in plan.points.iter().zip(&self.column.outcomes) {
            let sweep = (key.scenario.clone(), key.label.clone());
            let status = match &outcome.result {
                Ok(_) => SweepStatus::Modelled,
                Err(f) if f.kind == crate::blis::FailureKind::NotModelled => SweepStatus::NotModelled(f.reason.clone()),
                Err(f) => SweepStatus::Failed(format!("c={}: {}", key.concurrency, f.reason)),
            };
            match out.iter_mut().find(|(s, _)| *s == sweep) {
                None => out.push((sweep, status)),
                // The worst of its points: failed over not modelled over modelled.
                Some((_, have)) => match (&*have, &status) {
                    (SweepStatus::Failed(_), _) => {}
                    (_, SweepStatus::Failed(_)) => *have = status,
                    (SweepStatus::Modelled, SweepStatus::NotModelled(_)) => *have = status,
                    _ => {}
                },
            }
        }
        for (key, why) in &plan.unplannable {
            let sweep = (key.scenario.clone(), key.label.clone());
            if !out.iter().any(|(s, _)| *s == sweep) {
                out.push((sweep, SweepStatus::Failed(format!("not planned: {why}"))));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blis::{FailureKind, PointFailure, PointOutcome};

    fn column(results: Vec<Result<crate::blis::PointMetrics, PointFailure>>) -> Column {
        let succeeded = results.iter().filter(|r| r.is_ok()).count();
        Column {
            arm: crate::score::Arm::simulated("BLIS", "blis", BTreeMap::new()),
            notes: Vec::new(),
            sweep_notes: Vec::new(),
            succeeded,
            failed: results.len() - succeeded,
            not_modelled_sweeps: 0,
            modelled_sweeps: 0,
            outcomes: results
                .into_iter()
                .map(|result| PointOutcome {
                    key: String::new(),
                    label: "m c=1".into(),
                    result,
                    cached: false,
                    elapsed: std::time::Duration::ZERO,
                    cost: None,
                    run: None,
                    cwd: Default::default(),
                    key_files: Vec::new(),
                })
                .collect(),
            ran: 0,
            cached: 0,
            form: Default::default(),
            binary_sha256: String::new(),
            target: crate::blis::Target::Scenario,
            info: Default::default(),
        }
    }

    fn failed(why: &str) -> Result<crate::blis::PointMetrics, PointFailure> {
        Err(PointFailure { kind: FailureKind::Exit, reason: why.into(), stderr_tail: Vec::new() })
    }

    /// A pinned re-run that failed on every point tells nothing about the latency model: the
    /// attribution is not made (and says why), never "the latency model itself changed".
    #[test]
    fn a_pinned_rerun_failing_on_every_point_makes_no_attribution() {
        let earlier = column(vec![failed("x")]);
        let pinned = column(vec![failed("exit status 1: unknown --latency-model"), failed("exit status 1")]);
        let compare = || -> Result<Comparison, TaskError> { panic!("nothing to compare") };
        let a = Attribution::of("roofline", &earlier, &pinned, compare).unwrap();
        assert!(!a.same_as_earlier && a.comparison.is_none());
        let why = a.not_made.unwrap();
        assert!(why.contains("roofline pinned gave no value on any of its 2 planned points"), "{why}");
        assert!(
            why.ends_with("(the failure on 1 of them: exit status 1: unknown --latency-model; 1 failed otherwise)"),
            "{why}"
        );
    }

    fn not_modelled(why: &str) -> Result<crate::blis::PointMetrics, PointFailure> {
        Err(PointFailure { kind: FailureKind::NotModelled, reason: why.into(), stderr_tail: Vec::new() })
    }

    /// A point the release cannot model is no failure: the attribution names the error that
    /// stopped the run, with its count, and counts the not-modelled apart.
    #[test]
    fn a_pinned_rerun_names_the_failure_that_stopped_it_not_a_point_it_does_not_model() {
        let earlier = column(vec![failed("x")]);
        let pinned = column(vec![
            not_modelled("hardware b200 is not in hardware_config.json"),
            failed("roofline is broken here"),
            failed("roofline is broken here"),
        ]);
        let compare = || -> Result<Comparison, TaskError> { panic!("nothing to compare") };
        let why = Attribution::of("roofline", &earlier, &pinned, compare).unwrap().not_made.unwrap();
        assert_eq!(
            why,
            "the re-run with --latency-model roofline pinned gave no value on any of its 3 planned points \
             (the failure on 2 of them: roofline is broken here; 1 not modelled by this release)"
        );
    }

    #[test]
    fn a_reason_shows_the_release_by_its_tag_not_the_machine_path() {
        let release = releases::Release {
            tag: "v0.7.13".into(),
            version: None,
            binary: "/srv/team/releases/v0.7.13/blis".into(),
        };
        let why = "reading /srv/team/releases/v0.7.13/defaults.yaml: /srv/team/releases/v0.7.13/blis crashed";
        assert_eq!(by_tag(why, &release), "reading v0.7.13/defaults.yaml: v0.7.13/blis crashed");
    }
}
