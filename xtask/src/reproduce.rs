//! `cargo xtask reproduce`: the release gate. Every figure of the manifest is reproduced,
//! mismatched or refused; each task is computed twice in separate processes (this binary,
//! re-invoked with the hidden `--render-task`) and the two renderings must be byte-identical.

use crate::inputs::InputArgs;
use anyhow::{Context as _, Result};
use harness::gate::{self, evaluate::InProcess, report, tasks::Context, Renderer};
use harness::task::{exit, TaskError};
use std::path::PathBuf;
use std::process::Command;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: InputArgs,
    /// Compare the --blis candidate with this baseline `blis` (the release it replaces) on the
    /// same points; exit 1 when a figure the manifest's `baseline_rule` holds is worse
    /// (docs/baseline.md).
    #[arg(long, value_name = "PATH", value_parser = crate::score::parse_path)]
    baseline_blis: Option<PathBuf>,
    /// Evaluate only these figure ids (an id ending in `/` selects a group).
    #[arg(long, num_args = 1.., value_name = "ID")]
    only: Vec<String>,
    /// Exit 2 when any figure was refused for a missing input.
    #[arg(long)]
    require_all: bool,
    /// Print every figure on its own line (by default: the reproduced and mismatched ones, and
    /// the refused ones grouped by the input they need).
    #[arg(short, long)]
    verbose: bool,
    /// Write the stable JSON report here.
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// Write the markdown report (fit for a CI step summary) here.
    #[arg(long, value_name = "FILE")]
    report_md: Option<PathBuf>,
    /// Write the self-contained HTML report (figure table, per-arm and per-sweep charts) here.
    #[arg(long, value_name = "FILE")]
    report_html: Option<PathBuf>,
    /// The figure manifest [default: harness/figures.yaml].
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// The lock to verify the inputs against [default: lockfiles/upstream.lock] (for tests
    /// against stand-in upstreams).
    #[arg(long, value_name = "FILE", hide = true)]
    lockfile: Option<PathBuf>,
    /// Internal: compute one task in this process and print its rendering as JSON.
    #[arg(long, hide = true, value_name = "TASK")]
    render_task: Option<String>,
    /// Internal: with --render-task, read and write no BLIS point cache (the second rendering
    /// must compute, not replay the first).
    #[arg(long, hide = true, requires = "render_task")]
    render_uncached: bool,
}

