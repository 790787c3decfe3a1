//! `cargo xtask score --framework vllm [--config-tier measured|resolved] [--gaps FILE]
//! [--points FILE]`: scores the corpus arms (and BLIS with --blis PATH) and prints the report;
//! the coverage gaps go to `--gaps FILE` only, the per-point table to `--points FILE`.

use crate::inputs::{reads, Reads as _};
use anyhow::Result;
use harness::inputs::InputKind;
use harness::score;
use harness::task::{exit, TaskError};
use oracles::tiers::ConfigTier;
use std::path::{Path, PathBuf};

reads! {
    /// The corpora and trees the scorer reads, and the binary of the BLIS column.
    pub struct ScoreInputs { measurements, catalog, registry, scenarios, blis }
}

#[derive(clap::Args)]
pub struct Args {
    /// Framework whose sweeps are scored (the headline table is vllm); anything else is a usage error.
    #[arg(long, default_value = "vllm", value_parser = clap::builder::PossibleValuesParser::new(harness::corpus::e2e::FRAMEWORKS))]
    pub framework: String,
    /// Keep only sweeps with an engine-settings record at the anchor (measured) or only the
    /// others (resolved); default both.
    #[arg(long, value_name = "measured|resolved", value_parser = parse_config_tier)]
    pub config_tier: Option<ConfigTier>,
    /// Write the coverage-gap report to FILE (`-`: stdout); needs --catalog and --registry.
    #[arg(long, value_name = "FILE")]
    pub gaps: Option<PathBuf>,
    /// Write the self-contained HTML report (a chart per scored sweep, per-arm charts) here.
    #[arg(long, value_name = "FILE")]
    pub report_html: Option<PathBuf>,
    /// Write the per-point table (CSV, one row per point x arm, `-`: stdout) to FILE: every
    /// headline cell is the mean |e| of a selection of its rows (docs/points.md).
    #[arg(long, value_name = "FILE", conflicts_with = "baseline_blis")]
    pub points: Option<PathBuf>,
    /// Resamples per 95% bootstrap interval (40 to 1000000; default 10000, and the baseline
    /// rule's count with --baseline-blis); anything else is a usage error.
    #[arg(long, value_name = "N", value_parser = parse_resamples)]
    pub resamples: Option<usize>,
    #[command(flatten)]
    pub inputs: ScoreInputs,
    /// Compare the --blis candidate with this baseline `blis` (the release it replaces) on the
    /// same points; exit 1 when a figure `baseline_rule` holds is worse (docs/baseline.md).
    /// Not with --shard: a shard's comparison would compare nothing.
    #[arg(long, value_name = "PATH", value_parser = parse_path, conflicts_with = "shard")]
    pub baseline_blis: Option<PathBuf>,
    /// How the BLIS arm runs when --blis is given (docs/blis-arm.md).
    #[command(flatten)]
    pub blis: crate::blis::RunArgs,
    #[command(flatten)]
    pub records: crate::blis::PointRecords,
}

/// A path flag given empty is a usage error (exit 64), not a path.
pub fn parse_path(text: &str) -> Result<PathBuf, String> {
    if text.is_empty() {
        return Err("the path is empty".into());
    }
    Ok(PathBuf::from(text))
}

/// A resample count of 0 or above `oracles::bootstrap::MAX_RESAMPLES` is a usage error (exit 64).
pub fn parse_resamples(text: &str) -> Result<usize, String> {
    let n: usize = text.parse().map_err(|_| format!("expected a whole number of resamples, found {text:?}"))?;
    oracles::bootstrap::check_resamples(n).map_err(|e| e.to_string())?;
    Ok(n)
}

fn parse_config_tier(text: &str) -> Result<ConfigTier, String> {
    ConfigTier::parse(text).ok_or_else(|| format!("expected measured or resolved, found {text:?}"))
}

