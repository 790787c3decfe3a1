//! The committed `lockfiles/upstream.lock` against docs/upstream.md §8, and (when the team's
//! corpora are supplied) the vendored trees and the corpora against the lock.
//!
//! `lock/committed/*` always run: they read only the committed lock. `lock/verify/team_copy`
//! needs `BLIS_MEASUREMENTS` (CI sets it) and the trees vendored first by
//! `cargo xtask vendor --from ../shared/blis-artifacts`; without the variable it is listed as
//! ignored (failing under CI=true), and with the variable set a missing tree or file makes it fail.

mod support;

use harness::inputs::{Flags, InputKind, Inputs};
use harness::lock::{self, Lock};
use harness::task::Value;
use libtest_mimic::{Arguments, Failed, Trial};

fn committed() -> Result<Lock, Failed> {
    lock::load(&lock::default_lock_path()).map_err(|e| format!("{e:#}").into())
}

/// The pins are docs/upstream.md §8's, as `default_pins` spells them.
fn pins_are_section_8s() -> Result<(), Failed> {
    let lock = committed()?;
    let reference = lock::default_pins();
    for (ours, theirs) in lock.upstreams.iter().zip(&reference.upstreams) {
        let pin = |u: &lock::Upstream| {
            (u.repo.clone(), u.tag.clone(), u.commit.clone(), u.path.clone(), u.globs.clone(), u.partial.clone())
        };
        if pin(ours) != pin(theirs) {
            return Err(format!(
                "[{}] pins differ from docs/upstream.md §8: {:?} vs {:?}",
                ours.name(),
                pin(ours),
                pin(theirs)
            )
            .into());
        }
    }
    Ok(())
}

/// docs/upstream.md §8 describes the team's copy: all 5 registry coefficient sets, all 88
/// scenarios, 5 of 9 hardware descriptors, 1 of 3 networks, 20 of 32 model graphs (plus the
/// one devices/storage.yaml the catalog glob names). PROVENANCE.md lists 5 corpus files.
fn counts_are_the_copys() -> Result<(), Failed> {
    let lock = committed()?;
    let count =
        |kind: InputKind, prefix: &str| lock.get(kind).files.iter().filter(|f| f.path.starts_with(prefix)).count();
    let got = [
        ("catalog hardware", count(InputKind::Catalog, "hardware/"), 5),
        ("catalog networks", count(InputKind::Catalog, "networks/"), 1),
        ("catalog devices", count(InputKind::Catalog, "devices/"), 1),
        ("catalog model graphs", count(InputKind::Catalog, "models/"), 20),
        ("registry", count(InputKind::Registry, ""), 5),
        ("scenarios", count(InputKind::Scenarios, ""), 88),
        ("measurements", count(InputKind::Measurements, ""), 5),
    ];
    let wrong: Vec<String> = got
        .iter()
        .filter(|(_, n, want)| n != want)
        .map(|(what, n, want)| format!("{what}: {n}, expected {want}"))
        .collect();
    if !wrong.is_empty() {
        return Err(wrong.join("; ").into());
    }
    if lock.get(InputKind::Catalog).files.iter().any(|f| f.path.starts_with("hardware/h200")) {
        return Err("the copy has no h200 descriptor, yet the lock pins one".into());
    }
    Ok(())
}

fn team_copy_verifies() -> Result<(), Failed> {
    let inputs = Inputs::resolve(&Flags::default(), |name| {
        // Only the corpora come from the environment; the trees are the vendored ones.
        (name == "BLIS_MEASUREMENTS").then(|| std::env::var(name).ok()).flatten()
    });
    let out = lock::task_verify(&inputs, &lock::default_lock_path()).map_err(|e| Failed::from(e.to_string()))?;
    if out.values.get("verified") != Some(&Value::Check(true)) {
        return Err(format!("the lock does not verify:\n{}", out.report).into());
    }
    for kind in lock::file::SECTIONS {
        let name = kind.name();
        let matched = &out.values[&format!("{name}.files_matched")];
        let locked = &out.values[&format!("{name}.files_locked")];
        if matched != locked {
            return Err(format!("{name}: {matched:?} matched of {locked:?} locked").into());
        }
    }
    // The report is pinned by the figures suite (harness/tests/figures.rs).
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        Trial::test("lock/committed/pins_are_upstream_section_8", pins_are_section_8s),
        Trial::test("lock/committed/counts_are_the_team_copys", counts_are_the_copys),
        support::unless_missing(
            Trial::test("lock/verify/team_copy", team_copy_verifies),
            support::missing_corpora()
                .map(|why| format!("{why} (and the vendored trees, `cargo xtask vendor --from DIR`)"))
                .as_deref(),
        ),
    ];
    libtest_mimic::run(&args, trials).exit();
}
