//! The figure manifest (`harness/figures.yaml`): every figure of PUBLISHED-FIGURES.md with where
//! it is published, the task computing it, the value and tolerance we must meet and why, and the
//! snapshot pinning our output. Figures we cannot compute stay, with the input they lack.

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

pub use crate::blis::baseline::BaselineRule;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Named tolerances, each with its justification, referenced by figures.
    pub tolerances: BTreeMap<String, Tolerance>,
    /// Inputs no flag of ours supplies (NVIDIA's tables, an earlier corpus release, ...).
    pub external_inputs: BTreeMap<String, ExternalInput>,
    pub figures: Vec<Figure>,
    /// When a candidate `blis` is worse than the baseline release (`--baseline-blis`).
    #[serde(default)]
    pub baseline_rule: Option<BaselineRule>,
    /// The BLIS column of each tagged release, one row per release and tier; [`Manifest::parse`]
    /// expands it into `figures` (`blis-release/<tag>/<tier>/<figure>`).
    #[serde(default)]
    pub release_figures: Option<ReleaseFigures>,
}

/// Figures computed here for tagged releases (not published): the same eight figures per
/// release and tier, written as one row each instead of eight figure entries. The task's values
/// are `<tag>.<tier>.blis.<metric>` and `<tag>.<tier>.<count>`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseFigures {
    pub task: String,
    pub snapshot: String,
    /// The tolerance of the numbers (the counts are exact).
    pub tolerance: String,
    /// How the figures were computed, as the report shows it in place of a published text.
    pub published_text: String,
    /// In the order the report lists them (version order).
    pub releases: Vec<ReleaseRow>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseRow {
    /// The tag, or the commit of an untagged build (as `lockfiles/blis-releases.lock` names it).
    pub tag: String,
    /// The snapshot pinning this row's report, when not the section's (a build no folder of
    /// releases holds is pinned on its own).
    pub snapshot: Option<String>,
    /// Sweeps the build models, and points of them that failed (`<tag>.modelled_sweeps`,
    /// `<tag>.failed_points`).
    pub modelled_sweeps: Option<u64>,
    pub failed_points: Option<u64>,
    pub strict: Option<TierFigures>,
    pub measured_or_resolved: Option<TierFigures>,
    pub all: Option<TierFigures>,
}

/// One release's figures in one tier; a figure left out has no entry (no value expected).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierFigures {
    pub tpot_shape: Option<String>,
    pub tpot_mape: Option<String>,
    pub ttft_shape: Option<String>,
    pub ttft_mape: Option<String>,
    pub n_shape: Option<u64>,
    pub n_mape: Option<u64>,
    pub n_ttft_shape: Option<u64>,
    pub n_ttft_mape: Option<u64>,
}

