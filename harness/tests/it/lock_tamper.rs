//! The lock against tampered trees, each built in a tempdir from a small synthetic upstream:
//! a byte changed, a file removed or added, a stamp edited, a symlink, a file that is not
//! UTF-8, an unreadable entry, and a vendor run that fails half-way.

use harness::inputs::{InputKind, InputPath, Inputs, Origin};
use harness::lock::{self, fetch, vendor, verify, Lock, Outcome, VerifyReport};
use harness::stand_in::{self, git};
use std::fs;
use std::path::{Path, PathBuf};

/// A synthetic upstream source in the team's layout, the lock made from it by `relock` (with
/// the real pins' globs), and an empty `testdata/` to vendor into.
struct Fixture {
    _dir: tempfile::TempDir,
    from: PathBuf,
    testdata: PathBuf,
    lock: Lock,
}

const SOURCE: &[(&str, &str)] = &[
    ("catalog/hardware/a100-sxm.yaml", "name: a100-sxm\nmemory_gb: 80\n"),
    ("catalog/hardware/b200.yaml", "name: b200\nnote: \u{2014} typographic dash\n"),
    ("catalog/networks/ethernet.yaml", "bandwidth_gbps: 100\n"),
    ("catalog/devices/storage.yaml", "kind: nvme\n"),
    ("catalog/models/glm-5/graph.yaml", "layers: 78\n"),
    ("catalog/models/glm-5/config.json", "{}\n"), // outside every glob: never vendored
    ("catalog/README.md", "not vendored\n"),
    ("registry/coefficients/cost-model-attention.yaml", "alpha: 1.5"), // no trailing newline
    ("registry/coefficients/cost-model-primitives.yaml", "beta: 2.5\n"),
    ("scenarios/glm-5-b200-fp4-sglang-tp4.yaml", "model: glm-5\n---\nworkload: x\n"),
    ("measurements/scoreable.json", "[]\n"),
    ("measurements/PROVENANCE.md", "not pinned\n"),
];

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("artifacts");
        for (rel, text) in SOURCE {
            write(&from.join(rel), text.as_bytes());
        }
        let testdata = dir.path().join("testdata");
        let (lock, _) = vendor::relock(&lock::default_pins(), &from).unwrap();
        Fixture { _dir: dir, from, testdata, lock }
    }

    fn vendored() -> Fixture {
        let f = Fixture::new();
        vendor::vendor_from(&f.lock, &f.from, &f.testdata).unwrap();
        f
    }

    fn tree(&self, name: &str) -> PathBuf {
        self.testdata.join(name)
    }

    fn inputs(&self) -> Inputs {
        let vendored = |kind, name| Some(InputPath { kind, path: self.tree(name), origin: Origin::Vendored });
        Inputs {
            measurements: None,
            catalog: vendored(InputKind::Catalog, "catalog"),
            registry: vendored(InputKind::Registry, "registry"),
            scenarios: vendored(InputKind::Scenarios, "scenarios"),
            blis: None,
            releases: None,
        }
    }

    fn verify_with(&self, inputs: &Inputs) -> VerifyReport {
        lock::verify(&self.lock, inputs)
    }

    fn verify(&self) -> VerifyReport {
        self.verify_with(&self.inputs())
    }

    /// The report with this fixture's temp path shortened to `testdata`.
    fn report(&self, report: &VerifyReport) -> String {
        report.render().replace(&self.testdata.display().to_string(), "testdata")
    }
}

fn write(path: &Path, bytes: &[u8]) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
}

fn flip_one_byte(path: &Path) {
    let mut bytes = fs::read(path).unwrap();
    bytes[0] ^= 0x20;
    fs::write(path, bytes).unwrap();
}

