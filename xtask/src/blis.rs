//! `cargo xtask blis ...`: run points from a file, the determinism figure, the double's path.
//! `RunArgs` is the flag set any task that runs the BLIS arm over one binary flattens (`cargo
//! xtask score`); `PoolArgs`, its part without sharding or a working directory, is what
//! `cargo xtask history` takes (every release runs whole, from its own folder).

use crate::inputs::{reads, Reads as _};
use anyhow::Result;
use harness::blis::{self, CacheMode, PointSpec, ProgressMode, RunOptions, Shard};
use harness::inputs::{InputKind, Inputs};
use harness::task::{exit, TaskError};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Clone, Debug, Default)]
pub struct RunArgs {
    #[command(flatten)]
    pub pool: PoolArgs,
    /// Run only shard I of N (1-based): the points a longest-first plan over their estimated
    /// costs gives it, so the N shards get equal work; its points are for `cache merge`, so not
    /// with --no-cache
    #[arg(long, value_name = "I/N", value_parser = parse_shard, conflicts_with = "no_cache")]
    pub shard: Option<Shard>,
    /// Working directory of `blis run` (the blis checkout, for defaults.yaml) [default: the binary's directory]
    #[arg(long, value_name = "DIR")]
    pub blis_root: Option<PathBuf>,
}

/// How points run, whatever binary and folder they run in.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct PoolArgs {
    /// Points run in parallel, at least 1 [default: the number of cores]
    #[arg(long, value_name = "N", value_parser = parse_positive)]
    pub jobs: Option<usize>,
    /// Per-point timeout in seconds, at least 1; the point's process group is killed after it
    #[arg(long, value_name = "SECS", default_value_t = 1800, value_parser = parse_positive_u64)]
    pub timeout: u64,
    /// Run every point; read and write no cache
    #[arg(long, conflicts_with = "cache_only")]
    pub no_cache: bool,
    /// Serve points from the cache only; a miss is a failed point (score a merged shard cache)
    #[arg(long)]
    pub cache_only: bool,
    /// The point cache [default: target-cache/blis]
    #[arg(long, value_name = "DIR")]
    pub cache_dir: Option<PathBuf>,
    /// Progress on stderr. auto: a bar on a terminal, a line per point on a terminal under
    /// CI=true, otherwise failures and a line a minute on how far the run is; lines: a line per
    /// point; quiet: failures and the line a minute. Each ends with a summary line.
    #[arg(long, value_enum, default_value_t = Progress::Auto)]
    pub progress: Progress,
    /// How each point's lengths reach the simulator: uniform (upstream's earlier harness, the
    /// default: every binary reads it), vectors (the numpy vectors replayed with 2N warm-up
    /// copies), manual-replay (the manual's InferenceX main phase, 10N vectors replayed)
    #[arg(long, value_name = "FORM", value_parser = parse_form)]
    pub form: Option<blis::workload::LengthForm>,
}

fn parse_form(text: &str) -> Result<blis::workload::LengthForm, String> {
    blis::workload::LengthForm::parse(text).ok_or_else(|| {
        let names: Vec<&str> = blis::workload::LengthForm::ALL.iter().map(|f| f.name()).collect();
        format!("unknown form {text:?}; one of {}", names.join(", "))
    })
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Progress {
    #[default]
    Auto,
    Lines,
    Quiet,
}

/// `--jobs 0` and `--timeout 0` are usage errors (exit 64): neither has a useful meaning.
fn parse_positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

fn parse_positive_u64(text: &str) -> Result<u64, String> {
    parse_positive(text).map(|n| n as u64)
}

fn parse_shard(text: &str) -> Result<Shard, String> {
    Shard::parse(text).map_err(|e| e.to_string())
}

/// `--report-json FILE`: apart from [`RunArgs`], for the commands that write point records
/// (`cargo xtask history` and `blis sensitivity` run points but write none).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct PointRecords {
    /// Write every point's record (exact command line, workload SHA-256, result) as JSON to FILE
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
}

