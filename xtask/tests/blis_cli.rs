//! `cargo xtask blis run` and `cargo xtask cache merge` end to end with the test double:
//! sharded runs merged and scored from the cache print the unsharded table byte for byte.

use assert_cmd::Command;
use harness::blis::{double, EngineSettings, PointSpec};
use predicates::str::contains;
use std::path::{Path, PathBuf};

struct Checkout {
    dir: tempfile::TempDir,
}

impl Checkout {
    fn new() -> Checkout {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["scenarios", "catalog", "registry"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        std::fs::write(dir.path().join("scenarios/synthetic.yaml"), double::SYNTHETIC_SCENARIO).unwrap();
        let engine = EngineSettings { max_num_seqs: 64, max_num_batched_tokens: 2048, block_size: 16, enable_prefix_caching: true };
        let points: Vec<PointSpec> = [1u32, 2, 4, 8, 16]
            .iter()
            .map(|&c| PointSpec {
                // Relative: resolved below --scenarios.
                scenario_file: "synthetic.yaml".into(),
                engine,
                isl: 128,
                osl: 32,
                concurrency: c,
                seed: 0,
                input_lens: (0..10 * c).map(|i| 100 + i % 29).collect(),
                output_lens: (0..10 * c).map(|i| 20 + i % 13).collect(),
            })
            .collect();
        std::fs::write(dir.path().join("points.json"), serde_json::to_string(&points).unwrap()).unwrap();
        Checkout { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// `xtask blis run` over this checkout with the double, from a neutral directory.
    fn run_points(&self, extra: &[&str]) -> Command {
        let mut cmd = xtask(self.dir.path());
        cmd.args(["blis", "run", "--points"]).arg(self.path("points.json"));
        cmd.arg("--blis").arg(double::build().unwrap());
        for (flag, sub) in [("--scenarios", "scenarios"), ("--catalog", "catalog"), ("--registry", "registry")] {
            cmd.arg(flag).arg(self.path(sub));
        }
        cmd.args(extra);
        cmd
    }
}

fn xtask(cwd: &Path) -> Command {
    let mut cmd = Command::cargo_bin("xtask").unwrap();
    cmd.current_dir(cwd);
    for (name, _) in std::env::vars() {
        if name.starts_with("BLIS_") {
            cmd.env_remove(name);
        }
    }
    cmd
}

fn stdout(mut cmd: Command) -> String {
    String::from_utf8(cmd.assert().success().get_output().stdout.clone()).unwrap()
}

#[test]
fn sharded_runs_merged_print_the_unsharded_table() {
    let checkout = Checkout::new();
    let unsharded = stdout(checkout.run_points(&["--no-cache"]));
    assert_eq!(unsharded.lines().count(), 5);
    assert!(unsharded.contains("tpot_ms="), "{unsharded}");
    let shards = [checkout.path("shard1"), checkout.path("shard2")];
    for (i, dir) in shards.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        checkout.run_points(&["--shard", &shard, "--cache-dir", dir.to_str().unwrap()]).assert().success();
    }
    let merged = checkout.path("merged");
    xtask(checkout.dir.path())
        .args(["cache", "merge"])
        .args(&shards)
        .arg("--into")
        .arg(&merged)
        .assert()
        .success()
        .stdout(contains("5 entries copied"));
    let from_cache = stdout(checkout.run_points(&["--cache-only", "--cache-dir", merged.to_str().unwrap()]));
    assert_eq!(from_cache, unsharded);
    xtask(checkout.dir.path()).args(["cache", "stats"]).arg(&merged).assert().success().stdout(contains("5 entries"));
}

#[test]
fn a_failing_point_exits_1_and_is_listed_with_its_stderr() {
    let checkout = Checkout::new();
    checkout
        .run_points(&["--no-cache"])
        .env("BLIS_DOUBLE_MODE", "exit1")
        .assert()
        .code(1)
        .stdout(contains("FAILED Exit"))
        .stderr(contains("stderr: blis-double: simulated failure"));
}

#[test]
fn a_missing_binary_is_refused_with_exit_2_naming_the_flag() {
    let checkout = Checkout::new();
    let mut cmd = xtask(checkout.dir.path());
    cmd.args(["blis", "run", "--points"]).arg(checkout.path("points.json"));
    cmd.arg("--blis").arg(checkout.path("no-such-blis"));
    cmd.arg("--scenarios").arg(checkout.path("scenarios"));
    cmd.assert().code(2).stderr(contains("--blis"));
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    let checkout = Checkout::new();
    checkout.run_points(&["--shard", "3/2"]).assert().code(64).stderr(contains("1 <= I <= N"));
}

#[test]
fn merging_a_corrupt_entry_fails() {
    let checkout = Checkout::new();
    let dir = checkout.path("c");
    checkout.run_points(&["--cache-dir", dir.to_str().unwrap()]).assert().success();
    let entry = harness::blis::Cache::new(&dir).entries().unwrap().into_values().next().unwrap();
    std::fs::write(&entry, "{}").unwrap();
    xtask(checkout.dir.path())
        .args(["cache", "merge"])
        .arg(&dir)
        .arg("--into")
        .arg(checkout.path("m"))
        .assert()
        .code(1)
        .stderr(contains("is corrupt"));
}
