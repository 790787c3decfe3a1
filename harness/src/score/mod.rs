//! The corpus scorer behind `cargo xtask score` and the headline figures of
//! PUBLISHED-FIGURES.md section 3 (upstream: IS `cmd/metricscore`, `cmd/kernelscore`).
//!
//! Arms are data. Each [`Arm`] is a name and a map from (scenario, label, concurrency) to the
//! arm's TPOT and TTFT at that point: relatives for a published arm (AISimulate and AIC, read
//! from `aisimulate_e2e.json`), milliseconds for a simulated arm (BLIS, from
//! `harness::blis`). The scorer has no code path per arm: it selects sweeps, assigns tiers,
//! drops sweeps an arm cannot score whole, and applies the definitions of
//! `oracles::scoring` to every arm the same way. An arm that was not run is
//! [`Arm::not_run`] and its cells say why.
//!
//! Plugging the BLIS arm in:
//! ```no_run
//! # use std::collections::BTreeMap;
//! # use harness::score::*;
//! # fn f(corpora: &Corpora, scenarios: &harness::corpus::scenario::ScenarioSet) {
//! let mut blis_ms: BTreeMap<PointKey, ArmPoint> = BTreeMap::new();
//! blis_ms.insert(PointKey::new("x.yaml", "1k1k", 4), ArmPoint { tpot: Some(12.5), ttft: Some(80.0) });
//! let arms = headline_arms(&corpora.e2e, Some(Arm::simulated("BLIS", "blis", blis_ms)));
//! let scored = score(corpora, scenarios, &arms, &Selection::vllm(None));
//! # }
//! ```

pub mod gaps;
pub mod headline;
pub mod intervals;
pub mod render;
pub mod resolve;
pub mod settings;

pub use headline::{headline_output, task_headline, BlisColumn, BlisSource, RefusedCells};

use crate::corpus::e2e::{E2eCorpus, Status, Sweep};
use crate::corpus::scenario::ScenarioSet;
use anyhow::Result;
use oracles::scoring;
use oracles::tiers::{self, ConfigTier, Tier};
use std::collections::{BTreeMap, BTreeSet};

pub use crate::corpus::corpora::{
    load_inputs, load_scoreable, Corpora, ScoreableRow, ABSOLUTES_FILE, E2E_FILE, SCOREABLE_FILE, SETTINGS_FILE,
};

/// (scenario, label, concurrency): one measured point.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PointKey {
    pub scenario: String,
    pub label: String,
    pub concurrency: u32,
}

impl PointKey {
    pub fn new(scenario: &str, label: &str, concurrency: u32) -> PointKey {
        PointKey { scenario: scenario.to_string(), label: label.to_string(), concurrency }
    }
}

/// An arm's value at one point: relatives for a published arm, milliseconds for a simulated
/// one. `None` is "no value" and drops the sweep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ArmPoint {
    pub tpot: Option<f64>,
    pub ttft: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArmKind {
    /// Values are relatives to the measured anchor (MAPE against the measured relative).
    Published,
    /// Values are absolute milliseconds (MAPE against `inferencex_absolutes.json`).
    Simulated,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArmRun {
    Ran(BTreeMap<PointKey, ArmPoint>),
    /// Why there are no values, e.g. "needs --blis PATH".
    NotRun(String),
}

/// One predictor to score.
#[derive(Clone, Debug, PartialEq)]
pub struct Arm {
    /// As printed: `BLIS`, `AISimulate`, `AIC`.
    pub name: String,
    /// As in value keys: `blis`, `aisimulate`, `aic`.
    pub key: String,
    pub kind: ArmKind,
    pub run: ArmRun,
}

impl Arm {
    pub fn simulated(name: &str, key: &str, points_ms: BTreeMap<PointKey, ArmPoint>) -> Arm {
        Arm { name: name.into(), key: key.into(), kind: ArmKind::Simulated, run: ArmRun::Ran(points_ms) }
    }

    pub fn not_run(name: &str, key: &str, kind: ArmKind, why: &str) -> Arm {
        Arm { name: name.into(), key: key.into(), kind, run: ArmRun::NotRun(why.into()) }
    }

    /// AISimulate's or AIC's predictions as the e2e corpus publishes them.
    pub fn published(
        e2e: &E2eCorpus,
        name: &str,
        key: &str,
        pick: fn(&crate::corpus::e2e::SweepPoint) -> ArmPoint,
    ) -> Arm {
        let points = e2e
            .sweeps
            .iter()
            .flat_map(|s| s.points.iter().map(move |p| (PointKey::new(&s.scenario, &s.label, p.concurrency), pick(p))))
            .collect();
        Arm { name: name.into(), key: key.into(), kind: ArmKind::Published, run: ArmRun::Ran(points) }
    }

    pub fn is_run(&self) -> bool {
        matches!(self.run, ArmRun::Ran(_))
    }
}

/// The two arms that ship inside the corpus.
pub fn corpus_arms(e2e: &E2eCorpus) -> Vec<Arm> {
    vec![
        Arm::published(e2e, "AISimulate", "aisimulate", |p| ArmPoint {
            tpot: p.aisimulate_tpot_relative,
            ttft: p.aisimulate_ttft_relative,
        }),
        Arm::published(e2e, "AIC", "aic", |p| ArmPoint { tpot: p.aic_tpot_relative, ttft: p.aic_ttft_relative }),
    ]
}

/// The headline's arms in the published order (BLIS / AISimulate / AIC); `blis` is `None`
/// when no binary was given.
pub fn headline_arms(e2e: &E2eCorpus, blis: Option<Arm>) -> Vec<Arm> {
    let blis = blis.unwrap_or_else(|| Arm::not_run("BLIS", "blis", ArmKind::Simulated, "needs --blis PATH"));
    let mut arms = vec![blis];
    arms.extend(corpus_arms(e2e));
    arms
}

/// Which sweeps a run scores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub framework: String,
    pub config_tier: Option<ConfigTier>,
}

