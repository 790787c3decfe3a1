//! The metrics JSON `blis run --metrics-path` writes, read strictly, and its summary per
//! upstream's scorer (REFERENCE.md section 3; IS `sim/kernelmodel/harness/blisrun.go`,
//! `summarize`).
//!
//! Strict means: every field the summary reads is required and typed (no defaults, counts are
//! non-negative integers, latencies finite numbers), the completion indices are exactly
//! 0..completed, and a malformed file names the JSON path at fault. Fields the harness does not
//! read are allowed: the real binary writes dozens of summary statistics besides these.

use anyhow::{bail, ensure, Result};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
pub struct MetricsFile {
    pub completed_requests: u64,
    pub injected_requests: u64,
    pub still_queued: u64,
    pub still_running: u64,
    pub timed_out_requests: u64,
    pub dropped_unservable: u64,
    pub length_capped_requests: u64,
    pub requests: Vec<RequestRecord>,
}

#[derive(Debug, Deserialize)]
pub struct RequestRecord {
    pub ttft_ms: f64,
    pub itl_ms: f64,
    pub e2e_ms: f64,
    pub completion_index: u64,
}

/// One point's figures: what the scorer consumes. Stored in the cache as is, so its floats
/// round-trip bit for bit (serde_json `float_roundtrip`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointMetrics {
    /// Mean per-request inter-token latency after the warm-up completions, ms.
    pub tpot_ms: f64,
    /// Mean time to first token over every completion, ms.
    pub ttft_ms: f64,
    pub completed: u64,
    /// How many requests entered each mean (values > 0 only).
    pub tpot_samples: u64,
    pub ttft_samples: u64,
}

pub fn parse(text: &str) -> Result<MetricsFile> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let file: MetricsFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        anyhow::anyhow!("metrics JSON at `{path}`: {}", e.into_inner())
    })?;
    for (i, r) in file.requests.iter().enumerate() {
        for (name, v) in [("ttft_ms", r.ttft_ms), ("itl_ms", r.itl_ms), ("e2e_ms", r.e2e_ms)] {
            ensure!(v.is_finite(), "metrics JSON at `requests[{i}].{name}`: {v} is not finite");
        }
    }
    Ok(file)
}

