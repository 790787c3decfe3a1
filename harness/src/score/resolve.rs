//! Every selected sweep resolved once: its settings record and absolutes anchor joined, its
//! points in concurrency order, its scenario looked up, its workload lengths parsed, and each
//! point's four engine settings with their provenance (docs/upstream.md §6). The BLIS arm's
//! plan and the scorer both read these values, so a point's settings are decided in one place
//! and the two can never disagree about which sweeps a selection keeps.

use super::settings::{self, Setting};
use super::{Corpora, Selection};
use crate::corpus::e2e::{Sweep, SweepPoint};
use crate::corpus::inferencex::{Anchor, SettingsRecord};
use crate::corpus::scenario::{Scenario, ScenarioSet};
use oracles::tiers;
use std::collections::BTreeMap;
use std::path::Path;

/// What a selection keeps of the corpora, resolved: what the scorer and the BLIS arm read.
#[derive(Clone, Debug)]
pub struct Resolved<'a> {
    pub corpora: &'a Corpora,
    pub scenarios: &'a ScenarioSet,
    pub selection: Selection,
    pub sweeps: Vec<ResolvedSweep<'a>>,
}

/// One sweep a selection keeps, resolved.
#[derive(Clone, Debug)]
pub struct ResolvedSweep<'a> {
    pub sweep: &'a Sweep,
    /// In corpus order (the order the BLIS arm plans them in).
    pub points: Vec<ResolvedPoint<'a>>,
    /// The sweep's record in `inferencex_engine_settings.json`, if it has one.
    pub record: Option<&'a SettingsRecord>,
    /// The sweep's absolute latencies in `inferencex_absolutes.json`, if it has them.
    pub absolutes: Option<&'a Anchor>,
    pub scenario: Result<&'a Scenario, String>,
    /// `(isl, osl)` from the sweep's `workload`.
    pub lengths: Result<(u32, u32), String>,
}

/// One point of a resolved sweep.
#[derive(Clone, Debug)]
pub struct ResolvedPoint<'a> {
    pub point: &'a SweepPoint,
    /// The four tracked settings, in `tiers::TRACKED_SETTINGS` order.
    pub settings: Vec<Setting>,
}

impl<'a> ResolvedSweep<'a> {
    /// The corpus points in concurrency order (the scorer's order; the first is the anchor).
    pub fn sweep_points(&self) -> Vec<&'a SweepPoint> {
        let mut points: Vec<&'a SweepPoint> = self.points.iter().map(|p| p.point).collect();
        points.sort_by_key(|p| p.concurrency);
        points
    }
}

/// The sweeps `selection` keeps (its framework, and its config tier by whether the settings
/// record covers the anchor), in corpus order. `catalog` supplies device memory for vLLM's
/// defaults; without it the public per-GPU figure is used.
pub fn resolve<'a>(
    corpora: &'a Corpora,
    scenarios: &'a ScenarioSet,
    catalog: Option<&Path>,
    selection: &Selection,
) -> Resolved<'a> {
    let records: BTreeMap<(&str, &str), &SettingsRecord> =
        corpora.settings.settings.iter().map(|r| ((r.scenario.as_str(), r.label.as_str()), r)).collect();
    let absolutes: BTreeMap<(&str, &str), &Anchor> =
        corpora.absolutes.anchors.iter().map(|a| ((a.scenario.as_str(), a.label.as_str()), a)).collect();
    let mut out = Vec::new();
    for sweep in corpora.e2e.sweeps.iter().filter(|s| s.framework == selection.framework) {
        let key = (sweep.scenario.as_str(), sweep.label.as_str());
        let record = records.get(&key).copied();
        let anchor = sweep.points.iter().map(|p| p.concurrency).min();
        let recorded_at_anchor = record.zip(anchor).is_some_and(|(r, c)| r.by_concurrency.get(c).is_some());
        if !tiers::config_tier_keeps(selection.config_tier, recorded_at_anchor) {
            continue;
        }
        let scenario = scenarios.get(&sweep.scenario);
        let hardware = scenario.as_ref().map(|s| s.header.cluster.hardware.as_str()).unwrap_or(&sweep.gpu);
        let memory = settings::device_memory(catalog, hardware, &sweep.gpu);
        let points = sweep
            .points
            .iter()
            .map(|point| ResolvedPoint {
                point,
                settings: settings::point_settings(
                    sweep,
                    point.concurrency,
                    record,
                    scenario.as_ref().ok().copied(),
                    memory,
                ),
            })
            .collect();
        out.push(ResolvedSweep {
            sweep,
            points,
            record,
            absolutes: absolutes.get(&key).copied(),
            scenario,
            lengths: sweep.workload_lengths(),
        });
    }
    Resolved { corpora, scenarios, selection: selection.clone(), sweeps: out }
}