impl ReleaseFigures {
    /// Every row as manifest figures (`blis-release/<tag>/...`).
    fn expand(&self) -> Vec<Figure> {
        let mut figures = Vec::new();
        for row in &self.releases {
            let snapshot = row.snapshot.clone().unwrap_or_else(|| self.snapshot.clone());
            let build = [
                (
                    "modelled-sweeps",
                    "modelled_sweeps",
                    "vLLM sweeps whose every point the build can model",
                    row.modelled_sweeps,
                ),
                (
                    "failed-points",
                    "failed_points",
                    "points of the modelled sweeps that failed to run or summarize",
                    row.failed_points,
                ),
            ];
            for (name, key, what, value) in build {
                let Some(value) = value else { continue };
                figures.push(Figure {
                    id: format!("blis-release/{}/{name}", row.tag),
                    what: format!("{what} (inference-sim {})", row.tag),
                    document: format!("blis-release {} (new, computed here; not published)", row.tag),
                    section: "-".into(),
                    task: Some(self.task.clone()),
                    key: Some(format!("{}.{key}", row.tag)),
                    needs: Vec::new(),
                    expect: Expect::Count(value),
                    tolerance: None,
                    published_text: Some(self.published_text.clone()),
                    snapshot: Some(snapshot.clone()),
                    note: None,
                });
            }
            let tiers = [
                (oracles::tiers::Tier::Strict, &row.strict),
                (oracles::tiers::Tier::MeasuredOrResolved, &row.measured_or_resolved),
                (oracles::tiers::Tier::All, &row.all),
            ];
            for (tier, values) in tiers {
                let Some(v) = values else { continue };
                let numbers = [
                    ("tpot-shape", "tpot_shape", "BLIS TPOT shape error (mean |e|, %)", &v.tpot_shape),
                    ("tpot-mape", "tpot_mape", "BLIS TPOT MAPE (%)", &v.tpot_mape),
                    ("ttft-shape", "ttft_shape", "BLIS TTFT shape error (mean |e|, %)", &v.ttft_shape),
                    ("ttft-mape", "ttft_mape", "BLIS TTFT MAPE (%)", &v.ttft_mape),
                ];
                let counts = [
                    ("n-shape", "n_shape", "TPOT shape comparisons behind the BLIS column", v.n_shape),
                    ("n-mape", "n_mape", "TPOT MAPE points behind the BLIS column", v.n_mape),
                    ("ttft-n-shape", "n_ttft_shape", "TTFT shape comparisons behind the BLIS column", v.n_ttft_shape),
                    ("ttft-n-mape", "n_ttft_mape", "TTFT MAPE points behind the BLIS column", v.n_ttft_mape),
                ];
                let figure = |name: &str, key: String, what: &str, expect: Expect, tolerance: Option<String>| Figure {
                    id: format!("blis-release/{}/{}/{name}", row.tag, tier.key()),
                    what: format!(
                        "{what} of inference-sim {} over the vLLM sweeps it models, {} tier",
                        row.tag,
                        tier.title()
                    ),
                    document: format!("blis-release {} (new, computed here; not published)", row.tag),
                    section: "-".into(),
                    task: Some(self.task.clone()),
                    key: Some(key),
                    needs: Vec::new(),
                    expect,
                    tolerance,
                    published_text: Some(self.published_text.clone()),
                    snapshot: Some(snapshot.clone()),
                    note: None,
                };
                for (name, metric, what, value) in numbers {
                    if let Some(value) = value {
                        let key = format!("{}.{}.blis.{metric}", row.tag, tier.key());
                        figures.push(figure(
                            name,
                            key,
                            what,
                            Expect::Number(value.clone()),
                            Some(self.tolerance.clone()),
                        ));
                    }
                }
                for (name, count, what, value) in counts {
                    if let Some(value) = value {
                        let key = format!("{}.{}.{count}", row.tag, tier.key());
                        figures.push(figure(name, key, what, Expect::Count(value), None));
                    }
                }
            }
        }
        figures
    }
}

impl Manifest {
    /// The baseline rule of the manifest at `path`, or an error naming the file and the section.
    pub fn rule(&self, path: &Path) -> Result<BaselineRule> {
        self.baseline_rule.clone().ok_or_else(|| {
            anyhow::anyhow!(
                "{}: no `baseline_rule` section: --baseline-blis needs the margin and the figures it holds",
                path.display()
            )
        })
    }
}

/// The `TIER.METRIC` keys a baseline rule may name.
pub fn baseline_figure_keys() -> Vec<String> {
    let mut keys = Vec::new();
    for tier in oracles::tiers::Tier::ORDER {
        for m in crate::score::ErrorMetric::ALL {
            keys.push(format!("{}.{}", tier.key(), m.key()));
        }
    }
    keys
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Absolute tolerance; absent means "half a unit in the last published digit".
    pub abs: Option<f64>,
    pub why: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalInput {
    pub what: String,
    pub supplied_by: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    pub id: String,
    pub what: String,
    /// e.g. `PUBLISHED-FIGURES.md`.
    pub document: String,
    /// The section number in that document, e.g. `3`.
    pub section: String,
    /// A task of `gate::tasks`, or absent when only external inputs could compute it.
    pub task: Option<String>,
    /// The key of the task output holding our value.
    pub key: Option<String>,
    /// Inputs this figure needs beyond its task's (e.g. `blis` for the BLIS column), by
    /// `InputKind` name or `external_inputs` name.
    #[serde(default)]
    pub needs: Vec<String>,
    #[serde(deserialize_with = "one_expectation")]
    pub expect: Expect,
    pub tolerance: Option<String>,
    /// The text as it stands in the document, when it differs from the value's own spelling.
    pub published_text: Option<String>,
    pub snapshot: Option<String>,
    pub note: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// A real, written as published (a string, so `25.30` keeps its digits).
    Number(String),
    Count(u64),
    Check(bool),
    Text(String),
}

/// `expect: {number: "10.05"}` and friends: a map with exactly one of the four kinds.
fn one_expectation<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Expect, D::Error> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Raw {
        number: Option<String>,
        count: Option<u64>,
        check: Option<bool>,
        text: Option<String>,
    }
    let raw = Raw::deserialize(d)?;
    match (raw.number, raw.count, raw.check, raw.text) {
        (Some(n), None, None, None) => Ok(Expect::Number(n)),
        (None, Some(c), None, None) => Ok(Expect::Count(c)),
        (None, None, Some(b), None) => Ok(Expect::Check(b)),
        (None, None, None, Some(t)) => Ok(Expect::Text(t)),
        _ => Err(serde::de::Error::custom("expect takes exactly one of number, count, check, text")),
    }
}

