//! What every figure-producing task hands to the gate: a rendered report (the text a snapshot
//! pins) and the named values the figure manifest compares against published numbers.

use crate::inputs::Refusal;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    /// A percentage or other real, compared with a tolerance.
    Number(f64),
    /// A count, compared exactly.
    Count(u64),
    /// A pass/fail check computed by the task itself.
    Check(bool),
    Text(String),
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskOutput {
    /// Deterministic, machine-independent text: no absolute paths, no times.
    pub report: String,
    /// Keyed by a stable dotted name, e.g. `all.aisimulate.tpot_shape`.
    pub values: BTreeMap<String, Value>,
    /// For tasks that run `blis`: one record per point (its exact command line, workload
    /// SHA-256 and result; `harness::blis::point_records`), carried into the gate's JSON report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blis_points: Vec<serde_json::Value>,
    /// For the headline tasks: the per-point table's rows (`score::points::PointRow`, as
    /// values: this contract sits below the scorer), for `--points` (docs/points.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub points: Vec<serde_json::Value>,
}

impl TaskOutput {
    pub fn number(&mut self, key: impl Into<String>, value: f64) {
        self.values.insert(key.into(), Value::Number(value));
    }
    pub fn count(&mut self, key: impl Into<String>, value: u64) {
        self.values.insert(key.into(), Value::Count(value));
    }
    pub fn check(&mut self, key: impl Into<String>, ok: bool) {
        self.values.insert(key.into(), Value::Check(ok));
    }
    pub fn text(&mut self, key: impl Into<String>, text: impl Into<String>) {
        self.values.insert(key.into(), Value::Text(text.into()));
    }

    /// Refuses each of `keys` for `why` (`<key>.refused`), the gate then showing them on one
    /// line: what they need (`what`) and what the inputs given supply instead (`by`).
    pub fn refuse(&mut self, keys: impl IntoIterator<Item = String>, why: &str, what: &str, by: &str) {
        for key in keys {
            self.text(format!("{key}.refused"), why);
        }
        self.refusal_line(what, by);
    }

    /// The one gate line for the values this task refused itself (see `refuse`).
    pub fn refusal_line(&mut self, what: &str, by: &str) {
        self.text(REFUSED_WHAT, what);
        self.text(REFUSED_BY, by);
    }
}

/// A task's value keys for the refusals it states itself (`TaskOutput::refuse`): what the
/// refused values need, and what the inputs given supply instead (refusals with the same
/// `what` are one line of the gate).
pub const REFUSED_WHAT: &str = "refused.what";
pub const REFUSED_BY: &str = "refused.by";
/// With `refused.what`, when the inputs the task was given were there but cannot produce the
/// refused values (a release that models only some sweeps): `--require-all` does not fail on
/// them, since another input of the kind, not a missing one, would lift them.
pub const REFUSED_KIND: &str = "refused.kind";
pub const GIVEN_INPUT_CANNOT: &str = "given-input-cannot";

#[derive(Debug)]
pub enum TaskError {
    /// An input is missing: not a failure of the figure, a gap in what was supplied.
    Refused(Refusal),
    /// The inputs were there but bad, or the computation failed.
    Failed(anyhow::Error),
}

impl From<Refusal> for TaskError {
    fn from(r: Refusal) -> Self {
        TaskError::Refused(r)
    }
}

impl From<anyhow::Error> for TaskError {
    fn from(e: anyhow::Error) -> Self {
        TaskError::Failed(e)
    }
}

impl std::fmt::Display for TaskError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskError::Refused(r) => write!(f, "refused: {r}"),
            TaskError::Failed(e) => write!(f, "{e:#}"),
        }
    }
}

pub type TaskResult = Result<TaskOutput, TaskError>;

/// Process exit codes shared by every command (documented in docs/exit-codes.md).
pub mod exit {
    /// Everything asked for ran and matched.
    pub const OK: u8 = 0;
    /// A mismatch, a failed check, or bad input.
    pub const FAILED: u8 = 1;
    /// A required input was not supplied (and, for `reproduce`, only under `--require-all`).
    pub const REFUSED: u8 = 2;
    /// The command line itself was wrong.
    pub const USAGE: u8 = 64;
    /// SIGINT or SIGTERM stopped the work; its children were stopped and its temporaries removed.
    pub const INTERRUPTED: i32 = 130;
}
