//! What both audits end with: the checks that decide the exit status, rendered the same way
//! into the report (a `gate:` block and a `result:` line) and into the task's values
//! (`gate.*` checks and `gate.passed`).

use crate::task::TaskOutput;
use std::fmt::Write as _;

/// A check that decides the exit status.
#[derive(Clone, Debug, PartialEq)]
pub struct GateCheck {
    pub key: &'static str,
    pub ok: bool,
    pub what: String,
}

/// The gate block of a report.
pub(super) fn write_gate(out: &mut String, checks: &[GateCheck]) {
    out.push_str("\ngate:\n");
    for check in checks {
        let _ = writeln!(out, "  {} {}", if check.ok { "ok    " } else { "FAILED" }, check.what);
    }
    let _ = writeln!(out, "result: {}", if passed(checks) { "PASS" } else { "FAIL" });
}

/// The gate's checks as values, plus `gate.passed`.
pub(super) fn record_gate(output: &mut TaskOutput, checks: &[GateCheck]) {
    for check in checks {
        output.check(check.key, check.ok);
    }
    output.check("gate.passed", passed(checks));
}

pub(super) fn passed(checks: &[GateCheck]) -> bool {
    checks.iter().all(|c| c.ok)
}
