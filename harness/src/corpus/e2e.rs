//! Strict reader of `aisimulate_e2e.json`, the extracted, scoreable sweeps
//! (docs/upstream.md §5; produced upstream by BLK `scripts/extract_*`).
//!
//! ```no_run
//! let corpus = harness::corpus::e2e::load(std::path::Path::new("aisimulate_e2e.json"))?;
//! for sweep in &corpus.sweeps {
//!     println!("{} {} {} points", sweep.scenario, sweep.label, sweep.points.len());
//! }
//! # Ok::<(), anyhow::Error>(())
//! ```
//!
//! What "strict" means here, so a reader of an error knows what was checked:
//! - every object is a derived struct with `deny_unknown_fields`, so a misspelt key, an unknown
//!   key and a duplicate key are all errors;
//! - counts (`concurrency`, parallel widths, totals' `points`) are unsigned integers, so a
//!   negative or fractional count is an error;
//! - `status` is one of `success`, `unsupported`, `failed`;
//! - every number is finite, and error percentages are non-negative;
//! - (scenario, label) names one sweep, and each concurrency appears once in a sweep;
//! - errors name the file and the JSON path, e.g. `sweeps[3].points[1].concurrency`.
//!
//! What is deliberately NOT an error here, because upstream treats it as a property of the
//! sweep (a dropped sweep or a coverage gap, docs/upstream.md §6), not of the file:
//! a missing (`null`/absent) or non-positive relative, a workload that is not `isl:osl`, a
//! scenario name with no scenario file. [`Sweep::workload_lengths`] parses the workload for
//! callers that need it. `snapshot`, `scope` and `selection` are kept as raw JSON: their
//! content is provenance, not an input to any figure.

use super::strict::{finite_pct, opt_finite, opt_finite_pct, opt_status_counts, status};
use anyhow::{Context, Result};
use serde::Deserialize;
use std::path::Path;

/// AISimulate's per-point outcome and its counts: `oracles::accuracy`'s types, read strictly
/// (`corpus::strict`).
pub use oracles::accuracy::{Status, StatusCounts};

/// The whole file.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct E2eCorpus {
    pub source: String,
    pub measurement_source: String,
    #[serde(default)]
    pub measurement_source_url: Option<String>,
    pub snapshot: serde_json::Value,
    pub scope: serde_json::Value,
    pub aisimulate_totals: Totals,
    pub aic_totals: Totals,
    pub selection: serde_json::Value,
    pub sweeps: Vec<Sweep>,
}

/// The published totals of one predictor over the whole snapshot (not recomputed here).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Totals {
    pub points: u64,
    #[serde(deserialize_with = "finite_pct")]
    pub tpot_mape_pct: f64,
    #[serde(deserialize_with = "finite_pct")]
    pub tpot_shape_error_pct: f64,
    #[serde(deserialize_with = "finite_pct")]
    pub ttft_mape_pct: f64,
    #[serde(deserialize_with = "finite_pct")]
    pub ttft_shape_error_pct: f64,
    /// AISimulate only.
    #[serde(default, deserialize_with = "opt_finite_pct")]
    pub coverage_pct: Option<f64>,
    /// AISimulate only.
    #[serde(default, deserialize_with = "opt_status_counts")]
    pub status_counts: Option<StatusCounts>,
}

/// One sweep: a deployment (scenario) at one workload, measured over several concurrencies.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Sweep {
    /// A scenario file name, e.g. `gpt-oss-120b-h200-fp4-vllm-tp1.yaml`.
    pub scenario: String,
    pub model: String,
    pub gpu: String,
    /// `"isl:osl"`, e.g. `"1024:8192"`; see [`Sweep::workload_lengths`].
    pub workload: String,
    /// `1k1k`, `1k8k`, `8k1k`: with `scenario`, the key joining the InferenceX corpora.
    pub label: String,
    pub framework: String,
    pub precision: String,
    pub serving: String,
    pub spec_method: String,
    pub parallelism: Parallelism,
    pub topology_id: String,
    pub points: Vec<SweepPoint>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Parallelism {
    pub tp_size: u32,
    pub pp_size: u32,
    pub attention_dp_size: u32,
    /// `null` for dense models (no MoE layers).
    pub moe_ep_size: Option<u32>,
    /// `null` for dense models (no MoE layers).
    pub moe_tp_size: Option<u32>,
}

