//! The one table mapping a manifest `task:` name to the harness function that computes it and
//! the inputs it cannot run without. Adding a figure source is adding a row here.

use crate::inputs::{InputKind, Inputs};
use crate::task::TaskResult;
use std::path::PathBuf;

/// What a task may read: the resolved inputs and the manifest in force.
pub struct Context {
    pub inputs: Inputs,
    pub manifest: PathBuf,
}

pub struct TaskDef {
    pub name: &'static str,
    /// Inputs without which the task is refused before it starts.
    pub needs: &'static [InputKind],
    pub run: fn(&Context) -> TaskResult,
}

const TREES: &[InputKind] = &[InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];

pub const TASKS: &[TaskDef] = &[
    TaskDef { name: "manifest", needs: &[], run: super::manifest::task_consistency },
    TaskDef { name: "generator-known-answers", needs: &[], run: pending },
    TaskDef { name: "fixtures-check", needs: &[], run: pending },
    TaskDef { name: "definition-known-answers", needs: &[], run: pending },
    TaskDef { name: "lock-verify", needs: TREES, run: pending },
    TaskDef { name: "error-definition", needs: &[InputKind::Measurements], run: pending },
    TaskDef { name: "e2e-audit", needs: &[InputKind::Measurements], run: pending },
    TaskDef { name: "headline", needs: &[InputKind::Measurements], run: pending },
    TaskDef { name: "headline-measured", needs: &[InputKind::Measurements], run: pending },
    TaskDef { name: "blis-determinism", needs: &[InputKind::Blis], run: pending },
    TaskDef { name: "sensitivity", needs: &[InputKind::Blis, InputKind::Measurements], run: pending },
];

pub fn find(name: &str) -> Option<&'static TaskDef> {
    TASKS.iter().find(|t| t.name == name)
}

/// A task whose implementation has not landed yet: a failure, never a silent pass.
fn pending(_: &Context) -> TaskResult {
    Err(anyhow::anyhow!("this task is not implemented yet").into())
}
