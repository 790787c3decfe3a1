//! Shared set-up of the BLIS arm's tests: the test double, a temporary blis "checkout" with a
//! synthetic scenario (written for these tests, not third-party data), and points over it.
#![allow(dead_code)]

use harness::blis::{CacheMode, EngineSettings, PointSpec, ProgressMode, RunOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const SCENARIO: &str = harness::blis::double::SYNTHETIC_SCENARIO;

pub fn double() -> PathBuf {
    harness::blis::double::build().expect("building the blis-double test double")
}

/// A temporary blis checkout: scenarios (two synthetic ones), catalog, registry.
pub struct Checkout {
    pub dir: tempfile::TempDir,
}

impl Checkout {
    pub fn new() -> Checkout {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["scenarios", "catalog", "registry"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("scenarios/synthetic-h100-vllm-tp2.yaml"), SCENARIO).unwrap();
        let tp4 = SCENARIO.replace("synthetic-h100-vllm-tp2", "synthetic-h100-vllm-tp4").replace("tp: 2", "tp: 4");
        std::fs::write(dir.path().join("scenarios/synthetic-h100-vllm-tp4.yaml"), tp4).unwrap();
        Checkout { dir }
    }

    pub fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    pub fn scenario(&self, name: &str) -> PathBuf {
        self.path("scenarios").join(format!("{name}.yaml"))
    }

    /// Options for the double over this checkout: silent, no cache unless asked, and the
    /// double's mode variables cleared so the caller's environment cannot leak in.
    pub fn options(&self, cache: Option<&Path>) -> RunOptions {
        let mut opts = RunOptions::new(double(), self.path("catalog"), self.path("registry"));
        opts.blis_root = self.dir.path().to_path_buf();
        opts.cache = cache.map_or(CacheMode::Off, |c| CacheMode::ReadWrite(c.to_path_buf()));
        opts.progress = ProgressMode::Silent;
        opts.timeout = Duration::from_secs(60);
        opts.workers = 2;
        opts.child_env = vec![("BLIS_DOUBLE_MODE".into(), String::new()), ("BLIS_DOUBLE_ONLY".into(), String::new())];
        opts
    }
}

pub fn with_mode(mut opts: RunOptions, mode: &str, only: &str) -> RunOptions {
    opts.child_env = vec![("BLIS_DOUBLE_MODE".into(), mode.into()), ("BLIS_DOUBLE_ONLY".into(), only.into())];
    opts
}

pub fn engine() -> EngineSettings {
    EngineSettings { max_num_seqs: 256, max_num_batched_tokens: 8192, block_size: 16, enable_prefix_caching: true }
}

pub fn lengths(bound: u32, count: usize, seed: u64) -> Vec<u32> {
    harness::blis::double::synthetic_lengths(bound, count, seed)
}

pub fn point(scenario: PathBuf, concurrency: u32, seed: u64) -> PointSpec {
    let n = 10 * concurrency as usize;
    PointSpec {
        scenario_file: scenario,
        engine: engine(),
        isl: 256,
        osl: 64,
        concurrency,
        seed,
        input_lens: lengths(256, n, seed * 1000 + u64::from(concurrency)),
        output_lens: lengths(64, n, seed * 1000 + u64::from(concurrency) + 7),
    }
}

/// Two sweeps (one per scenario) at concurrency 1, 2, 4, 8.
pub fn sweeps(checkout: &Checkout) -> Vec<PointSpec> {
    let mut points = Vec::new();
    for name in ["synthetic-h100-vllm-tp2", "synthetic-h100-vllm-tp4"] {
        for c in [1, 2, 4, 8] {
            points.push(point(checkout.scenario(name), c, 0));
        }
    }
    points
}
