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
    // With a `blis` binary the headline tasks fill the BLIS column too, from the arm.
    TaskDef {
        name: "headline",
        needs: CORPORA_AND_TREES,
        run: |cx| crate::score::task_headline(&cx.inputs, None, crate::blis::arm::headline_column),
    },
    TaskDef {
        name: "headline-measured",
        needs: CORPORA_AND_TREES,
        run: |cx| {
            let measured = Some(oracles::tiers::ConfigTier::Measured);
            crate::score::task_headline(&cx.inputs, measured, crate::blis::arm::headline_column)
        },
    },
    TaskDef {
        name: "blis-determinism",
        needs: &[InputKind::Blis, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios],
        run: |cx| crate::blis::task_determinism(&cx.inputs),
    },
    // The BLIS column of every locked build given (the folder of releases, and a `--blis` that
    // is a locked build: the task refuses itself without either), each checked by its hash.
    TaskDef {
        name: crate::history::RELEASES_TASK,
        needs: CORPORA_AND_TREES,
        run: |cx| crate::history::task_releases(&cx.inputs, &release_figures(&cx.manifest)?),
    },
    TaskDef { name: "sensitivity", needs: BLIS_CORPORA_AND_TREES, run: |cx| crate::blis::task_sensitivity(&cx.inputs) },
];

/// What the releases task needs from the manifest: the baseline rule, and each release's keys.
pub fn release_figures(path: &std::path::Path) -> Result<crate::history::ReleaseFigures, crate::task::TaskError> {
    let manifest = super::manifest::Manifest::load(path, &names())?;
    let mut keys: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for row in manifest.release_figures.iter().flat_map(|r| &r.releases) {
        let prefix = format!("blis-release/{}/", row.tag);
        let of_row = manifest
            .figures
            .iter()
            .filter(|f| f.task.as_deref() == Some(crate::history::RELEASES_TASK) && f.id.starts_with(&prefix));
        keys.insert(row.tag.clone(), of_row.filter_map(|f| f.key.clone()).collect());
    }
    Ok(crate::history::ReleaseFigures { rule: manifest.rule(path)?, keys })
}

/// Every task's name: what a manifest figure's `task:` may say.
pub fn names() -> Vec<&'static str> {
    TASKS.iter().map(|t| t.name).collect()
}

pub fn find(name: &str) -> Option<&'static TaskDef> {
    TASKS.iter().find(|t| t.name == name)
}