pub fn run(args: Args) -> Result<u8> {
    let manifest_path = args.manifest.clone().unwrap_or_else(gate::manifest_path);
    let lock = args.lockfile.clone().unwrap_or_else(harness::lock::default_lock_path);
    let cx = Context { inputs: args.inputs.resolve(), manifest: manifest_path.clone(), lock };
    if let Some(task) = &args.render_task {
        if args.render_uncached {
            harness::blis::disable_cache_in_this_process();
        }
        print!("{}", InProcess(&cx).render(task)?);
        return Ok(exit::OK);
    }
    let manifest = harness::gate::load_manifest(&manifest_path)?;
    // A baseline that cannot run is bad input, said before the gate's work, not after.
    if let Some(path) = &args.baseline_blis {
        if let Err(TaskError::Failed(e)) = harness::blis::baseline::validate_baseline(path) {
            return Err(e);
        }
    }
    let renderer = ChildProcess { args: &args, manifest: &manifest_path, rendered: Default::default() };
    // A bar on a terminal only (never under CI=true), so logs and snapshots do not change.
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |done: usize, total: usize, task: &str| {
        let bar = bar.get_or_insert_with(|| harness::term::bar(total, "tasks"));
        bar.set_position(done as u64);
        if task.is_empty() {
            bar.finish_and_clear();
        } else {
            bar.set_message(task.to_string());
        }
    };
    let options = gate::GateOptions { only: &args.only };
    let (results, blis_points) = gate::evaluate_with_blis_points(&manifest, &cx, &renderer, &options, &mut progress);
    if results.is_empty() {
        anyhow::bail!("--only {} selects no figure of {}", args.only.join(" "), manifest_path.display());
    }
    let paint = if harness::term::stdout_colour() { report::Paint::Ansi } else { report::Paint::Plain };
    if args.verbose {
        print!("{}", report::verbose(&results, paint));
    } else {
        print!("{}", report::brief(&results, paint));
    }
    // The baseline comparison: a refusal (no candidate, no corpora) exits 2, a worse figure 1.
    let mut baseline_code = exit::OK;
    let comparison = match &args.baseline_blis {
        None => None,
        Some(path) => match harness::blis::baseline::for_gate(&cx.inputs, path, &manifest, &manifest_path) {
            Ok(cmp) => {
                print!("\n{}\n{}", cmp.render(), cmp.cache_lines());
                let worse = cmp.worse();
                if !worse.is_empty() {
                    let names: Vec<&str> = worse.iter().map(|f| f.key.as_str()).collect();
                    eprintln!("baseline: the candidate is worse than the baseline on {} (exit 1)", names.join(", "));
                    baseline_code = exit::FAILED;
                }
                Some(cmp)
            }
            Err(TaskError::Refused(r)) => {
                println!("\nbaseline comparison refused: {r}");
                baseline_code = exit::REFUSED;
                None
            }
            Err(TaskError::Failed(e)) => return Err(e),
        },
    };
    if let Some(path) = &args.report_json {
        let mut text = report::json_with_blis_points(&results, &blis_points);
        if let Some(cmp) = &comparison {
            let mut value: serde_json::Value = serde_json::from_str(&text)?;
            value["baseline_comparison"] = cmp.json();
            text = serde_json::to_string_pretty(&value)? + "\n";
        }
        harness::atomic::write_report(path, text.as_bytes())?;
    }
    if let Some(path) = &args.report_md {
        let mut text = report::markdown(&results);
        if let Some(cmp) = &comparison {
            text = format!("{text}{}", cmp.render());
        }
        harness::atomic::write_report(path, text.as_bytes())?;
    }
    if let Some(path) = &args.report_html {
        let html = harness::report_html::for_gate_with_baseline(&cx.inputs, &manifest, &results, comparison.as_ref());
        harness::atomic::write_report(path, html.as_bytes())?;
    }
    let summary = report::Summary::of(&results);
    Ok(if summary.mismatched > 0 || baseline_code == exit::FAILED {
        exit::FAILED
    } else if baseline_code == exit::REFUSED || (args.require_all && summary.refused > 0) {
        exit::REFUSED
    } else {
        exit::OK
    })
}

/// Renders a task in a fresh process of this same binary, so two renderings share no state.
/// The second rendering of a task runs with the BLIS point cache off, so a `blis` task is
/// really computed twice (the first may be served from an earlier run's cache).
struct ChildProcess<'a> {
    args: &'a Args,
    manifest: &'a PathBuf,
    rendered: std::cell::RefCell<std::collections::BTreeSet<String>>,
}

impl Renderer for ChildProcess<'_> {
    fn render(&self, task: &str) -> Result<String> {
        let exe = std::env::current_exe().context("locating the xtask binary")?;
        let mut cmd = Command::new(exe);
        cmd.arg("reproduce").arg("--render-task").arg(task).arg("--manifest").arg(self.manifest);
        if let Some(lock) = &self.args.lockfile {
            cmd.arg("--lockfile").arg(lock);
        }
        if !self.rendered.borrow_mut().insert(task.to_string()) {
            cmd.arg("--render-uncached");
        }
        let flags = self.args.inputs.data.flags(self.args.inputs.blis.clone());
        for (kind, path) in flags.given() {
            cmd.arg(kind.flag()).arg(path);
        }
        let out = cmd.output().with_context(|| format!("starting a process to render `{task}`"))?;
        if !out.status.success() {
            anyhow::bail!(
                "rendering `{task}` exited with {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        String::from_utf8(out.stdout).with_context(|| format!("rendering of `{task}` is not UTF-8"))
    }
}