impl Expect {
    /// The value spelt as the document spells it (before any `published_text` override).
    pub fn spelling(&self) -> String {
        match self {
            Expect::Number(s) | Expect::Text(s) => s.clone(),
            Expect::Count(n) => n.to_string(),
            Expect::Check(b) => b.to_string(),
        }
    }
}

/// Where a figure's expected value comes from, so no report calls a value of ours "published".
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpectedSource {
    /// Upstream published it (its document and section say where).
    Published,
    /// Nobody published it: it was computed here and committed to the manifest.
    ComputedHere,
}

impl Figure {
    pub fn published_text(&self) -> String {
        self.published_text.clone().unwrap_or_else(|| self.expect.spelling())
    }

    /// The manifest marks a figure nobody published by its document ("new, computed here ...",
    /// the release rows included); the manifest's check of itself is ours too.
    pub fn expected_source(&self) -> ExpectedSource {
        if self.document.contains("computed here") || self.document == "harness/figures.yaml" {
            ExpectedSource::ComputedHere
        } else {
            ExpectedSource::Published
        }
    }
}

impl Manifest {
    /// Reads and checks the manifest at `path`; `known_tasks` are the task names a figure may
    /// give (the gate passes `tasks::names()`, tests their own).
    pub fn load(path: &Path, known_tasks: &[&str]) -> Result<Manifest> {
        let text = crate::read::text(path).context("reading the figure manifest")?;
        Manifest::parse(&text, path, known_tasks)
    }

    /// Parses and checks a manifest; `origin` names it in errors.
    pub fn parse(text: &str, origin: &Path, known_tasks: &[&str]) -> Result<Manifest> {
        let path = origin;
        let mut manifest: Manifest =
            serde_yaml::from_str(text).with_context(|| format!("{}: not a valid figure manifest", path.display()))?;
        if let Some(rows) = &manifest.release_figures {
            let expanded = rows.expand();
            manifest.figures.extend(expanded);
        }
        let problems = manifest.problems(known_tasks);
        if !problems.is_empty() {
            bail!("{}: {} problem(s):\n  {}", path.display(), problems.len(), problems.join("\n  "));
        }
        Ok(manifest)
    }

    /// The absolute tolerance a number figure is held to.
    pub fn tolerance_of(&self, figure: &Figure) -> Option<f64> {
        let Expect::Number(published) = &figure.expect else { return None };
        let tolerance = self.tolerances.get(figure.tolerance.as_deref()?)?;
        Some(tolerance.abs.unwrap_or_else(|| half_last_digit(published)))
    }