impl Selection {
    pub fn vllm(config_tier: Option<ConfigTier>) -> Selection {
        Selection { framework: "vllm".into(), config_tier }
    }
}

/// The four error lists of one arm on one sweep; each entry is (concurrency, signed %).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ArmErrors {
    pub tpot_shape: Vec<(u32, f64)>,
    pub tpot_mape: Vec<(u32, f64)>,
    pub ttft_shape: Vec<(u32, f64)>,
    pub ttft_mape: Vec<(u32, f64)>,
}

/// The four error figures of a headline row, in table order: a latency metric
/// (`oracles::accuracy::Metric`) scored by shape error or by MAPE.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ErrorMetric {
    TpotShape,
    TpotMape,
    TtftShape,
    TtftMape,
}

impl ErrorMetric {
    pub const ALL: [ErrorMetric; 4] =
        [ErrorMetric::TpotShape, ErrorMetric::TpotMape, ErrorMetric::TtftShape, ErrorMetric::TtftMape];
    pub fn key(self) -> &'static str {
        match self {
            ErrorMetric::TpotShape => "tpot_shape",
            ErrorMetric::TpotMape => "tpot_mape",
            ErrorMetric::TtftShape => "ttft_shape",
            ErrorMetric::TtftMape => "ttft_mape",
        }
    }
    /// The value key of the count behind the metric's figure (comparisons or points), as the
    /// headline names it: `<tier>.n_shape`, `n_mape`, `n_ttft_shape`, `n_ttft_mape`.
    pub fn count_key(self) -> &'static str {
        match self {
            ErrorMetric::TpotShape => "n_shape",
            ErrorMetric::TpotMape => "n_mape",
            ErrorMetric::TtftShape => "n_ttft_shape",
            ErrorMetric::TtftMape => "n_ttft_mape",
        }
    }
    pub fn title(self) -> &'static str {
        match self {
            ErrorMetric::TpotShape => "TPOT shape",
            ErrorMetric::TpotMape => "TPOT mape",
            ErrorMetric::TtftShape => "TTFT shape",
            ErrorMetric::TtftMape => "TTFT mape",
        }
    }
}

impl ArmErrors {
    pub fn get(&self, m: ErrorMetric) -> &[(u32, f64)] {
        match m {
            ErrorMetric::TpotShape => &self.tpot_shape,
            ErrorMetric::TpotMape => &self.tpot_mape,
            ErrorMetric::TtftShape => &self.ttft_shape,
            ErrorMetric::TtftMape => &self.ttft_mape,
        }
    }
}

/// A sweep that was scored.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredSweep {
    pub scenario: String,
    pub label: String,
    pub model: String,
    pub gpu: String,
    pub framework: String,
    /// The tightest tier it belongs to.
    pub tier: Tier,
    /// Measured TPOT relative strictly increasing with concurrency.
    pub monotone: bool,
    /// Comparisons per metric, whatever arms ran (TPOT shape: points - 1; TPOT mape: points;
    /// TTFT: the same without the excursions).
    pub comparisons: BTreeMap<ErrorMetric, usize>,
    /// One entry per arm, in the order of the arms; `None` for an arm not run.
    pub errors: Vec<Option<ArmErrors>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    pub scenario: String,
    pub label: String,
    pub reason: String,
}

