//! `cargo xtask history --releases DIR` (or `--release TAG=PATH ...`): the BLIS arm of the
//! headline selection run by every release, each from its own folder, compared release to
//! release by the baseline rule (harness::history, docs/history.md).

use crate::inputs::{reads, Reads as _};
use anyhow::Result;
use harness::history::{self, releases};
use harness::inputs::InputKind;
use harness::score;
use harness::task::{exit, TaskError};
use std::path::PathBuf;

reads! {
    /// The releases (each run through its own binary: no --blis) and what their points need.
    pub struct HistoryInputs { measurements, catalog, registry, scenarios, releases }
}

#[derive(clap::Args)]
pub struct Args {
    /// One release as TAG=PATH (PATH: its `blis` or its folder); repeat for each; instead of
    /// the folder of --releases
    #[arg(long, value_name = "TAG=PATH", conflicts_with = "releases")]
    pub release: Vec<String>,
    /// Run this latency model on every release that takes `--latency-model` (default: each
    /// release's own default, read from its help), to tell a change of default from a change
    /// of the model
    #[arg(long, value_name = "NAME", value_parser = parse_name)]
    pub latency_model: Option<String>,
    /// Write the history as JSON here (`-`: stdout)
    // `--json` was its name before the reports' one naming rule (docs/naming.md): a hidden
    // alias for one release.
    #[arg(long, value_name = "FILE", alias = "json")]
    pub report_json: Option<PathBuf>,
    /// Write the HTML page (charts across releases, the per-sweep grid) here
    #[arg(long, value_name = "FILE")]
    pub report_html: Option<PathBuf>,
    /// Resamples of each paired interval (40 to 1000000; default the baseline rule's)
    #[arg(long, value_name = "N", value_parser = crate::score::parse_resamples)]
    pub resamples: Option<usize>,
    #[command(flatten)]
    pub inputs: HistoryInputs,
    /// How the BLIS arm runs (docs/blis-arm.md): no --shard (a history compares whole
    /// columns) and no --blis-root (each release runs from its own folder)
    #[command(flatten)]
    pub blis: crate::blis::PoolArgs,
}

impl Args {
    /// Every report this command writes, by its flag: checked before any work, and the one
    /// that can own stdout.
    fn reports(&self) -> [(&'static str, Option<&std::path::Path>); 2] {
        [("--report-json", self.report_json.as_deref()), ("--report-html", self.report_html.as_deref())]
    }
}

/// A latency model given empty names none: a usage error (exit 64), not the release's default.
fn parse_name(text: &str) -> Result<String, String> {
    if text.trim().is_empty() {
        return Err("the latency model's name is empty".into());
    }
    Ok(text.to_string())
}

pub fn run(args: Args) -> Result<u8> {
    crate::outcome::check_reports(args.reports())?;
    let inputs = args.inputs.resolve();
    crate::outcome::exit_code(run_inner(&args, &inputs))
}

/// Exit 0 with the table (however the releases compare: a history reports, it does not gate),
/// 1 when no release has a value, 2 when an input is missing.
fn run_inner(args: &Args, inputs: &harness::inputs::Inputs) -> Result<u8, TaskError> {
    let needed_for = "the history across releases";
    // `--release TAG=PATH` entries, else the folder (--releases or BLIS_RELEASES).
    let listing = if args.release.is_empty() {
        releases::from_dir(inputs.require_dir(InputKind::Releases, needed_for)?)
    } else {
        releases::from_pairs(&args.release)
    }
    .map_err(TaskError::Failed)?;
    let (corpora, scenarios) = score::load_inputs(inputs)?;
    let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?.to_path_buf();
    let registry = inputs.require_dir(InputKind::Registry, needed_for)?.to_path_buf();
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, needed_for)?.to_path_buf();
    let resolved = score::resolve::resolve(&corpora, &scenarios, Some(&catalog), &score::Selection::vllm(None));
    let manifest_path = harness::gate::manifest_path();
    let manifest = harness::gate::load_manifest(&manifest_path)?;
    let mut rule = manifest.rule(&manifest_path)?;
    if let Some(n) = args.resamples {
        rule.resamples = n;
    }
    // Any release's binary stands in for the template: each release gets its own.
    let template_binary = listing.releases.first().map(|r| r.binary.clone()).unwrap_or_default();
    let template = args.blis.options_for(template_binary, catalog, registry);
    let form = template.form.unwrap_or_default();
    let plan = history::plan(&resolved, &scenarios_dir, form);
    let started = std::time::Instant::now();
    let on_release = |tag: &str, col: &harness::blis::arm::Column, same_as: Option<&str>| {
        eprintln!("{}", history::release_line("history: ", tag, col, same_as, started.elapsed()));
    };
    let settings = history::Settings {
        resolved: &resolved,
        plan,
        template,
        rule,
        latency_model: args.latency_model.clone(),
        on_release: &on_release,
    };
    let h = history::run(&listing, &settings)?;
    let text = history::render::markdown(&h, &settings.plan);
    // A report written to stdout moves the table to stderr.
    let on_stdout = crate::outcome::report_on_stdout(args.reports());
    crate::outcome::say(&text, on_stdout)?;
    if let Some(file) = &args.report_json {
        crate::outcome::write_json_report(file, history::render::json(&h, &settings.plan))?;
    }
    if let Some(file) = &args.report_html {
        harness::atomic::write_report(file, history::html::render(&h, &settings.plan).as_bytes())?;
        if file.as_os_str() != "-" {
            eprintln!("HTML report written to {}", file.display());
        }
    }
    eprintln!(
        "history: {} releases, {} run through their own binary, in {:.0} s",
        h.rows.len(),
        h.distinct_runs,
        started.elapsed().as_secs_f64()
    );
    if !h.rows.iter().any(|r| r.has_values()) {
        eprintln!("history: no release has a value on any planned point (exit 1)");
        return Ok(exit::FAILED);
    }
    Ok(exit::OK)
}
