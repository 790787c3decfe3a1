//! Sealed runs (docs/blis-arm.md): a release file or the binary edited before, during or after
//! a run gives a new key or the old value, never a mix; a file a release reads that is not
//! sealed fails the point instead of being read unhashed.
//!
//! The release here is a shell wrapper around the test double that reads a `slowdown:` line
//! from the `defaults.yaml` of its working directory (as a real release reads its files there)
//! and hands it to the double, so a release file changes the figures.

use crate::support::blis as blis_support;

use blis_support::{sweeps, Checkout};
use harness::blis::{self, CacheMode, FailureKind, RunOptions};
use std::path::{Path, PathBuf};

/// The wrapper: `BLIS_DOUBLE_EDIT_TO=FILE` makes every invocation (the help probe first)
/// write `slowdown: 3` into FILE; `BLIS_DOUBLE_NEEDS=NAME` makes a point's run read NAME from
/// its working directory and fail without it; `BLIS_DOUBLE_REPLACE=PATH` makes the `--help` probe replace
/// PATH with a wrapper that slows every point down; `BLIS_DOUBLE_REWRITE=NAME` makes every
/// point's run write `slowdown: 1` into NAME in its working directory (the sealed copy) after
/// reading it, and touch `BLIS_DOUBLE_REWROTE` where the write succeeded (only root can write
/// into the read-only copy).
fn wrapper(double: &Path, slowdown_default: &str) -> String {
    format!(
        r#"#!/bin/sh
slow={slowdown_default}
while IFS= read -r line; do
  case "$line" in "slowdown: "*) slow="${{line#slowdown: }}";; esac
done < defaults.yaml
if [ -n "$BLIS_DOUBLE_EDIT_TO" ]; then
  printf 'defaults:\n  acme/synthetic-model:\n    GPU: H100\nslowdown: 3\n' > "$BLIS_DOUBLE_EDIT_TO"
fi
if [ -n "$BLIS_DOUBLE_REWRITE" ] && [ "$2" != "--help" ] &&
  printf 'defaults:\n  acme/synthetic-model:\n    GPU: H100\nslowdown: 1\n' 2>/dev/null > "$BLIS_DOUBLE_REWRITE"; then
  : > "$BLIS_DOUBLE_REWROTE"
fi
if [ -n "$BLIS_DOUBLE_NEEDS" ] && [ "$2" != "--help" ] && ! [ -f "$BLIS_DOUBLE_NEEDS" ]; then
  echo "cannot read $BLIS_DOUBLE_NEEDS" >&2; exit 3
fi
if [ -n "$BLIS_DOUBLE_REPLACE" ] && [ "$2" = "--help" ]; then
  sed 's/^slow=0$/slow=5/' "$0" > "$BLIS_DOUBLE_REPLACE.new" && chmod 755 "$BLIS_DOUBLE_REPLACE.new" &&
    mv "$BLIS_DOUBLE_REPLACE.new" "$BLIS_DOUBLE_REPLACE"
fi
BLIS_DOUBLE_SLOWDOWN="$slow" exec {double} "$@"
"#,
        double = double.display()
    )
}

/// A flag-dialect release folder whose binary is the wrapper, and options for it.
fn release(checkout: &Checkout, cache: &Path) -> (PathBuf, RunOptions) {
    let mut opts = checkout.flag_options(Some(cache));
    let bin = checkout.dir.path().join("blis");
    std::fs::write(&bin, wrapper(&blis_support::double(), "0")).unwrap();
    set_executable(&bin);
    opts.binary = bin.clone();
    // sed, mv and chmod for the wrapper: the child's environment is otherwise empty.
    opts.child_env.push(("PATH".into(), "/usr/bin:/bin".into()));
    (bin, opts)
}

fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn run(points: &[blis::PointSpec], opts: &RunOptions) -> blis::RunReport {
    blis::run_points(points, opts).expect("the run starts")
}

