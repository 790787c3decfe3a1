//! The `workload.yaml` of one point (REFERENCE.md section 7 and section 2).
//!
//! The InferenceX benchmark sends `2N` warm-up requests that are copies of request 0, then
//! `10N` measured requests, through an N-wide closed loop. The fixture vectors for a point hold
//! exactly the `10N` measured lengths (`num_prompts`), in draw order. So the spec's length
//! sequences are `2N` copies of element 0 followed by the `10N` fixture elements, and BLIS
//! issues them in that order. The lengths are stated as explicit per-request sequences
//! (`type: sequence`) rather than upstream's uniform empirical PDF, following the
//! reproduction manual's later protocol of fixed numpy seed-0 vectors.
//!
//! The field names beyond what section 7 lists (`warmup_requests`, `type: sequence`,
//! `params.values`) are this project's decision; a maintainer whose `blis` spells them
//! differently changes `workload_spec` only (see docs/blis-arm.md).

use super::PointSpec;
use anyhow::{ensure, Context, Result};
use serde::Serialize;

#[derive(Serialize)]
struct Spec<'a> {
    version: &'static str,
    seed: u64,
    category: &'static str,
    num_requests: usize,
    clients: [Client<'a>; 1],
}

#[derive(Serialize)]
struct Client<'a> {
    id: &'static str,
    concurrency: u32,
    arrival: Arrival,
    prefix_length: u32,
    streaming: bool,
    warmup_requests: usize,
    input_distribution: Sequence<'a>,
    output_distribution: Sequence<'a>,
}

#[derive(Serialize)]
struct Arrival {
    process: &'static str,
}

#[derive(Serialize)]
struct Sequence<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    params: Values<'a>,
}

#[derive(Serialize)]
struct Values<'a> {
    values: &'a [u32],
}

/// Warm-up copies of request 0, then the measured requests.
pub fn with_warmup(measured: &[u32], concurrency: u32) -> Vec<u32> {
    let warmup = 2 * concurrency as usize;
    let mut all = Vec::with_capacity(warmup + measured.len());
    if let Some(&first) = measured.first() {
        all.extend(std::iter::repeat_n(first, warmup));
    }
    all.extend_from_slice(measured);
    all
}

/// Checks the point's vectors against its concurrency: `10N` measured lengths each, positive.
pub fn check_lengths(point: &PointSpec) -> Result<()> {
    let n = point.concurrency as usize;
    ensure!(point.concurrency > 0, "concurrency must be positive");
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

/// The workload spec's text for one point.
pub fn workload_spec(point: &PointSpec) -> Result<String> {
    check_lengths(point)?;
    let inputs = with_warmup(&point.input_lens, point.concurrency);
    let outputs = with_warmup(&point.output_lens, point.concurrency);
    let spec = Spec {
        version: "v1",
        seed: point.seed,
        category: "language",
        num_requests: inputs.len(),
        clients: [Client {
            id: "inferencex-closed-loop",
            concurrency: point.concurrency,
            arrival: Arrival { process: "closed_loop" },
            prefix_length: 0,
            streaming: true,
            warmup_requests: 2 * point.concurrency as usize,
            input_distribution: Sequence { kind: "sequence", params: Values { values: &inputs } },
            output_distribution: Sequence { kind: "sequence", params: Values { values: &outputs } },
        }],
    };
    serde_yaml::to_string(&spec).context("encoding the workload spec")
}
