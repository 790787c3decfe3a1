//! Locating the test double (`harness/blis-double`, crate `blis-double`) for tests and the
//! benchmark. A test cannot name another package's binary (`CARGO_BIN_EXE_*` only covers its
//! own package), so this runs `cargo build -p blis-double` once per process -- a no-op when it is
//! up to date -- and returns the path cargo reports for it, wherever the target directory is
//! (CARGO_TARGET_DIR, build.target-dir, a profile other than `debug`). That works from a plain
//! `cargo test --workspace` on a clean clone.

use anyhow::{bail, Context, Result};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

pub fn build() -> Result<PathBuf> {
    static BUILT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    BUILT.get_or_init(|| build_once().map_err(|e| format!("{e:#}"))).clone().map_err(anyhow::Error::msg)
}

fn build_once() -> Result<PathBuf> {
    let root = crate::paths::workspace_root();
    let cargo =
        std::env::var_os("CARGO").or_else(|| option_env!("CARGO").map(Into::into)).unwrap_or_else(|| "cargo".into());
    // cargo itself says where it put the binary: the target directory may be shared
    // (CARGO_TARGET_DIR, build.target-dir) and the profile is not always `debug`.
    let output = Command::new(&cargo)
        .args(["build", "--quiet", "-p", "blis-double", "--message-format=json-render-diagnostics", "--manifest-path"])
        .arg(root.join("Cargo.toml"))
        .stderr(std::process::Stdio::inherit())
        .output()
        .with_context(|| format!("running {} build -p blis-double", cargo.to_string_lossy()))?;
    if !output.status.success() {
        bail!("cargo build -p blis-double failed ({})", output.status);
    }
    let path = executable_of(&String::from_utf8_lossy(&output.stdout), "blis-double")
        .context("cargo build -p blis-double reported no executable")?;
    if !path.is_file() {
        bail!("built blis-double but {} does not exist", path.display());
    }
    Ok(path)
}

/// The `executable` of the `compiler-artifact` message for binary `name` in cargo's JSON output.
fn executable_of(messages: &str, name: &str) -> Option<PathBuf> {
    messages.lines().filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok()).find_map(|m| {
        let is_it = m["reason"] == "compiler-artifact" && m["target"]["name"] == name;
        is_it.then(|| m["executable"].as_str().map(PathBuf::from)).flatten()
    })
}

/// A scenario in the shape of the committed ones (Scenario + Deployment, one pool), written
/// for the tests and the benchmark: no third-party data.
pub const SYNTHETIC_SCENARIO: &str = r#"# A synthetic scenario in the shape of the committed ones, for tests only.
kind: Scenario
name: synthetic-h100-vllm-tp2
engine_version: "0.1.0"

model: synthetic-model
coefficients: [cost-a, cost-b]

cluster:
  hardware: h100
  nodes: 1
  gpus_per_node: 8
---
kind: Deployment
name: synthetic-h100-vllm-tp2

pools:
  - role: colocated
    nodes: 1
    parallel:
      tp: 2
      pp: 1
      dp: 1
      enable_expert_parallel: false
    engine:
      quantization: fp8
      cache_dtype: fp8
      block_size: 16
      max_num_batched_tokens: 8192
      max_num_seqs: 256
      max_model_len: 4096
      cudagraph_mode: PIECEWISE
      gpu_memory_utilization: 0.9
"#;

/// Lengths spread on [0.8 x bound, bound] from a small LCG: inputs for tests and benchmarks of
/// the runner, deliberately not numpy's (the fixtures are the real workload).
pub fn synthetic_lengths(bound: u32, count: usize, seed: u64) -> Vec<u32> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let low = bound * 4 / 5;
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            low + ((state >> 33) as u32) % (bound - low + 1)
        })
        .collect()
}
