//! The arms a score compares: each a name and its value at every point (relatives for a
//! published arm, milliseconds for a simulated one); AISimulate and AIC as the corpus
//! publishes them, BLIS from the arm.

use crate::corpus::e2e::E2eCorpus;
use std::collections::BTreeMap;

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