/// A measured TTFT excursion, excluded from TTFT metrics for every arm.
#[derive(Clone, Debug, PartialEq)]
pub struct Excursion {
    pub scenario: String,
    pub label: String,
    pub concurrency: u32,
    pub measured_ttft_rel: f64,
    pub neighbours: (f64, f64),
}

/// Everything a score run found; [`render`] turns it into the report.
#[derive(Clone, Debug)]
pub struct Scored {
    pub corpus_source: String,
    pub release: String,
    pub selection: Selection,
    pub arms: Vec<(String, String, Option<String>)>,
    pub sweeps: Vec<ScoredSweep>,
    pub dropped: Vec<Dropped>,
    pub excursions: Vec<Excursion>,
    /// Points of the scored sweeps that run with prefix caching on.
    pub prefix_caching_points: usize,
    /// Points of the scored sweeps per (tracked setting, provenance).
    pub provenance_counts: BTreeMap<(&'static str, tiers::Provenance), usize>,
    /// Keys runs passed that the scenario schema cannot express, over the selection.
    pub inexpressible_keys: BTreeSet<String>,
    /// Resamples per interval (`--resamples`; `oracles::bootstrap::DEFAULT_RESAMPLES`).
    pub resamples: usize,
}

/// Aggregate of one tier (or any subset of sweeps).
#[derive(Clone, Debug, PartialEq)]
pub struct Aggregate {
    pub sweeps: usize,
    /// Comparison counts per metric (the same for every arm: sweeps are dropped for all, and
    /// counted even when no arm ran).
    pub n: BTreeMap<ErrorMetric, usize>,
    /// Mean |e| per (arm index, metric); `None` on an arm not run or no comparisons.
    pub mean_abs: BTreeMap<(usize, ErrorMetric), Option<f64>>,
    /// The 95% bootstrap interval of each mean |e| that has a value (`intervals::cell`).
    pub interval: BTreeMap<(usize, ErrorMetric), intervals::CellInterval>,
}

impl Aggregate {
    /// `9.64 [8.90, 10.41]`, or `None` when the cell has no value.
    pub fn cell_text(&self, arm: usize, m: ErrorMetric) -> Option<String> {
        let v = self.mean_abs.get(&(arm, m)).copied().flatten()?;
        Some(intervals::with_interval(v, self.interval.get(&(arm, m))))
    }
}

impl Scored {
    /// Sweeps whose tightest tier is within `tier`.
    pub fn in_tier(&self, tier: Tier) -> impl Iterator<Item = &ScoredSweep> {
        self.sweeps.iter().filter(move |s| tiers::in_tier(s.tier, tier))
    }

    pub fn aggregate<'a>(&self, sweeps: impl Iterator<Item = &'a ScoredSweep>) -> Aggregate {
        let sweeps: Vec<&ScoredSweep> = sweeps.collect();
        let mut n = BTreeMap::new();
        let mut mean_abs = BTreeMap::new();
        let mut interval = BTreeMap::new();
        for m in ErrorMetric::ALL {
            // counts from the first run arm; every run arm has the same by construction
            let count = sweeps.iter().map(|s| s.comparisons[&m]).sum();
            n.insert(m, count);
            for (i, _) in self.arms.iter().enumerate() {
                let errors: Option<Vec<f64>> = sweeps
                    .iter()
                    .map(|s| s.errors[i].as_ref().map(|e| e.get(m).iter().map(|x| x.1).collect::<Vec<_>>()))
                    .collect::<Option<Vec<_>>>()
                    .map(|v| v.concat());
                let mean = errors.and_then(|e| scoring::mean_abs(&e));
                if mean.is_some() {
                    if let Some(ci) = intervals::cell(&sweeps, i, m, self.resamples) {
                        interval.insert((i, m), ci);
                    }
                }
                mean_abs.insert((i, m), mean);
            }
        }
        Aggregate { sweeps: sweeps.len(), n, mean_abs, interval }
    }

    /// The tier aggregates in table order.
    pub fn tiers(&self) -> Vec<(Tier, Aggregate)> {
        Tier::ORDER.iter().map(|&t| (t, self.aggregate(self.in_tier(t)))).collect()
    }
}

/// Scores `arms` on the sweeps `selection` picks (resolved here; see [`score_resolved`] to
/// score sweeps already resolved for the BLIS arm).
pub fn score(corpora: &Corpora, scenarios: &ScenarioSet, arms: &[Arm], selection: &Selection) -> Scored {
    score_resolved(&resolve::resolve(corpora, scenarios, None, selection), arms)
}

