//! The BLIS arm: one `blis run` per point (docs/upstream.md §7), on a bounded pool, cached
//! by content, each failure isolated and explained.
//!
//! `run_points` is the entry point: given the points (scenario file, resolved engine settings,
//! concurrency, the numpy length vectors and the seed) and the run options, it returns one
//! `PointOutcome` per point, in the given order. A failing point carries its reason and the
//! last lines of the binary's stderr; the caller drops its sweep (docs/upstream.md §6).
//! See docs/blis-arm.md.

pub mod arm;
pub mod baseline;
pub mod binary;
pub mod cache;
pub mod cost;
pub mod deployment;
pub mod determinism;
pub mod dialect;
pub mod double;
mod heartbeat;
pub mod lengths;
pub mod metrics;
pub mod pool;
pub mod rendering;
pub mod sensitivity;
pub mod shard;
pub mod variant;
pub mod workload;

pub use arm::task_sensitivity;
pub use cache::Cache;
pub use determinism::task_determinism;
pub use lengths::FixtureSet;
pub use metrics::PointMetrics;
pub use shard::Shard;
pub use variant::EngineSettings;

use crate::task::TaskError;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One point to simulate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointSpec {
    /// The committed scenario file; its file name is what `--scenario` names.
    pub scenario_file: PathBuf,
    /// The point's resolved settings (per rank).
    pub engine: EngineSettings,
    pub isl: u32,
    pub osl: u32,
    pub concurrency: u32,
    /// The numpy seed the length vectors were drawn with; also `--seed` and the spec's seed.
    pub seed: u64,
    /// The `10 x concurrency` measured lengths, in draw order (the fixture vectors).
    pub input_lens: Vec<u32>,
    pub output_lens: Vec<u32>,
    /// How the lengths reach the simulator: the uniform PDF of the workload spec (default) or
    /// these vectors through TraceV2 replay (the sensitivity table, when the binary can).
    #[serde(default)]
    pub form: workload::LengthForm,
}