impl PointRecords {
    /// The point records, written atomically (`-`: stdout).
    pub fn write(&self, opts: &RunOptions, sha256: &str, outcomes: &[blis::PointOutcome]) -> Result<(), TaskError> {
        if let Some(path) = &self.report_json {
            let report = serde_json::from_str(&blis::outcomes_json(&opts.binary, sha256, outcomes))
                .map_err(|e| TaskError::Failed(e.into()))?;
            crate::outcome::write_json_report(path, report)?;
        }
        Ok(())
    }
}

reads! {
    /// The binary and what a point reads.
    pub struct PointInputs { blis, catalog, registry, scenarios }
}

reads! {
    /// The binary, what a point reads, and the corpora the sensitivity points come from.
    pub struct SensitivityInputs { measurements, blis, catalog, registry, scenarios }
}

impl RunArgs {
    /// The run options, or a refusal naming the missing input (binary, catalog, registry).
    pub fn options(&self, inputs: &Inputs, needed_for: &str) -> Result<RunOptions, TaskError> {
        let binary = blis::binary::require(inputs, needed_for)?;
        let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?.to_path_buf();
        let registry = inputs.require_dir(InputKind::Registry, needed_for)?.to_path_buf();
        Ok(self.options_for(binary, catalog, registry))
    }

    /// The run options these flags give for `binary`.
    pub fn options_for(&self, binary: PathBuf, catalog: PathBuf, registry: PathBuf) -> RunOptions {
        let mut opts = self.pool.options_for(binary, catalog, registry);
        if let Some(root) = &self.blis_root {
            opts.blis_root = std::path::absolute(root).unwrap_or_else(|_| root.clone());
        }
        opts.shard = self.shard;
        opts
    }
}

impl PoolArgs {
    /// The run options these flags give for `binary`, run from its own folder (`cargo xtask
    /// history`: a template each release takes with its own binary).
    pub fn options_for(&self, binary: PathBuf, catalog: PathBuf, registry: PathBuf) -> RunOptions {
        let mut opts = RunOptions::new(binary, catalog, registry);
        if let Some(jobs) = self.jobs {
            opts.workers = jobs;
        }
        opts.timeout = Duration::from_secs(self.timeout);
        let dir = self.cache_dir.clone().unwrap_or_else(blis::default_cache_dir);
        opts.cache = match (self.no_cache, self.cache_only) {
            (true, _) => CacheMode::Off,
            (false, true) => CacheMode::ReadOnly(dir),
            (false, false) => CacheMode::ReadWrite(dir),
        };
        opts.form = self.form;
        opts.progress = match self.progress {
            Progress::Auto => ProgressMode::Auto,
            Progress::Lines => ProgressMode::Lines,
            Progress::Quiet => ProgressMode::Quiet,
        };
        opts
    }
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// Run the points of a JSON file (an array of PointSpec) and print one line per point.
    Run {
        /// JSON array of point specs; relative `scenario_file`s are below --scenarios
        // `--points`, its old name, stays a hidden alias for one release (docs/naming.md):
        // elsewhere `--points` is the per-point table a command writes.
        #[arg(long = "specs", alias = "points", value_name = "FILE")]
        points: PathBuf,
        #[command(flatten)]
        run: RunArgs,
        #[command(flatten)]
        records: PointRecords,
        #[command(flatten)]
        inputs: PointInputs,
    },
    /// The determinism figure: one point run twice outside the cache.
    Determinism {
        /// Per-point timeout in seconds, at least 1; the point's process group is killed after it
        #[arg(long, value_name = "SECS", default_value_t = 1800, value_parser = parse_positive_u64)]
        timeout: u64,
        #[command(flatten)]
        inputs: PointInputs,
    },
    /// The sensitivity table: baseline, engine settings varied, numpy seeds 1..4.
    Sensitivity {
        #[command(flatten)]
        run: RunArgs,
        #[command(flatten)]
        inputs: SensitivityInputs,
    },
    /// Build the test double and print its path (for `--blis "$(cargo xtask blis double)"`).
    Double,
}

