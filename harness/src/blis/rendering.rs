//! The gate's two renderings of a task, without simulating every point twice.
//!
//! `cargo xtask reproduce` renders each task twice in separate processes. The first rendering
//! runs (or takes from the point cache) every point and records each outcome, failures included,
//! in the run's store, a folder the gate creates for one run and removes afterwards. The second
//! rendering serves every point from that store, except a deterministic sample that it re-runs
//! outside the cache (`Determinism::Sample`: in each `run_points` call, one point per sweep, the
//! cheapest by `estimated_cost` among the sweep's points that have a value, then the smallest
//! content key) or every point
//! (`Determinism::Full`). A re-run's result replaces the stored one in the second rendering, so a
//! simulator that answers differently makes the two renderings differ and the gate fail; each
//! re-run is also compared with the stored result (the metrics files by their SHA-256, i.e. byte
//! for byte) and listed for the report (`take_reruns`).

use super::{FailureKind, PointFailure, PointMetrics, PointOutcome, PointSpec};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// How many points the second rendering re-runs outside the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Determinism {
    /// One point per sweep and `run_points` call, chosen by key.
    #[default]
    Sample,
    /// Every point.
    Full,
}

impl Determinism {
    pub fn parse(text: &str) -> Result<Determinism, String> {
        match text {
            "sample" => Ok(Determinism::Sample),
            "full" => Ok(Determinism::Full),
            other => Err(format!("--determinism {other:?}: expected `sample` or `full`")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Determinism::Sample => "sample",
            Determinism::Full => "full",
        }
    }
}

/// Which rendering this process computes.
#[derive(Clone, Debug)]
pub enum Rendering {
    /// Records every outcome into the store.
    First { store: PathBuf },
    /// Serves from the store, re-running the determinism points.
    Second { store: PathBuf, determinism: Determinism },
}

static RENDERING: OnceLock<Rendering> = OnceLock::new();
static RERUNS: Mutex<Vec<Rerun>> = Mutex::new(Vec::new());

/// Sets this process's rendering (the gate's child side); once per process.
pub fn set(rendering: Rendering) {
    let _ = RENDERING.set(rendering);
}

pub(crate) fn current() -> Option<&'static Rendering> {
    RENDERING.get()
}

/// One point the second rendering re-ran outside the cache.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rerun {
    pub key: String,
    pub label: String,
    /// The re-run's result equals the stored one (summary, and the metrics file byte for byte).
    pub identical: bool,
    /// What differed, when not identical.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub difference: String,
    /// Re-run by an earlier task of this gate run: its fresh result was reused, not simulated again.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub earlier: bool,
}

/// The re-runs of this process so far, each key once, sorted by label then key.
pub fn take_reruns() -> Vec<Rerun> {
    let mut all = std::mem::take(&mut *RERUNS.lock().unwrap_or_else(|e| e.into_inner()));
    all.sort_by(|a, b| (&a.label, &a.key).cmp(&(&b.label, &b.key)));
    // A point re-run twice (the determinism task runs its point twice) is listed once, as
    // differing if either run differed.
    let mut out: Vec<Rerun> = Vec::new();
    for r in all {
        match out.last_mut() {
            Some(last) if last.key == r.key => {
                if !r.identical && last.identical {
                    *last = r;
                }
            }
            _ => out.push(r),
        }
    }
    out
}

