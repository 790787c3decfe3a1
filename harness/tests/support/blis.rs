//! Shared set-up of the BLIS arm's tests: the test double, a temporary blis "checkout" with a
//! synthetic scenario (written for these tests, not third-party data), and points over it.
#![allow(dead_code)]

use harness::blis::{CacheMode, EngineSettings, PointSpec, ProgressMode, RunOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

pub const SCENARIO: &str = harness::blis::double::SYNTHETIC_SCENARIO;

/// The synthetic model's `config.json`: the fields a release needs to size a model.
pub const SYNTHETIC_MODEL_CONFIG: &str =
    "{\"hidden_size\": 64, \"num_attention_heads\": 8, \"num_hidden_layers\": 2, \"torch_dtype\": \"bfloat16\"}\n";

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
        opts.child_env = with_mode_env("", "");
        opts
    }

    /// Options for the double speaking the flag dialect, with this checkout as its release
    /// directory (`hardware_config.json`, `defaults.yaml`, `model_configs/synthetic-model`).
    pub fn flag_options(&self, cache: Option<&Path>) -> RunOptions {
        let root = self.dir.path();
        std::fs::write(
            root.join("hardware_config.json"),
            r#"{"H100": {"MemoryGiB": 80.0}, "L40S": {"MemoryGiB": 48.0}}"#,
        )
        .unwrap();
        std::fs::write(root.join("defaults.yaml"), "defaults:\n  acme/synthetic-model:\n    GPU: H100\n").unwrap();
        std::fs::create_dir_all(root.join("model_configs/synthetic-model")).unwrap();
        std::fs::write(root.join("model_configs/synthetic-model/config.json"), SYNTHETIC_MODEL_CONFIG).unwrap();
        let mut opts = self.options(cache);
        opts.child_env.push(("BLIS_DOUBLE_DIALECT".into(), "flags".into()));
        opts
    }
}

fn with_mode_env(mode: &str, only: &str) -> Vec<(String, String)> {
    vec![
        ("BLIS_DOUBLE_MODE".into(), mode.into()),
        ("BLIS_DOUBLE_ONLY".into(), only.into()),
        ("BLIS_DOUBLE_DIALECT".into(), String::new()),
        ("BLIS_DOUBLE_NOT_MODELLED".into(), String::new()),
    ]
}

/// The options with the double's failure mode set (keeping its dialect).
pub fn with_mode(mut opts: RunOptions, mode: &str, only: &str) -> RunOptions {
    let flags = opts.child_env.iter().any(|(k, v)| k == "BLIS_DOUBLE_DIALECT" && v == "flags");
    opts.child_env = with_mode_env(mode, only);
    if flags {
        opts.child_env.push(("BLIS_DOUBLE_DIALECT".into(), "flags".into()));
    }
    opts
}

/// Workload specs and whether a real `blis` at f90a1e3a reads them (checked against the real
/// binary by `tests/blis_real.rs`, and against the double by `tests/blis_hygiene.rs`).
pub fn spec_parity_cases() -> Vec<(&'static str, String, bool)> {
    let good = |client_extra: &str, dist: &str, top_extra: &str| {
        format!(
            "version: v1\nseed: 3\ncategory: language\nnum_requests: 24\n{top_extra}clients:\n- id: c\n  concurrency: 2\n  arrival: {{process: poisson}}\n{client_extra}  input_distribution: {dist}\n  output_distribution: {{type: empirical, params: {{'60': 0.5, '64': 0.5}}}}\n  streaming: true\n"
        )
    };
    let empirical = "{type: empirical, params: {'200': 0.25, '230': 0.25, '256': 0.5}}";
    vec![
        ("empirical-closed-loop", good("", empirical, ""), true),
        ("constant-lengths", good("", "{type: constant, params: {value: 128}}", ""), true),
        ("sequence-type", good("", "{type: sequence, params: {values: [1, 2, 3]}}", ""), false),
        ("warmup-requests-field", good("  warmup_requests: 4\n", empirical, ""), false),
        ("completion-index-field", good("  completion_index: 0\n", empirical, ""), false),
        ("concurrency-with-rate-fraction", good("  rate_fraction: 1.0\n", empirical, ""), false),
        ("unknown-top-level-field", good("", empirical, "warmup: 4\n"), false),
        ("non-integer-empirical-key", good("", "{type: empirical, params: {abc: 1.0}}", ""), false),
    ]
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
        form: Default::default(),
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