#[test]
fn freshly_vendored_trees_match_with_a_line_per_upstream() {
    let f = Fixture::vendored();
    let report = f.verify();
    assert!(report.ok(), "{}", report.render());
    assert_eq!(
        f.report(&report),
        "testdata/catalog: 5 files match github.com/inference-sim/blis-catalog@747a2213e130\n\
         \x20 partial copy: the team's copy holds 5 of 9 hardware descriptors (no h200), 1 of 3 networks and 20 of 32 model graphs (none for deepseek-v3, gpt-oss-120b, llama-3.1-70b-instruct, minimax-m2.5, minimax-m3, qwen3.5-397b-a17b); these gaps are the copy's, not the published run's\n\
         testdata/registry: 2 files match github.com/inference-sim/blis-registry@46d930c0fb96\n\
         testdata/scenarios: 1 files match github.com/inference-sim/blis-latency-kernel@545ac11b7954\n\
         measurements: not checked (pass --measurements DIR or set BLIS_MEASUREMENTS)\n\
         lock: OK\n"
    );
    // Only the globs were copied, and the stamps are what docs/upstream.md §8 says.
    assert!(!f.tree("catalog/README.md").exists());
    assert!(!f.tree("catalog/models/glm-5/config.json").exists());
    assert_eq!(
        fs::read_to_string(f.tree("registry/.upstream-commit")).unwrap(),
        "46d930c0fb96e603b76c507acaf14910d48c4ccb\n"
    );
    assert_eq!(
        fs::read_to_string(f.tree("registry/.upstream-manifest")).unwrap(),
        f.lock.get(InputKind::Registry).manifest_text()
    );
}

#[test]
fn one_changed_byte_fails_naming_the_file() {
    let f = Fixture::vendored();
    flip_one_byte(&f.tree("registry/coefficients/cost-model-primitives.yaml"));
    let report = f.verify();
    assert_eq!(report.failed(), vec![InputKind::Registry]);
    let text = f.report(&report);
    assert!(text.contains("testdata/registry: FAILED: 1 of 2 locked files match"), "{text}");
    assert!(text.contains("  changed: coefficients/cost-model-primitives.yaml (locked "), "{text}");
    assert!(text.ends_with("lock: FAILED (registry)\n"), "{text}");
}

#[test]
fn a_removed_file_is_missing() {
    let f = Fixture::vendored();
    fs::remove_file(f.tree("catalog/hardware/b200.yaml")).unwrap();
    let text = f.report(&f.verify());
    assert!(text.contains("  missing: hardware/b200.yaml\n"), "{text}");
}

#[test]
fn an_added_file_is_extra_even_outside_the_globs() {
    let f = Fixture::vendored();
    write(&f.tree("scenarios/new.yaml"), b"model: x\n");
    write(&f.tree("scenarios/notes/readme.txt"), b"stray\n");
    let text = f.report(&f.verify());
    assert!(text.contains("  extra: new.yaml\n  extra: notes/readme.txt\n"), "{text}");
}

#[test]
fn an_edited_commit_stamp_fails() {
    let f = Fixture::vendored();
    fs::write(f.tree("catalog/.upstream-commit"), "0000000000000000000000000000000000000000\n").unwrap();
    let text = f.report(&f.verify());
    assert!(
        text.contains("  stamp: .upstream-commit says \"0000000000000000000000000000000000000000\", the lock says 747a2213e13030ae675f9872c3e2a76b6b770d50"),
        "{text}"
    );
}

#[test]
fn an_edited_or_missing_manifest_fails() {
    let f = Fixture::vendored();
    let manifest = f.tree("registry/.upstream-manifest");
    let edited = fs::read_to_string(&manifest).unwrap().replacen("primitives", "Primitives", 1);
    fs::write(&manifest, edited).unwrap();
    assert!(f.report(&f.verify()).contains("  stamp: .upstream-manifest differs from the lock from its line 2"));
    fs::remove_file(&manifest).unwrap();
    assert!(f.report(&f.verify()).contains("  stamp: .upstream-manifest unreadable"));
}

#[test]
fn a_symlink_inside_a_vendored_tree_is_refused_and_not_followed() {
    let f = Fixture::vendored();
    let outside = f.from.join("outside");
    write(&outside.join("secret.yaml"), b"not ours\n");
    // A file replaced by a link to an identical copy still fails: the link itself is refused.
    let target = f.tree("catalog/devices/storage.yaml");
    fs::copy(&target, outside.join("storage.yaml")).unwrap();
    fs::remove_file(&target).unwrap();
    std::os::unix::fs::symlink(outside.join("storage.yaml"), &target).unwrap();
    std::os::unix::fs::symlink(&outside, f.tree("catalog/linked-dir")).unwrap();
    let text = f.report(&f.verify());
    assert!(text.contains("  refused: devices/storage.yaml: symlink refused"), "{text}");
    assert!(text.contains("  refused: linked-dir: symlink refused"), "{text}");
    assert!(!text.contains("secret.yaml"), "followed a link out of the tree: {text}");
}

