//! The test double accepts exactly `blis run`'s command line (docs/upstream.md §7) and is
//! a deterministic function of its inputs in which the engine settings matter.

use crate::support::blis as blis_support;

use assert_cmd::Command;
use blis_support::{point, Checkout};
use harness::blis::{command_line, variant::scenario_variant, workload::workload_spec, EngineSettings};
use predicates::str::contains;
use std::path::Path;

/// A run directory with the variant and workload of one point, like the harness writes.
struct RunDir {
    checkout: Checkout,
    dir: tempfile::TempDir,
}

impl RunDir {
    fn new(engine: EngineSettings) -> RunDir {
        let checkout = Checkout::new();
        let dir = tempfile::tempdir().unwrap();
        let mut p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 4, 0);
        p.engine = engine;
        let variant = scenario_variant(blis_support::SCENARIO, &p.engine).unwrap();
        std::fs::write(dir.path().join("s.yaml"), variant).unwrap();
        std::fs::write(dir.path().join("workload.yaml"), workload_spec(&p).unwrap()).unwrap();
        RunDir { checkout, dir }
    }

    fn args(&self) -> Vec<String> {
        let opts = self.checkout.options(None);
        command_line("s.yaml", self.dir.path(), &opts, 0)
    }

    fn metrics(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("metrics.json")).unwrap()
    }
}

/// The double, started from a neutral directory with no BLIS_* variable leaking in.
fn double(cwd: &Path) -> Command {
    let mut cmd = Command::new(blis_support::double());
    cmd.current_dir(cwd);
    for (name, _) in std::env::vars() {
        if name.starts_with("BLIS_") {
            cmd.env_remove(name);
        }
    }
    cmd
}

#[test]
fn the_exact_command_line_writes_metrics() {
    let run = RunDir::new(blis_support::engine());
    double(run.dir.path()).args(run.args()).assert().success();
    let metrics: serde_json::Value = serde_json::from_str(&run.metrics()).unwrap();
    assert_eq!(metrics["injected_requests"], 48);
    assert_eq!(metrics["completed_requests"], 48);
    assert_eq!(metrics["requests"].as_array().unwrap().len(), 48);
}

#[test]
fn flags_out_of_order_are_a_usage_error() {
    let run = RunDir::new(blis_support::engine());
    let mut args = run.args();
    args.swap(1, 3);
    args.swap(2, 4);
    double(run.dir.path()).args(args).assert().code(2).stderr(contains("usage: blis-double run"));
}

#[test]
fn a_missing_or_extra_argument_is_a_usage_error() {
    let run = RunDir::new(blis_support::engine());
    let mut fewer = run.args();
    fewer.truncate(fewer.len() - 2);
    double(run.dir.path()).args(fewer).assert().code(2);
    let mut more = run.args();
    more.push("--verbose".into());
    double(run.dir.path()).args(more).assert().code(2);
    double(run.dir.path()).assert().code(2);
}

#[test]
fn a_different_timeout_or_log_level_is_a_usage_error() {
    let run = RunDir::new(blis_support::engine());
    let mut args = run.args();
    let at = args.iter().position(|a| a == "--timeout").unwrap();
    args[at + 1] = "60".into();
    double(run.dir.path()).args(args).assert().code(2).stderr(contains("--timeout must be -1"));
}

#[test]
fn two_runs_write_the_same_bytes() {
    let run = RunDir::new(blis_support::engine());
    double(run.dir.path()).args(run.args()).assert().success();
    let first = run.metrics();
    double(run.dir.path()).args(run.args()).assert().success();
    assert_eq!(first, run.metrics());
}

#[test]
fn each_engine_setting_moves_the_latencies() {
    let base = blis_support::engine();
    let mut variants = vec![
        EngineSettings { max_num_seqs: 2, ..base },
        EngineSettings { max_num_batched_tokens: 64, ..base },
        EngineSettings { block_size: 128, ..base },
        EngineSettings { enable_prefix_caching: false, ..base },
    ];
    variants.insert(0, base);
    let outputs: Vec<String> = variants
        .into_iter()
        .map(|engine| {
            let run = RunDir::new(engine);
            double(run.dir.path()).args(run.args()).assert().success();
            run.metrics()
        })
        .collect();
    for (i, other) in outputs.iter().enumerate().skip(1) {
        assert_ne!(&outputs[0], other, "setting {i} changed nothing");
    }
}