/// One concurrency of a sweep. Relatives are value / MEASURED value at the sweep's
/// lowest-concurrency row (docs/upstream.md §4), rounded to 6 decimals upstream.
/// `None` means the file has `null` or no such key.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SweepPoint {
    pub concurrency: u32,
    #[serde(deserialize_with = "status")]
    pub status: Status,
    #[serde(default, deserialize_with = "opt_finite")]
    pub measured_tpot_relative: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite")]
    pub measured_ttft_relative: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite")]
    pub aisimulate_tpot_relative: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite_pct")]
    pub aisimulate_tpot_error_pct: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite")]
    pub aisimulate_ttft_relative: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite_pct")]
    pub aisimulate_ttft_error_pct: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite")]
    pub aic_tpot_relative: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite_pct")]
    pub aic_tpot_error_pct: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite")]
    pub aic_ttft_relative: Option<f64>,
    #[serde(default, deserialize_with = "opt_finite_pct")]
    pub aic_ttft_error_pct: Option<f64>,
}

/// The `framework` values of InferenceX's sweeps (the corpus's `sweeps[].framework`): what
/// `score --framework` accepts. Anything else would select no sweep and print an empty table.
pub const FRAMEWORKS: [&str; 3] = ["vllm", "sglang", "trt"];

impl Sweep {
    /// `(isl, osl)` from `workload`, or an error saying what was expected.
    pub fn workload_lengths(&self) -> Result<(u32, u32), String> {
        parse_workload(&self.workload)
    }

    /// True for the vLLM framework (the only one the headline table scores).
    pub fn is_vllm(&self) -> bool {
        self.framework == "vllm"
    }
}

/// `"1024:8192"` -> `(1024, 8192)`; both positive integers.
pub fn parse_workload(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("workload {text:?} is not isl:osl (two positive integers)");
    let (isl, osl) = text.split_once(':').ok_or_else(bad)?;
    let isl: u32 = isl.parse().map_err(|_| bad())?;
    let osl: u32 = osl.parse().map_err(|_| bad())?;
    if isl == 0 || osl == 0 {
        return Err(bad());
    }
    Ok((isl, osl))
}

/// Reads and checks the file; the error names the file and the JSON path.
pub fn load(path: &Path) -> Result<E2eCorpus> {
    let text = crate::read::text(path)?;
    parse(&text).with_context(|| crate::paths::display(path))
}

/// [`load`] on text already in memory (for tests and for callers that hash first).
pub fn parse(text: &str) -> Result<E2eCorpus> {
    let corpus: E2eCorpus = super::strict::parse_json(text)?;
    check_identities(&corpus)?;
    Ok(corpus)
}