#[derive(Serialize, Deserialize)]
struct Stored {
    key: String,
    label: String,
    result: StoredResult,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum StoredResult {
    Ok(PointMetrics),
    Failed { kind: String, reason: String, stderr_tail: Vec<String> },
}

fn kind_of(name: &str) -> Option<FailureKind> {
    FailureKind::ALL.into_iter().find(|k| format!("{k:?}") == name)
}

fn entry_path(store: &std::path::Path, key: &str) -> PathBuf {
    store.join(format!("{key}.json"))
}

fn rerun_path(store: &std::path::Path, key: &str) -> PathBuf {
    store.join(format!("{key}.rerun.json"))
}

fn encode(o: &PointOutcome) -> anyhow::Result<Vec<u8>> {
    let result = match &o.result {
        Ok(m) => StoredResult::Ok(m.clone()),
        Err(f) => StoredResult::Failed {
            kind: format!("{:?}", f.kind),
            reason: f.reason.clone(),
            stderr_tail: f.stderr_tail.clone(),
        },
    };
    Ok(serde_json::to_vec(&Stored { key: o.key.clone(), label: o.label.clone(), result })?)
}

fn decode(bytes: &[u8], key: &str) -> Option<Result<PointMetrics, PointFailure>> {
    let stored: Stored = serde_json::from_slice(bytes).ok()?;
    if stored.key != key {
        return None;
    }
    Some(match stored.result {
        StoredResult::Ok(m) => Ok(m),
        StoredResult::Failed { kind, reason, stderr_tail } => {
            Err(PointFailure { kind: kind_of(&kind)?, reason, stderr_tail })
        }
    })
}

/// Second rendering: the fresh result an earlier task of this run got re-running this point.
pub(crate) fn earlier_rerun(store: &std::path::Path, key: &str) -> Option<Result<PointMetrics, PointFailure>> {
    decode(&crate::read::bytes(&rerun_path(store, key)).ok()?, key)
}

/// Second rendering: keeps a re-run's fresh result for the later tasks of this run.
pub(crate) fn keep_rerun(store: &std::path::Path, outcome: &PointOutcome) -> anyhow::Result<()> {
    crate::atomic::write_owned(&rerun_path(store, &outcome.key), &encode(outcome)?)
}

/// First rendering: every outcome with a key goes into the store.
pub(crate) fn record(store: &std::path::Path, outcomes: &[PointOutcome]) -> anyhow::Result<()> {
    for o in outcomes.iter().filter(|o| !o.key.is_empty()) {
        crate::atomic::write_owned(&entry_path(store, &o.key), &encode(o)?)?;
    }
    Ok(())
}

/// Second rendering: what the first rendering stored for this key, if anything readable.
pub(crate) fn lookup(store: &std::path::Path, key: &str) -> Option<Result<PointMetrics, PointFailure>> {
    decode(&crate::read::bytes(&entry_path(store, key)).ok()?, key)
}

/// The sweep a point belongs to, for the sample: scenario, input and output length.
fn sweep_of(point: &PointSpec) -> (String, u32, u32) {
    (point.scenario_name(), point.isl, point.osl)
}

/// Which outcomes the second rendering re-runs: under `Sample`, in each sweep the cheapest
/// point by `estimated_cost` among those with a value, the smallest key among equals (so the
/// check costs the least a sweep can cost: with a real binary the long points take minutes); under `Full`, every point that has a key and
/// was not left to another shard or found unmodellable.
pub(crate) fn chosen(points: &[PointSpec], outcomes: &[PointOutcome], determinism: Determinism) -> Vec<usize> {
    let runnable = |o: &PointOutcome| {
        !o.key.is_empty()
            && !matches!(&o.result, Err(f) if matches!(f.kind, FailureKind::OtherShard | FailureKind::NotModelled | FailureKind::NotCached))
    };
    match determinism {
        Determinism::Full => (0..outcomes.len()).filter(|&i| runnable(&outcomes[i])).collect(),
        Determinism::Sample => {
            let mut best: BTreeMap<(String, u32, u32), usize> = BTreeMap::new();
            for (i, (p, o)) in points.iter().zip(outcomes).enumerate() {
                if !runnable(o) || o.result.is_err() {
                    continue;
                }
                let rank = |k: usize| (super::estimated_cost(&points[k]), outcomes[k].key.as_str());
                best.entry(sweep_of(p))
                    .and_modify(|j| {
                        if rank(i) < rank(*j) {
                            *j = i
                        }
                    })
                    .or_insert(i);
            }
            let mut picked: Vec<usize> = best.into_values().collect();
            picked.sort_unstable();
            picked.dedup_by_key(|i| outcomes[*i].key.clone());
            picked
        }
    }
}

/// Compares a re-run with what the store held, and notes it for the report.
pub(crate) fn note_rerun(
    key: &str,
    label: &str,
    stored: Option<&Result<PointMetrics, PointFailure>>,
    fresh: &Result<PointMetrics, PointFailure>,
    earlier: bool,
) {
    let difference = match (stored, fresh) {
        (None, _) => String::new(),
        (Some(Ok(a)), Ok(b)) if a == b => String::new(),
        (Some(Ok(a)), Ok(b)) if a.metrics_sha256 != b.metrics_sha256 => {
            format!("metrics file sha256 {} then {}", short(&a.metrics_sha256), short(&b.metrics_sha256))
        }
        (Some(Ok(_)), Ok(_)) => "the summaries differ".to_string(),
        (Some(Err(a)), Err(b)) if a.kind == b.kind && a.reason == b.reason => String::new(),
        (Some(a), b) => format!("{} then {}", describe(a), describe(b)),
    };
    let rerun =
        Rerun { key: key.to_string(), label: label.to_string(), identical: difference.is_empty(), difference, earlier };
    RERUNS.lock().unwrap_or_else(|e| e.into_inner()).push(rerun);
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

fn describe(r: &Result<PointMetrics, PointFailure>) -> String {
    match r {
        Ok(m) => format!("a value (metrics {})", short(&m.metrics_sha256)),
        Err(f) => format!("{:?}: {}", f.kind, f.reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_failure_kind_round_trips_by_name() {
        for k in FailureKind::ALL {
            assert_eq!(kind_of(&format!("{k:?}")), Some(k));
        }
        assert_eq!(kind_of("Other"), None);
    }

    #[test]
    fn the_determinism_flag_takes_sample_or_full_only() {
        assert_eq!(Determinism::parse("sample"), Ok(Determinism::Sample));
        assert_eq!(Determinism::parse("full"), Ok(Determinism::Full));
        assert!(Determinism::parse("some").is_err());
    }
}
