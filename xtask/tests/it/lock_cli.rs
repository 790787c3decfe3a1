//! `cargo xtask vendor` and `cargo xtask lock ...` as a user runs them, over a synthetic
//! upstream in a tempdir (the hidden `--lockfile` / `--testdata` flags keep the workspace's own
//! lock and trees out of it). One fluent chain per behaviour.

use harness::stand_in::{self, git};
use predicates::prelude::*;
use predicates::str::contains;
use std::fs;
use std::path::{Path, PathBuf};

/// A tempdir holding `artifacts/` (the team's layout, with files outside the globs too),
/// `upstream.lock` once `lock()` made it, and `testdata/` once `vendored()` ran.
struct Sandbox {
    dir: tempfile::TempDir,
}

const SOURCE: &[(&str, &str)] = &[
    ("catalog/hardware/b200.yaml", "name: b200\n"),
    ("catalog/networks/ethernet.yaml", "bandwidth_gbps: 100\n"),
    ("catalog/devices/storage.yaml", "kind: nvme\n"),
    ("catalog/models/glm-5/graph.yaml", "layers: 78\n"),
    ("catalog/models/glm-5/config.json", "{}\n"),
    ("registry/coefficients/cost-model-attention.yaml", "alpha: 1.5\n"),
    ("scenarios/glm-5-b200-fp4-sglang-tp4.yaml", "model: glm-5\n"),
    ("measurements/scoreable.json", "[]\n"),
];

