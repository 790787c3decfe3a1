//! Which engine settings a vLLM point ran with, where each came from, and the tiers of the
//! headline table (docs/upstream.md §6 and §8; the rules and the counts they reproduce are
//! written down in docs/tiers.md).
//!
//! Nothing here reads a file: the harness hands in what the corpora and the scenario files
//! say (keys a run passed, device memory, the keys the scenario schema has).

use std::collections::BTreeSet;
use std::fmt;

/// The four engine settings whose provenance the scorer tracks and the BLIS runner writes into
/// each point's scenario (docs/upstream.md §6 and §7).
pub const TRACKED_SETTINGS: [&str; 4] =
    ["max_num_seqs", "max_num_batched_tokens", "block_size", "enable_prefix_caching"];

/// Where one setting of one point came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Provenance {
    /// The run passed it (per `inferencex_engine_settings.json`).
    Measured,
    /// vLLM's own default for the device, applied because the run did not pass it (or because
    /// no engine log of the run survives).
    Resolved,
    /// The scenario file's value (non-vLLM sweeps: no vLLM default applies).
    Scenario,
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Provenance::Measured => "measured",
            Provenance::Resolved => "resolved",
            Provenance::Scenario => "scenario",
        })
    }
}

/// Provenance of a tracked setting at one point. `passed` is `None` when the settings corpus
/// has no record of the run at this concurrency, else whether the run passed this key.
pub fn provenance(is_vllm: bool, passed: Option<bool>) -> Provenance {
    match (is_vllm, passed) {
        (false, _) => Provenance::Scenario,
        (true, Some(true)) => Provenance::Measured,
        (true, _) => Provenance::Resolved,
    }
}

/// vLLM's engine defaults for a served (OpenAI-API) deployment that passes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VllmDefaults {
    pub max_num_seqs: u32,
    pub max_num_batched_tokens: u32,
    pub block_size: u32,
    pub enable_prefix_caching: bool,
}

/// vLLM's defaults by device (docs/upstream.md §6). The batch pair is vLLM
/// `vllm/engine/arg_utils.py` `EngineArgs.get_batch_defaults` (read at vLLM 0.22), reproduced
/// upstream in IS `sim/kernelmodel/vllm_defaults.go`, for the OpenAI-API server usage context:
/// total device memory >= 160 GiB: 1024 / 16384; >= 70 GiB and a name without "a100":
/// 1024 / 8192; otherwise 256 / 2048. Tensor and pipeline width do not enter.
/// Prefix caching is on by default in vLLM (V1 engine). The block size on CUDA is 16 (vLLM
/// `vllm/platforms/cuda.py` `check_and_update_config` fills an unset block size with 16; this
/// one is our reading of vLLM; docs/upstream.md §6 gives the batch pair only).
pub fn vllm_defaults(device_name: &str, memory_gib: f64) -> VllmDefaults {
    let (max_num_seqs, max_num_batched_tokens) = if memory_gib >= 160.0 {
        (1024, 16384)
    } else if memory_gib >= 70.0 && !device_name.to_ascii_lowercase().contains("a100") {
        (1024, 8192)
    } else {
        (256, 2048)
    };
    VllmDefaults { max_num_seqs, max_num_batched_tokens, block_size: 16, enable_prefix_caching: true }
}

/// Where a device's memory figure came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemorySource {
    /// `MemoryGiB` of the catalog's hardware descriptor.
    Catalog,
    /// The public per-GPU figure of docs/upstream.md §8, used where the catalog copy lacks
    /// the descriptor.
    PublicFact,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DeviceMemory {
    pub gib: f64,
    pub source: MemorySource,
}