#[test]
fn vendoring_refuses_a_symlink_in_the_source() {
    let f = Fixture::new();
    std::os::unix::fs::symlink("/etc/hostname", f.from.join("catalog/hardware/h200.yaml")).unwrap();
    let err = vendor::vendor_from(&f.lock, &f.from, &f.testdata).unwrap_err().to_string();
    assert!(err.contains("hardware/h200.yaml: symlink refused"), "{err}");
    assert!(!f.tree("catalog").exists());
}

#[test]
fn a_changed_file_that_is_not_utf8_says_so() {
    // Hashing is over bytes, so a Latin-1 re-encoding of a file is simply a different file;
    // the report adds that it is not UTF-8, since every locked file is YAML or JSON.
    let f = Fixture::vendored();
    write(&f.tree("catalog/hardware/b200.yaml"), b"name: b200\nnote: \x97 cp1252 dash\n");
    let text = f.report(&f.verify());
    assert!(text.contains("  changed: hardware/b200.yaml (locked "), "{text}");
    assert!(text.contains("; not valid UTF-8)"), "{text}");
}

#[test]
fn lock_update_refuses_to_pin_a_file_that_is_not_utf8() {
    let f = Fixture::new();
    write(&f.from.join("scenarios/latin1.yaml"), b"model: caf\xe9\n");
    let err = vendor::relock(&f.lock, &f.from).unwrap_err().to_string();
    assert!(err.contains("scenarios/latin1.yaml: not valid UTF-8"), "{err}");
}

#[test]
fn a_directory_where_a_file_is_expected_is_refused() {
    // We run as root, so chmod 000 does not make a file unreadable; a directory in its place
    // is the portable way to get an entry that cannot be read as a file.
    let f = Fixture::vendored();
    let path = f.tree("catalog/networks/ethernet.yaml");
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    write(&path.join("inner.yaml"), b"x: 1\n");
    let text = f.report(&f.verify());
    assert!(text.contains("  extra: networks/ethernet.yaml/inner.yaml"), "{text}");
    assert!(text.contains("FAILED"), "{text}");
    // In a live checkout the glob matches the directory itself, which is refused by name.
    let c = verify::diff(f.lock.get(InputKind::Catalog), &f.tree("catalog")).unwrap();
    assert!(c.refused.contains(&("networks/ethernet.yaml".into(), "is a directory, expected a file".into())));
}

#[test]
fn a_fifo_is_refused_without_being_opened() {
    // Opening a FIFO would block forever; the scan must classify it from its metadata.
    let f = Fixture::vendored();
    let path = f.tree("registry/coefficients/cost-model-attention.yaml");
    fs::remove_file(&path).unwrap();
    let status = std::process::Command::new("mkfifo").arg(&path).status().unwrap();
    assert!(status.success());
    let text = f.report(&f.verify());
    assert!(text.contains("  refused: coefficients/cost-model-attention.yaml: not a regular file (a FIFO)"), "{text}");
}

#[test]
fn an_absent_tree_fails_with_the_vendor_command() {
    let f = Fixture::new();
    let report = f.verify();
    assert!(!report.ok());
    assert_eq!(report.failed(), vec![InputKind::Catalog, InputKind::Registry, InputKind::Scenarios]);
    assert!(matches!(report.check(InputKind::Catalog).unwrap().outcome, Outcome::Absent));
    let text = f.report(&report);
    assert!(
        text.contains("testdata/catalog: FAILED: the vendored tree is absent; run `cargo xtask vendor --from DIR`"),
        "{text}"
    );
}

