//! The `blis replay --help` probe: asked only when a point runs in a replayed form, bounded by
//! the run's `--timeout`, and a crash is an error, never read as "this release has no replay".

use crate::support::blis as blis_support;

use blis_support::{point, Checkout};
use harness::blis::{self, workload::LengthForm, RunOptions};
use std::path::Path;
use std::time::Duration;

/// The double behind a wrapper whose `replay --help` does what `BLIS_DOUBLE_PROBE` says
/// (`crash`: killed by SIGSEGV; `panic`: a Go panic's stderr and exit 2; `hang`: never
/// returns), after appending a line to
/// `BLIS_DOUBLE_PROBE_LOG`.
fn release(checkout: &Checkout, probe: &str, log: &Path) -> RunOptions {
    let mut opts = checkout.flag_options(None);
    let bin = checkout.dir.path().join("blis");
    let script = format!(
        r#"#!/bin/sh
if [ "$1" = replay ] && [ "$2" = --help ]; then
  echo probed >> "$BLIS_DOUBLE_PROBE_LOG"
  case "$BLIS_DOUBLE_PROBE" in
    crash) kill -SEGV $$;;
    hang) exec sleep 1000;;
    panic) printf 'panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine 1 [running]:\nmain.main()\n' >&2; exit 2;;
  esac
fi
exec {} "$@"
"#,
        blis_support::double().display()
    );
    std::fs::write(&bin, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    opts.binary = bin;
    opts.child_env.push(("PATH".into(), "/usr/bin:/bin".into()));
    opts.child_env.push(("BLIS_DOUBLE_PROBE".into(), probe.into()));
    opts.child_env.push(("BLIS_DOUBLE_PROBE_LOG".into(), log.display().to_string()));
    opts
}

/// A point in the replayed form, the only form that asks `replay --help`.
fn vectors_point(checkout: &Checkout) -> blis::PointSpec {
    blis::PointSpec { form: LengthForm::Vectors, ..point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0) }
}

fn error_of(result: Result<blis::RunReport, harness::task::TaskError>) -> String {
    match result {
        Ok(report) => panic!("the run must be refused, got {:?}", report.outcomes[0].result),
        Err(e) => format!("{e:#}"),
    }
}

#[test]
fn the_uniform_form_never_probes_replay() {
    let checkout = Checkout::new();
    let log = tempfile::tempdir().unwrap();
    let log = log.path().join("probes");
    let opts = release(&checkout, "hang", &log);
    let report = blis::run_points(&[point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0)], &opts).unwrap();
    assert!(report.outcomes[0].result.is_ok(), "{:?}", report.outcomes[0].result);
    assert!(!log.exists(), "a uniform run asked `replay --help`");
}

#[test]
fn a_replay_probe_that_crashes_is_an_error_not_a_release_without_replay() {
    let checkout = Checkout::new();
    let log = tempfile::tempdir().unwrap();
    let opts = release(&checkout, "crash", &log.path().join("probes"));
    let p = vectors_point(&checkout);
    let e = error_of(blis::run_points(&[p], &opts));
    assert!(e.contains("replay --help") && e.contains("crashed (killed by signal 11)"), "{e}");
    assert!(!e.contains("blis-seal-"), "the message names the user's binary: {e}");
}

#[test]
fn a_replay_probe_that_hangs_is_stopped_at_the_runs_timeout() {
    let checkout = Checkout::new();
    let log = tempfile::tempdir().unwrap();
    let mut opts = release(&checkout, "hang", &log.path().join("probes"));
    opts.timeout = Duration::from_secs(1);
    let p = vectors_point(&checkout);
    let e = error_of(blis::run_points(&[p], &opts));
    assert!(e.contains("replay --help` did not finish within 1s"), "{e}");
}

#[test]
fn a_replay_probe_that_panics_is_an_error_naming_the_probe_and_what_it_said() {
    let checkout = Checkout::new();
    let log = tempfile::tempdir().unwrap();
    let opts = release(&checkout, "panic", &log.path().join("probes"));
    let p = vectors_point(&checkout);
    let e = error_of(blis::run_points(&[p], &opts));
    let bin = checkout.dir.path().join("blis");
    assert!(e.contains(&format!("`{} replay --help` exited with exit status: 2", bin.display())), "{e}");
    assert!(e.contains("panic: runtime error: invalid memory address or nil pointer dereference"), "{e}");
    assert!(e.contains("goroutine 1 [running]:"), "{e}");
}

#[test]
fn a_release_whose_replay_is_an_unknown_command_models_no_vectors_point() {
    let checkout = Checkout::new();
    let log = tempfile::tempdir().unwrap();
    let opts = release(&checkout, "", &log.path().join("probes"));
    let p = vectors_point(&checkout);
    let report = blis::run_points(&[p], &opts).expect("a release without replay runs");
    let f = report.outcomes[0].result.as_ref().expect_err("no replay, no vectors point");
    assert_eq!(f.kind, blis::FailureKind::NotModelled, "{f:?}");
    assert!(log.path().join("probes").exists(), "the probe was asked");
}