impl PointSpec {
    pub fn scenario_name(&self) -> String {
        self.scenario_file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// `scenario c=N seed=S`, for progress lines and failure lists.
    pub fn label(&self) -> String {
        let name = self.scenario_name();
        let stem = name.strip_suffix(".yaml").unwrap_or(&name);
        let form = match self.form {
            workload::LengthForm::Uniform => String::new(),
            other => format!(" form={}", other.name()),
        };
        format!("{stem} {}:{} c={} seed={}{form}", self.isl, self.osl, self.concurrency, self.seed)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheMode {
    /// `--no-cache`: run everything, store nothing.
    Off,
    /// Serve hits, run and store misses.
    ReadWrite(PathBuf),
    /// Serve hits only; a miss is a failed point (scoring from a merged shard cache).
    ReadOnly(PathBuf),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// A line per point event when stderr is a terminal, else only failures and the summary.
    Auto,
    Lines,
    Quiet,
    /// Nothing at all (tests, the gate).
    Silent,
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub binary: PathBuf,
    pub catalog: PathBuf,
    pub registry: PathBuf,
    /// The working directory of every run: the blis checkout (it reads `defaults.yaml`).
    pub blis_root: PathBuf,
    pub workers: usize,
    pub timeout: Duration,
    pub cache: CacheMode,
    pub shard: Option<Shard>,
    pub progress: ProgressMode,
    /// The child's environment: nothing else reaches it (see `child_environment`), and every
    /// variable is part of the cache key. Tests steer the double's failure modes with it.
    pub child_env: Vec<(String, String)>,
    /// The summarizer applied to every point's record, fresh or from the cache (tests swap it
    /// to show that a cached record is summarized again).
    pub summarize: metrics::Summarizer,
    /// `--form`: every point is run in this form, whatever its own `PointSpec::form` says.
    pub form: Option<workload::LengthForm>,
    /// `--latency-model NAME` for every point (flag dialect; in the key through the
    /// deployment flags). A release that lists no such flag, or not this name among its
    /// choices, fails every point as an input error naming why. `None`: the release's default.
    pub latency_model: Option<String>,
}

static CACHE_DISABLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Every `RunOptions::new` of this process runs with the cache off: the gate's second
/// rendering of a task, which must compute rather than replay the first rendering's entries.
pub fn disable_cache_in_this_process() {
    CACHE_DISABLED.store(true, Ordering::SeqCst);
}

/// `<workspace root>/target-cache/blis` (git-ignored).
pub fn default_cache_dir() -> PathBuf {
    crate::paths::workspace_root().join("target-cache").join("blis")
}

pub fn default_workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

impl RunOptions {
    /// Defaults: the binary's directory as the blis root (where `go build -o blis` puts it),
    /// one worker per core, a 30-minute timeout per point, the default cache, no shard.
    pub fn new(binary: PathBuf, catalog: PathBuf, registry: PathBuf) -> RunOptions {
        // The child runs in another directory: relative paths the user gave must not move.
        let absolute = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
        let (catalog, registry) = (absolute(catalog), absolute(registry));
        let blis_root = default_root(&binary);
        RunOptions {
            binary,
            catalog,
            registry,
            blis_root,
            workers: default_workers(),
            timeout: Duration::from_secs(30 * 60),
            cache: if CACHE_DISABLED.load(Ordering::SeqCst) {
                CacheMode::Off
            } else {
                CacheMode::ReadWrite(default_cache_dir())
            },
            shard: None,
            progress: ProgressMode::Auto,
            child_env: Vec::new(),
            summarize: metrics::summarize,
            form: None,
            latency_model: None,
        }
    }

    /// The same options for another binary, run from that binary's own directory (its own
    /// `hardware_config.json`, `defaults.yaml` and `model_configs/`): how a baseline runs.
    pub fn for_binary(&self, binary: PathBuf) -> RunOptions {
        let mut other = RunOptions { binary, ..self.clone() };
        other.blis_root = default_root(&other.binary);
        other
    }

    /// Every variable the child runs with: `child_env`, then, from this process's environment,
    /// the test double's knobs (`BLIS_DOUBLE_*`) that `child_env` does not set; sorted. The
    /// rest of the environment is cleared, so nothing unkeyed reaches the child (a real
    /// release reads no variable for a point whose files it ships: `HF_TOKEN` only to
    /// download a model config, which the arm never lets it do).
    pub fn child_environment(&self) -> Vec<(String, String)> {
        // A later `child_env` entry overrides an earlier one, as with `Command::envs`.
        let mut env: std::collections::BTreeMap<String, String> = self.child_env.iter().cloned().collect();
        for (k, v) in std::env::vars_os() {
            let (Some(k), Some(v)) = (k.to_str(), v.to_str()) else { continue };
            if k.starts_with(PASSED_PREFIX) {
                env.entry(k.to_string()).or_insert_with(|| v.to_string());
            }
        }
        env.into_iter().collect()
    }
}

/// The variables passed through from the harness's environment: the test double's knobs.
pub const PASSED_PREFIX: &str = "BLIS_DOUBLE_";

/// A binary's own directory (where `go build -o blis` and a release archive put it).
fn default_root(binary: &Path) -> PathBuf {
    let root = binary.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf())
}

impl RunOptions {
    /// The defaults for the binary, catalog and registry the inputs supply, quiet: how the
    /// gate's tasks and reports run BLIS. Refused (naming `needed_for`) when one is missing.
    pub fn quiet_from_inputs(
        inputs: &crate::inputs::Inputs,
        needed_for: &str,
    ) -> Result<RunOptions, crate::task::TaskError> {
        use crate::inputs::InputKind;
        let binary = binary::require(inputs, needed_for)?;
        let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?.to_path_buf();
        let registry = inputs.require_dir(InputKind::Registry, needed_for)?.to_path_buf();
        let mut options = RunOptions::new(binary, catalog, registry);
        options.progress = ProgressMode::Quiet;
        Ok(options)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// The point's own inputs (scenario file, length vectors) are unusable.
    Input,
    /// The binary exited non-zero or could not be started.
    Exit,
    Timeout,
    /// The metrics file is missing or malformed.
    Metrics,
    /// The run ended with requests not completed, timed out, dropped or length-capped.
    Incomplete,
    /// `CacheMode::ReadOnly` and the point is not in the cache.
    NotCached,
    /// `--shard`: the point belongs to another shard and was not run.
    OtherShard,
    /// The release cannot model the point (unknown hardware, no model config): its sweep is
    /// left out of the BLIS column and counted, never scored as zero.
    NotModelled,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PointFailure {
    pub kind: FailureKind,
    pub reason: String,
    /// The last lines the binary wrote to stderr (empty when it did not run).
    pub stderr_tail: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PointOutcome {
    /// The content key (empty when the point's inputs could not even be read).
    pub key: String,
    pub label: String,
    pub result: Result<PointMetrics, PointFailure>,
    pub cached: bool,
    /// Wall time of this point's run (zero for cache hits).
    pub elapsed: Duration,
    /// What the simulator's run cost: this run's, or the one a cache entry recorded. Varies run
    /// to run, so only `--report-json` of `blis run`/`score` and the shard bench read it.
    pub cost: Option<cache::PointCost>,
    /// How the point is (or would be) run; `None` when its inputs could not be read.
    pub run: Option<PointRun>,
    /// The working directory the point's child runs (or would run) in.
    pub cwd: PathBuf,
    /// The files and trees its key holds beyond the point's own text (`KeyInputs::files`).
    pub key_files: Vec<cache::KeyedFile>,
}

/// What anyone needs to re-run one point by hand: the dialect, the exact arguments (the point's
/// temporary directory written as `<point-dir>`), the working directory and the SHA-256 of the
/// workload spec written there.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PointRun {
    pub dialect: &'static str,
    /// The form the lengths were stated in (`LengthForm::name`).
    pub form: &'static str,
    pub command: Vec<String>,
    pub workload_sha256: String,
    /// Scenario settings the release has no flag for (flag dialect), `key: value`.
    pub unexpressed: Vec<String>,
    /// Scenario settings stated through a route the release offers beyond the deployment
    /// flags, and how (flag dialect: the weights' quantization through a model config).
    pub expressed: Vec<String>,
    /// SHA-256 of the `config.json` the run reads (flag dialect): the release's own, or the
    /// copy written to `<point-dir>/model-config/` (`dialect::quantized_model_config`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_config_sha256: Option<String>,
}

/// The placeholder for a point's temporary directory in a recorded command line.
pub const POINT_DIR: &str = "<point-dir>";

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunSummary {
    pub points: usize,
    pub ran: usize,
    pub cached: usize,
    pub failed: usize,
    pub other_shard: usize,
    /// Points the release cannot model (`FailureKind::NotModelled`), not counted as failed.
    pub not_modelled: usize,
    /// Corrupt cache entries found and recomputed.
    pub recomputed_corrupt: usize,
    /// Entries of an earlier cache format found and recomputed.
    pub recomputed_old_format: usize,
    /// Computed points the cache could not store (their values are kept and used).
    pub not_stored: usize,
    pub wall: Duration,
    /// Sum of the per-point run times (what one worker would have spent).
    pub busy: Duration,
}

impl RunSummary {
    /// One line, with times: for the terminal, never for a snapshot.
    pub fn render(&self) -> String {
        let mut line = format!(
            "blis: {} points in {:.2}s ({:.2}s of runs): {} run, {} from cache, {} failed",
            self.points,
            self.wall.as_secs_f64(),
            self.busy.as_secs_f64(),
            self.ran,
            self.cached,
            self.failed
        );
        if self.not_modelled > 0 {
            line += &format!(", {} not modelled by this release", self.not_modelled);
        }
        if self.other_shard > 0 {
            line += &format!(", {} left to other shards", self.other_shard);
        }
        if self.recomputed_corrupt > 0 {
            line += &format!(", {} corrupt cache entries recomputed", self.recomputed_corrupt);
        }
        if self.recomputed_old_format > 0 {
            line += &format!(", {} old-format cache entries recomputed", self.recomputed_old_format);
        }
        if self.not_stored > 0 {
            line += &format!(", {} computed points not stored in the cache", self.not_stored);
        }
        line
    }
}

#[derive(Clone, Debug)]
pub struct RunReport {
    /// One per point, in the order given.
    pub outcomes: Vec<PointOutcome>,
    pub summary: RunSummary,
}

/// Which command line the binary takes, and for the flag dialect what its release ships.
#[derive(Clone, Debug)]
pub enum Target {
    Scenario,
    Flags(dialect::Release),
}

impl Target {
    pub fn dialect(&self) -> dialect::Dialect {
        match self {
            Target::Scenario => dialect::Dialect::Scenario,
            Target::Flags(_) => dialect::Dialect::Flags,
        }
    }

    /// Reads the dialect from `blis run --help` of `program` (the private copy of
    /// `opts.binary`) and, for the flag dialect, the release files in the working directory.
    pub fn detect(opts: &RunOptions, program: &Path, binary_digest: &str) -> Result<Target, TaskError> {
        let env = opts.child_environment();
        let help = dialect::detect_help(program, binary_digest, &opts.blis_root, &env).map_err(|e| {
            TaskError::Failed(anyhow::anyhow!(
                e.replace(&program.display().to_string(), &opts.binary.display().to_string())
            ))
        })?;
        Ok(match help.dialect {
            dialect::Dialect::Scenario => Target::Scenario,
            dialect::Dialect::Flags => Target::Flags(
                dialect::Release::load(
                    &opts.blis_root,
                    &help,
                    dialect::replay_supported(program, binary_digest, &opts.blis_root, &env),
                    dialect::workload_spec_gap(program, binary_digest)?,
                )
                .with_context(|| format!("{} takes the flag dialect; its release files", opts.binary.display()))?,
            ),
        })
    }

    /// The files and trees every point of this target reads beyond its own: the catalog and
    /// registry trees (scenario dialect; by their lock hash); the flag dialect's release files
    /// are per point (`FlagDeployment::key_files`).
    fn run_files(&self, opts: &RunOptions) -> Result<Vec<cache::KeyedFile>, TaskError> {
        Ok(match self {
            Target::Scenario => {
                vec![
                    cache::KeyedFile::tree("catalog tree", &opts.catalog)?,
                    cache::KeyedFile::tree("registry tree", &opts.registry)?,
                ]
            }
            Target::Flags(_) => Vec::new(),
        })
    }
}

/// The files one point's run needs, built before anything runs.
struct Prepared {
    key: String,
    /// The files and trees in the key beyond the point's own text.
    key_files: Vec<cache::KeyedFile>,
    scenario_name: String,
    /// The scenario variant (scenario dialect) or nothing (flag dialect).
    variant: Option<String>,
    /// The deployment flags (flag dialect).
    flags: Vec<String>,
    /// The TraceV2 header and data (vectors form: `blis replay`).
    trace: Option<(String, String)>,
    unexpressed: Vec<String>,
    expressed: Vec<String>,
    /// The model config the point writes (`<point-dir>/model-config/config.json`), and the
    /// SHA-256 of the one the run reads.
    model_config: Option<String>,
    model_config_sha256: Option<String>,
    workload: String,
    expected_requests: u64,
    form: workload::LengthForm,
    /// The metrics file flag and whether `--timeout -1` is passed (what the help lists).
    metrics_flag: &'static str,
    timeout: bool,
}

enum PrepareError {
    NotModelled(String),
    Input(anyhow::Error),
}

fn prepare(
    point: &PointSpec,
    base: &cache::KeyInputs,
    target: &Target,
    latency_model: Option<&str>,
) -> Result<Prepared, PrepareError> {
    let input = PrepareError::Input;
    // A pin the binary cannot take fails before anything else is read: it is the run's input.
    let latency_flags = match target {
        Target::Scenario => match latency_model {
            Some(name) => {
                return Err(input(anyhow::anyhow!(
                    "latency model `{name}` is pinned, but the scenario dialect has no --latency-model \
                     (the scenario's coefficients choose it)"
                )))
            }
            None => Vec::new(),
        },
        Target::Flags(release) => release.latency_model_flags(latency_model).map_err(|e| input(anyhow::anyhow!(e)))?,
    };
    let text = std::fs::read_to_string(&point.scenario_file)
        .with_context(|| format!("reading scenario {}", point.scenario_file.display()))
        .map_err(input)?;
    let trace = match (point.form, target) {
        (workload::LengthForm::Uniform, _) => None,
        (_, Target::Flags(release)) if release.replay => Some(workload::trace_v2(point).map_err(input)?),
        (_, _) => {
            return Err(PrepareError::NotModelled(
                "per-request length vectors need TraceV2 replay (`blis replay --trace-header --trace-data \
                 --session-mode`), which this binary does not offer"
                    .into(),
            ))
        }
    };
    let workload = match &trace {
        Some((header, data)) => format!("{header}{data}"),
        None => workload::workload_spec(point).map_err(input)?,
    };
    let scenario_name = point.scenario_name();
    let mut inputs = cache::KeyInputs {
        scenario_name: scenario_name.clone(),
        workload: workload.clone(),
        seed: point.seed,
        ..base.clone()
    };
    let mut model_config = None;
    let mut model_config_sha256 = None;
    let mut expressed = Vec::new();
    let (variant, flags, unexpressed) = match target {
        Target::Scenario => {
            let variant = variant::scenario_variant(&text, &point.engine)
                .with_context(|| format!("scenario {}", point.scenario_file.display()))
                .map_err(input)?;
            inputs.deployment = variant.clone();
            (Some(variant), Vec::new(), Vec::new())
        }
        Target::Flags(release) => match dialect::flag_deployment(&text, &point.engine, release) {
            Ok(d) => {
                let mut flags = d.flags(&point.engine);
                flags.extend(latency_flags);
                inputs.deployment = flags.join(" ");
                // The model config the run reads (shipped or written per point) is among them.
                inputs.files.extend(d.key_files);
                model_config = d.model_config;
                model_config_sha256 = Some(d.model_config_sha256);
                expressed = d.expressed;
                (None, flags, d.unexpressed)
            }
            Err(Ok(dialect::NotModelled(why))) => return Err(PrepareError::NotModelled(why)),
            Err(Err(e)) => return Err(input(e.context(format!("scenario {}", point.scenario_file.display())))),
        },
    };
    let key = inputs.key();
    let expected_requests = point.form.requests(point.concurrency);
    let key_files = inputs.files;
    let (metrics_flag, timeout) = match target {
        Target::Scenario => ("--metrics-path", true),
        Target::Flags(release) => (release.metrics_flag, release.timeout),
    };
    Ok(Prepared {
        key,
        key_files,
        scenario_name,
        variant,
        flags,
        trace,
        unexpressed,
        expressed,
        model_config,
        model_config_sha256,
        workload,
        expected_requests,
        form: point.form,
        metrics_flag,
        timeout,
    })
}

impl Prepared {
    /// The deployment flags with `<point-dir>` (a point's own model config) made `dir`.
    fn flags_in(&self, dir: &Path) -> Vec<String> {
        let dir = dir.display().to_string();
        self.flags
            .iter()
            .map(|f| f.strip_prefix(POINT_DIR).map_or_else(|| f.clone(), |rest| dir.clone() + rest))
            .collect()
    }

    fn command(&self, dir: &Path, opts: &RunOptions, seed: u64) -> Vec<String> {
        match &self.variant {
            Some(_) => command_line(&self.scenario_name, dir, opts, seed),
            None if self.trace.is_some() => {
                // `blis replay` has no --workload-spec and no --timeout (follow-up rounds get a
                // fixed 300 s deadline: see workload::TRACE_CAVEAT). Its horizon defaults to twice the latest
                // trace arrival, 600 s when all are zero (`cmd/replay.go`,
                // computeHorizonFromMaxArrival): long points need the largest tick instead.
                let d = |name: &str| dir.join(name).display().to_string();
                let mut args = vec!["replay".to_string(), "--trace-header".into(), d("trace.yaml")];
                args.extend(["--trace-data".into(), d("trace.csv"), "--session-mode".into(), "closed-loop".into()]);
                args.extend(self.flags_in(dir));
                args.extend(["--horizon".into(), i64::MAX.to_string()]);
                args.extend(["--seed".into(), seed.to_string(), "--metrics-path".into(), d("metrics.json")]);
                args.extend(["--log".into(), "error".into()]);
                args
            }
            None => {
                let mut args = vec!["run".to_string()];
                args.extend(self.flags_in(dir));
                args.extend(common_flags(dir, seed, self.metrics_flag, self.timeout));
                args
            }
        }
    }

    fn record(&self, opts: &RunOptions, seed: u64, dialect: dialect::Dialect) -> PointRun {
        use sha2::Digest;
        // Absolute: the command runs from the blis root, not from where the user gave the path.
        let binary = std::path::absolute(&opts.binary).unwrap_or_else(|_| opts.binary.clone());
        let mut command = vec![binary.display().to_string()];
        command.extend(self.command(Path::new(POINT_DIR), opts, seed));
        PointRun {
            dialect: dialect.name(),
            form: self.form.name(),
            command,
            workload_sha256: binary::hex(&sha2::Sha256::digest(self.workload.as_bytes())),
            unexpressed: self.unexpressed.clone(),
            expressed: self.expressed.clone(),
            model_config_sha256: self.model_config_sha256.clone(),
        }
    }
}

/// `--workload-spec ... --timeout -1 --log error`: the flags both dialects share. The metrics
/// file is named by the flag the binary lists (`--metrics-path`, or `--results-path` before
/// v0.7.0); `--timeout -1` (no per-request deadline) only where the help lists `--timeout`:
/// releases before v0.7.10 have no deadline at all, which is what -1 asks for.
fn common_flags(dir: &Path, seed: u64, metrics_flag: &str, timeout: bool) -> Vec<String> {
    let d = |p: &Path| p.display().to_string();
    let mut args = vec![
        "--workload-spec".into(),
        d(&dir.join("workload.yaml")),
        "--seed".into(),
        seed.to_string(),
        metrics_flag.into(),
        d(&dir.join("metrics.json")),
    ];
    if timeout {
        args.extend(["--timeout".into(), "-1".into()]);
    }
    args.extend(["--log".into(), "error".into()]);
    args
}

fn failure(kind: FailureKind, reason: impl Into<String>) -> PointFailure {
    PointFailure { kind, reason: reason.into(), stderr_tail: Vec::new() }
}

/// The command line of the scenario dialect (the latency-kernel contract).
pub fn command_line(scenario_name: &str, dir: &Path, opts: &RunOptions, seed: u64) -> Vec<String> {
    let d = |p: &Path| p.display().to_string();
    let mut args = vec![
        "run".into(),
        "--scenario".into(),
        scenario_name.into(),
        "--scenarios".into(),
        d(dir),
        "--catalog".into(),
        d(&opts.catalog),
        "--registry".into(),
        d(&opts.registry),
    ];
    args.extend(common_flags(dir, seed, "--metrics-path", true));
    args
}

/// A release's own fatal line saying it has no configuration for the point's GPU or model
/// (inference-sim `cmd/root.go` @ f90a1e3a: `logrus.Fatalf("Failed to load hardware config: %v")`
/// and `"Failed to load model config: %v"`), as logrus prints it (`time="..." level=fatal
/// msg="..."`): the message, unquoted.
fn release_cannot_model(line: &str) -> Option<String> {
    let (_, msg) = line.split_once("level=fatal msg=")?;
    let msg = msg.strip_prefix('"').and_then(|m| m.strip_suffix('"')).unwrap_or(msg).replace("\\\"", "\"");
    let no_config =
        ["Failed to load hardware config: ", "Failed to load model config: "].iter().any(|p| msg.starts_with(p));
    // A release whose spec structs lack a field the arm writes (`concurrency` before v0.7.0):
    // the reader's own words, `field X not found in type workload.ClientSpec`.
    let no_field = msg.starts_with("Failed to load workload spec: ")
        && msg.contains("field ")
        && msg.contains(" not found in type workload.");
    (no_config || no_field).then_some(msg)
}

/// Runs one prepared point in a fresh temporary directory (removed afterwards).
/// The bound on a metrics file: a real point's file is kilobytes to a few megabytes (about 300
/// bytes per request, 12N requests); anything larger is refused, never read into memory.
pub const MAX_METRICS_BYTES: u64 = 64 << 20;

/// The point's figures from its record, with the record's metrics hash.
fn summarize_record(
    record: &cache::Record,
    point: &PointSpec,
    prepared: &Prepared,
    opts: &RunOptions,
) -> Result<PointMetrics> {
    let mut summary = (opts.summarize)(&record.file, point.form.warmup(point.concurrency), prepared.expected_requests)?;
    summary.metrics_sha256 = record.metrics_sha256.clone();
    Ok(summary)
}

/// What one run of a point needs besides its options: the private copy of the binary to start
/// and the child's whole environment.
struct Launch<'a> {
    program: &'a Path,
    env: &'a [(String, String)],
}

fn simulate(
    prepared: &Prepared,
    point: &PointSpec,
    opts: &RunOptions,
    launch: &Launch,
) -> Result<(PointMetrics, cache::Record), PointFailure> {
    let io = |e: std::io::Error| failure(FailureKind::Exit, format!("preparing the run directory: {e}"));
    let dir = tempfile::Builder::new().prefix("blis-point-").tempdir().map_err(io)?;
    if let Some(variant) = &prepared.variant {
        std::fs::write(dir.path().join(&prepared.scenario_name), variant).map_err(io)?;
    }
    if let Some(config) = &prepared.model_config {
        let folder = dir.path().join("model-config");
        std::fs::create_dir_all(&folder).map_err(io)?;
        std::fs::write(folder.join("config.json"), config).map_err(io)?;
    }
    match &prepared.trace {
        Some((header, data)) => {
            std::fs::write(dir.path().join("trace.yaml"), header).map_err(io)?;
            std::fs::write(dir.path().join("trace.csv"), data).map_err(io)?;
        }
        None => std::fs::write(dir.path().join("workload.yaml"), &prepared.workload).map_err(io)?,
    }
    let stderr_path = dir.path().join("stderr.txt");
    let run = pool::ChildRun {
        program: launch.program,
        args: prepared.command(dir.path(), opts, point.seed),
        cwd: &opts.blis_root,
        env: launch.env,
        timeout: opts.timeout,
        stderr_path: stderr_path.clone(),
        stdout_path: None,
    };
    let (end, cost) = pool::run_child_measured(&run)
        .map_err(|e| failure(FailureKind::Exit, format!("starting {}: {e}", opts.binary.display())))?;
    let tail = || pool::tail_lines(&stderr_path, 10);
    let with_tail = |kind, reason: String| PointFailure { kind, reason, stderr_tail: tail() };
    match end {
        pool::ChildEnd::TimedOut => {
            return Err(with_tail(FailureKind::Timeout, format!("killed after the {:?} timeout", opts.timeout)))
        }
        pool::ChildEnd::Interrupted => return Err(with_tail(FailureKind::Exit, "interrupted".into())),
        pool::ChildEnd::Exited(status) if !status.success() => {
            let tail = tail();
            if let Some(why) = tail.iter().find_map(|l| release_cannot_model(l)) {
                let reason = format!("not modelled by this release: {why} (its own words, exit {status})");
                return Err(PointFailure { kind: FailureKind::NotModelled, reason, stderr_tail: tail });
            }
            return Err(PointFailure {
                kind: FailureKind::Exit,
                reason: format!("blis run exited with {status}"),
                stderr_tail: tail,
            });
        }
        pool::ChildEnd::Exited(_) => {}
    }
    // Never a blocking open or an unbounded read: the child may leave a FIFO, a device or a
    // huge file at the path.
    let bytes = crate::read::regular_file_bounded(&dir.path().join("metrics.json"), MAX_METRICS_BYTES)
        .map_err(|e| with_tail(FailureKind::Metrics, format!("blis run wrote no readable metrics file: {e}")))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| with_tail(FailureKind::Metrics, format!("the metrics file is not UTF-8: {e}")))?;
    let file = metrics::parse(&text).map_err(|e| with_tail(FailureKind::Metrics, format!("{e:#}")))?;
    let record = cache::Record {
        file,
        cost: cost.map(cache::PointCost::of),
        metrics_sha256: {
            use sha2::Digest;
            binary::hex(&sha2::Sha256::digest(text.as_bytes()))
        },
    };
    let summary = summarize_record(&record, point, prepared, opts)
        .map_err(|e| with_tail(FailureKind::Incomplete, format!("{e:#}")))?;
    Ok((summary, record))
}

struct Progress {
    mode: ProgressMode,
    total: usize,
    finished: AtomicUsize,
    out: Mutex<()>,
    /// `Auto` on a terminal outside CI: a bar (points done / total, cached, failed, elapsed,
    /// rate) instead of a line per event; failures still print, above it.
    bar: Option<indicatif::ProgressBar>,
    /// Quiet without a bar (off a terminal): a line a minute on how far the run is.
    heartbeat: Option<heartbeat::Heartbeat>,
    cached: AtomicUsize,
    failed: AtomicUsize,
}

impl Progress {
    fn new(mode: ProgressMode, total: usize) -> Progress {
        let bar =
            (mode == ProgressMode::Auto && crate::term::stderr_progress()).then(|| crate::term::bar(total, "points"));
        let mode = match mode {
            ProgressMode::Auto if bar.is_some() => ProgressMode::Quiet,
            ProgressMode::Auto if std::io::stderr().is_terminal() => ProgressMode::Lines,
            ProgressMode::Auto => ProgressMode::Quiet,
            other => other,
        };
        let heartbeat = (mode == ProgressMode::Quiet && bar.is_none())
            .then(|| heartbeat::Heartbeat::new(std::time::Instant::now(), heartbeat::INTERVAL));
        let zero = || AtomicUsize::new(0);
        Progress { mode, total, finished: zero(), out: Mutex::new(()), bar, heartbeat, cached: zero(), failed: zero() }
    }

    fn line(&self, text: &str) {
        let _guard = self.out.lock().unwrap_or_else(|e| e.into_inner());
        match &self.bar {
            Some(bar) => bar.suspend(|| {
                let _ = writeln!(std::io::stderr(), "{text}");
            }),
            None => {
                let _ = writeln!(std::io::stderr(), "{text}");
            }
        }
    }

    fn running(&self, label: &str) {
        if self.mode == ProgressMode::Lines {
            let done = self.finished.load(Ordering::Relaxed);
            self.line(&format!("[{done:>5}/{}] running {label}", self.total));
        }
    }

    fn finished(&self, outcome: &PointOutcome) {
        let done = self.finished.fetch_add(1, Ordering::Relaxed) + 1;
        let (word, detail) = match &outcome.result {
            Ok(_) if outcome.cached => ("cached ", String::new()),
            Ok(_) => ("done   ", format!(" ({:.2}s)", outcome.elapsed.as_secs_f64())),
            Err(f) if f.kind == FailureKind::OtherShard => return,
            Err(f) if f.kind == FailureKind::NotModelled => ("skip   ", format!(": {}", f.reason)),
            Err(f) => ("failed ", format!(": {}", f.reason)),
        };
        match &outcome.result {
            Ok(_) if outcome.cached => self.cached.fetch_add(1, Ordering::Relaxed),
            Ok(_) => 0,
            Err(_) => self.failed.fetch_add(1, Ordering::Relaxed),
        };
        let (cached, failed) = (self.cached.load(Ordering::Relaxed), self.failed.load(Ordering::Relaxed));
        if let Some(bar) = &self.bar {
            bar.set_message(format!("cached {cached}, failed {failed}"));
            bar.inc(1);
        }
        if let Some(line) =
            self.heartbeat.as_ref().and_then(|h| h.tick(std::time::Instant::now(), done, self.total, cached, failed))
        {
            self.line(&line);
        }
        let show = match self.mode {
            ProgressMode::Lines => true,
            ProgressMode::Quiet => outcome.result.as_ref().is_err_and(|f| f.kind != FailureKind::NotModelled),
            _ => false,
        };
        if show {
            let mut text = format!("[{done:>5}/{}] {word}{}{detail}", self.total, outcome.label);
            if let Err(f) = &outcome.result {
                for l in &f.stderr_tail {
                    text += &format!("\n        stderr: {l}");
                }
            }
            self.line(&text);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Runs every point (or this shard's share), serving what the cache holds. SIGINT and SIGTERM
/// are caught for the whole run, the `--help` probe included: on one, every child's group is
/// killed, every temporary directory (points, probe, the private copy) removed, and the process
/// exits 130.
pub fn run_points(points: &[PointSpec], opts: &RunOptions) -> Result<RunReport, TaskError> {
    let result = pool::interruptible(|| run_points_caught(points, opts));
    if pool::interrupted() {
        // Every child's group is killed and every temporary directory removed by now (they
        // are dropped when `run_points_caught` returns); the cache holds only complete entries.
        let _ = writeln!(
            std::io::stderr(),
            "blis: interrupted; running points stopped, their temporary directories removed"
        );
        std::process::exit(130);
    }
    result
}

fn run_points_caught(points: &[PointSpec], opts: &RunOptions) -> Result<RunReport, TaskError> {
    let started = Instant::now();
    let binary = binary::validate(&opts.binary, "running BLIS points")?;
    // The bytes hashed are the bytes run: a binary rebuilt during the run changes nothing.
    let private = binary::PrivateCopy::of(&binary)?;
    let env = opts.child_environment();
    let launch = Launch { program: private.path(), env: &env };
    let target = Target::detect(opts, private.path(), private.sha256())?;
    if pool::interrupted() {
        return Err(TaskError::Failed(anyhow::anyhow!("interrupted")));
    }
    let dialect = target.dialect();
    let base = cache::KeyInputs {
        binary_sha256: private.sha256().to_string(),
        env: env.clone(),
        files: target.run_files(opts)?,
        ..cache::KeyInputs::default()
    };
    let cache = match &opts.cache {
        CacheMode::Off => None,
        CacheMode::ReadWrite(dir) | CacheMode::ReadOnly(dir) => Some(Cache::new(dir)),
    };
    // The first cache problem, said once with the count of points it concerned.
    let store_problem: Mutex<Option<String>> = Mutex::new(None);
    let not_stored = AtomicUsize::new(0);
    if let CacheMode::ReadWrite(dir) = &opts.cache {
        // Even a shard that owns no point leaves a (empty) cache for `cache merge` to find.
        if let Err(e) = std::fs::create_dir_all(dir) {
            *store_problem.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("creating {}: {e}", dir.display()));
        }
    }
    let read_only = matches!(opts.cache, CacheMode::ReadOnly(_));
    let progress = Progress::new(opts.progress, points.len());
    let corrupt = AtomicUsize::new(0);
    let old_format = AtomicUsize::new(0);
    // The gate's second rendering serves what its first rendering stored (cache off: the
    // caller asked for fresh runs, which are then all re-runs).
    let second = match rendering::current() {
        Some(rendering::Rendering::Second { store, determinism }) => Some((store.as_path(), *determinism)),
        _ => None,
    };
    let serve_from_store = second.filter(|_| opts.cache != CacheMode::Off).map(|(store, _)| store);
    let order = longest_first(points);
    // Every shard job computes the same plan from the same points (docs/blis-arm.md, Shards).
    let shard_plan = opts.shard.map(|shard| {
        let keyed: Vec<(String, u64)> = keyed_costs(points, opts, &base, &target).into_iter().flatten().collect();
        let plan = shard::Plan::new(&keyed, shard.count);
        if progress.mode != ProgressMode::Silent {
            progress.line(&plan.share_line(shard));
        }
        (shard, plan)
    });
    let mut outcomes = crate::parallel::parallel_map_in_order(points, &order, opts.workers, |_, point| {
        let point = &*in_form(point, opts);
        let label = point.label();
        let prepared = match prepare(point, &base, &target, opts.latency_model.as_deref()) {
            Ok(p) => p,
            Err(e) => {
                let (kind, reason) = match e {
                    PrepareError::NotModelled(why) => {
                        (FailureKind::NotModelled, format!("not modelled by this release: {why}"))
                    }
                    PrepareError::Input(e) => (FailureKind::Input, format!("{e:#}")),
                };
                let outcome = PointOutcome {
                    key: String::new(),
                    label,
                    result: Err(failure(kind, reason)),
                    cached: false,
                    elapsed: Duration::ZERO,
                    cost: None,
                    run: None,
                    cwd: opts.blis_root.clone(),
                    key_files: Vec::new(),
                };
                progress.finished(&outcome);
                return outcome;
            }
        };
        let record = prepared.record(opts, point.seed, dialect);
        let outcome = |result, cached, elapsed| PointOutcome {
            key: prepared.key.clone(),
            label: label.clone(),
            result,
            cached,
            elapsed,
            cost: None,
            run: Some(record.clone()),
            cwd: opts.blis_root.clone(),
            key_files: prepared.key_files.clone(),
        };
        if pool::interrupted() {
            return outcome(Err(failure(FailureKind::Exit, "interrupted before it started")), false, Duration::ZERO);
        }
        if let Some((shard, _)) = shard_plan.as_ref().filter(|(s, plan)| !plan.owns(*s, &prepared.key)) {
            let reason = format!("belongs to another shard than {}/{}", shard.index, shard.count);
            return outcome(Err(failure(FailureKind::OtherShard, reason)), false, Duration::ZERO);
        }
        if let Some(result) = serve_from_store.and_then(|store| rendering::lookup(store, &prepared.key)) {
            let o = outcome(result, true, Duration::ZERO);
            progress.finished(&o);
            return o;
        }
        if let Some(cache) = &cache {
            let say = |text: String| {
                if progress.mode != ProgressMode::Silent {
                    progress.line(&text);
                }
            };
            match cache.get(&prepared.key) {
                // The record is summarized now, by the current summarizer. A record it cannot
                // summarize was never stored by a run (only successes are), so it is not trusted.
                cache::Lookup::Hit(record) => match summarize_record(&record, point, &prepared, opts) {
                    Ok(metrics) => {
                        let o = PointOutcome { cost: record.cost, ..outcome(Ok(metrics), true, Duration::ZERO) };
                        progress.finished(&o);
                        return o;
                    }
                    Err(e) => {
                        corrupt.fetch_add(1, Ordering::Relaxed);
                        say(format!(
                            "blis: cache entry {} does not summarize ({e:#}), recomputing",
                            cache.entry_path(&prepared.key).display()
                        ));
                    }
                },
                cache::Lookup::Corrupt(why) => {
                    corrupt.fetch_add(1, Ordering::Relaxed);
                    say(format!("blis: corrupt cache entry, recomputing: {why}"));
                }
                cache::Lookup::OldFormat(_) => {
                    old_format.fetch_add(1, Ordering::Relaxed);
                }
                cache::Lookup::Miss => {}
            }
            if read_only {
                let o = outcome(
                    Err(failure(FailureKind::NotCached, "not in the cache (read-only)")),
                    false,
                    Duration::ZERO,
                );
                progress.finished(&o);
                return o;
            }
        }
        progress.running(&label);
        let t = Instant::now();
        let result = simulate(&prepared, point, opts, &launch);
        let elapsed = t.elapsed();
        let mut cost = None;
        let result = match result {
            Ok((metrics, record)) => {
                cost = record.cost;
                if let Some(cache) = cache.as_ref().filter(|_| !read_only) {
                    // A cache that cannot take the entry costs the next run a recomputation,
                    // never this run its value.
                    if let Err(e) = cache.store(&prepared.key, &record) {
                        not_stored.fetch_add(1, Ordering::Relaxed);
                        store_problem.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(format!("{e:#}"));
                    }
                }
                Ok(metrics)
            }
            Err(f) => Err(f),
        };
        let o = PointOutcome { cost, ..outcome(result, false, elapsed) };
        progress.finished(&o);
        o
    });
    if let Some((store, determinism)) = second {
        rerun_outside_the_cache(points, &mut outcomes, store, determinism, opts, &base, &target, &launch);
    }
    drop(private);
    if pool::interrupted() {
        return Err(TaskError::Failed(anyhow::anyhow!("interrupted")));
    }
    let mut summary = RunSummary { points: points.len(), wall: started.elapsed(), ..RunSummary::default() };
    summary.recomputed_corrupt = corrupt.into_inner();
    summary.recomputed_old_format = old_format.into_inner();
    summary.not_stored = not_stored.into_inner();
    for o in &outcomes {
        summary.busy += o.elapsed;
        match &o.result {
            Ok(_) if o.cached => summary.cached += 1,
            Ok(_) => summary.ran += 1,
            Err(f) if f.kind == FailureKind::OtherShard => summary.other_shard += 1,
            Err(f) if f.kind == FailureKind::NotModelled => summary.not_modelled += 1,
            Err(_) => {
                summary.failed += 1;
                if !o.key.is_empty() && !matches!(o.result, Err(PointFailure { kind: FailureKind::NotCached, .. })) {
                    summary.ran += 1;
                }
            }
        }
    }
    if let Some(problem) = store_problem.into_inner().unwrap_or_else(|e| e.into_inner()) {
        // Said once, whatever the mode: the next run will recompute these points.
        let _ = writeln!(
            std::io::stderr(),
            "blis: the cache {} could not store {} computed point(s) (their values are used): {problem}",
            cache.as_ref().map(|c| c.dir().display().to_string()).unwrap_or_default(),
            summary.not_stored
        );
    }
    if progress.mode != ProgressMode::Silent {
        progress.line(&summary.render());
    }
    if let Some(rendering::Rendering::First { store }) = rendering::current() {
        rendering::record(store, &outcomes)
            .map_err(|e| TaskError::Failed(e.context("recording the gate's run store")))?;
    }
    Ok(RunReport { outcomes, summary })
}

/// The files a point's directory holds when its command starts, as (path relative to
/// `<point-dir>`, text): the scenario variant or the point's own model config, and the
/// workload. What someone re-running the recorded command by hand writes there first.
pub fn point_files(point: &PointSpec, opts: &RunOptions) -> Result<Vec<(String, String)>, TaskError> {
    let binary = binary::validate(&opts.binary, "running BLIS points")?;
    let digest = binary::digest(&binary)?;
    let target = Target::detect(opts, &binary, &digest)?;
    // Only the files are wanted here, not the key.
    let prepared = match prepare(point, &cache::KeyInputs::default(), &target, opts.latency_model.as_deref()) {
        Ok(p) => p,
        Err(PrepareError::NotModelled(why)) => return Err(TaskError::Failed(anyhow::anyhow!("not modelled: {why}"))),
        Err(PrepareError::Input(e)) => return Err(TaskError::Failed(e)),
    };
    let mut files = Vec::new();
    if let Some(variant) = &prepared.variant {
        files.push((prepared.scenario_name.clone(), variant.clone()));
    }
    if let Some(config) = &prepared.model_config {
        files.push(("model-config/config.json".to_string(), config.clone()));
    }
    match &prepared.trace {
        Some((header, data)) => {
            files.push(("trace.yaml".to_string(), header.clone()));
            files.push(("trace.csv".to_string(), data.clone()));
        }
        None => files.push(("workload.yaml".to_string(), prepared.workload.clone())),
    }
    Ok(files)
}

/// The point as it runs: in `--form`'s form where one is given.
fn in_form<'a>(point: &'a PointSpec, opts: &RunOptions) -> std::borrow::Cow<'a, PointSpec> {
    match opts.form {
        Some(form) if form != point.form => std::borrow::Cow::Owned(PointSpec { form, ..point.clone() }),
        _ => std::borrow::Cow::Borrowed(point),
    }
}

/// A point's cost estimate (`cost::estimate`), for scheduling and shard plans: a long point
/// never starts last, and shards get equal work.
pub fn estimated_cost(point: &PointSpec) -> u64 {
    cost::estimate(point, cost::scenario_tp(&point.scenario_file))
}

/// Each point's content key and estimated cost as it would run under `opts` (`None` where its
/// inputs cannot be read or the release cannot model it: no shard runs it).
fn keyed_costs(
    points: &[PointSpec],
    opts: &RunOptions,
    base: &cache::KeyInputs,
    target: &Target,
) -> Vec<Option<(String, u64)>> {
    points
        .iter()
        .map(|p| {
            let p = &*in_form(p, opts);
            prepare(p, base, target, opts.latency_model.as_deref())
                .ok()
                .map(|prepared| (prepared.key, estimated_cost(p)))
        })
        .collect()
}

/// `keyed_costs` for the binary `opts` names, without running a point: what the shard plan
/// of a run of `points` is made from (`cargo xtask bench shards`).
pub fn planned_keys(points: &[PointSpec], opts: &RunOptions) -> Result<Vec<Option<(String, u64)>>, TaskError> {
    let binary = binary::validate(&opts.binary, "planning BLIS shards")?;
    let digest = binary::digest(&binary)?;
    let target = Target::detect(opts, &binary, &digest)?;
    let base = cache::KeyInputs {
        binary_sha256: digest,
        env: opts.child_environment(),
        files: target.run_files(opts)?,
        ..cache::KeyInputs::default()
    };
    Ok(keyed_costs(points, opts, &base, &target))
}

/// The indices of `points`, most expensive first (ties in the given order).
fn longest_first(points: &[PointSpec]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_cached_key(|&i| std::cmp::Reverse(estimated_cost(&points[i])));
    order
}

/// The second rendering's determinism check: the chosen points (`rendering::chosen`) are run
/// again outside the cache and their fresh results replace the stored ones, so a simulator
/// that answers differently makes the two renderings differ. With the cache off every point
/// already ran fresh: each is only compared and noted.
fn rerun_outside_the_cache(
    points: &[PointSpec],
    outcomes: &mut [PointOutcome],
    store: &Path,
    determinism: rendering::Determinism,
    opts: &RunOptions,
    base: &cache::KeyInputs,
    target: &Target,
    launch: &Launch,
) {
    let already_fresh = opts.cache == CacheMode::Off;
    let chosen = if already_fresh {
        outcomes.iter().enumerate().filter(|(_, o)| !o.key.is_empty() && !o.cached).map(|(i, _)| i).collect()
    } else {
        rendering::chosen(points, outcomes, determinism)
    };
    let mut order: Vec<usize> = (0..chosen.len()).collect();
    order.sort_by_key(|&j| std::cmp::Reverse(estimated_cost(&points[chosen[j]])));
    let keys: Vec<&str> = outcomes.iter().map(|o| o.key.as_str()).collect();
    type Fresh = Option<(Result<PointMetrics, PointFailure>, Duration, bool)>;
    let fresh: Vec<Fresh> = pool::interruptible(|| {
        crate::parallel::parallel_map_in_order(&chosen, &order, opts.workers, |_, &i| {
            if already_fresh {
                return None;
            }
            // Re-run by an earlier task of this gate run: once per point and run is enough.
            if let Some(result) = rendering::earlier_rerun(store, keys[i]) {
                return Some((result, Duration::ZERO, true));
            }
            if pool::interrupted() {
                return Some((Err(failure(FailureKind::Exit, "interrupted before it started")), Duration::ZERO, false));
            }
            let point = &*in_form(&points[i], opts);
            let prepared = prepare(point, base, target, opts.latency_model.as_deref()).ok()?;
            let t = Instant::now();
            let result = simulate(&prepared, point, opts, launch).map(|(metrics, _record)| metrics);
            Some((result, t.elapsed(), false))
        })
    });
    for (&i, fresh) in chosen.iter().zip(fresh) {
        let o = &mut outcomes[i];
        let stored = rendering::lookup(store, &o.key);
        let mut earlier = false;
        if let Some((result, elapsed, reused)) = fresh {
            o.result = result;
            o.cached = false;
            o.elapsed = elapsed;
            earlier = reused;
            if !reused {
                // Losing this only costs a later task a second re-run.
                let _ = rendering::keep_rerun(store, o);
            }
        }
        rendering::note_rerun(&o.key, &o.label, stored.as_ref(), &o.result, earlier);
    }
}

/// One deterministic record per point for the gate's JSON report: key, label, how it is run
/// (`PointRun`) and its figures or failure kind and reason. Nothing that can differ between
/// two renderings of a task (whether it came from the cache, times, the stderr tail).
pub fn point_records(outcomes: &[PointOutcome]) -> Vec<serde_json::Value> {
    use serde_json::json;
    outcomes
        .iter()
        .map(|o| {
            let result = match &o.result {
                Ok(m) => json!({"ok": m}),
                Err(f) => json!({"failed": {"kind": format!("{:?}", f.kind), "reason": f.reason}}),
            };
            json!({"key": o.key, "label": o.label, "run": o.run, "result": result})
        })
        .collect()
}

/// Every point's record as JSON (`--report-json`): its key and label, how it is run (dialect,
/// exact arguments with `<point-dir>`, workload SHA-256, settings without a flag) and its
/// result or failure. Enough to re-run any point by hand (docs/blis-arm.md). The one time is
/// `cost`, what the simulator's run cost (this run's or the cache entry's, null when unknown):
/// this file is never compared byte for byte, unlike `point_records`.
pub fn outcomes_json(binary: &Path, outcomes: &[PointOutcome]) -> String {
    use serde_json::json;
    let points: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|o| {
            let result = match &o.result {
                Ok(m) => json!({"ok": m}),
                Err(f) => json!({"failed": {"kind": format!("{:?}", f.kind), "reason": f.reason, "stderr_tail": f.stderr_tail}}),
            };
            json!({
                "key": o.key,
                "label": o.label,
                "cached": o.cached,
                "cost": o.cost,
                "run": o.run,
                "result": result,
            })
        })
        .collect();
    let digest = binary::digest(binary).unwrap_or_default();
    let mut text = serde_json::to_string_pretty(&json!({
        "binary": binary.display().to_string(),
        "binary_sha256": digest,
        "points": points,
        "schema": 1,
    }))
    .expect("point records always serialise");
    text.push('\n');
    text
}

/// A deterministic table of outcomes: one line per point in the given order, the full
/// precision of each float, no times and no paths. What the shard and worker-count tests
/// compare byte for byte, and what `cargo xtask blis run` prints.
pub fn render_outcomes(outcomes: &[PointOutcome]) -> String {
    let mut out = String::new();
    for o in outcomes {
        let key = if o.key.is_empty() { "-".to_string() } else { o.key[..12].to_string() };
        match &o.result {
            Ok(m) => {
                out += &format!(
                    "{key} {} tpot_ms={:?} ttft_ms={:?} completed={} n_tpot={} n_ttft={}\n",
                    o.label, m.tpot_ms, m.ttft_ms, m.completed, m.tpot_samples, m.ttft_samples
                )
            }
            Err(f) => out += &format!("{key} {} FAILED {:?}: {}\n", o.label, f.kind, f.reason),
        }
    }
    out
}

#[cfg(test)]
mod release_words {
    #[test]
    fn a_release_saying_it_has_no_config_is_not_modelled() {
        // The line inference-sim f90a1e3a prints for `--hardware FOO` (run by hand).
        let real = r#"time="2026-12-01T21:44:13Z" level=fatal msg="Failed to load hardware config: GPU \"FOO\" not found in hardware config (available: [A100-80 A100-SXM H100 L40S])""#;
        assert_eq!(
            super::release_cannot_model(real).as_deref(),
            Some(
                r#"Failed to load hardware config: GPU "FOO" not found in hardware config (available: [A100-80 A100-SXM H100 L40S])"#
            )
        );
        assert!(
            super::release_cannot_model(r#"level=fatal msg="Failed to load model config: no config.json""#).is_some()
        );
        assert_eq!(super::release_cannot_model(r#"level=fatal msg="workload spec: unknown field""#), None);
        assert_eq!(super::release_cannot_model("Failed to load hardware config: GPU"), None);
    }
}

#[cfg(test)]
mod latency_pin {
    use super::*;

    /// A flag-dialect release folder (one GPU, one model) and its help, written for the test.
    fn release(dir: &Path, latency_line: &str) -> Target {
        std::fs::write(dir.join("hardware_config.json"), r#"{"H100": {}}"#).unwrap();
        std::fs::write(dir.join("defaults.yaml"), "defaults: {}\n").unwrap();
        let model = dir.join("model_configs/synthetic-model");
        std::fs::create_dir_all(&model).unwrap();
        let config =
            r#"{"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "torch_dtype": "bfloat16"}"#;
        std::fs::write(model.join("config.json"), config).unwrap();
        let help = format!(
            "  --workload-spec string\n  --seed int\n  --results-path string\n  --log string\n  --model string\n  \
             --hardware string\n  --tp int\n  --model-config-folder string\n  --max-num-running-reqs int\n  \
             --max-num-scheduled-tokens int\n  --block-size-in-tokens int\n{latency_line}"
        );
        let help = dialect::help_facts(&help).unwrap();
        Target::Flags(dialect::Release::load(dir, &help, false, None).unwrap())
    }

    fn point(dir: &Path) -> PointSpec {
        let scenario = dir.join("s.yaml");
        std::fs::write(&scenario, double::SYNTHETIC_SCENARIO).unwrap();
        PointSpec {
            scenario_file: scenario,
            engine: EngineSettings {
                max_num_seqs: 8,
                max_num_batched_tokens: 512,
                block_size: 16,
                enable_prefix_caching: false,
            },
            isl: 64,
            osl: 16,
            concurrency: 1,
            seed: 0,
            input_lens: vec![60; 10],
            output_lens: vec![15; 10],
            form: workload::LengthForm::Uniform,
        }
    }

    #[test]
    fn a_pinned_latency_model_is_passed_and_keyed() {
        let dir = tempfile::tempdir().unwrap();
        let target = release(
            dir.path(),
            "  --latency-model string   Latency model backend: roofline (default), trained-physics (default \"roofline\")\n",
        );
        let p = point(dir.path());
        let base = cache::KeyInputs::default();
        let prepared = |pin: Option<&str>| prepare(&p, &base, &target, pin);
        let Ok(none) = prepared(None) else { panic!("no pin must prepare") };
        let Ok(roofline) = prepared(Some("roofline")) else { panic!("a listed pin must prepare") };
        let Ok(physics) = prepared(Some("trained-physics")) else { panic!("a listed pin must prepare") };
        assert!(!none.flags.iter().any(|f| f == "--latency-model"));
        let pair = |p: &Prepared| p.flags.windows(2).find(|w| w[0] == "--latency-model").map(|w| w[1].clone());
        assert_eq!(pair(&roofline).as_deref(), Some("roofline"));
        // Each pin is its own key; the default pinned explicitly is not the unpinned key either
        // (a later release may change its default: v0.7.13).
        let keys = [&none.key, &roofline.key, &physics.key];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
        // The command names the release's metrics flag and passes no --timeout (none listed).
        let command = roofline.command(Path::new(POINT_DIR), &RunOptions::new("b".into(), "c".into(), "r".into()), 0);
        assert!(command.iter().any(|a| a == "--results-path"), "{command:?}");
        assert!(!command.iter().any(|a| a == "--timeout" || a == "--metrics-path"), "{command:?}");
        match prepared(Some("blackbox")) {
            Err(PrepareError::Input(e)) => {
                let e = format!("{e:#}");
                assert!(e.contains("blackbox") && e.contains("roofline, trained-physics"), "{e}");
            }
            _ => panic!("a pin the release does not list is an input error"),
        }
    }

    #[test]
    fn a_pin_on_a_release_without_the_flag_is_an_input_error() {
        let dir = tempfile::tempdir().unwrap();
        let target = release(dir.path(), "");
        let Target::Flags(r) = &target else { unreachable!() };
        assert_eq!(r.latency_model_run(None), dialect::BUILT_IN_LATENCY_MODEL);
        let p = point(dir.path());
        match prepare(&p, &cache::KeyInputs::default(), &target, Some("roofline")) {
            Err(PrepareError::Input(e)) => assert!(format!("{e}").contains("lists no --latency-model"), "{e}"),
            _ => panic!("expected an input error"),
        }
        assert!(prepare(&p, &cache::KeyInputs::default(), &target, None).is_ok());
    }

    #[test]
    fn a_release_without_the_spec_fields_models_no_point() {
        let dir = tempfile::tempdir().unwrap();
        let Target::Flags(mut r) = release(dir.path(), "") else { unreachable!() };
        r.spec_gap = dialect::spec_gap_of(br#"yaml:"version" yaml:"clients""#);
        let target = Target::Flags(r);
        match prepare(&point(dir.path()), &cache::KeyInputs::default(), &target, None) {
            Err(PrepareError::NotModelled(why)) => assert!(why.contains("`concurrency`"), "{why}"),
            _ => panic!("expected not modelled"),
        }
    }

    #[test]
    fn the_release_words_for_a_spec_field_it_lacks() {
        let line = r#"time="x" level=fatal msg="Failed to load workload spec: parsing workload spec: yaml: unmarshal errors:\n  line 7: field concurrency not found in type workload.ClientSpec""#;
        assert!(release_cannot_model(line).is_some_and(|m| m.contains("field concurrency not found")));
    }
}