#[test]
fn a_failed_vendor_run_leaves_the_previous_trees_intact() {
    let f = Fixture::vendored();
    let before = fs::read(f.tree("catalog/hardware/b200.yaml")).unwrap();
    // The source drifts from the lock in the last tree staged: nothing may be swapped.
    flip_one_byte(&f.from.join("scenarios/glm-5-b200-fp4-sglang-tp4.yaml"));
    write(&f.from.join("catalog/hardware/b200.yaml"), b"name: other\n");
    let err = vendor::vendor_from(&f.lock, &f.from, &f.testdata).unwrap_err().to_string();
    assert!(err.contains("does not match the lock"), "{err}");
    assert!(err.contains("lock update"), "{err}");
    assert_eq!(fs::read(f.tree("catalog/hardware/b200.yaml")).unwrap(), before);
    assert!(f.verify().ok());
    let leftovers: Vec<_> = fs::read_dir(&f.testdata)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(leftovers.is_empty(), "staging folders left behind: {leftovers:?}");
}

#[test]
fn a_glob_that_matches_nothing_is_fatal() {
    let f = Fixture::new();
    fs::remove_dir_all(f.from.join("catalog/networks")).unwrap();
    let err = vendor::vendor_from(&f.lock, &f.from, &f.testdata).unwrap_err().to_string();
    assert!(err.contains("[catalog] glob networks/*.yaml matches nothing"), "{err}");
    let err = vendor::relock(&f.lock, &f.from).unwrap_err().to_string();
    assert!(err.contains("matches nothing"), "{err}");
}

#[test]
fn revendoring_replaces_a_tampered_tree() {
    let f = Fixture::vendored();
    flip_one_byte(&f.tree("registry/coefficients/cost-model-primitives.yaml"));
    write(&f.tree("registry/stray.yaml"), b"x\n");
    assert!(!f.verify().ok());
    vendor::vendor_from(&f.lock, &f.from, &f.testdata).unwrap();
    assert!(f.verify().ok(), "{}", f.verify().render());
}

#[test]
fn an_override_is_checked_instead_and_the_report_says_so() {
    // Nothing vendored; BLIS_CATALOG points at a live checkout with files we do not vendor.
    let f = Fixture::new();
    let mut inputs = f.inputs();
    inputs.catalog = Some(InputPath { kind: InputKind::Catalog, path: f.from.join("catalog"), origin: Origin::Env });
    let report = f.verify_with(&inputs);
    let catalog = report.check(InputKind::Catalog).unwrap();
    assert!(catalog.ok(), "{}", catalog.render());
    assert!(catalog.render().starts_with(
        "catalog (override BLIS_CATALOG, not the vendored tree): 5 files match github.com/inference-sim/blis-catalog@747a2213e130\n"
    ));
    assert!(catalog.render().contains("note: no commit stamp and not a git checkout"));
    // The vendored registry is still absent, and still fails.
    assert_eq!(report.failed(), vec![InputKind::Registry, InputKind::Scenarios]);
}

#[test]
fn a_bad_override_fails_loudly() {
    let f = Fixture::vendored();
    let mut inputs = f.inputs();
    inputs.registry =
        Some(InputPath { kind: InputKind::Registry, path: f.from.join("no-such-dir"), origin: Origin::Flag });
    let text = f.report(&f.verify_with(&inputs));
    assert!(text.contains("registry (override --registry, not the vendored tree): FAILED: "), "{text}");
    assert!(text.contains("no-such-dir is not a directory"), "{text}");
}

#[test]
fn measurements_are_checked_against_the_pinned_corpus_hashes() {
    let f = Fixture::vendored();
    let mut inputs = f.inputs();
    inputs.measurements =
        Some(InputPath { kind: InputKind::Measurements, path: f.from.join("measurements"), origin: Origin::Env });
    let report = f.verify_with(&inputs);
    assert!(report.ok(), "{}", report.render());
    let values = report.to_task_output().values;
    assert_eq!(values["measurements.files_matched"], harness::task::Value::Count(1));
    assert_eq!(values["verified"], harness::task::Value::Check(true));
    assert!(lock::check_measurements(&f.lock, &f.from.join("measurements")).ok());
    flip_one_byte(&f.from.join("measurements/scoreable.json"));
    assert!(!lock::check_measurements(&f.lock, &f.from.join("measurements")).ok());
    let report = f.verify_with(&inputs);
    assert_eq!(report.failed(), vec![InputKind::Measurements]);
    assert!(report.render().contains("measurements (BLIS_MEASUREMENTS): FAILED: 0 of 1 locked files match"));
    assert_eq!(report.to_task_output().values["verified"], harness::task::Value::Check(false));
}

