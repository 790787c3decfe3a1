//! The `workload.yaml` of one point, in the form a real `blis` reads.
//!
//! The spec follows inference-sim's `sim/workload/spec.go` (`WorkloadSpec`, `ClientSpec`,
//! `DistSpec`; read with unknown fields refused) and the shape upstream's kernel-model harness
//! gives a benchmark point (`sim/kernelmodel/harness/workload.go` in the public repository):
//! one closed-loop client at concurrency N, `2N` warm-up plus `10N` measured requests, input and
//! output lengths drawn from an `empirical` PDF that is uniform over `[int(0.8 x len), len]`.
//! A concurrency client needs an `arrival.process` field to parse but never samples it
//! (spec.go validates the process only when `concurrency` is 0), so `poisson` is written.
//! `concurrency` and `rate_fraction` are mutually exclusive in the real reader; `rate_fraction`
//! is left out.
//!
//! The numpy per-request vectors of a point are not expressible in this form (the real spec
//! has no per-request list type); they stay in `PointSpec` for the cache key's sake only.

use super::PointSpec;
use anyhow::{ensure, Context, Result};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct Spec {
    version: &'static str,
    seed: u64,
    category: &'static str,
    num_requests: u64,
    clients: [Client; 1],
}

#[derive(Serialize)]
struct Client {
    id: &'static str,
    concurrency: u32,
    arrival: Arrival,
    input_distribution: Dist,
    output_distribution: Dist,
    streaming: bool,
}

#[derive(Serialize)]
struct Arrival {
    process: &'static str,
}

#[derive(Serialize)]
struct Dist {
    #[serde(rename = "type")]
    kind: &'static str,
    /// Length (as the string key the Go reader parses with `%d`) to probability.
    params: BTreeMap<String, f64>,
}

/// The uniform PDF over `[int(0.8 x len), len]`, keys in numeric order.
pub fn uniform_pdf(len: u32) -> Vec<(u32, f64)> {
    let low = (f64::from(len) * 0.8) as u32;
    let p = 1.0 / f64::from(len - low + 1);
    (low..=len).map(|l| (l, p)).collect()
}

fn empirical(len: u32) -> Dist {
    Dist { kind: "empirical", params: uniform_pdf(len).into_iter().map(|(l, p)| (l.to_string(), p)).collect() }
}

/// Checks the point's vectors against its concurrency: `10N` measured lengths each, positive.
pub fn check_lengths(point: &PointSpec) -> Result<()> {
    let n = point.concurrency as usize;
    ensure!(point.concurrency > 0, "concurrency must be positive");
    ensure!(point.isl > 0 && point.osl > 0, "isl and osl must be positive");
    for (name, v) in [("input_lens", &point.input_lens), ("output_lens", &point.output_lens)] {
        ensure!(
            v.len() == 10 * n,
            "{name} has {} lengths; a closed loop at concurrency {n} measures 10 x {n} = {}",
            v.len(),
            10 * n
        );
        ensure!(v.iter().all(|&l| l > 0), "{name} holds a zero length");
    }
    Ok(())
}

/// Requests one point injects: `2N` warm-up and `10N` measured.
pub fn total_requests(concurrency: u32) -> u64 {
    12 * u64::from(concurrency)
}

/// The workload spec's text for one point.
pub fn workload_spec(point: &PointSpec) -> Result<String> {
    check_lengths(point)?;
    let spec = Spec {
        version: "v1",
        seed: point.seed,
        category: "language",
        num_requests: total_requests(point.concurrency),
        clients: [Client {
            id: "inferencex-closed-loop",
            concurrency: point.concurrency,
            arrival: Arrival { process: "poisson" },
            input_distribution: empirical(point.isl),
            output_distribution: empirical(point.osl),
            streaming: true,
        }],
    };
    serde_yaml::to_string(&spec).context("encoding the workload spec")
}
