//! The one test support of harness's suites: the team-input lookups and the rule for a trial
//! that needs an input this machine may not have -- ignored with the reason, except under
//! `CI=true`, where .ci/run supplies the team's inputs and a missing one fails.
#![allow(dead_code)] // each test binary uses a part

pub mod blis;
pub mod gate;

use harness::inputs::{Flags, InputKind, Inputs};
use harness::task::{TaskOutput, Value};
use libtest_mimic::{Completion, Failed, Trial};
use std::path::{Path, PathBuf};

/// Whether this is CI (`CI=true`, as .ci/run exports it).
pub fn on_ci() -> bool {
    harness::term::is_ci(std::env::var("CI").ok().as_deref())
}

/// The measurement corpora folder (`BLIS_MEASUREMENTS`, set and not empty).
pub fn measurements() -> Option<PathBuf> {
    std::env::var_os(InputKind::Measurements.env_var()).filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Why the corpora trials cannot run here, if they cannot.
pub fn missing_corpora() -> Option<String> {
    measurements().is_none().then(|| "needs BLIS_MEASUREMENTS (the measurement corpora folder)".to_string())
}

/// Why the trials that need the corpora and a scenario tree cannot run here, if they cannot.
pub fn missing_corpora_and_scenarios() -> Option<String> {
    let inputs = Inputs::from_process(&Flags::default());
    let have = inputs.present(InputKind::Measurements) && inputs.present(InputKind::Scenarios);
    (!have).then(|| "needs BLIS_MEASUREMENTS and a scenario tree (BLIS_SCENARIOS or `cargo xtask vendor`)".to_string())
}

/// Runs `test` when nothing is `missing`; otherwise ignores the trial with the reason, or fails
/// it under CI=true. For `Trial::ignorable_test`.
pub fn requires(missing: Option<String>, test: impl FnOnce() -> Result<(), Failed>) -> Result<Completion, Failed> {
    match missing {
        None => test().map(|()| Completion::Completed),
        Some(why) if on_ci() => Err(format!("CI=true but this trial {why}; .ci/run supplies it").into()),
        Some(why) => Ok(Completion::ignored_with(why)),
    }
}

/// `trial` as it is when nothing is `missing`; otherwise ignored with the reason as its kind,
/// or, under CI=true, a trial of the same name that fails saying what is missing. For trials
/// built before it is known whether their input is there.
pub fn unless_missing(trial: Trial, missing: Option<&str>) -> Trial {
    match missing {
        None => trial,
        Some(why) if on_ci() => {
            let why = format!("CI=true but this trial {why}; .ci/run supplies it");
            Trial::test(trial.name().to_string(), move || Err(why.into())).with_kind(trial.kind().to_string())
        }
        Some(why) => trial.with_ignored_flag(true).with_kind(why.to_string()),
    }
}

/// `name` in the corpora folder `dir`, or a failure saying it is missing there.
pub fn corpus_file(dir: &Path, name: &str) -> Result<PathBuf, Failed> {
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("BLIS_MEASUREMENTS is set but {} is missing", path.display()).into())
    }
}

/// The number a task put under `key`.
pub fn number(output: &TaskOutput, key: &str) -> Result<f64, Failed> {
    match output.values.get(key) {
        Some(Value::Number(v)) => Ok(*v),
        other => Err(format!("{key}: expected a number, found {other:?}").into()),
    }
}

/// The count a task put under `key`.
pub fn count(output: &TaskOutput, key: &str) -> Result<u64, Failed> {
    match output.values.get(key) {
        Some(Value::Count(v)) => Ok(*v),
        other => Err(format!("{key}: expected a count, found {other:?}").into()),
    }
}

/// A task's report followed by its values, one `key = value` line each: what a task's
/// snapshot pins, so a changed value shows in the snapshot's diff as well as in the gate.
pub fn report_with_values(output: &TaskOutput) -> String {
    let mut text = output.report.clone();
    text.push_str("-- values --\n");
    for (key, value) in &output.values {
        let shown = match value {
            Value::Number(x) => format!("{x}"),
            Value::Count(n) => n.to_string(),
            Value::Check(b) => b.to_string(),
            Value::Text(t) => format!("{t:?}"),
        };
        text.push_str(&format!("{key} = {shown}\n"));
    }
    text
}