pub fn run(cmd: Command) -> Result<u8> {
    match cmd {
        Command::Run { points, run, records, inputs } => run_file(&points, &run, &records, &inputs.resolve()),
        Command::Determinism { timeout, inputs } => {
            finish(blis::determinism::task_determinism_with(&inputs.resolve(), Some(Duration::from_secs(timeout))).map(
                |out| {
                    print!("{}", out.report);
                    out.values.get("bit_identical") == Some(&harness::task::Value::Check(true))
                },
            ))
        }
        Command::Sensitivity { run, inputs } => {
            let inputs = inputs.resolve();
            finish(run.options(&inputs, "the BLIS sensitivity table").and_then(|opts| {
                let out = blis::arm::task_sensitivity_with(&inputs, Some(opts))?;
                print!("{}", out.report);
                // A release modelling only some sweeps has its own rows (`release.`) instead.
                let agree = out.values.get("rows_agree_on_n").or(out.values.get("release.rows_agree_on_n"));
                Ok(agree == Some(&harness::task::Value::Check(true)))
            }))
        }
        Command::Double => {
            println!("{}", blis::double::build()?.display());
            Ok(exit::OK)
        }
    }
}

fn finish(result: Result<bool, TaskError>) -> Result<u8> {
    crate::outcome::exit_code(result.map(|ok| if ok { exit::OK } else { exit::FAILED }))
}

fn run_file(path: &std::path::Path, args: &RunArgs, records: &PointRecords, inputs: &Inputs) -> Result<u8> {
    crate::outcome::check_reports([("--report-json", records.report_json.as_deref())])?;
    let text = harness::read::text(path)?;
    let de = &mut serde_json::Deserializer::from_str(&text);
    let mut points: Vec<PointSpec> = serde_path_to_error::deserialize(de)
        .map_err(|e| anyhow::anyhow!("{}: at `{}`: {}", path.display(), e.path(), e.inner()))?;
    let relative = points.iter().any(|p| p.scenario_file.is_relative());
    if relative {
        let scenarios = match inputs.require_dir(InputKind::Scenarios, "a points file with relative scenario files") {
            Ok(dir) => dir.to_path_buf(),
            Err(r) => return finish(Err(r.into())),
        };
        for p in &mut points {
            if p.scenario_file.is_relative() {
                p.scenario_file = scenarios.join(&p.scenario_file);
            }
        }
    }
    blis::point::check_scenario_files(&points, path)?;
    finish(args.options(inputs, "running BLIS points").and_then(|opts| {
        let report = blis::run_points(&points, &opts)?;
        records.write(&opts, &report.binary_sha256, &report.outcomes)?;
        crate::outcome::say(
            &blis::render_outcomes(&report.outcomes),
            crate::outcome::report_on_stdout([("--report-json", records.report_json.as_deref())]),
        )?;
        Ok(report.summary.failed == 0)
    }))
}

/// The BLIS column of `cargo xtask score --blis PATH`: every point of the selected sweeps, run
/// (or served from the cache) with `args`; points without a value are listed on stderr and
/// their sweeps are dropped by the scorer.
pub fn score_arm(
    args: &RunArgs,
    records: &PointRecords,
    inputs: &Inputs,
    resolved: &[harness::score::resolve::ResolvedSweep],
) -> Result<blis::arm::Column, TaskError> {
    let needed_for = "the BLIS column";
    let opts = args.options(inputs, needed_for)?;
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, needed_for)?;
    let col = blis::arm::column(resolved, scenarios_dir, &opts)?;
    records.write(&opts, &col.binary_sha256, &col.outcomes)?;
    for note in col.notes.iter().filter(|n| !n.contains("not modelled by this release")) {
        eprintln!("blis: no value: {note}");
    }
    for note in &col.sweep_notes {
        eprintln!("blis: {note}");
    }
    eprintln!(
        "blis: {} points with a value, {} failed; {} sweeps modelled, {} not modelled by this release",
        col.succeeded, col.failed, col.modelled_sweeps, col.not_modelled_sweeps
    );
    Ok(col)
}
