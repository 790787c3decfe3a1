//! Every task of the figure manifest, rendered and pinned by its snapshot (one Trial per task,
//! named `figures/<task>`), plus the manifest's hygiene (`hygiene/...`). A task whose inputs
//! are not supplied is reported ignored, with the variable that would supply it in its kind;
//! tasks that run the `blis` binary are pinned with the test double by the BLIS arm's tests.
//! Accept a changed figure with `cargo insta review`; under CI=true nothing is written.

use harness::gate::{self, hygiene, tasks, Manifest};
use harness::inputs::{Flags, InputKind, Inputs};
use harness::task::TaskError;
use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeMap;

mod support;

fn main() {
    let args = Arguments::from_args();
    let manifest = match gate::load_manifest(&gate::manifest_path()) {
        Ok(m) => m,
        Err(e) => {
            let trial = Trial::test("hygiene/manifest-loads", move || Err(format!("{e:#}").into()));
            libtest_mimic::run(&args, vec![trial]).exit();
        }
    };
    let mut trials = hygiene_trials(&manifest);
    let mut snapshot_of: BTreeMap<String, String> = BTreeMap::new();
    for f in &manifest.figures {
        if let (Some(task), Some(snap)) = (&f.task, &f.snapshot) {
            snapshot_of.insert(task.clone(), snap.clone());
        }
    }
    let inputs = Inputs::from_process(&Flags::default());
    for (task, snapshot) in snapshot_of {
        let def = tasks::find(&task).expect("the manifest names only known tasks");
        // Snapshots are recorded with the team's inputs (corpora and vendored trees): a task that
        // reads any input is pinned only when all of them are there, since what it reports can
        // depend on what else was supplied (the lock checks the corpora only when given them).
        let recorded_with: &[InputKind] = if def.needs.is_empty() { &[] } else { &TEAM_INPUTS };
        let missing: Vec<InputKind> =
            def.needs.iter().chain(recorded_with).copied().filter(|k| !recorded_input(&inputs, *k)).collect();
        let cx = tasks::Context {
            inputs: inputs.clone(),
            manifest: gate::manifest_path(),
            lock: harness::lock::default_lock_path(),
        };
        let trial = Trial::test(format!("figures/{task}"), move || pin(&cx, def, &snapshot));
        // A `blis` figure's rendering depends on the binary; its snapshot pins the rendering with
        // the test double and is asserted by the BLIS arm's own tests (harness/tests/blis_*.rs);
        // the real releases' figures are pinned with the real binaries (harness/tests/
        // history_releases.rs, and harness/tests/blis_real.rs for f90a1e3a).
        trials.push(if task == harness::history::RELEASES_TASK {
            trial
                .with_ignored_flag(true)
                .with_kind("pinned with the real releases by harness/tests/history_releases.rs and blis_real.rs")
        } else if def.needs.contains(&InputKind::Blis) {
            trial.with_ignored_flag(true).with_kind("pinned with blis-double by harness/tests/blis_*")
        } else if let Some(kind) = missing.first() {
            trial.with_ignored_flag(true).with_kind(format!("needs {}", kind.env_var()))
        } else {
            trial
        });
    }
    libtest_mimic::run(&args, trials).exit();
}

const TEAM_INPUTS: [InputKind; 4] =
    [InputKind::Measurements, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];

/// Whether `kind` is there as the snapshots were recorded: the corpora through
/// `BLIS_MEASUREMENTS` (the lock's report names where they came from, so corpora found in
/// testdata/measurements after `vendor --fetch` would render differently).
fn recorded_input(inputs: &Inputs, kind: InputKind) -> bool {
    inputs.present(kind)
        && (kind != InputKind::Measurements
            || inputs.get(kind).is_some_and(|i| i.origin == harness::inputs::Origin::Env))
}

fn pin(cx: &tasks::Context, def: &tasks::TaskDef, snapshot: &str) -> Result<(), Failed> {
    let output = match (def.run)(cx) {
        Ok(output) => output,
        Err(TaskError::Refused(r)) => return Err(format!("refused although its inputs were supplied: {r}").into()),
        Err(TaskError::Failed(e)) => return Err(format!("{e:#}").into()),
    };
    harness::assert_figure_snapshot!(snapshot, support::report_with_values(&output));
    Ok(())
}

fn hygiene_trials(manifest: &Manifest) -> Vec<Trial> {
    let problems = manifest.problems(&gate::tasks::names());
    let consistent = Trial::test("hygiene/manifest-consistent", move || fail_on(problems));
    let present = hygiene::snapshot_files(&harness::paths::snapshots());
    let mut snapshot_problems = hygiene::missing_snapshots(manifest, &present);
    snapshot_problems.extend(hygiene::orphaned_snapshots(manifest, &present, &hygiene::test_sources()));
    let snapshots = Trial::test("hygiene/snapshots-named-and-referenced", move || fail_on(snapshot_problems));
    let digits = match hygiene::published_figures_path().map(|p| (std::fs::read_to_string(&p), p)) {
        Some((Ok(doc), _)) => {
            let problems = hygiene::published_digits(manifest, "PUBLISHED-FIGURES.md", &doc);
            Trial::test("hygiene/published-digits", move || fail_on(problems))
        }
        // A variable naming a document that cannot be read is a mistake, not a missing input.
        Some((Err(e), path)) => {
            let msg = format!("BLIS_PUBLISHED_FIGURES={}: {e}", path.display());
            Trial::test("hygiene/published-digits", move || Err(msg.into()))
        }
        None => Trial::test("hygiene/published-digits", || Ok(()))
            .with_ignored_flag(true)
            .with_kind("needs BLIS_PUBLISHED_FIGURES"),
    };
    vec![consistent, snapshots, digits]
}

fn fail_on(problems: Vec<String>) -> Result<(), Failed> {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}
