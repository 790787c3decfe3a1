//! The point records a report carries: each point's command line, workload and result.

use super::*;

/// One deterministic record per point for the gate's JSON report: key, label, how it is run
/// (`PointRun`) and its figures or failure kind and reason. Nothing that can differ between
/// two renderings of a task (whether it came from the cache, times, the stderr tail).
pub fn point_records(outcomes: &[PointOutcome]) -> Vec<serde_json::Value> {
    use serde_json::json;
    outcomes
        .iter()
        .map(|o| {
            let result = match &o.result {
                Ok(m) => json!({"ok": m}),
                Err(f) => json!({"failed": {"kind": format!("{:?}", f.kind), "reason": f.reason}}),
            };
            json!({"key": o.key, "label": o.label, "run": o.run, "result": result})
        })
        .collect()
}

/// Every point's record as JSON (`--report-json`): its key and label, how it is run (dialect,
/// exact arguments with `<point-dir>`, workload SHA-256, settings without a flag) and its
/// result or failure. Enough to re-run any point by hand (docs/blis-arm.md). The one time is
/// `cost`, what the simulator's run cost (this run's or the cache entry's, null when unknown):
/// this file is never compared byte for byte, unlike `point_records`.
/// `binary_sha256` is the digest of the bytes that ran (`RunReport::binary_sha256`).
pub fn outcomes_json(binary: &Path, binary_sha256: &str, outcomes: &[PointOutcome]) -> String {
    use serde_json::json;
    let points: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|o| {
            let result = match &o.result {
                Ok(m) => json!({"ok": m}),
                Err(f) => json!({"failed": {"kind": format!("{:?}", f.kind), "reason": f.reason, "stderr_tail": f.stderr_tail}}),
            };
            json!({
                "key": o.key,
                "label": o.label,
                "cached": o.cached,
                "cost": o.cost,
                "run": o.run,
                "result": result,
            })
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&json!({
        "binary": binary.display().to_string(),
        "binary_sha256": binary_sha256,
        "points": points,
        "schema": 1,
    }))
    .expect("point records always serialise");
    text.push('\n');
    text
}

/// A deterministic table of outcomes: one line per point in the given order, the full
/// precision of each float, no times and no paths. What the shard and worker-count tests
/// compare byte for byte, and what `cargo xtask blis run` prints.
pub fn render_outcomes(outcomes: &[PointOutcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let key = if o.key.is_empty() { "-".to_string() } else { o.key[..12].to_string() };
        match &o.result {
            Ok(m) => {
                out += &format!(
                    "{key} {} tpot_ms={:?} ttft_ms={:?} completed={} n_tpot={} n_ttft={}\n",
                    o.label, m.tpot_ms, m.ttft_ms, m.completed, m.tpot_samples, m.ttft_samples
                )
            }
            Err(f) => out += &format!("{key} {} FAILED {:?}: {}\n", o.label, f.kind, f.reason),
        }
    }
    out
}