/// Public per-GPU memory (docs/upstream.md §8: A100 SXM 80 GB, H100 SXM 80 GB, H200 141 GB,
/// B200 180 GB, B300 288 GB, GB300 288 GB), in decimal GB as published. Names are the corpus's
/// or the catalog's (`a100-sxm` is `a100`).
pub fn public_memory_gb(device: &str) -> Option<f64> {
    let name = device.to_ascii_lowercase();
    let name = name.strip_suffix("-sxm").unwrap_or(&name);
    Some(match name {
        "a100" => 80.0,
        "h100" => 80.0,
        "h200" => 141.0,
        "b200" => 180.0,
        "b300" => 288.0,
        "gb300" => 288.0,
        _ => return None,
    })
}

/// The catalog's figure when there is one, else the public fact converted from GB to GiB.
pub fn device_memory(device: &str, catalog_gib: Option<f64>) -> Option<DeviceMemory> {
    if let Some(gib) = catalog_gib {
        return Some(DeviceMemory { gib, source: MemorySource::Catalog });
    }
    public_memory_gb(device)
        .map(|gb| DeviceMemory { gib: gb * 1e9 / (1u64 << 30) as f64, source: MemorySource::PublicFact })
}

/// The tiers of the headline table; each contains the next (STRICT within
/// MEASURED-OR-RESOLVED within ALL).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    Strict,
    MeasuredOrResolved,
    All,
}

impl Tier {
    pub const ORDER: [Tier; 3] = [Tier::Strict, Tier::MeasuredOrResolved, Tier::All];

    /// As the published tables print it.
    pub fn title(self) -> &'static str {
        match self {
            Tier::Strict => "STRICT",
            Tier::MeasuredOrResolved => "MEASURED-OR-RESOLVED",
            Tier::All => "ALL (approximate)",
        }
    }

    /// Stable key for values: `strict`, `measured_or_resolved`, `all`.
    pub fn key(self) -> &'static str {
        match self {
            Tier::Strict => "strict",
            Tier::MeasuredOrResolved => "measured_or_resolved",
            Tier::All => "all",
        }
    }
}

/// What the tier rule looks at for one sweep.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SweepSettings {
    pub is_vllm: bool,
    /// One entry per point: `None` when the engine-settings corpus has no record of the run at
    /// that concurrency, else the keys the run passed.
    pub passed_keys: Vec<Option<BTreeSet<String>>>,
}

impl SweepSettings {
    fn recorded_at_every_point(&self) -> bool {
        !self.passed_keys.is_empty() && self.passed_keys.iter().all(Option::is_some)
    }

    /// Keys the runs passed that the scenario schema cannot express, sorted.
    pub fn inexpressible(&self, expressible: &BTreeSet<String>) -> BTreeSet<String> {
        self.passed_keys
            .iter()
            .flatten()
            .flat_map(|keys| keys.iter())
            .filter(|k| !expressible.contains(*k))
            .cloned()
            .collect()
    }
}

/// The tightest tier a sweep belongs to, or `None` for a non-vLLM sweep (the headline table is
/// `-framework vllm`). The rule (docs/tiers.md has the evidence):
/// - ALL (approximate): every vLLM sweep;
/// - MEASURED-OR-RESOLVED: an engine-settings record at every point, and no run passed a key
///   outside `expressible` (settings not passed are resolved to vLLM's defaults);
/// - STRICT: that, and every point passed all four [`TRACKED_SETTINGS`].
///
/// `expressible` is the set of keys the scenario schema has, derived by the harness from the
/// scenario files' fields (plus the tracked settings, which the runner writes into them).
pub fn sweep_tier(sweep: &SweepSettings, expressible: &BTreeSet<String>) -> Option<Tier> {
    if !sweep.is_vllm {
        return None;
    }
    if !sweep.recorded_at_every_point() || !sweep.inexpressible(expressible).is_empty() {
        return Some(Tier::All);
    }
    let all_tracked_passed =
        sweep.passed_keys.iter().flatten().all(|keys| TRACKED_SETTINGS.iter().all(|field| keys.contains(*field)));
    Some(if all_tracked_passed { Tier::Strict } else { Tier::MeasuredOrResolved })
}