/// A selection scored with a BLIS column, two ways (issue 23): the corpus arms over every sweep
/// of the selection, as they were published, whatever the binary models; and every arm over the
/// sweeps the BLIS column has values for (the comparison a release's own figures make).
pub struct SplitScore {
    pub corpus: Scored,
    pub with_blis: Scored,
}

pub fn score_split(resolved: &resolve::Resolved, blis: Arm) -> SplitScore {
    let e2e = &resolved.corpora.e2e;
    SplitScore {
        corpus: score_resolved(resolved, &corpus_arms(e2e)),
        with_blis: score_resolved(resolved, &headline_arms(e2e, Some(blis))),
    }
}

impl SplitScore {
    /// The corpus report (every table, the corpus arms over the whole selection), then the
    /// headline of every arm over the sweeps with a BLIS value, each tier with its own n.
    pub fn report(&self) -> String {
        let all = self.with_blis.aggregate(self.with_blis.sweeps.iter());
        format!(
            "{}
## BLIS and the comparison arms over the {} sweeps with a BLIS value (not the published selection)

{}",
            render::report(&self.corpus),
            all.sweeps,
            render::headline(&self.with_blis)
        )
    }
}

/// Scores `arms` on the sweeps of `resolved` (`resolve::resolve`).
pub fn score_resolved(resolved: &resolve::Resolved, arms: &[Arm]) -> Scored {
    let (corpora, scenarios, selection) = (resolved.corpora, resolved.scenarios, &resolved.selection);
    let expressible = crate::corpus::scenario::expressible_keys(scenarios);
    let mut scored = Scored {
        corpus_source: corpora.e2e.source.clone(),
        release: corpora.release(),
        selection: selection.clone(),
        arms: arms
            .iter()
            .map(|a| {
                (
                    a.name.clone(),
                    a.key.clone(),
                    match &a.run {
                        ArmRun::NotRun(why) => Some(why.clone()),
                        ArmRun::Ran(_) => None,
                    },
                )
            })
            .collect(),
        sweeps: Vec::new(),
        dropped: Vec::new(),
        excursions: Vec::new(),
        prefix_caching_points: 0,
        provenance_counts: BTreeMap::new(),
        inexpressible_keys: BTreeSet::new(),
        resamples: oracles::bootstrap::DEFAULT_RESAMPLES,
    };

    for r in &resolved.sweeps {
        let (sweep, record) = (r.sweep, r.record);
        let points = r.sweep_points();
        let evidence = settings::sweep_evidence(sweep, &points, record);
        let tier = tiers::sweep_tier(&evidence, &expressible).unwrap_or(Tier::All);
        scored.inexpressible_keys.extend(evidence.inexpressible(&expressible));

        match score_sweep(sweep, &points, arms, r.absolutes) {
            Err(reason) => {
                scored.dropped.push(Dropped { scenario: sweep.scenario.clone(), label: sweep.label.clone(), reason })
            }
            Ok((errors, excursions, monotone)) => {
                let points_n = points.len();
                let ttft_n = points_n - excursions.len();
                let comparisons = BTreeMap::from([
                    (ErrorMetric::TpotShape, points_n - 1),
                    (ErrorMetric::TpotMape, points_n),
                    (ErrorMetric::TtftShape, ttft_n - 1),
                    (ErrorMetric::TtftMape, ttft_n),
                ]);
                scored.prefix_caching_points += settings::prefix_caching_points(sweep, &points, record);
                for setting in r.points.iter().flat_map(|p| &p.settings) {
                    *scored.provenance_counts.entry((setting.field, setting.provenance)).or_default() += 1;
                }
                scored.excursions.extend(excursions);
                scored.sweeps.push(ScoredSweep {
                    scenario: sweep.scenario.clone(),
                    label: sweep.label.clone(),
                    model: sweep.model.clone(),
                    gpu: sweep.gpu.clone(),
                    framework: sweep.framework.clone(),
                    tier,
                    monotone,
                    comparisons,
                    errors,
                });
            }
        }
    }
    scored
}

type SweepScore = (Vec<Option<ArmErrors>>, Vec<Excursion>, bool);