#[test]
fn diff_reports_a_live_checkout_without_touching_it() {
    let f = Fixture::new();
    let checkout = f.from.join("catalog");
    write(&checkout.join("hardware/h200.yaml"), b"name: h200\n");
    fs::remove_file(checkout.join("devices/storage.yaml")).unwrap();
    flip_one_byte(&checkout.join("models/glm-5/graph.yaml"));
    let upstream = f.lock.get(InputKind::Catalog);
    let c = verify::diff(upstream, &checkout).unwrap();
    let text = verify::render_diff(upstream, &c);
    assert!(text.starts_with("catalog: 3 of 5 locked files match github.com/inference-sim/blis-catalog@747a2213e130; 1 changed, 1 missing, 1 extra, 0 refused\n"), "{text}");
    assert!(text.contains("~ models/glm-5/graph.yaml  "), "{text}");
    assert!(text.contains("- devices/storage.yaml\n"), "{text}");
    assert!(text.contains("+ hardware/h200.yaml\n"), "{text}");
    assert!(!checkout.join(".upstream-manifest").exists());
}

#[test]
fn update_rewrites_only_the_hashes_and_reports_what_moved() {
    let f = Fixture::new();
    let lock_path = f.from.parent().unwrap().join("lockfiles/upstream.lock");
    vendor::update_lock_file(&lock_path, &f.from).unwrap();
    assert_eq!(lock::load(&lock_path).unwrap(), f.lock);
    write(&f.from.join("catalog/hardware/h200.yaml"), b"name: h200\n");
    flip_one_byte(&f.from.join("registry/coefficients/cost-model-primitives.yaml"));
    let updates = vendor::update_lock_file(&lock_path, &f.from).unwrap();
    assert_eq!(updates[0].added, vec!["hardware/h200.yaml".to_string()]);
    assert_eq!(updates[1].changed, vec!["coefficients/cost-model-primitives.yaml".to_string()]);
    let new = lock::load(&lock_path).unwrap();
    assert_eq!(new.get(InputKind::Catalog).files.len(), 6);
    assert_eq!(new.get(InputKind::Catalog).commit, f.lock.get(InputKind::Catalog).commit);
    // A failed update leaves the lock file as it was.
    let before = fs::read(&lock_path).unwrap();
    fs::remove_dir_all(f.from.join("scenarios")).unwrap();
    assert!(vendor::update_lock_file(&lock_path, &f.from).is_err());
    assert_eq!(fs::read(&lock_path).unwrap(), before);
}

#[test]
fn a_bad_lock_file_names_the_file_and_the_line() {
    let f = Fixture::new();
    let path = f.from.join("upstream.lock");
    let text = lock::file::render(&f.lock).replacen(
        "commit = 46d930c0fb96e603b76c507acaf14910d48c4ccb",
        "commit = 46d930c",
        1,
    );
    fs::write(&path, &text).unwrap();
    let line = text.lines().position(|l| l == "commit = 46d930c").unwrap() + 1;
    let err = lock::load(&path).unwrap_err().to_string();
    assert!(err.contains(&format!("upstream.lock: line {line}: commit must be 40 hex digits")), "{err}");
}

// --fetch, against local git repositories (there is no network here).

/// Turns the fixture's source into three upstream repositories laid out as upstream has them,
/// commits, and points the lock at them by file:// URL and the commits made.
fn local_upstreams(f: &Fixture) -> (Lock, PathBuf) {
    let remotes = f.from.parent().unwrap().join("remotes");
    let mut lock = f.lock.clone();
    stand_in::stand_in_upstreams(&remotes, |section| f.from.join(section), &mut lock);
    // The lock must survive its own parser with file:// URLs.
    let lock = lock::file::parse(&lock::file::render(&lock)).unwrap();
    (lock, remotes)
}

