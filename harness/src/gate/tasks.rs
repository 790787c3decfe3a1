//! The one table mapping a manifest `task:` name to the harness function that computes it and
//! the inputs it cannot run without. Adding a figure source is adding a row here.

use crate::inputs::{InputKind, Inputs};
use crate::task::TaskResult;
use std::path::PathBuf;

/// What a task may read: the resolved inputs, the manifest and the lock in force.
pub struct Context {
    pub inputs: Inputs,
    pub manifest: PathBuf,
    /// `lockfiles/upstream.lock` unless a test points the gate at a stand-in lock.
    pub lock: PathBuf,
}

pub struct TaskDef {
    pub name: &'static str,
    /// Inputs without which the task is refused before it starts.
    pub needs: &'static [InputKind],
    pub run: fn(&Context) -> TaskResult,
}

const TREES: &[InputKind] = &[InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];
const CORPORA_AND_TREES: &[InputKind] =
    &[InputKind::Measurements, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];
const BLIS_CORPORA_AND_TREES: &[InputKind] =
    &[InputKind::Blis, InputKind::Measurements, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];

pub const TASKS: &[TaskDef] = &[
    TaskDef { name: "manifest", needs: &[], run: |cx| super::consistency::task(&cx.manifest, &names()) },
    TaskDef { name: "generator-known-answers", needs: &[], run: |_| crate::fixtures::task_generator_known_answers() },
    TaskDef { name: "fixtures-check", needs: &[], run: |_| crate::fixtures::task_check() },
    TaskDef { name: "definition-known-answers", needs: &[], run: |_| crate::oracle_report::known_answers::task() },
    // Absent trees are a refusal naming `cargo xtask vendor`, so a fresh clone passes the gate;
    // present trees that differ from the lock are a mismatch.
    TaskDef { name: "lock-verify", needs: TREES, run: |cx| crate::lock::task_verify(&cx.inputs, &cx.lock) },
    TaskDef {
        name: "error-definition",
        needs: &[InputKind::Measurements],
        run: |cx| crate::oracle_report::task_error_definition(&cx.inputs),
    },
    TaskDef {
        name: "e2e-audit",
        needs: &[InputKind::Measurements],
        run: |cx| crate::oracle_report::task_e2e_audit(&cx.inputs),
    },
    // With a `blis` binary the headline tasks fill the BLIS column too.
    TaskDef { name: "headline", needs: CORPORA_AND_TREES, run: |cx| crate::blis::arm::task_headline(&cx.inputs, None) },
    TaskDef {
        name: "headline-measured",
        needs: CORPORA_AND_TREES,
        run: |cx| crate::blis::arm::task_headline(&cx.inputs, Some(oracles::tiers::ConfigTier::Measured)),
    },
    TaskDef {
        name: "blis-determinism",
        needs: &[InputKind::Blis, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios],
        run: |cx| crate::blis::task_determinism(&cx.inputs),
    },
    // The BLIS column of one real release (inference-sim f90a1e3a, checked by its hash).
    TaskDef {
        name: "blis-release-f90a1e3a",
        needs: BLIS_CORPORA_AND_TREES,
        run: |cx| crate::blis::arm::task_release_f90a1e3a(&cx.inputs),
    },
    // The BLIS column of every tagged release given (the folder of releases, or a `--blis`
    // that is a locked release build: the task refuses itself without either), each checked
    // by its hash.
    TaskDef {
        name: crate::history::RELEASES_TASK,
        needs: CORPORA_AND_TREES,
        run: |cx| crate::history::task_releases(&cx.inputs, &cx.manifest),
    },
    TaskDef { name: "sensitivity", needs: BLIS_CORPORA_AND_TREES, run: |cx| crate::blis::task_sensitivity(&cx.inputs) },
];

/// Every task's name: what a manifest figure's `task:` may say.
pub fn names() -> Vec<&'static str> {
    TASKS.iter().map(|t| t.name).collect()
}

pub fn find(name: &str) -> Option<&'static TaskDef> {
    TASKS.iter().find(|t| t.name == name)
}