/// The point's figures, or why the point is an error. `expected_requests` is what the workload
/// injected (2N + 10N); `concurrency` sets the warm-up cut.
pub fn summarize(file: &MetricsFile, concurrency: u32, expected_requests: u64) -> Result<PointMetrics> {
    let counts = [
        ("still_queued", file.still_queued),
        ("still_running", file.still_running),
        ("timed_out_requests", file.timed_out_requests),
        ("dropped_unservable", file.dropped_unservable),
        ("length_capped_requests", file.length_capped_requests),
    ];
    for (name, n) in counts {
        ensure!(n == 0, "{name} is {n}: every injected request must complete normally");
    }
    ensure!(
        file.injected_requests == expected_requests,
        "injected_requests is {}, the workload has {expected_requests}",
        file.injected_requests
    );
    ensure!(
        file.completed_requests == file.injected_requests,
        "completed_requests {} < injected_requests {}",
        file.completed_requests,
        file.injected_requests
    );
    ensure!(
        file.requests.len() as u64 == file.completed_requests,
        "requests[] has {} records for {} completed requests",
        file.requests.len(),
        file.completed_requests
    );
    // Completion order, by the binary's own index; the indices must be exactly 0..completed.
    let mut order: Vec<&RequestRecord> = file.requests.iter().collect();
    order.sort_by_key(|r| r.completion_index);
    for (i, r) in order.iter().enumerate() {
        if r.completion_index != i as u64 {
            bail!("completion_index values are not 0..{} (position {i} holds {})", order.len(), r.completion_index);
        }
    }
    let warmup = 2 * concurrency as usize;
    let mean_positive = |values: &mut dyn Iterator<Item = f64>| {
        let (mut sum, mut n) = (0.0, 0u64);
        for v in values.filter(|v| *v > 0.0) {
            sum += v;
            n += 1;
        }
        (if n > 0 { sum / n as f64 } else { 0.0 }, n)
    };
    let (tpot_ms, tpot_samples) = mean_positive(&mut order.iter().skip(warmup).map(|r| r.itl_ms));
    let (ttft_ms, ttft_samples) = mean_positive(&mut order.iter().map(|r| r.ttft_ms));
    ensure!(tpot_samples > 0, "no positive itl_ms after the first {warmup} completions");
    ensure!(ttft_samples > 0, "no positive ttft_ms");
    Ok(PointMetrics { tpot_ms, ttft_ms, completed: file.completed_requests, tpot_samples, ttft_samples })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(completion_index: u64, ttft_ms: f64, itl_ms: f64) -> serde_json::Value {
        serde_json::json!({"ttft_ms": ttft_ms, "itl_ms": itl_ms, "e2e_ms": 1.0, "completion_index": completion_index})
    }

    fn file(requests: Vec<serde_json::Value>) -> String {
        let n = requests.len();
        serde_json::json!({
            "completed_requests": n, "injected_requests": n, "still_queued": 0, "still_running": 0,
            "timed_out_requests": 0, "dropped_unservable": 0, "length_capped_requests": 0,
            "requests": requests,
        })
        .to_string()
    }

    #[test]
    fn warmup_is_cut_by_completion_order_not_by_record_order() {
        // concurrency 1: the first 2 completions are warm-up. Records are listed out of order;
        // the two with completion_index 0 and 1 carry itl 100, which must not count.
        let text = file(vec![record(3, 4.0, 10.0), record(0, 2.0, 100.0), record(2, 0.0, 20.0), record(1, 2.0, 100.0)]);
        let m = summarize(&parse(&text).unwrap(), 1, 4).unwrap();
        assert_eq!(m.tpot_ms, 15.0);
        assert_eq!(m.tpot_samples, 2);
        // ttft over all completions, zeros left out: (4 + 2 + 2) / 3.
        assert_eq!(m.ttft_ms, 8.0 / 3.0);
        assert_eq!(m.ttft_samples, 3);
    }

    #[test]
    fn non_positive_itl_values_are_left_out() {
        let text = file(vec![record(0, 1.0, 9.0), record(1, 1.0, 9.0), record(2, 1.0, 0.0), record(3, 1.0, 6.0)]);
        assert_eq!(summarize(&parse(&text).unwrap(), 1, 4).unwrap().tpot_ms, 6.0);
    }

    #[test]
    fn a_missing_field_names_its_path() {
        let text = r#"{"completed_requests": 1, "injected_requests": 1, "still_queued": 0, "still_running": 0,
            "timed_out_requests": 0, "dropped_unservable": 0, "length_capped_requests": 0,
            "requests": [{"ttft_ms": 1.0, "e2e_ms": 2.0, "completion_index": 0}]}"#;
        let err = parse(text).unwrap_err().to_string();
        assert!(err.contains("requests[0]") && err.contains("itl_ms"), "{err}");
    }

    #[test]
    fn a_length_capped_request_rejects_the_point() {
        let mut v: serde_json::Value = serde_json::from_str(&file(vec![record(0, 1.0, 1.0)])).unwrap();
        v["length_capped_requests"] = 1.into();
        let err = summarize(&parse(&v.to_string()).unwrap(), 0, 1).unwrap_err().to_string();
        assert!(err.contains("length_capped_requests is 1"), "{err}");
    }

    #[test]
    fn duplicate_completion_indices_are_malformed() {
        let text = file(vec![record(0, 1.0, 1.0), record(0, 1.0, 1.0)]);
        assert!(summarize(&parse(&text).unwrap(), 0, 2).is_err());
    }
}