#[test]
fn fetch_clones_each_upstream_at_its_locked_commit() {
    let f = Fixture::new();
    let (lock, remotes) = local_upstreams(&f);
    // A later commit upstream must not be what gets vendored.
    write(&remotes.join("blis-registry/coefficients/cost-model-primitives.yaml"), b"beta: 9\n");
    git(&remotes.join("blis-registry"), &["commit", "--quiet", "-am", "later"]);
    vendor::vendor_fetched(&lock, &f.testdata).unwrap();
    // The corpora come too, stamped like the trees and checked the same way.
    let mut inputs = f.inputs();
    inputs.measurements =
        Some(InputPath { kind: InputKind::Measurements, path: f.tree("measurements"), origin: Origin::Vendored });
    let report = lock::verify(&lock, &inputs);
    assert!(report.ok(), "{}", report.render());
    let check = report.check(InputKind::Measurements).unwrap();
    assert!(check.checked() && check.files_matched() > 0, "{}", check.render());
    assert!(f.tree("measurements").join(".upstream-commit").is_file());
    // A stray file in the fetched corpora is caught, as in any vendored tree.
    write(&f.tree("measurements").join("extra.json"), b"{}\n");
    assert!(!lock::verify(&lock, &inputs).ok());
}

#[test]
fn fetch_fails_when_the_locked_commit_is_not_there() {
    let f = Fixture::new();
    let (mut lock, _) = local_upstreams(&f);
    lock.get_mut(InputKind::Registry).commit = "0123456789abcdef0123456789abcdef01234567".into();
    let err = format!("{:#}", vendor::vendor_fetched(&lock, &f.testdata).unwrap_err());
    assert!(err.contains("checking out 0123456789abcdef0123456789abcdef01234567"), "{err}");
    assert!(!f.tree("catalog").exists(), "nothing may be vendored when one upstream fails");
}

#[test]
fn require_head_rejects_a_checkout_at_another_commit() {
    let f = Fixture::new();
    let (lock, remotes) = local_upstreams(&f);
    let repo = remotes.join("blis-catalog");
    fetch::require_head(&repo, &lock.get(InputKind::Catalog).commit).unwrap();
    write(&repo.join("hardware/h200.yaml"), b"name: h200\n");
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "moved"]);
    let err = fetch::require_head(&repo, &lock.get(InputKind::Catalog).commit).unwrap_err().to_string();
    assert!(err.contains("HEAD is ") && err.contains(", the lock says "), "{err}");
}

#[test]
fn a_live_checkout_override_is_checked_at_its_head() {
    let f = Fixture::new();
    let (lock, remotes) = local_upstreams(&f);
    let mut inputs = f.inputs();
    inputs.scenarios = Some(InputPath {
        kind: InputKind::Scenarios,
        path: remotes.join("blis-latency-kernel/testdata/aisimulate"),
        origin: Origin::Env,
    });
    let check = lock::verify(&lock, &inputs).check(InputKind::Scenarios).unwrap().clone();
    assert!(check.ok(), "{}", check.render());
    assert!(check.render().contains("note: checkout HEAD is "), "{}", check.render());
    write(&remotes.join("blis-latency-kernel/other.txt"), b"x\n");
    git(&remotes.join("blis-latency-kernel"), &["add", "."]);
    git(&remotes.join("blis-latency-kernel"), &["commit", "--quiet", "-m", "moved"]);
    let check = lock::verify(&lock, &inputs).check(InputKind::Scenarios).unwrap().clone();
    assert!(!check.ok());
    assert!(check.render().contains("  stamp: checkout HEAD is "), "{}", check.render());
}

#[test]
fn the_gate_line_names_the_first_offending_files_and_the_count() {
    let f = Fixture::vendored();
    flip_one_byte(&f.tree("registry/coefficients/cost-model-primitives.yaml"));
    fs::remove_file(f.tree("catalog/hardware/b200.yaml")).unwrap();
    write(&f.tree("scenarios/new.yaml"), b"model: x\n");
    write(&f.tree("scenarios/other.yaml"), b"model: y\n");
    let out = f.verify().to_task_output();
    let why = match out.values.get("verified.why") {
        Some(harness::task::Value::Text(t)) => t.clone(),
        other => panic!("no verified.why: {other:?}"),
    };
    assert_eq!(
        why,
        "4 fault(s): catalog/hardware/b200.yaml (missing), \
         registry/coefficients/cost-model-primitives.yaml (changed), scenarios/new.yaml (not in the lock), and 1 more"
    );
}