fn tpots(report: &blis::RunReport) -> Vec<u64> {
    report.outcomes.iter().map(|o| o.result.as_ref().expect("every point has a value").tpot_ms.to_bits()).collect()
}

/// The same points run fresh by the bare double (slowdown 0): what an unedited release gives.
fn unedited(checkout: &Checkout, points: &[blis::PointSpec]) -> Vec<u64> {
    let mut opts = checkout.flag_options(None);
    opts.cache = CacheMode::Off;
    tpots(&run(points, &opts))
}

#[test]
fn a_release_file_edited_during_a_run_changes_nothing_it_reads_and_the_next_run_misses() {
    let checkout = Checkout::new();
    let cache = tempfile::tempdir().unwrap();
    let (_, mut opts) = release(&checkout, cache.path());
    let points = sweeps(&checkout);
    let before = unedited(&checkout, &points);
    // Every invocation, the help probe first, writes `slowdown: 3` into the release's own
    // defaults.yaml while the run goes on.
    let defaults = checkout.dir.path().join("defaults.yaml");
    opts.child_env.push(("BLIS_DOUBLE_EDIT_TO".into(), defaults.display().to_string()));
    let during = run(&points, &opts);
    assert!(std::fs::read_to_string(&defaults).unwrap().contains("slowdown: 3"), "the wrapper edited the release");
    assert_eq!(during.summary.ran, points.len());
    assert_eq!(tpots(&during), before, "every point of the run read the defaults.yaml it was keyed with");
    // The edit is the next run's input: new keys, new values, nothing served from the old ones.
    let after = run(&points, &opts);
    assert_eq!((after.summary.cached, after.summary.ran), (0, points.len()));
    for (a, b) in during.outcomes.iter().zip(&after.outcomes) {
        assert_ne!(a.key, b.key, "{}", a.label);
    }
    let slowed = tpots(&after);
    let changed = points.iter().zip(before.iter().zip(&slowed)).filter(|(p, (b, s))| p.concurrency > 1 && b != s);
    assert_eq!(changed.count(), 6, "slowdown 3 changes every point above concurrency 1");
    // And the edited release is served its own entries.
    let again = run(&points, &opts);
    assert_eq!(again.summary.cached, points.len());
    assert_eq!(tpots(&again), slowed);
}

#[test]
fn a_release_file_edited_before_a_run_is_a_new_key_and_one_edited_back_is_served_the_old_entry() {
    let checkout = Checkout::new();
    let cache = tempfile::tempdir().unwrap();
    let (_, opts) = release(&checkout, cache.path());
    let points = sweeps(&checkout);
    let defaults = checkout.dir.path().join("defaults.yaml");
    let original = std::fs::read_to_string(&defaults).unwrap();
    let first = run(&points, &opts);
    std::fs::write(&defaults, format!("{original}slowdown: 2\n")).unwrap();
    let edited = run(&points, &opts);
    assert_eq!(edited.summary.cached, 0);
    assert_ne!(tpots(&edited), tpots(&first));
    std::fs::write(&defaults, &original).unwrap();
    let back = run(&points, &opts);
    assert_eq!(back.summary.cached, points.len(), "the original bytes are the original key");
    assert_eq!(tpots(&back), tpots(&first));
}

#[test]
fn a_file_the_release_reads_that_is_not_sealed_fails_the_point_instead_of_being_read_unhashed() {
    let checkout = Checkout::new();
    let cache = tempfile::tempdir().unwrap();
    let (_, mut opts) = release(&checkout, cache.path());
    // A file beside the binary that no release ships: present in the folder, absent in the seal.
    std::fs::write(checkout.dir.path().join("extra.yaml"), "x: 1\n").unwrap();
    opts.child_env.push(("BLIS_DOUBLE_NEEDS".into(), "extra.yaml".into()));
    let points = &sweeps(&checkout)[..1];
    let report = run(points, &opts);
    let f = report.outcomes[0].result.as_ref().expect_err("the point cannot read extra.yaml");
    assert_eq!(f.kind, FailureKind::Exit);
    assert!(f.stderr_tail.join("\n").contains("cannot read extra.yaml"), "{f:?}");
}

