//! A tier's aggregate: comparison counts, each arm's mean |e| and its 95% interval.

use super::intervals;
use super::metric::ErrorMetric;
use super::scored::{Scored, ScoredSweep};
use oracles::scoring;
use oracles::tiers::Tier;
use std::collections::BTreeMap;

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