impl Sandbox {
    fn new() -> Sandbox {
        let s = Sandbox { dir: tempfile::tempdir().unwrap() };
        for (rel, text) in SOURCE {
            let path = s.artifacts().join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        s
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn artifacts(&self) -> PathBuf {
        self.path("artifacts")
    }

    /// `xtask <args>` in the sandbox, with every BLIS_* variable cleared so nothing leaks in
    /// from the caller's environment.
    fn xtask(&self, args: &[&str]) -> assert_cmd::Command {
        let mut cmd = crate::support::xtask(self.dir.path());
        cmd.args(args);
        cmd
    }

    /// A `lock` subcommand against the sandbox's lock and testdata.
    fn lock_cmd(&self, sub: &str, args: &[&str]) -> assert_cmd::Command {
        let mut all = vec!["lock", sub, "--lockfile", "upstream.lock"];
        if sub == "verify" {
            all.extend(["--testdata", "testdata"]);
        }
        all.extend(args);
        self.xtask(&all)
    }

    fn locked(self) -> Sandbox {
        self.lock_cmd("update", &["--from", "artifacts"]).assert().success();
        self
    }

    fn vendored(self) -> Sandbox {
        let s = self.locked();
        s.xtask(&["vendor", "--from", "artifacts", "--lockfile", "upstream.lock", "--testdata", "testdata"])
            .assert()
            .success();
        s
    }
}

fn flip_one_byte(path: &Path) {
    let mut bytes = fs::read(path).unwrap();
    bytes[0] ^= 0x20;
    fs::write(path, bytes).unwrap();
}

#[test]
fn update_writes_a_lock_with_every_section() {
    let s = Sandbox::new();
    s.lock_cmd("update", &["--from", "artifacts"])
        .assert()
        .success()
        .stdout(contains("catalog: 4 files (4 added, 0 removed, 0 changed)"))
        .stdout(contains("measurements: 1 files"));
    let lock = fs::read_to_string(s.path("upstream.lock")).unwrap();
    assert!(lock.contains("[scenarios]\nrepo = https://github.com/inference-sim/blis-latency-kernel\n"));
    assert!(lock.contains("commit = 747a2213e13030ae675f9872c3e2a76b6b770d50\n"));
    assert!(!lock.contains("config.json"));
}

#[test]
fn update_keeps_the_mode_of_the_lock_it_replaces() {
    use std::os::unix::fs::PermissionsExt;
    let s = Sandbox::new().locked();
    let lock = s.path("upstream.lock");
    fs::set_permissions(&lock, fs::Permissions::from_mode(0o644)).unwrap();
    s.lock_cmd("update", &["--from", "artifacts"]).assert().success();
    assert_eq!(fs::metadata(&lock).unwrap().permissions().mode() & 0o7777, 0o644);
}

#[test]
fn vendor_then_verify_prints_a_line_per_upstream() {
    Sandbox::new()
        .vendored()
        .lock_cmd("verify", &[])
        .assert()
        .code(0)
        .stdout(contains("testdata/catalog: 4 files match github.com/inference-sim/blis-catalog@747a2213e130"))
        .stdout(contains("testdata/registry: 1 files match github.com/inference-sim/blis-registry@46d930c0fb96"))
        .stdout(contains("testdata/scenarios: 1 files match github.com/inference-sim/blis-latency-kernel@545ac11b7954"))
        .stdout(contains("partial copy: the team's copy holds"))
        .stdout(predicate::str::ends_with("lock: OK\n"));
}

#[test]
fn vendor_prints_what_it_copied() {
    let s = Sandbox::new().locked();
    s.xtask(&["vendor", "--from", "artifacts", "--lockfile", "upstream.lock", "--testdata", "testdata"])
        .assert()
        .success()
        .stdout(contains(
            "testdata/registry: vendored 1 files from github.com/inference-sim/blis-registry@46d930c0fb96",
        ));
}

#[test]
fn verify_fails_naming_the_changed_file() {
    let s = Sandbox::new().vendored();
    flip_one_byte(&s.path("testdata/registry/coefficients/cost-model-attention.yaml"));
    s.lock_cmd("verify", &[])
        .assert()
        .code(1)
        .stdout(contains("FAILED: 0 of 1 locked files match"))
        .stdout(contains("  changed: coefficients/cost-model-attention.yaml (locked "))
        .stdout(contains("lock: FAILED (registry)"));
}

#[test]
fn verify_of_an_absent_tree_gives_the_vendor_command() {
    Sandbox::new()
        .locked()
        .lock_cmd("verify", &[])
        .assert()
        .code(1)
        .stdout(contains("FAILED: the vendored tree is absent; run `cargo xtask vendor --from DIR`"));
}

#[test]
fn verify_with_measurements_confirms_the_corpora() {
    Sandbox::new()
        .vendored()
        .lock_cmd("verify", &["--measurements", "artifacts/measurements"])
        .assert()
        .code(0)
        .stdout(contains(
            "measurements (--measurements): 1 files match github.com/inference-sim/blis-latency-kernel@545ac11b7954",
        ));
}

#[test]
fn verify_fails_on_a_tampered_corpus_from_the_variable() {
    let s = Sandbox::new().vendored();
    flip_one_byte(&s.path("artifacts/measurements/scoreable.json"));
    s.lock_cmd("verify", &[])
        .env("BLIS_MEASUREMENTS", s.path("artifacts/measurements"))
        .assert()
        .code(1)
        .stdout(contains("measurements (BLIS_MEASUREMENTS): FAILED"))
        .stdout(contains("  changed: scoreable.json"));
}

#[test]
fn an_override_variable_changes_what_is_checked_and_says_so() {
    Sandbox::new()
        .vendored()
        .lock_cmd("verify", &[])
        .env("BLIS_CATALOG", "artifacts/catalog")
        .assert()
        .code(0)
        .stdout(contains("catalog (override BLIS_CATALOG, not the vendored tree): 4 files match"))
        .stderr(contains("note: catalog read from BLIS_CATALOG=artifacts/catalog"));
}

#[test]
fn vendor_refuses_a_source_that_drifted_and_keeps_the_old_tree() {
    let s = Sandbox::new().vendored();
    flip_one_byte(&s.path("artifacts/scenarios/glm-5-b200-fp4-sglang-tp4.yaml"));
    s.xtask(&["vendor", "--from", "artifacts", "--lockfile", "upstream.lock", "--testdata", "testdata"])
        .assert()
        .code(1)
        .stderr(contains("does not match the lock"))
        .stderr(contains("~ glm-5-b200-fp4-sglang-tp4.yaml"));
    s.lock_cmd("verify", &[]).assert().code(0);
}

#[test]
fn vendor_needs_a_source() {
    Sandbox::new().xtask(&["vendor"]).assert().code(64).stderr(contains("--from"));
}

#[test]
fn diff_lists_what_a_checkout_adds_and_exits_1() {
    let s = Sandbox::new().locked();
    fs::write(s.path("artifacts/catalog/hardware/h200.yaml"), "name: h200\n").unwrap();
    s.lock_cmd("diff", &["--catalog", "artifacts/catalog", "--registry", "artifacts/registry"])
        .assert()
        .code(1)
        .stdout(contains("catalog: 4 of 4 locked files match"))
        .stdout(contains("+ hardware/h200.yaml\n"))
        .stdout(contains("registry: 1 of 1 locked files match"));
    assert!(!s.path("testdata").exists(), "diff must not vendor anything");
}

#[test]
fn diff_of_an_identical_checkout_exits_0() {
    Sandbox::new()
        .locked()
        .lock_cmd("diff", &["--scenarios", "artifacts/scenarios"])
        .assert()
        .code(0)
        .stdout(contains("0 changed, 0 missing, 0 extra, 0 refused"));
}

#[test]
fn diff_without_a_tree_is_a_usage_error() {
    Sandbox::new().locked().lock_cmd("diff", &[]).assert().code(64);
}

#[test]
fn a_bad_lock_line_is_named() {
    let s = Sandbox::new().locked();
    let text = fs::read_to_string(s.path("upstream.lock")).unwrap();
    fs::write(s.path("upstream.lock"), text.replacen("tag = 0.3.0", "tag = 0.3.0\ntag = 0.3.1", 1)).unwrap();
    s.lock_cmd("verify", &[])
        .assert()
        .code(1)
        .stderr(contains("upstream.lock: line 8: duplicate `tag` in this section"));
}

// `vendor --fetch` end to end, against local git repositories standing in for the upstreams
// (file:// URLs; there is no network here).

impl Sandbox {
    /// The artifacts laid out as upstream has them in three git repositories under `remotes/`,
    /// committed, and the lock pointed at them by file:// URL and the commits made.
    fn with_upstreams(self) -> Sandbox {
        let s = self.locked();
        let path = s.path("upstream.lock");
        let mut lock = harness::lock::file::parse(&fs::read_to_string(&path).unwrap()).unwrap();
        stand_in::stand_in_upstreams(&s.path("remotes"), |section| s.artifacts().join(section), &mut lock);
        fs::write(&path, harness::lock::file::render(&lock)).unwrap();
        s
    }

    /// Points every section of `repo` at its stand-in and at `commit`.
    fn repin(&self, repo: &str, commit: &str) {
        let path = self.path("upstream.lock");
        let mut lock = harness::lock::file::parse(&fs::read_to_string(&path).unwrap()).unwrap();
        stand_in::repin(&mut lock, repo, &self.path("remotes").join(repo), commit);
        fs::write(&path, harness::lock::file::render(&lock)).unwrap();
    }

    fn fetch(&self) -> assert_cmd::Command {
        self.xtask(&["vendor", "--fetch", "--lockfile", "upstream.lock", "--testdata", "testdata"])
    }
}

#[test]
fn fetch_vendors_the_trees_and_the_corpora_and_verify_confirms_them() {
    let s = Sandbox::new().with_upstreams();
    // Upstream's catalog has more than the partial copy the lock pins: those stay out.
    let catalog = s.path("remotes/blis-catalog");
    fs::write(catalog.join("hardware/h200.yaml"), "name: h200\n").unwrap();
    git(&catalog, &["add", "."]);
    git(&catalog, &["commit", "--quiet", "-m", "more hardware"]);
    s.repin("blis-catalog", &git(&catalog, &["rev-parse", "HEAD"]));
    s.fetch()
        .assert()
        .success()
        .stdout(contains("testdata/catalog: vendored 4 files from file://"))
        .stdout(contains("(1 more upstream files are not pinned by this partial lock section: left out)"))
        .stdout(contains("testdata/scenarios: vendored 1 files from file://"))
        .stdout(contains("testdata/measurements: vendored 1 files from file://"));
    assert_eq!(fs::read(s.path("testdata/measurements/scoreable.json")).unwrap(), b"[]\n");
    s.lock_cmd("verify", &[])
        .assert()
        .code(0)
        .stdout(contains("testdata/measurements: 1 files match file://"))
        .stdout(predicate::str::ends_with("lock: OK\n"));
}

#[test]
fn fetch_fails_on_a_repository_without_the_locked_commit_and_vendors_nothing() {
    let s = Sandbox::new().with_upstreams();
    s.repin("blis-latency-kernel", "0123456789abcdef0123456789abcdef01234567");
    s.fetch().assert().code(1).stderr(contains("checking out 0123456789abcdef0123456789abcdef01234567"));
    assert!(!s.path("testdata/catalog").exists() && !s.path("testdata/measurements").exists());
}

#[test]
fn fetch_fails_on_a_corpus_that_differs_from_the_lock_naming_it_and_vendors_nothing() {
    let s = Sandbox::new().with_upstreams();
    let repo = s.path("remotes/blis-latency-kernel");
    fs::write(repo.join("testdata/measurements/scoreable.json"), "[1]\n").unwrap();
    git(&repo, &["commit", "--quiet", "-am", "a different corpus"]);
    s.repin("blis-latency-kernel", &git(&repo, &["rev-parse", "HEAD"]));
    s.fetch().assert().code(1).stderr(contains("does not match the lock")).stderr(contains("~ scoreable.json"));
    assert!(!s.path("testdata/catalog").exists() && !s.path("testdata/measurements").exists());
}

#[test]
fn the_fetched_corpora_are_the_default_and_an_explicit_variable_or_flag_wins() {
    let s = Sandbox::new().with_upstreams();
    s.fetch().assert().success();
    fs::write(s.path("artifacts/measurements/scoreable.json"), "[2]\n").unwrap();
    s.lock_cmd("verify", &[])
        .env("BLIS_MEASUREMENTS", s.artifacts().join("measurements"))
        .assert()
        .code(1)
        .stdout(contains("measurements (BLIS_MEASUREMENTS): FAILED"))
        .stdout(contains("testdata/measurements").not());
    s.lock_cmd("verify", &["--measurements", "artifacts/measurements"])
        .assert()
        .code(1)
        .stdout(contains("measurements (--measurements): FAILED"));
    s.lock_cmd("verify", &[]).assert().code(0).stdout(contains("testdata/measurements: 1 files match"));
}
