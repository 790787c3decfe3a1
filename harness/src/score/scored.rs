//! What a score run found: the selection, the scored and dropped sweeps, the excursions, and
//! the aggregate of a tier.

use super::metric::{ArmErrors, ErrorMetric};
use oracles::tiers::{self, ConfigTier, Tier};
use std::collections::{BTreeMap, BTreeSet};

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

impl Scored {
    /// Sweeps whose tightest tier is within `tier`.
    pub fn in_tier(&self, tier: Tier) -> impl Iterator<Item = &ScoredSweep> {
        self.sweeps.iter().filter(move |s| tiers::in_tier(s.tier, tier))
    }
}