/// True when a sweep whose tightest tier is `best` counts in `tier`.
pub fn in_tier(best: Tier, tier: Tier) -> bool {
    best <= tier
}

/// `-config-tier`: restricts the whole run before tiers are assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConfigTier {
    /// Only sweeps whose engine-settings record exists at the anchor concurrency.
    Measured,
    /// Only the others.
    Resolved,
}

impl ConfigTier {
    pub fn name(self) -> &'static str {
        match self {
            ConfigTier::Measured => "measured",
            ConfigTier::Resolved => "resolved",
        }
    }

    pub fn parse(text: &str) -> Option<ConfigTier> {
        match text {
            "measured" => Some(ConfigTier::Measured),
            "resolved" => Some(ConfigTier::Resolved),
            _ => None,
        }
    }
}

/// Whether `-config-tier` keeps a sweep; `None` (no flag) keeps both kinds.
pub fn config_tier_keeps(config_tier: Option<ConfigTier>, recorded_at_anchor: bool) -> bool {
    match config_tier {
        None => true,
        Some(ConfigTier::Measured) => recorded_at_anchor,
        Some(ConfigTier::Resolved) => !recorded_at_anchor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> BTreeSet<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    /// The engine keys the team's scenario files carry, plus the tracked settings.
    fn expressible() -> BTreeSet<String> {
        let mut k = keys(&["model", "max_model_len", "gpu_memory_utilization", "enable_expert_parallel"]);
        k.extend(TRACKED_SETTINGS.iter().map(|s| s.to_string()));
        k
    }

    #[test]
    fn vllm_defaults_by_device_memory() {
        assert_eq!(vllm_defaults("b200", 180.0).max_num_batched_tokens, 16384);
        assert_eq!(vllm_defaults("b200", 160.0).max_num_batched_tokens, 16384);
        let h = vllm_defaults("h100", 80.0);
        assert_eq!((h.max_num_seqs, h.max_num_batched_tokens), (1024, 8192));
        assert_eq!(vllm_defaults("h200", 131.3).max_num_batched_tokens, 8192);
        // an A100 with 80 GiB stays in the small class: the name test, not the memory, decides
        let a = vllm_defaults("NVIDIA A100-SXM4-80GB", 80.0);
        assert_eq!((a.max_num_seqs, a.max_num_batched_tokens), (256, 2048));
        assert_eq!(vllm_defaults("l4", 22.0).max_num_seqs, 256);
        assert_eq!(vllm_defaults("x", 69.9).max_num_batched_tokens, 2048);
        assert!(h.enable_prefix_caching);
    }

    #[test]
    fn device_memory_prefers_the_catalog_and_says_so() {
        let m = device_memory("b300", Some(268.6)).unwrap();
        assert_eq!((m.gib, m.source), (268.6, MemorySource::Catalog));
        let m = device_memory("h200", None).unwrap();
        assert_eq!(m.source, MemorySource::PublicFact);
        assert!((m.gib - 131.32).abs() < 0.01, "{}", m.gib);
        assert_eq!(public_memory_gb("a100-sxm"), Some(80.0));
        assert_eq!(device_memory("mi300x", None), None);
    }

    #[test]
    fn provenance_rules() {
        assert_eq!(provenance(true, Some(true)), Provenance::Measured);
        assert_eq!(provenance(true, Some(false)), Provenance::Resolved);
        assert_eq!(provenance(true, None), Provenance::Resolved);
        assert_eq!(provenance(false, Some(true)), Provenance::Scenario);
    }

    #[test]
    fn tier_rule() {
        let x = expressible();
        let sweep = |passed: Vec<Option<&[&str]>>| SweepSettings {
            is_vllm: true,
            passed_keys: passed.into_iter().map(|p| p.map(keys)).collect(),
        };
        let some = ["max_num_seqs", "model", "max_model_len"];
        let all4 = ["max_num_seqs", "max_num_batched_tokens", "block_size", "enable_prefix_caching"];
        let capture = ["max_num_seqs", "max_cudagraph_capture_size"];
        assert_eq!(sweep_tier(&sweep(vec![Some(&some), Some(&some)]), &x), Some(Tier::MeasuredOrResolved));
        assert_eq!(sweep_tier(&sweep(vec![Some(&all4), Some(&all4)]), &x), Some(Tier::Strict));
        assert_eq!(sweep_tier(&sweep(vec![Some(&all4), Some(&some)]), &x), Some(Tier::MeasuredOrResolved));
        // one point passing a key the schema cannot express demotes the whole sweep
        assert_eq!(sweep_tier(&sweep(vec![Some(&all4), Some(&capture)]), &x), Some(Tier::All));
        // no record (anywhere, or at one point): settings unknown, ALL only
        assert_eq!(sweep_tier(&sweep(vec![None, None]), &x), Some(Tier::All));
        assert_eq!(sweep_tier(&sweep(vec![Some(&some), None]), &x), Some(Tier::All));
        let other = SweepSettings { is_vllm: false, passed_keys: vec![Some(keys(&all4))] };
        assert_eq!(sweep_tier(&other, &x), None);
        assert_eq!(sweep(vec![Some(&capture)]).inexpressible(&x), keys(&["max_cudagraph_capture_size"]));
    }

    #[test]
    fn tiers_nest() {
        assert!(in_tier(Tier::Strict, Tier::All));
        assert!(in_tier(Tier::MeasuredOrResolved, Tier::MeasuredOrResolved));
        assert!(!in_tier(Tier::All, Tier::MeasuredOrResolved));
        assert!(!in_tier(Tier::MeasuredOrResolved, Tier::Strict));
    }

    #[test]
    fn config_tier_selects_by_record_at_anchor() {
        assert!(config_tier_keeps(None, false) && config_tier_keeps(None, true));
        assert!(config_tier_keeps(Some(ConfigTier::Measured), true));
        assert!(!config_tier_keeps(Some(ConfigTier::Measured), false));
        assert!(config_tier_keeps(Some(ConfigTier::Resolved), false));
        assert_eq!(ConfigTier::parse("measured"), Some(ConfigTier::Measured));
        assert_eq!(ConfigTier::parse("strict"), None);
    }

    #[test]
    fn public_memory_is_the_published_figure_of_each_device() {
        // docs/upstream.md §8, in decimal GB; `-sxm` names the same device.
        let table = [
            ("a100", 80.0),
            ("H100", 80.0),
            ("h100-sxm", 80.0),
            ("h200", 141.0),
            ("b200", 180.0),
            ("b300", 288.0),
            ("gb300", 288.0),
        ];
        for (device, gb) in table {
            assert_eq!(public_memory_gb(device), Some(gb), "{device}");
        }
        assert_eq!(public_memory_gb("mi300x"), None);
    }

    #[test]
    fn names_are_the_published_titles_the_value_keys_and_the_flag_values() {
        let titles: Vec<&str> = Tier::ORDER.iter().map(|t| t.title()).collect();
        assert_eq!(titles, ["STRICT", "MEASURED-OR-RESOLVED", "ALL (approximate)"]);
        let keys: Vec<&str> = Tier::ORDER.iter().map(|t| t.key()).collect();
        assert_eq!(keys, ["strict", "measured_or_resolved", "all"]);
        // `-config-tier measured|resolved` (docs/upstream.md §6).
        assert_eq!([ConfigTier::Measured.name(), ConfigTier::Resolved.name()], ["measured", "resolved"]);
        assert_eq!(ConfigTier::parse("resolved"), Some(ConfigTier::Resolved));
        let provenance: Vec<String> =
            [Provenance::Measured, Provenance::Resolved, Provenance::Scenario].iter().map(|p| p.to_string()).collect();
        assert_eq!(provenance, ["measured", "resolved", "scenario"]);
    }
}
