//! `cargo xtask blis run` and `cargo xtask cache merge` end to end with the test double:
//! sharded runs merged and scored from the cache print the unsharded table byte for byte.

use assert_cmd::Command;
use harness::blis::{double, EngineSettings, PointSpec};
use predicates::prelude::*;
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
        let engine = EngineSettings {
            max_num_seqs: 64,
            max_num_batched_tokens: 2048,
            block_size: 16,
            enable_prefix_caching: true,
        };
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
                form: Default::default(),
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
        Command::from_std(self.run_points_std(extra))
    }

    fn run_points_std(&self, extra: &[&str]) -> std::process::Command {
        let mut cmd = xtask_std(self.dir.path());
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
    Command::from_std(xtask_std(cwd))
}

/// The shared builder with no corpora at all (support::xtask_without_corpora, as a std command
/// for the tests that spawn it themselves).
fn xtask_std(cwd: &Path) -> std::process::Command {
    let mut cmd = crate::support::xtask_std(cwd);
    cmd.env("BLIS_MEASUREMENTS", "");
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
    let mut shares = 0.0;
    for (i, dir) in shards.iter().enumerate() {
        let shard = format!("{}/2", i + 1);
        let out = checkout.run_points(&["--shard", &shard, "--cache-dir", dir.to_str().unwrap()]).assert().success();
        // Each shard job says its share of the planned work.
        let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
        let line = err.lines().find(|l| l.starts_with(&format!("blis: shard {shard}: "))).expect(&err);
        assert!(line.contains(" of 5 planned points, "), "{line}");
        let pct = line.split(" planned points, ").nth(1).and_then(|r| r.split('%').next()).unwrap();
        shares += pct.parse::<f64>().unwrap();
    }
    assert!((shares - 100.0).abs() < 0.15, "the shares add up to {shares}%");
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
    // Every merged entry carries the run cost its shard recorded.
    xtask(checkout.dir.path())
        .args(["cache", "stats"])
        .arg(&merged)
        .assert()
        .success()
        .stdout(contains("5 entries").and(contains("recorded run costs: 5 entries")).and(contains("0 without")));
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
fn a_given_binary_that_is_missing_is_bad_input_exit_1_naming_the_flag() {
    let checkout = Checkout::new();
    let mut cmd = xtask(checkout.dir.path());
    cmd.args(["blis", "run", "--points"]).arg(checkout.path("points.json"));
    cmd.arg("--blis").arg(checkout.path("no-such-blis"));
    cmd.arg("--scenarios").arg(checkout.path("scenarios"));
    cmd.assert().code(1).stderr(contains("--blis").and(contains("no-such-blis")));
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    let checkout = Checkout::new();
    checkout.run_points(&["--shard", "3/2"]).assert().code(64).stderr(contains("1 <= I <= N"));
}

#[test]
fn an_unknown_form_is_a_usage_error_naming_the_forms() {
    let checkout = Checkout::new();
    checkout.run_points(&["--form", "spec"]).assert().code(64).stderr(contains("manual-replay, uniform, vectors"));
}

#[test]
fn a_replayed_form_on_a_binary_without_replay_is_not_modelled_and_named() {
    let checkout = Checkout::new();
    checkout
        .run_points(&["--form", "manual-replay", "--no-cache"])
        .assert()
        .success()
        .stdout(contains("form=manual-replay FAILED NotModelled"));
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

#[test]
fn progress_lines_name_each_point_as_it_runs_and_ends() {
    let checkout = Checkout::new();
    let cache = checkout.path("c");
    let cache = cache.to_str().unwrap();
    checkout
        .run_points(&["--progress", "lines", "--cache-dir", cache])
        .assert()
        .success()
        .stderr(contains("running synthetic 128:32 c=16 seed=0"))
        .stderr(contains("done   synthetic 128:32 c=16 seed=0"))
        .stderr(contains("5 points in").and(contains("5 run, 0 from cache, 0 failed")));
    checkout
        .run_points(&["--progress", "lines", "--cache-dir", cache])
        .assert()
        .success()
        .stderr(contains("cached synthetic 128:32 c=1 seed=0"))
        .stderr(contains("0 run, 5 from cache"));
}

#[test]
fn a_run_killed_midway_leaves_a_consistent_cache() {
    let checkout = Checkout::new();
    // More and slower points than the others, so the kill lands while points are running.
    let points: Vec<PointSpec> = (0..40u32)
        .map(|i| PointSpec {
            scenario_file: "synthetic.yaml".into(),
            engine: EngineSettings {
                max_num_seqs: 8,
                max_num_batched_tokens: 256,
                block_size: 16,
                enable_prefix_caching: true,
            },
            isl: 1024,
            osl: 256,
            concurrency: 8,
            seed: u64::from(i),
            input_lens: (0..80).map(|k| 900 + (k * 7 + i) % 100).collect(),
            output_lens: (0..80).map(|k| 200 + (k * 3 + i) % 50).collect(),
            form: Default::default(),
        })
        .collect();
    std::fs::write(checkout.path("points.json"), serde_json::to_string(&points).unwrap()).unwrap();
    let cache = checkout.path("c");
    // SIGKILL leaves the running points' directories behind: keep them in the test's own folder.
    let tmp = checkout.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut child = checkout
        .run_points_std(&["--jobs", "2", "--cache-dir", cache.to_str().unwrap()])
        .env("TMPDIR", &tmp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while harness::blis::Cache::new(&cache).entries().map_or(0, |e| e.len()) < 2 {
        assert!(started.elapsed() < std::time::Duration::from_secs(120), "no entry written");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL: harsher than Ctrl-C, nothing gets to clean up
    child.wait().unwrap();
    let written = harness::blis::Cache::new(&cache).entries().unwrap().len();
    assert!(written < points.len(), "the kill came too late to test anything ({written} entries)");
    xtask(checkout.dir.path()).args(["cache", "stats"]).arg(&cache).assert().success().stdout(contains(" 0 corrupt"));
    assert_eq!(entries_with(&tmp, "blis-seal-").len(), 1, "the killed run left its read-only copy");
    let mut resume = checkout.run_points(&["--cache-dir", cache.to_str().unwrap()]);
    resume.env("TMPDIR", &tmp);
    let resumed = stdout(resume);
    assert_eq!(entries_with(&tmp, "blis-seal-"), Vec::<String>::new(), "the next run cleared the dead run's copy");
    assert_eq!(resumed, stdout(checkout.run_points(&["--no-cache"])));
}

#[test]
fn ctrl_c_stops_every_point_and_removes_its_directory() {
    let checkout = Checkout::new();
    let tmp = checkout.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let child = checkout
        .run_points_std(&["--jobs", "2", "--no-cache"])
        .env("BLIS_DOUBLE_MODE", "hang")
        .env("TMPDIR", &tmp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let point_dirs = || {
        std::fs::read_dir(&tmp)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("blis-point-"))
            .count()
    };
    let started = std::time::Instant::now();
    while point_dirs() < 2 {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "no point started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let status = std::process::Command::new("kill").arg("-INT").arg(child.id().to_string()).status().unwrap();
    assert!(status.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("interrupted"));
    assert_eq!(point_dirs(), 0, "point directories left behind");
    // No double is left running with a workload under this test's temp dir.
    let needle = tmp.display().to_string();
    let left = processes_naming(&needle);
    assert_eq!(left, 0, "a child outlived the interrupt");
}

#[test]
fn report_json_dash_goes_to_stdout() {
    let checkout = Checkout::new();
    let mut cmd = checkout.run_points(&["--no-cache", "--report-json", "-"]);
    let assert = cmd.assert().success();
    let out = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    // The report owns stdout (it parses whole); the per-point table goes to stderr.
    let report: serde_json::Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert!(report["binary_sha256"].is_string(), "{out}");
    assert!(report["tool"].as_str().is_some_and(|t| t.contains("(commit ")), "{out}");
    let err = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(err.contains("tpot_ms="), "{err}");
    assert!(!checkout.dir.path().join("-").exists(), "a file named `-` was written");
}

/// Names in `dir` starting with `prefix`.
/// How many processes have `needle` on their command line.
fn processes_naming(needle: &str) -> usize {
    let named = |e: &std::fs::DirEntry| {
        std::fs::read(e.path().join("cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(needle))
    };
    std::fs::read_dir("/proc").unwrap().flatten().filter(named).count()
}

fn entries_with(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with(prefix))
                .collect()
        })
        .unwrap_or_default()
}

/// Sends SIGINT once `ready` holds (within 60 s) and returns the exit code and stderr.
fn interrupt_when(child: std::process::Child, ready: impl Fn() -> bool) -> (Option<i32>, String) {
    let started = std::time::Instant::now();
    while !ready() {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "never ready to interrupt");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    assert!(std::process::Command::new("kill").arg("-INT").arg(child.id().to_string()).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn ctrl_c_during_the_help_probe_stops_it_and_leaves_no_folder() {
    let checkout = Checkout::new();
    let tmp = checkout.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let secs = format!("1000.{}{}", std::process::id(), std::time::UNIX_EPOCH.elapsed().unwrap().subsec_nanos());
    let script = checkout.path("blis");
    std::fs::write(&script, format!("#!/bin/sh\nsleep {secs}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = xtask_std(checkout.dir.path());
    cmd.args(["blis", "run", "--no-cache", "--points"]).arg(checkout.path("points.json")).arg("--blis").arg(&script);
    for (flag, sub) in [("--scenarios", "scenarios"), ("--catalog", "catalog"), ("--registry", "registry")] {
        cmd.arg(flag).arg(checkout.path(sub));
    }
    let child = cmd.env("TMPDIR", &tmp).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped());
    let child = child.spawn().unwrap();
    let (code, stderr) = interrupt_when(child, || !entries_with(&tmp, "blis-help-").is_empty());
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(entries_with(&tmp, "blis-"), Vec::<String>::new(), "temporary folders left behind");
    std::thread::sleep(std::time::Duration::from_millis(200));
    let left = processes_naming(&secs);
    assert_eq!(left, 0, "the probe's child outlived the interrupt");
}

#[test]
fn sigterm_to_the_gate_stops_its_rendering_and_leaves_no_store_or_seal() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    for sub in ["tmp", "scenarios", "catalog", "registry"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    // Its own trees, not the checkout's vendored ones, which a fresh clone does not have.
    std::fs::write(dir.path().join("scenarios/synthetic-h100-vllm-tp2.yaml"), double::SYNTHETIC_SCENARIO).unwrap();
    // The determinism figure renders in a child process, whose point hangs.
    let child = xtask_std(dir.path())
        .args(["reproduce", "--only", "determinism/"])
        .args(["--scenarios", "scenarios", "--catalog", "catalog", "--registry", "registry", "--blis"])
        .arg(double::build().unwrap())
        .env("BLIS_DOUBLE_MODE", "hang")
        .env("TMPDIR", &tmp)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while entries_with(&tmp, "blis-point-").is_empty() {
        assert!(started.elapsed() < std::time::Duration::from_secs(60), "no point started");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(std::process::Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap().success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert_eq!(entries_with(&tmp, "blis-"), Vec::<String>::new(), "the store, a seal or a point folder was left");
    // The rendering child names the store under this test's TMPDIR on its command line.
    let needle = tmp.display().to_string();
    let left = processes_naming(&needle);
    assert_eq!(left, 0, "the rendering outlived the gate");
}

#[test]
fn ctrl_c_during_fuzz_leaves_no_folder_in_dev_shm() {
    let dir = tempfile::tempdir().unwrap();
    let shm = Path::new("/dev/shm");
    let before = entries_with(shm, "blis-fuzz-");
    let child = xtask_std(dir.path())
        .args(["fuzz", "--only", "corpus/aisimulate-summary", "--runs", "100000000"])
        .env("TMPDIR", dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Its folder is in /dev/shm when there is one, else under TMPDIR.
    let fresh = || {
        entries_with(shm, "blis-fuzz-").into_iter().filter(|n| !before.contains(n)).count()
            + entries_with(dir.path(), "blis-fuzz-").len()
    };
    let (code, stderr) = interrupt_when(child, || fresh() > 0);
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(fresh(), 0, "the fuzz folder was left behind");
}

#[test]
fn cache_stats_and_merge_on_a_mistyped_or_empty_folder_fail() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    xtask(dir.path())
        .args(["cache", "stats", "no-such-cache"])
        .assert()
        .code(1)
        .stderr(contains("not a cache directory"));
    xtask(dir.path())
        .args(["cache", "merge", "no-such-cache", "--into", "merged"])
        .assert()
        .code(1)
        .stderr(contains("not a cache directory"));
    xtask(dir.path())
        .args(["cache", "merge"])
        .arg(&empty)
        .args(["--into", "merged"])
        .assert()
        .code(1)
        .stderr(contains("no entry in any source"));
}

#[test]
fn determinism_takes_a_timeout_and_a_hanging_binary_is_stopped_by_it() {
    let checkout = Checkout::new();
    let started = std::time::Instant::now();
    xtask(checkout.dir.path())
        .args(["blis", "determinism", "--timeout", "1", "--blis"])
        .arg(double::build().unwrap())
        .args(["--scenarios"])
        .arg(checkout.path("scenarios"))
        .args(["--catalog"])
        .arg(checkout.path("catalog"))
        .args(["--registry"])
        .arg(checkout.path("registry"))
        .env("BLIS_DOUBLE_MODE", "hang")
        .assert()
        .code(1)
        .stderr(contains("Timeout"));
    assert!(started.elapsed() < std::time::Duration::from_secs(120), "the 1 s timeout did not apply");
}

/// A point whose scenario file is a FIFO is an error naming the points file, the point and
/// the FIFO, before any point runs; never a hang (the timeout fails the test if it blocks).
#[test]
fn a_fifo_as_a_scenario_file_is_refused_before_any_point_runs() {
    let checkout = Checkout::new();
    assert!(std::process::Command::new("mkfifo").arg(checkout.path("scenarios/fifo.yaml")).status().unwrap().success());
    let text = std::fs::read_to_string(checkout.path("points.json")).unwrap();
    let fifo = text.replacen("\"synthetic.yaml\"", "\"fifo.yaml\"", 1);
    assert_ne!(fifo, text);
    std::fs::write(checkout.path("points.json"), fifo).unwrap();
    checkout.run_points(&["--cache-dir", "c"]).timeout(std::time::Duration::from_secs(60)).assert().code(1).stderr(
        contains("points.json: [0].scenario_file:").and(contains("fifo.yaml: expected a scenario file, found a FIFO")),
    );
    assert!(!checkout.path("c").exists(), "no point ran");
}

/// A symlink planted at a cache entry's path is replaced by the recomputed entry; the file it
/// pointed to, outside the cache, is left as it was.
#[test]
fn a_symlink_planted_at_a_cache_entry_is_replaced_never_written_through() {
    let checkout = Checkout::new();
    let cache = checkout.path("c");
    checkout.run_points(&["--cache-dir", cache.to_str().unwrap()]).assert().success();
    let entry = harness::blis::Cache::new(&cache).entries().unwrap().into_values().next().unwrap();
    let outside = checkout.path("precious.txt");
    std::fs::write(&outside, "precious").unwrap();
    std::fs::remove_file(&entry).unwrap();
    std::os::unix::fs::symlink(&outside, &entry).unwrap();
    checkout.run_points(&["--cache-dir", cache.to_str().unwrap()]).assert().success();
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
    assert!(std::fs::symlink_metadata(&entry).unwrap().file_type().is_file(), "the link was replaced by the entry");
}

/// One key twice in a source (a copy of an entry in a folder not its own) is refused by
/// `cache stats` and `cache merge`, naming the key; nothing is merged.
#[test]
fn cache_stats_and_merge_refuse_a_key_that_stands_twice() {
    let checkout = Checkout::new();
    let cache = checkout.path("c");
    checkout.run_points(&["--cache-dir", cache.to_str().unwrap()]).assert().success();
    let (key, entry) = harness::blis::Cache::new(&cache).entries().unwrap().into_iter().next().unwrap();
    let other = if key.starts_with("00") { "01" } else { "00" };
    std::fs::create_dir_all(cache.join(other)).unwrap();
    std::fs::copy(&entry, cache.join(other).join(format!("{key}.json"))).unwrap();
    let twice = format!("key {key} stands twice");
    xtask(checkout.dir.path()).args(["cache", "stats"]).arg(&cache).assert().code(1).stderr(contains(twice.as_str()));
    xtask(checkout.dir.path())
        .args(["cache", "merge"])
        .arg(&cache)
        .arg("--into")
        .arg(checkout.path("m"))
        .assert()
        .code(1)
        .stderr(contains(twice.as_str()));
    assert!(!checkout.path("m").exists() || std::fs::read_dir(checkout.path("m")).unwrap().next().is_none());
}

/// A cache entry that cannot be written (a folder stands at its path) is said without the hint
/// meant for report paths (`-` for stdout): a cache entry is no report.
#[test]
fn a_cache_write_failure_carries_no_report_path_hint() {
    let checkout = Checkout::new();
    let cache = checkout.path("c");
    checkout.run_points(&["--cache-dir", cache.to_str().unwrap()]).assert().success();
    let entry = harness::blis::Cache::new(&cache).entries().unwrap().into_values().next().unwrap();
    std::fs::remove_file(&entry).unwrap();
    std::fs::create_dir(&entry).unwrap();
    checkout
        .run_points(&["--cache-dir", cache.to_str().unwrap()])
        .assert()
        .stderr(contains("refusing to replace a directory with a regular file").and(contains("for stdout").not()));
}
