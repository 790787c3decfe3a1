//! The one mapping from a task's end to the process's exit code (docs/exit-codes.md): every
//! command that can be refused goes through here, so a refusal reads and exits the same way
//! whichever command met it.

use harness::inputs::Refusal;
use harness::task::{exit, TaskError};

/// Says why on stderr and gives the refusal's exit code (2).
pub fn refused(refusal: &Refusal) -> u8 {
    eprintln!("refused: {refusal}");
    exit::REFUSED
}

/// The command's own code, a refusal's (2), or the failure handed to `main` (exit 1).
pub fn exit_code(result: Result<u8, TaskError>) -> anyhow::Result<u8> {
    match result {
        Ok(code) => Ok(code),
        Err(TaskError::Refused(r)) => Ok(refused(&r)),
        Err(TaskError::Failed(e)) => Err(e),
    }
}

/// A command line no run could honour, found after parsing (two reports on one stdout): `main`
/// exits 64 for it, as for clap's own usage errors.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Every report a command was given, by its flag, checked before any work: each path writable,
/// and at most one of them `-`, since two reports on one stdout would be one unreadable stream
/// (a [`UsageError`], exit 64, naming both flags).
pub fn check_reports<'a>(
    reports: impl IntoIterator<Item = (&'static str, Option<&'a std::path::Path>)>,
) -> anyhow::Result<()> {
    let given: Vec<(&str, &std::path::Path)> =
        reports.into_iter().filter_map(|(flag, p)| p.map(|p| (flag, p))).collect();
    let on_stdout: Vec<&str> = given.iter().filter(|(_, p)| p.as_os_str() == "-").map(|(flag, _)| *flag).collect();
    if let [first, second, ..] = on_stdout[..] {
        return Err(UsageError(format!("{first} - and {second} - both name stdout; give one of them a FILE")).into());
    }
    given.iter().try_for_each(|(_, p)| harness::atomic::check_writable(p))
}

/// Whether any report flag was given `-`: that report owns stdout.
pub fn report_on_stdout<'a>(reports: impl IntoIterator<Item = (&'static str, Option<&'a std::path::Path>)>) -> bool {
    reports.into_iter().filter_map(|(_, p)| p).any(|p| p.as_os_str() == "-")
}

/// The command's own text: on stdout, or on stderr when a report owns stdout, so the report can
/// be piped (`--report-json - | python3 -m json.tool`). A closed pipe (`| head`) is the
/// reader's choice, not a failure.
pub fn say(text: &str, report_on_stdout: bool) -> anyhow::Result<()> {
    use std::io::Write as _;
    let written = if report_on_stdout {
        std::io::stderr().lock().write_all(text.as_bytes())
    } else {
        std::io::stdout().lock().write_all(text.as_bytes())
    };
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// A JSON report (`--report-json FILE`, `-`: stdout), with the build that wrote it under
/// `tool` (`cargo xtask --version`), pretty-printed and written atomically.
pub fn write_json_report(path: &std::path::Path, mut report: serde_json::Value) -> anyhow::Result<()> {
    if let (Some(fields), Some(tool)) = (report.as_object_mut(), harness::version::get()) {
        fields.insert("tool".into(), tool.into());
    }
    let mut text = serde_json::to_string_pretty(&report)?;
    text.push('\n');
    harness::atomic::write_report(path, text.as_bytes())
}
