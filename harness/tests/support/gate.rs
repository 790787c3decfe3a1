//! A task's output judged by the gate against the committed manifest, or against a copy of it
//! with one expected value tampered, without computing the task again.

use harness::gate::evaluate::{evaluate, GateOptions, InProcess, Rendered, Renderer, Status};
use harness::gate::tasks::Context;
use harness::gate::FigureResult;
use harness::inputs::Inputs;
use harness::task::TaskOutput;
use libtest_mimic::Failed;

/// Answers `task` with `out`; any other task in this process.
struct Computed<'a> {
    task: &'a str,
    out: &'a TaskOutput,
    cx: &'a Context,
}

impl Renderer for Computed<'_> {
    fn render(&self, task: &str) -> anyhow::Result<String> {
        if task == self.task {
            return Ok(Rendered::Output(self.out.clone()).to_json());
        }
        InProcess(self.cx).render(task)
    }
}

/// The gate's verdict on the figures under `only` (ids or prefixes ending in `/`) of the
/// manifest `manifest_text`, `task` answered with `out`.
pub fn judge(
    manifest_text: &str,
    inputs: &Inputs,
    task: &str,
    out: &TaskOutput,
    only: &[String],
) -> Result<Vec<FigureResult>, Failed> {
    let path = harness::gate::manifest_path();
    let cx = Context { inputs: inputs.clone(), manifest: path.clone(), lock: harness::lock::default_lock_path() };
    let manifest = harness::gate::Manifest::parse(manifest_text, &path, &harness::gate::tasks::names())
        .map_err(|e| format!("{e:#}"))?;
    Ok(evaluate(&manifest, &cx, &Computed { task, out, cx: &cx }, &GateOptions { only }, &mut |_, _, _| {}))
}

/// `results` hold exactly one MISMATCH, `id`, and the report line names it.
pub fn the_one_mismatch(results: &[FigureResult], id: &str) -> Result<(), Failed> {
    let hit = results.iter().find(|r| r.id == id).ok_or_else(|| format!("{id} not judged"))?;
    if hit.status != Status::Mismatch || results.iter().filter(|r| r.status == Status::Mismatch).count() != 1 {
        return Err(format!("a tampered {id} must be the one MISMATCH: {results:?}").into());
    }
    let line = harness::gate::report::line(hit);
    if !line.contains("MISMATCH") || !line.contains(id) {
        return Err(format!("the report line does not name the MISMATCH: {line}").into());
    }
    Ok(())
}