#[test]
fn a_binary_replaced_during_its_help_probe_runs_and_is_named_by_the_bytes_that_were_sealed() {
    let checkout = Checkout::new();
    let cache = tempfile::tempdir().unwrap();
    let (bin, mut opts) = release(&checkout, cache.path());
    let points = sweeps(&checkout);
    let before = unedited(&checkout, &points);
    let sealed_sha = blis::binary::digest(&bin).unwrap();
    opts.child_env.push(("BLIS_DOUBLE_REPLACE".into(), bin.display().to_string()));
    let report = run(&points, &opts);
    assert_ne!(blis::binary::digest(&bin).unwrap(), sealed_sha, "the probe replaced the binary");
    assert_eq!(report.binary_sha256, sealed_sha, "the run names the bytes it ran");
    assert_eq!(tpots(&report), before, "and every point ran those bytes");
    let next = run(&points, &opts);
    assert_eq!(next.binary_sha256, blis::binary::digest(&bin).unwrap());
    assert_eq!(next.summary.cached, 0, "the replacement is a new binary");
}

/// A release that writes its own files in its working directory, run by the suite's user: as
/// root the read-only modes do not stop it, and the check of the copy around every point does;
/// as anyone else the modes do. Either way no point's value comes from bytes nobody keyed, and
/// nothing of the run is cached under the original key.
fn a_release_writing_its_own(file: &str) {
    let checkout = Checkout::new();
    let cache = tempfile::tempdir().unwrap();
    let (_, mut opts) = release(&checkout, cache.path());
    let points = sweeps(&checkout);
    let before = unedited(&checkout, &points);
    let mark = cache.path().join("rewrote");
    opts.workers = 1;
    opts.child_env.push(("BLIS_DOUBLE_REWRITE".into(), file.into()));
    opts.child_env.push(("BLIS_DOUBLE_REWROTE".into(), mark.display().to_string()));
    let report = run(&points, &opts);
    if mark.exists() {
        // One point ran and wrote; it and every later one fail, naming the file as the user
        // named it, and none is stored.
        let named = checkout.dir.path().join(file).display().to_string();
        let failures: Vec<_> = report.outcomes.iter().filter_map(|o| o.result.as_ref().err()).collect();
        assert_eq!(failures.len(), points.len(), "{:?}", report.summary);
        assert!(
            failures.iter().all(|f| f.kind == FailureKind::SealChanged && f.reason.contains(&named)),
            "{failures:#?}"
        );
        let ran: Vec<_> = failures.iter().filter(|f| !f.reason.starts_with("not run: ")).collect();
        assert_eq!(ran.len(), 1, "only the point that wrote ran: {failures:#?}");
        assert!(ran[0].reason.ends_with("this point's value is not used or cached"), "{}", ran[0].reason);
    } else {
        assert_eq!(tpots(&report), before, "the read-only copy kept the release's bytes");
    }
    // The next run, of the release as shipped, computes every point afresh and gets its values.
    opts.child_env.retain(|(k, _)| !k.starts_with("BLIS_DOUBLE_REWR"));
    let next = run(&points, &opts);
    let expected_cached = if mark.exists() { 0 } else { points.len() };
    assert_eq!(next.summary.cached, expected_cached);
    assert_eq!(tpots(&next), before);
}

#[test]
fn a_release_that_rewrites_a_sealed_file_gets_no_value_from_it_and_nothing_cached() {
    a_release_writing_its_own("defaults.yaml");
}

#[test]
fn a_release_that_adds_a_file_to_its_sealed_folder_gets_no_value_from_it_and_nothing_cached() {
    a_release_writing_its_own("coefficients.yaml");
}
