//! The metrics JSON `blis run --metrics-path` writes, read strictly, and its summary per
//! upstream's scorer (IS `sim/kernelmodel/harness/blisrun.go`, `summarize`).
//!
//! The fields are those of inference-sim's `MetricsOutput` and `RequestMetrics`
//! (`sim/metrics_utils.go` @ f90a1e3a). Strict means: every field the summary reads is
//! required and typed (counts non-negative integers, times finite numbers), and a malformed
//! file names the JSON path at fault. Fields the harness does not read are allowed: the real
//! binary writes dozens of summary statistics besides these.
//!
//! A real metrics file has no completion index. Completion order follows from the time each
//! request finished: `arrived_at` is in seconds (`sim/simulator.go` stores the arrival tick,
//! in microseconds, divided by 1e6) and `e2e_ms` in milliseconds (`sim/metrics.go`: the e2e
//! ticks divided by 1e3), so both are rounded back to whole microseconds and added. Ties
//! (two requests finishing on the same tick) keep arrival order, then record order.

use anyhow::{ensure, Result};
use serde::{Deserialize, Serialize};

/// Also what a cache entry stores (only these fields: the per-request record the summary reads).
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct MetricsFile {
    pub completed_requests: u64,
    pub injected_requests: u64,
    pub still_queued: u64,
    pub still_running: u64,
    pub timed_out_requests: u64,
    pub dropped_unservable: u64,
    pub length_capped_requests: u64,
    /// `omitempty` in the Go struct: absent when nothing completed.
    #[serde(default)]
    pub requests: Vec<RequestRecord>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct RequestRecord {
    /// Seconds since the start of the simulation.
    pub arrived_at: f64,
    pub ttft_ms: f64,
    pub itl_ms: f64,
    pub e2e_ms: f64,
}

impl RequestRecord {
    /// The tick (microsecond) the request finished on.
    pub fn completed_at_us(&self) -> i64 {
        // Saturating: a hostile file may hold times near the i64 range (`as` saturates too).
        ((self.arrived_at * 1e6).round() as i64).saturating_add((self.e2e_ms * 1e3).round() as i64)
    }

    fn arrived_at_us(&self) -> i64 {
        (self.arrived_at * 1e6).round() as i64
    }
}

/// One point's figures: what the scorer consumes. Computed from the record on every read of
/// the cache, never stored there.
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
    /// SHA-256 of the metrics file's bytes, for the byte-for-byte determinism check (empty
    /// when the summary was built without a file).
    #[serde(default)]
    pub metrics_sha256: String,
}

pub fn parse(text: &str) -> Result<MetricsFile> {
    let de = &mut serde_json::Deserializer::from_str(text);
    let file: MetricsFile = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        anyhow::anyhow!("metrics JSON at `{path}`: {}", e.into_inner())
    })?;
    for (i, r) in file.requests.iter().enumerate() {
        for (name, v) in
            [("arrived_at", r.arrived_at), ("ttft_ms", r.ttft_ms), ("itl_ms", r.itl_ms), ("e2e_ms", r.e2e_ms)]
        {
            ensure!(v.is_finite(), "metrics JSON at `requests[{i}].{name}`: {v} is not finite");
            ensure!((0.0..1e12).contains(&v), "metrics JSON at `requests[{i}].{name}`: {v} is out of range");
        }
    }
    Ok(file)
}

/// The summarizer's signature (`RunOptions::summarize`): the metrics file, the warm-up cut in
/// completions (`LengthForm::warmup`) and the requests the workload injected.
pub type Summarizer = fn(&MetricsFile, usize, u64) -> Result<PointMetrics>;

/// The point's figures, or why the point is an error. The first `warmup` completions leave the
/// TPOT mean (0 for a form that replays the measured requests alone); `expected_requests` is
/// what the workload injected.
pub fn summarize(file: &MetricsFile, warmup: usize, expected_requests: u64) -> Result<PointMetrics> {
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
    let order = completion_order(&file.requests);
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
    Ok(PointMetrics {
        tpot_ms,
        ttft_ms,
        completed: file.completed_requests,
        tpot_samples,
        ttft_samples,
        metrics_sha256: String::new(),
    })
}

