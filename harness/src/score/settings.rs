//! Per-point engine settings and their provenance (docs/upstream.md §6): what the run
//! passed (measured), vLLM's default for the device (resolved), or the scenario's value
//! (non-vLLM sweeps). The BLIS runner writes these values into each point's scenario.

use crate::corpus::e2e::{Sweep, SweepPoint};
use crate::corpus::inferencex::{SettingValue, SettingsRecord};
use crate::corpus::scenario::Scenario;
use oracles::tiers::{self, DeviceMemory, MemorySource, Provenance, SweepSettings, TRACKED_SETTINGS};
use std::collections::BTreeSet;
use std::path::Path;

/// What the tier rule needs of one sweep.
pub fn sweep_evidence(sweep: &Sweep, points: &[&SweepPoint], record: Option<&SettingsRecord>) -> SweepSettings {
    SweepSettings {
        is_vllm: sweep.is_vllm(),
        passed_keys: points
            .iter()
            .map(|p| {
                record
                    .and_then(|r| r.by_concurrency.get(p.concurrency))
                    .map(|s| s.passed_keys().cloned().collect::<BTreeSet<String>>())
            })
            .collect(),
    }
}

/// Points that run with prefix caching on: passed true, or not passed on vLLM (on by default).
pub fn prefix_caching_points(sweep: &Sweep, points: &[&SweepPoint], record: Option<&SettingsRecord>) -> usize {
    points.iter().filter(|p| prefix_caching_on(sweep, p.concurrency, record)).count()
}

/// Whether the point at `concurrency` runs with prefix caching on (see [`prefix_caching_points`]).
pub fn prefix_caching_on(sweep: &Sweep, concurrency: u32, record: Option<&SettingsRecord>) -> bool {
    if !sweep.is_vllm() {
        return false;
    }
    let passed =
        record.and_then(|r| r.by_concurrency.get(concurrency)).and_then(|s| s.passed_setting("enable_prefix_caching"));
    match passed {
        Some(SettingValue::Bool(on)) => on,
        _ => true,
    }
}

/// One tracked setting at one point.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting {
    pub field: &'static str,
    /// `None` when nobody knows it (a non-vLLM scenario without the field, or a vLLM device of
    /// unknown memory).
    pub value: Option<SettingValue>,
    pub provenance: Provenance,
}

/// The four tracked settings of one point, in [`TRACKED_SETTINGS`] order.
pub fn point_settings(
    sweep: &Sweep,
    concurrency: u32,
    record: Option<&SettingsRecord>,
    scenario: Option<&Scenario>,
    memory: Option<DeviceMemory>,
) -> Vec<Setting> {
    let passed = record.and_then(|r| r.by_concurrency.get(concurrency));
    let device = scenario.map(|s| s.header.cluster.hardware.as_str()).unwrap_or(&sweep.gpu);
    let defaults = memory.map(|m| tiers::vllm_defaults(device, m.gib));
    TRACKED_SETTINGS
        .iter()
        .map(|&field| {
            let passed_value = passed.and_then(|p| p.passed_setting(field));
            let provenance = tiers::provenance(sweep.is_vllm(), passed.map(|p| p.passed.0.contains_key(field)));
            let value = match provenance {
                Provenance::Measured => passed_value,
                Provenance::Resolved => defaults.map(|d| match field {
                    "max_num_seqs" => SettingValue::Int(d.max_num_seqs.into()),
                    "max_num_batched_tokens" => SettingValue::Int(d.max_num_batched_tokens.into()),
                    "block_size" => SettingValue::Int(d.block_size.into()),
                    _ => SettingValue::Bool(d.enable_prefix_caching),
                }),
                Provenance::Scenario => {
                    scenario.and_then(|s| s.serving_pool().engine.get(field)).and_then(|v| match v {
                        serde_yaml::Value::Bool(b) => Some(SettingValue::Bool(*b)),
                        v => v.as_u64().map(SettingValue::Int),
                    })
                }
            };
            Setting { field, value, provenance }
        })
        .collect()
}

/// The device memory for vLLM's defaults: the catalog's `MemoryGiB` for the scenario's
/// hardware when the catalog has the descriptor, else the public fact for the corpus's GPU.
pub fn device_memory(catalog: Option<&Path>, hardware: &str, corpus_gpu: &str) -> Option<DeviceMemory> {
    let from_catalog = catalog.and_then(|dir| {
        let text = crate::read::text(&dir.join("hardware").join(format!("{hardware}.yaml"))).ok()?;
        let doc: serde_yaml::Value = serde_yaml::from_str(&text).ok()?;
        doc.get("MemoryGiB")?.as_f64()
    });
    tiers::device_memory(if from_catalog.is_some() { hardware } else { corpus_gpu }, from_catalog)
}

pub fn memory_source_label(m: &DeviceMemory) -> &'static str {
    match m.source {
        MemorySource::Catalog => "catalog",
        MemorySource::PublicFact => "public fact",
    }
}

/// The vLLM defaults the resolved settings use, per device of the selected sweeps, with where
/// each memory figure came from (catalog descriptor or public fact).
pub fn defaults_table(
    corpora: &super::Corpora,
    scenarios: &crate::corpus::scenario::ScenarioSet,
    catalog: Option<&Path>,
    framework: &str,
) -> String {
    use std::fmt::Write as _;
    let mut devices = std::collections::BTreeMap::new();
    for sweep in corpora.e2e.sweeps.iter().filter(|s| s.framework == framework && s.is_vllm()) {
        let hardware = scenarios
            .get(&sweep.scenario)
            .map(|s| s.header.cluster.hardware.clone())
            .unwrap_or_else(|_| sweep.gpu.clone());
        devices.entry(hardware).or_insert_with(|| sweep.gpu.clone());
    }
    let mut out = String::from(
        "## vLLM defaults for resolved settings (vllm/engine/arg_utils.py get_batch_defaults; prefix caching on; block size 16)\n",
    );
    for (hardware, gpu) in devices {
        match device_memory(catalog, &hardware, &gpu) {
            Some(m) => {
                let d = tiers::vllm_defaults(&hardware, m.gib);
                let _ = writeln!(
                    out,
                    "  {hardware}: {:.1} GiB ({}): max_num_seqs {}, max_num_batched_tokens {}",
                    m.gib,
                    memory_source_label(&m),
                    d.max_num_seqs,
                    d.max_num_batched_tokens
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "  {hardware}: memory unknown (no catalog descriptor, no public fact): not resolvable"
                );
            }
        }
    }
    out
}