/// What a derived struct cannot say: (scenario, label) names one sweep, and a concurrency
/// appears once per sweep.
fn check_identities(corpus: &E2eCorpus) -> Result<()> {
    let mut sweeps = std::collections::BTreeMap::new();
    for (i, sweep) in corpus.sweeps.iter().enumerate() {
        if let Some(first) = sweeps.insert((&sweep.scenario, &sweep.label), i) {
            anyhow::bail!("at `sweeps[{i}]`: ({}, {}) repeats `sweeps[{first}]`", sweep.scenario, sweep.label);
        }
        let mut seen = std::collections::BTreeMap::new();
        for (j, point) in sweep.points.iter().enumerate() {
            if let Some(first) = seen.insert(point.concurrency, j) {
                anyhow::bail!(
                    "at `sweeps[{i}].points[{j}].concurrency`: {} repeats `sweeps[{i}].points[{first}]` ({} {})",
                    point.concurrency,
                    sweep.scenario,
                    sweep.label
                );
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal valid file with one sweep of two points; tests break one thing at a time.
    fn valid() -> serde_json::Value {
        let point = |c: u32, m: f64| {
            serde_json::json!({
                "concurrency": c, "status": "success",
                "measured_tpot_relative": m, "measured_ttft_relative": m,
                "aisimulate_tpot_relative": m, "aisimulate_tpot_error_pct": 0.0,
                "aisimulate_ttft_relative": m, "aisimulate_ttft_error_pct": 0.0,
                "aic_tpot_relative": m, "aic_tpot_error_pct": 0.0,
                "aic_ttft_relative": m, "aic_ttft_error_pct": 0.0
            })
        };
        let totals = serde_json::json!({"points": 2, "tpot_mape_pct": 0.0,
            "tpot_shape_error_pct": 0.0, "ttft_mape_pct": 0.0, "ttft_shape_error_pct": 0.0});
        serde_json::json!({
            "source": "s", "measurement_source": "m", "snapshot": {}, "scope": {},
            "aisimulate_totals": totals, "aic_totals": totals, "selection": {},
            "sweeps": [{
                "scenario": "x.yaml", "model": "x", "gpu": "h100", "workload": "1024:1024",
                "label": "1k1k", "framework": "vllm", "precision": "fp8",
                "serving": "aggregated", "spec_method": "none",
                "parallelism": {"tp_size": 1, "pp_size": 1, "attention_dp_size": 1,
                                "moe_ep_size": 1, "moe_tp_size": 1},
                "topology_id": "t", "points": [point(1, 1.0), point(2, 1.5)]
            }]
        })
    }

    fn err_of(v: serde_json::Value) -> String {
        format!("{:#}", parse(&v.to_string()).unwrap_err())
    }

    #[test]
    fn valid_file_reads_typed() {
        let c = parse(&valid().to_string()).unwrap();
        assert_eq!(c.sweeps[0].points[1].concurrency, 2);
        assert_eq!(c.sweeps[0].points[1].status, Status::Success);
        assert_eq!(c.sweeps[0].workload_lengths(), Ok((1024, 1024)));
    }

    #[test]
    fn negative_concurrency_names_its_path() {
        let mut v = valid();
        v["sweeps"][0]["points"][1]["concurrency"] = serde_json::json!(-4);
        let e = err_of(v);
        assert!(e.contains("sweeps[0].points[1].concurrency"), "{e}");
    }

    #[test]
    fn unknown_status_is_an_error() {
        let mut v = valid();
        v["sweeps"][0]["points"][0]["status"] = serde_json::json!("skipped");
        let e = err_of(v);
        assert!(e.contains("sweeps[0].points[0].status") && e.contains("skipped"), "{e}");
    }

    #[test]
    fn duplicate_key_is_an_error() {
        let text = valid().to_string().replacen("\"label\":\"1k1k\"", "\"label\":\"1k1k\",\"label\":\"1k8k\"", 1);
        let e = format!("{:#}", parse(&text).unwrap_err());
        assert!(e.contains("duplicate field `label`"), "{e}");
    }

    #[test]
    fn unknown_key_is_an_error() {
        let mut v = valid();
        v["sweeps"][0]["points"][0]["measured_tpot_relativ"] = serde_json::json!(1.0);
        assert!(err_of(v).contains("unknown field `measured_tpot_relativ`"));
    }

    #[test]
    fn non_finite_number_is_an_error() {
        // JSON has no NaN; an out-of-range literal is how a non-finite value would arrive.
        let text = valid().to_string().replacen("\"aic_tpot_relative\":1.5", "\"aic_tpot_relative\":1e999", 1);
        let e = format!("{:#}", parse(&text).unwrap_err());
        assert!(e.contains("sweeps[0].points[1]"), "{e}");
    }

    #[test]
    fn a_value_near_the_float_range_is_an_error_not_an_inf_cell() {
        let mut v = valid();
        v["sweeps"][0]["points"][0]["aic_ttft_error_pct"] = serde_json::json!(1.7e308);
        let e = err_of(v);
        assert!(e.contains("sweeps[0].points[0].aic_ttft_error_pct") && e.contains("magnitude at most"), "{e}");
    }

    #[test]
    fn negative_error_pct_is_an_error() {
        let mut v = valid();
        v["sweeps"][0]["points"][0]["aic_ttft_error_pct"] = serde_json::json!(-1.0);
        let e = err_of(v);
        assert!(e.contains("sweeps[0].points[0].aic_ttft_error_pct") && e.contains("non-negative"), "{e}");
    }

    #[test]
    fn missing_relative_is_read_as_absent_not_an_error() {
        let mut v = valid();
        v["sweeps"][0]["points"][1].as_object_mut().unwrap().remove("aisimulate_tpot_relative");
        v["sweeps"][0]["points"][0]["aic_ttft_relative"] = serde_json::Value::Null;
        let c = parse(&v.to_string()).unwrap();
        assert_eq!(c.sweeps[0].points[1].aisimulate_tpot_relative, None);
        assert_eq!(c.sweeps[0].points[0].aic_ttft_relative, None);
    }

    #[test]
    fn workload_must_be_isl_colon_osl() {
        assert_eq!(parse_workload("8192:1024"), Ok((8192, 1024)));
        for bad in ["1k1k", "1024", "1024:", ":1024", "0:1024", "1024:-1", "1024:1024:1"] {
            assert!(parse_workload(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn repeated_concurrency_in_a_sweep_is_an_error() {
        let mut v = valid();
        v["sweeps"][0]["points"][1]["concurrency"] = serde_json::json!(1);
        let e = err_of(v);
        assert!(e.contains("sweeps[0].points[1].concurrency") && e.contains("repeats"), "{e}");
    }

    #[test]
    fn repeated_sweep_is_an_error() {
        let mut v = valid();
        let sweep = v["sweeps"][0].clone();
        v["sweeps"].as_array_mut().unwrap().push(sweep);
        let e = err_of(v);
        assert!(e.contains("sweeps[1]") && e.contains("repeats `sweeps[0]`"), "{e}");
    }

    #[test]
    fn load_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("aisimulate_e2e.json");
        std::fs::write(&path, "{\"source\": 1}").unwrap();
        let e = format!("{:#}", load(&path).unwrap_err());
        assert!(e.contains("aisimulate_e2e.json") && e.contains("source"), "{e}");
    }
}
