//! The release gate: every figure of PUBLISHED-FIGURES.md, from the committed manifest, is
//! reproduced, mismatched or refused (with the input that would supply it).
//!
//! The pieces: `manifest` (what is published and how closely we must match it), `tasks` (the one
//! table from task names to the harness functions computing them), `evaluate` (inputs checked
//! first, each task rendered twice for determinism, each figure compared), `report` (the
//! terminal lines, the markdown summary and the stable JSON), `explain` (one figure down to the
//! sweeps that make it) and `ids` (the ids nearest to a typo).

pub mod consistency;
pub mod evaluate;
pub mod explain;
pub mod hygiene;
pub mod ids;
pub mod manifest;
pub mod report;
pub mod tasks;

pub use evaluate::{evaluate, evaluate_with_points, FigureResult, GateOptions, Renderer, Status};
pub use manifest::Manifest;

/// The manifest at `path`, checked against the gate's task table.
pub fn load_manifest(path: &std::path::Path) -> anyhow::Result<Manifest> {
    Manifest::load(path, &tasks::names())
}

/// Where the manifest lives.
pub fn manifest_path() -> std::path::PathBuf {
    crate::paths::workspace_root().join("harness").join("figures.yaml")
}