impl Args {
    /// Every file this command writes, by its flag: one list, so what is checked before any
    /// work is what can own stdout.
    fn reports(&self) -> [(&'static str, Option<&Path>); 4] {
        [
            ("--gaps", self.gaps.as_deref()),
            ("--report-html", self.report_html.as_deref()),
            ("--report-json", self.records.report_json.as_deref()),
            ("--points", self.points.as_deref()),
        ]
    }

    /// A report written to stdout moves the table to stderr.
    fn reports_on_stdout(&self) -> bool {
        crate::outcome::report_on_stdout(self.reports())
    }
}

/// A `--baseline-blis` that cannot run is bad input, said before any work (exit 1).
pub fn check_baseline(path: Option<&Path>) -> Result<()> {
    match path.map(harness::blis::baseline::validate_baseline) {
        Some(Err(TaskError::Failed(e))) => Err(e),
        _ => Ok(()),
    }
}

pub fn run(args: Args) -> Result<u8> {
    crate::outcome::check_reports(args.reports())?;
    check_baseline(args.baseline_blis.as_deref())?;
    let inputs = args.inputs.resolve();
    crate::outcome::exit_code(run_inner(&args, &inputs))
}

/// Exit 0, or 1 when BLIS was asked for and a point failed or none has a value (the table is
/// still printed: it shows what the points that ran say).
fn run_inner(args: &Args, inputs: &harness::inputs::Inputs) -> Result<u8, TaskError> {
    // Refuse before any work when --gaps cannot be honoured.
    let trees = match &args.gaps {
        Some(_) => Some((
            inputs.require_dir(InputKind::Catalog, "--gaps")?.to_path_buf(),
            inputs.require_dir(InputKind::Registry, "--gaps")?.to_path_buf(),
        )),
        None => None,
    };
    // The run records are the BLIS arm's: without it there is nothing to write, said up front.
    if args.records.report_json.is_some() && args.baseline_blis.is_none() && inputs.get(InputKind::Blis).is_none() {
        eprintln!(
            "error: --report-json writes the BLIS arm's run records and needs --blis PATH (or BLIS_BIN); \
             the per-point table of every arm is --points FILE"
        );
        return Ok(exit::USAGE);
    }
    let (corpora, scenarios) = score::load_inputs(inputs)?;
    let selection = score::Selection { framework: args.framework.clone(), config_tier: args.config_tier };
    let catalog = inputs.get(InputKind::Catalog).map(|c| c.path.as_path());
    // Resolved once: the BLIS arm runs these points and the scorer scores them.
    let resolved = score::resolve::resolve(&corpora, &scenarios, catalog, &selection);
    if let Some(baseline) = &args.baseline_blis {
        return against_baseline(args, inputs, baseline, &resolved);
    }
    let column = match inputs.get(InputKind::Blis) {
        Some(_) => Some(crate::blis::score_arm(&args.blis, &args.records, inputs, &resolved.sweeps)?),
        None => None,
    };
    let mut code = exit::OK;
    if let Some(col) = &column {
        if col.succeeded == 0 {
            eprintln!("blis: no point has a value: the BLIS column is empty (exit 1)");
            code = exit::FAILED;
        } else if col.failed > 0 {
            eprintln!(
                "blis: {} of {} run points failed: their sweeps are left out (exit 1)",
                col.failed,
                col.failed + col.succeeded
            );
            code = exit::FAILED;
        }
    }
    let form_lines = column.as_ref().map(|c| c.form_lines()).unwrap_or_default();
    let arms = score::headline_arms(&corpora.e2e, column.as_ref().map(|c| c.arm.clone()));
    let resample = |mut scored: score::Scored| {
        if let Some(n) = args.resamples {
            scored.resamples = n;
        }
        scored
    };
    // With a BLIS column: the corpus arms over the whole selection, then every arm over the
    // sweeps the binary gave values for (harness::score::SplitScore).
    let (scored, report, rows) = match column {
        Some(col) => {
            let mut split = score::score_split(&resolved, col.arm.clone());
            split.corpus = resample(split.corpus);
            split.with_blis = resample(split.with_blis);
            let report = split.report();
            let corpus_arms = score::corpus_arms(&corpora.e2e);
            let with_blis = Some((&split.with_blis, &col.arm, &col.info));
            let rows = score::points::table(&resolved, &split.corpus, &corpus_arms, with_blis);
            (split.with_blis, report, rows)
        }
        None => {
            let scored = resample(score::score_resolved(&resolved, &arms));
            let report = score::render::report(&scored);
            let rows = score::points::rows(&resolved, &scored, &arms, None);
            (scored, report, rows)
        }
    };
    let catalog = inputs.get(InputKind::Catalog).map(|c| c.path.as_path()).filter(|p| p.is_dir());
    let text = format!(
        "{form_lines}{report}\n{}",
        score::settings::defaults_table(&corpora, &scenarios, catalog, &args.framework)
    );
    crate::outcome::say(&text, args.reports_on_stdout())?;
    if let Some(file) = &args.report_html {
        let html = harness::report_html::for_score(&scored, &corpora, &arms, Vec::new());
        harness::atomic::write_report(file, html.as_bytes())?;
        if file.as_os_str() != "-" {
            eprintln!("HTML report written to {}", file.display());
        }
    }
    if let Some(file) = &args.points {
        harness::atomic::write_report(file, score::points::csv(&rows).as_bytes())?;
        if file.as_os_str() != "-" {
            eprintln!("{} point rows written to {}", rows.len(), file.display());
        }
    }
    if let (Some(file), Some((catalog, registry))) = (&args.gaps, trees) {
        let gaps = score::gaps::gaps(&corpora, &scenarios, &catalog, &registry, &args.framework);
        let text = score::gaps::render(&corpora, &gaps, &args.framework);
        harness::atomic::write_report(file, text.as_bytes())?;
        if file.as_os_str() != "-" {
            eprintln!("{} gaps written to {}", gaps.len(), file.display());
        }
    }
    Ok(code)
}

/// `--baseline-blis`: both binaries over the same points; the table with both BLIS arms, the
/// comparison, and exit 1 on a worse figure (or a failed point of either binary).
fn against_baseline(
    args: &Args,
    inputs: &harness::inputs::Inputs,
    baseline: &std::path::Path,
    resolved: &score::resolve::Resolved,
) -> Result<u8, TaskError> {
    let manifest_path = harness::gate::manifest_path();
    let manifest = harness::gate::load_manifest(&manifest_path)?;
    let candidate = |needed_for: &str| args.blis.options(inputs, needed_for);
    let mut rule = manifest.rule(&manifest_path)?;
    if let Some(n) = args.resamples {
        rule.resamples = n;
    }
    let cmp = harness::blis::baseline::compare_with_inputs(inputs, candidate, baseline, resolved, &rule)?;
    let text = format!("{}\n{}\n{}", score::render::report(&cmp.scored), cmp.render(), cmp.cache_lines());
    crate::outcome::say(&text, args.reports_on_stdout())?;
    if let Some(file) = &args.report_html {
        let html = harness::report_html::for_score(&cmp.scored, resolved.corpora, &cmp.arms, Vec::new());
        harness::atomic::write_report(file, html.as_bytes())?;
        if file.as_os_str() != "-" {
            eprintln!("HTML report written to {}", file.display());
        }
    }
    if let Some(file) = &args.records.report_json {
        crate::outcome::write_json_report(file, serde_json::json!({ "baseline_comparison": cmp.json() }))?;
    }
    let mut code = exit::OK;
    for (role, side) in [("candidate", &cmp.candidate), ("baseline", &cmp.baseline)] {
        if side.with_value == 0 || side.failed > 0 {
            eprintln!("blis: {role}: {} points failed, {} with a value (exit 1)", side.failed, side.with_value);
            code = exit::FAILED;
        }
    }
    let worse = cmp.worse();
    if !worse.is_empty() {
        let names: Vec<&str> = worse.iter().map(|f| f.key.as_str()).collect();
        eprintln!("blis: the candidate is worse than the baseline on {} (exit 1)", names.join(", "));
        code = exit::FAILED;
    }
    if cmp.compared_nothing() {
        eprintln!("blis: no figure the baseline rule holds was compared: the comparison compared nothing (exit 1)");
        code = exit::FAILED;
    }
    Ok(code)
}