/// One sweep, whole or not at all: the reason it is dropped, or every run arm's errors.
fn score_sweep(
    sweep: &Sweep,
    points: &[&crate::corpus::e2e::SweepPoint],
    arms: &[Arm],
    absolutes: Option<&crate::corpus::inferencex::Anchor>,
) -> Result<SweepScore, String> {
    if points.len() < 2 {
        return Err(format!("{} point(s): a shape needs an anchor and one more", points.len()));
    }
    if let Some(p) = points.iter().find(|p| p.status != Status::Success) {
        return Err(format!("c={} status {}", p.concurrency, p.status));
    }
    let conc: Vec<u32> = points.iter().map(|p| p.concurrency).collect();
    let positive = |what: &str, values: &[Option<f64>]| -> Result<Vec<f64>, String> {
        match scoring::first_non_positive(values) {
            None => Ok(values.iter().map(|v| v.unwrap()).collect()),
            Some(i) => Err(match values[i] {
                None => format!("{what} at c={} is missing", conc[i]),
                Some(v) => format!("{what} at c={} is not positive ({v})", conc[i]),
            }),
        }
    };
    let m_tpot =
        positive("measured TPOT relative", &points.iter().map(|p| p.measured_tpot_relative).collect::<Vec<_>>())?;
    let m_ttft =
        positive("measured TTFT relative", &points.iter().map(|p| p.measured_ttft_relative).collect::<Vec<_>>())?;

    // Check every run arm before scoring any: the sweep is dropped for all if one fails.
    let mut arm_values = Vec::new();
    for arm in arms {
        let ArmRun::Ran(values) = &arm.run else {
            arm_values.push(None);
            continue;
        };
        let at = |c: u32| values.get(&PointKey::new(&sweep.scenario, &sweep.label, c)).copied().unwrap_or_default();
        let tpot = positive(&format!("{} TPOT", arm.name), &conc.iter().map(|&c| at(c).tpot).collect::<Vec<_>>())?;
        let ttft = positive(&format!("{} TTFT", arm.name), &conc.iter().map(|&c| at(c).ttft).collect::<Vec<_>>())?;
        let measured_level = match arm.kind {
            ArmKind::Published => None,
            ArmKind::Simulated => {
                let a = absolutes;
                let tpot_us = positive(
                    &format!("measured absolute TPOT ({ABSOLUTES_FILE})"),
                    &conc.iter().map(|&c| a.and_then(|a| a.tpot_us(c))).collect::<Vec<_>>(),
                )?;
                let ttft_us = positive(
                    &format!("measured absolute TTFT ({ABSOLUTES_FILE})"),
                    &conc.iter().map(|&c| a.and_then(|a| a.ttft_us(c))).collect::<Vec<_>>(),
                )?;
                Some((tpot_us, ttft_us))
            }
        };
        arm_values.push(Some((tpot, ttft, measured_level)));
    }

    let flagged = scoring::ttft_excursions(&m_ttft);
    let excursions = flagged
        .iter()
        .enumerate()
        .filter(|(_, &f)| f)
        .map(|(i, _)| Excursion {
            scenario: sweep.scenario.clone(),
            label: sweep.label.clone(),
            concurrency: conc[i],
            measured_ttft_rel: m_ttft[i],
            neighbours: (m_ttft[i - 1], m_ttft[i + 1]),
        })
        .collect();
    let ttft_conc: Vec<u32> = scoring::without_flagged(&conc.iter().map(|&c| c as f64).collect::<Vec<_>>(), &flagged)
        .into_iter()
        .map(|c| c as u32)
        .collect();
    let m_ttft_kept = scoring::without_flagged(&m_ttft, &flagged);

    let label = |cs: &[u32], e: Vec<f64>| -> Vec<(u32, f64)> { cs.iter().copied().zip(e).collect() };
    let errors = arm_values
        .into_iter()
        .map(|v| {
            v.map(|(tpot, ttft, measured_level)| {
                let ttft_kept = scoring::without_flagged(&ttft, &flagged);
                let (tpot_mape, ttft_mape) = match measured_level {
                    None => (scoring::level_errors(&m_tpot, &tpot), scoring::level_errors(&m_ttft_kept, &ttft_kept)),
                    Some((tpot_us, ttft_us)) => {
                        let ms_to_us = |v: &[f64]| v.iter().map(|x| x * 1000.0).collect::<Vec<_>>();
                        (
                            scoring::level_errors(&tpot_us, &ms_to_us(&tpot)),
                            scoring::level_errors(&scoring::without_flagged(&ttft_us, &flagged), &ms_to_us(&ttft_kept)),
                        )
                    }
                };
                ArmErrors {
                    tpot_shape: label(&conc[1..], scoring::shape_errors(&m_tpot, &tpot)),
                    tpot_mape: label(&conc, tpot_mape),
                    ttft_shape: label(&ttft_conc[1..], scoring::shape_errors(&m_ttft_kept, &ttft_kept)),
                    ttft_mape: label(&ttft_conc, ttft_mape),
                }
            })
        })
        .collect();
    Ok((errors, excursions, scoring::strictly_increasing(&m_tpot)))
}

#[cfg(test)]
mod tests;
