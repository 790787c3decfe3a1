//! The error-definition audit: recompute AISimulate's published totals from its own per-point
//! data under each definition (docs/upstream.md §4), say which reproduce, and show that the
//! tempting wrong definition does not. Two audits:
//!
//! - [`task_error_definition`] over `aisimulate_summary.json` (PUBLISHED-FIGURES.md section 1);
//! - [`task_e2e_audit`] over `aisimulate_e2e.json`, the points of the kernel accuracy page's
//!   shape comparison (PUBLISHED-FIGURES.md section 5) and of the headline table (section 3).
//!
//! Published numbers appear here only as expectations, each with its source and tolerance.
//!
//! One file per concern: `summary_audit` (the first audit), `e2e_audit` (the second),
//! [`known_answers`] (AISimulate's own test rows as a gate figure) and `render` (the gate block
//! both audits share). This file holds the release-gate task functions, which find each input
//! in the measurements folder, and the tolerance both audits share; every public item of the
//! pieces is re-exported here, so paths stay `oracle_report::*`.

mod e2e_audit;
pub mod known_answers;
mod render;
mod summary_audit;

pub use e2e_audit::{
    audit_e2e, sweep_curves, Distribution, E2eAudit, E2eRow, Scope, SweepCurves, E2E_FILE, HEADLINE_ALL_AIC_TPOT_SHAPE,
    HEADLINE_ALL_TPOT_SHAPE, HEADLINE_ALL_TPOT_SHAPE_N, PAGE_MEAN, PAGE_MEDIAN, PAGE_WORST,
};
pub use render::GateCheck;
pub use summary_audit::{audit_summary, Definition, LevelTally, Line, SummaryAudit, LEVELS, PUBLISHED_TPOT_SHAPE_N};

use crate::corpus::{aisimulate, e2e};
use crate::inputs::{InputKind, Inputs, Refusal};
use crate::task::{TaskError, TaskResult};
use std::path::Path;

/// Half a unit in the last place of a figure published to 2 decimals: an unrounded value
/// within this distance rounds to the published one (ties aside). Any tighter tolerance would
/// demand digits nobody published.
pub const LAST_DIGIT: f64 = 0.005;

/// `file` inside the measurements folder. Refused (exit 2) only when no folder was supplied;
/// a supplied folder that is not one, or lacks the file, is bad input (exit 1) naming the file,
/// what stands there instead, and the flag or variable that pointed there.
pub fn corpus_file(inputs: &Inputs, file: &str, needed_for: &str) -> Result<std::path::PathBuf, TaskError> {
    let Some(input) = inputs.get(InputKind::Measurements) else {
        let detail = format!("{file} is read from the measurements folder, and none was given");
        return Err(Refusal::new(InputKind::Measurements, needed_for, detail).into());
    };
    if let Some(found) = crate::inputs::not_a_dir(&input.path) {
        return Err(TaskError::Failed(anyhow::anyhow!(
            "{needed_for}: {} is not a folder: found {found}",
            input.source_label()
        )));
    }
    let path = input.path.join(file);
    match crate::read::not_a_file(&path) {
        None => Ok(path),
        Some(found) => Err(TaskError::Failed(anyhow::anyhow!(
            "{needed_for}: {file} is missing from {}: found {found}",
            input.source_label()
        ))),
    }
}

/// The summary audit of one file: `Failed` for unreadable or inconsistent input. The gate's
/// verdict is in the values (`gate.passed`); the report says which condition failed.
pub fn error_definition_of_file(path: &Path) -> TaskResult {
    let summary = aisimulate::load(path).map_err(TaskError::Failed)?;
    Ok(audit_summary(&summary).to_output())
}

/// For the release gate: the audit of `aisimulate_summary.json` in the measurements folder.
pub fn task_error_definition(inputs: &Inputs) -> TaskResult {
    let path = corpus_file(inputs, aisimulate::FILE, "the error-definition audit")?;
    error_definition_of_file(&path)
}

/// The e2e audit of one file: `Failed` for unreadable or inconsistent input; the gate's
/// verdict is in the values (`gate.passed`).
pub fn e2e_audit_of_file(path: &Path) -> TaskResult {
    let corpus = e2e::load(path).map_err(TaskError::Failed)?;
    Ok(audit_e2e(&sweep_curves(&corpus)).to_output())
}

/// For the release gate: the audit of `aisimulate_e2e.json` in the measurements folder.
pub fn task_e2e_audit(inputs: &Inputs) -> TaskResult {
    let path = corpus_file(inputs, E2E_FILE, "the e2e shape audit")?;
    e2e_audit_of_file(&path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_names_the_file_the_flag_and_the_variable() {
        let err = task_error_definition(&Inputs::none()).unwrap_err().to_string();
        for needle in ["aisimulate_summary.json", "--measurements", "BLIS_MEASUREMENTS"] {
            assert!(err.contains(needle), "{err}");
        }
        let err = task_e2e_audit(&Inputs::none()).unwrap_err().to_string();
        assert!(err.contains("aisimulate_e2e.json"), "{err}");
    }
}