/// The records in the order the requests finished (see the module comment).
pub fn completion_order(requests: &[RequestRecord]) -> Vec<&RequestRecord> {
    let mut order: Vec<(usize, &RequestRecord)> = requests.iter().enumerate().collect();
    order.sort_by_key(|(i, r)| (r.completed_at_us(), r.arrived_at_us(), *i));
    order.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record that arrived at `arrived_s` and finished `e2e_ms` later.
    fn record(arrived_s: f64, e2e_ms: f64, ttft_ms: f64, itl_ms: f64) -> serde_json::Value {
        serde_json::json!({"arrived_at": arrived_s, "requestID": "r", "ttft_ms": ttft_ms, "itl_ms": itl_ms, "e2e_ms": e2e_ms})
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
        // concurrency 1: the first 2 completions are warm-up. Records are sorted by arrival,
        // as the real file is; the two finishing first (at 1.5 s and 1.9 s) carry itl 100.
        let text = file(vec![
            record(0.0, 3000.0, 4.0, 10.0),  // finishes at 3.0 s
            record(0.5, 1000.0, 2.0, 100.0), // 1.5 s
            record(1.0, 2500.0, 0.0, 20.0),  // 3.5 s
            record(1.2, 700.0, 2.0, 100.0),  // 1.9 s
        ]);
        let m = summarize(&parse(&text).unwrap(), 2, 4).unwrap();
        assert_eq!(m.tpot_ms, 15.0);
        assert_eq!(m.tpot_samples, 2);
        // ttft over all completions, zeros left out: (4 + 2 + 2) / 3.
        assert_eq!(m.ttft_ms, 8.0 / 3.0);
        assert_eq!(m.ttft_samples, 3);
    }

    #[test]
    fn seconds_and_milliseconds_are_not_confused() {
        // Read as the same unit, 0.002 + 1.0 would finish before 0.001 + 2.0; in the real
        // units (s + ms) the first request finishes at 3 ms, the second at 1002 ms.
        let text = file(vec![record(0.001, 2.0, 1.0, 7.0), record(1.0, 2.0, 1.0, 9.0)]);
        let f = parse(&text).unwrap();
        let order = completion_order(&f.requests);
        assert_eq!(order[0].itl_ms, 7.0);
        assert_eq!(order[0].completed_at_us(), 3_000);
        assert_eq!(order[1].completed_at_us(), 1_002_000);
    }

    #[test]
    fn the_manual_replay_form_counts_every_completion() {
        let text = file(vec![
            record(0.0, 1.0, 1.0, 9.0),
            record(0.0, 2.0, 1.0, 3.0),
            record(0.0, 3.0, 1.0, 3.0),
            record(0.0, 4.0, 1.0, 5.0),
        ]);
        let f = parse(&text).unwrap();
        // The 2N cut (N = 1) drops 9 and 3; no cut keeps them: a wrong cut fails one of these.
        assert_eq!(summarize(&f, 2, 4).unwrap().tpot_ms, 4.0);
        assert_eq!(summarize(&f, 0, 4).unwrap().tpot_ms, 5.0);
        let n = 1;
        let form = crate::blis::workload::LengthForm::ManualReplay;
        assert_eq!(summarize(&f, form.warmup(n), form.requests(n) - 6).unwrap().tpot_samples, 4);
    }

    #[test]
    fn non_positive_itl_values_are_left_out() {
        let text = file(vec![
            record(0.0, 1.0, 1.0, 9.0),
            record(0.0, 2.0, 1.0, 9.0),
            record(0.0, 3.0, 1.0, 0.0),
            record(0.0, 4.0, 1.0, 6.0),
        ]);
        assert_eq!(summarize(&parse(&text).unwrap(), 2, 4).unwrap().tpot_ms, 6.0);
    }

    #[test]
    fn a_missing_field_names_its_path() {
        let text = r#"{"completed_requests": 1, "injected_requests": 1, "still_queued": 0, "still_running": 0,
            "timed_out_requests": 0, "dropped_unservable": 0, "length_capped_requests": 0,
            "requests": [{"arrived_at": 0, "ttft_ms": 1.0, "e2e_ms": 2.0}]}"#;
        let err = parse(text).unwrap_err().to_string();
        assert!(err.contains("requests[0]") && err.contains("itl_ms"), "{err}");
    }

    #[test]
    fn a_length_capped_request_rejects_the_point() {
        let mut v: serde_json::Value = serde_json::from_str(&file(vec![record(0.0, 1.0, 1.0, 1.0)])).unwrap();
        v["length_capped_requests"] = 1.into();
        let err = summarize(&parse(&v.to_string()).unwrap(), 0, 1).unwrap_err().to_string();
        assert!(err.contains("length_capped_requests is 1"), "{err}");
    }

    #[test]
    fn a_file_without_requests_is_read_and_then_incomplete() {
        // `requests` is omitempty upstream: a run where nothing completed has none.
        let text = r#"{"completed_requests": 0, "injected_requests": 12, "still_queued": 0, "still_running": 12,
            "timed_out_requests": 0, "dropped_unservable": 0, "length_capped_requests": 0}"#;
        let err = summarize(&parse(text).unwrap(), 2, 12).unwrap_err().to_string();
        assert!(err.contains("still_running is 12"), "{err}");
    }
}
