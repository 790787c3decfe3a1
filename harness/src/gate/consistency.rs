//! The figure `gate/manifest-consistent`: the committed manifest's own consistency, rendered
//! like every other figure. Kept apart from the schema (`manifest`) so that parsing a manifest
//! needs neither the task table nor the disk.

use super::manifest::Manifest;
use crate::task::{TaskOutput, TaskResult};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// The manifest's own consistency, as a figure: computed from the committed manifest.
pub fn task(manifest_path: &Path, known_tasks: &[&str]) -> TaskResult {
    let manifest = Manifest::load(manifest_path, known_tasks).map_err(crate::task::TaskError::Failed)?;
    let mut out = TaskOutput::default();
    let mut by_section: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    for f in &manifest.figures {
        let entry = by_section.entry((f.document.clone(), f.section.clone())).or_default();
        entry.0 += 1;
        if f.task.is_some() {
            entry.1 += 1;
        }
    }
    let _ = writeln!(
        out.report,
        "figure manifest: {} figures, {} tolerances, {} external inputs",
        manifest.figures.len(),
        manifest.tolerances.len(),
        manifest.external_inputs.len()
    );
    for ((doc, section), (all, computed)) in &by_section {
        let _ = writeln!(out.report, "  {doc} section {section}: {all} figures, {computed} computed by a task here");
    }
    for (name, t) in &manifest.tolerances {
        let abs = t.abs.map_or("half a unit in the last published digit".to_string(), |a| format!("{a}"));
        let _ = writeln!(out.report, "  tolerance {name}: {abs} ({})", t.why);
    }
    // Whether the document was there to check digits against is not part of the rendering:
    // the figure must read the same on every machine. The hygiene test says when it skipped.
    let (problems, _skipped) = super::hygiene::check(&manifest);
    for p in &problems {
        let _ = writeln!(out.report, "  PROBLEM {p}");
    }
    out.count("figures", manifest.figures.len() as u64);
    out.check("consistent", problems.is_empty());
    if !problems.is_empty() {
        out.text("consistent.why", format!("{} problem(s), first: {}", problems.len(), problems[0]));
    }
    Ok(out)
}