    /// Every inconsistency at once, so one run shows them all.
    pub fn problems(&self, known_tasks: &[&str]) -> Vec<String> {
        let mut problems = Vec::new();
        let mut ids = BTreeSet::new();
        let mut used_tolerances = BTreeSet::new();
        let valid_needs: BTreeSet<String> = crate::inputs::InputKind::ALL
            .iter()
            .map(|k| k.name().to_string())
            .chain(self.external_inputs.keys().cloned())
            .collect();
        for f in &self.figures {
            let at = format!("figure `{}`", f.id);
            if !ids.insert(f.id.as_str()) {
                problems.push(format!("{at}: duplicate id"));
            }
            if f.id.is_empty()
                || !f.id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "/-_.".contains(c))
            {
                problems.push(format!("{at}: id must be lowercase ascii, digits and / - _ ."));
            }
            match (&f.task, &f.key) {
                (Some(task), Some(_)) if !known_tasks.contains(&task.as_str()) => {
                    problems.push(format!("{at}: unknown task `{task}`"))
                }
                (Some(_), None) => problems.push(format!("{at}: a task needs a `key`")),
                (None, Some(_)) => problems.push(format!("{at}: a `key` without a task")),
                (None, None) if !f.needs.iter().any(|n| self.external_inputs.contains_key(n)) => {
                    problems.push(format!("{at}: no task and no external input that would compute it"))
                }
                _ => {}
            }
            if f.task.is_some() && f.snapshot.is_none() {
                problems.push(format!("{at}: a computed figure needs the snapshot that pins it"));
            }
            if let Some(snap) = &f.snapshot {
                if !is_snapshot_name(snap) {
                    problems.push(format!("{at}: snapshot `{snap}` is not of the form `group__what_it_pins`"));
                }
            }
            for need in &f.needs {
                if !valid_needs.contains(need) {
                    problems.push(format!("{at}: unknown input `{need}`"));
                }
            }
            match (&f.expect, &f.tolerance) {
                (Expect::Number(s), Some(t)) => {
                    if s.parse::<f64>().map_or(true, |v| !v.is_finite()) {
                        problems.push(format!("{at}: `{s}` is not a number"));
                    }
                    if self.tolerances.contains_key(t) {
                        used_tolerances.insert(t.as_str());
                    } else {
                        problems.push(format!("{at}: unknown tolerance `{t}`"));
                    }
                }
                (Expect::Number(_), None) => problems.push(format!("{at}: a number needs a tolerance")),
                (_, Some(_)) => problems.push(format!("{at}: only numbers take a tolerance")),
                _ => {}
            }
            if f.document.is_empty() || f.section.is_empty() || f.what.is_empty() {
                problems.push(format!("{at}: document, section and what are required"));
            }
        }
        for row in self.release_figures.iter().flat_map(|r| &r.releases) {
            if row.strict.is_none() && row.measured_or_resolved.is_none() && row.all.is_none() {
                problems.push(format!("release_figures: release `{}` names no tier", row.tag));
            }
        }
        if let Some(rule) = &self.baseline_rule {
            if !rule.margin.is_finite() || rule.margin < 0.0 {
                problems.push(format!("baseline_rule: margin {} must be a finite number of at least 0", rule.margin));
            }
            if rule.why.trim().is_empty() {
                problems.push("baseline_rule: `why` must say why the margin is what it is".to_string());
            }
            if let Err(e) = oracles::bootstrap::check_resamples(rule.resamples) {
                problems.push(format!("baseline_rule: resamples: {e}"));
            }
            if rule.figures.is_empty() {
                problems.push("baseline_rule: `figures` names no figure".to_string());
            }
            let known = baseline_figure_keys();
            for f in &rule.figures {
                if !known.contains(f) {
                    problems.push(format!("baseline_rule: unknown figure `{f}`, expected one of {}", known.join(", ")));
                }
            }
        }
        // A release row may name its own snapshot: it pins the task run on that build alone.
        let row_snapshots: Vec<&str> =
            self.release_figures.iter().flat_map(|r| &r.releases).filter_map(|r| r.snapshot.as_deref()).collect();
        let mut snapshot_of_task: BTreeMap<&str, &str> = BTreeMap::new();
        for f in &self.figures {
            if let (Some(task), Some(snap)) = (f.task.as_deref(), f.snapshot.as_deref()) {
                if row_snapshots.contains(&snap) {
                    continue;
                }
                match snapshot_of_task.insert(task, snap) {
                    Some(other) if other != snap => problems.push(format!(
                        "task `{task}` is pinned by two snapshots, `{other}` and `{snap}`: one task, one snapshot"
                    )),
                    _ => {}
                }
            }
        }
        for (name, t) in &self.tolerances {
            // An infinite tolerance passes everything and a negative one nothing: both are typos.
            if let Some(abs) = t.abs.filter(|a| !a.is_finite() || *a < 0.0) {
                problems.push(format!("tolerance `{name}`: `abs` must be a finite number >= 0, found {abs}"));
            }
            if !used_tolerances.contains(name.as_str()) {
                problems.push(format!("tolerance `{name}` is used by no figure"));
            }
        }
        for name in self.external_inputs.keys() {
            if !self.figures.iter().any(|f| f.needs.contains(name)) {
                problems.push(format!("external input `{name}` is needed by no figure"));
            }
        }
        problems
    }
}

/// `10.05` -> 0.005, `8.2` -> 0.05, `432` -> 0.5.
pub fn half_last_digit(published: &str) -> f64 {
    let decimals = published.split_once('.').map_or(0, |(_, frac)| frac.len());
    0.5 * 10f64.powi(-(decimals as i32))
}

fn is_snapshot_name(name: &str) -> bool {
    let ok_part =
        |p: &str| !p.is_empty() && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    matches!(name.split_once("__"), Some((group, what)) if ok_part(group) && ok_part(what))
}
