//! What a point is (its scenario, engine settings, lengths, seed) and what became of it.

use super::*;

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

/// Every point's scenario file is a regular file, checked from its metadata (never opened, so a
/// FIFO there cannot stall the check) before any point runs; the error names the points file
/// (`source`), the point and what stands where its scenario file should be.
pub fn check_scenario_files(points: &[PointSpec], source: &Path) -> anyhow::Result<()> {
    for (i, point) in points.iter().enumerate() {
        if let Some(found) = crate::read::not_a_file(&point.scenario_file) {
            anyhow::bail!(
                "{}: [{i}].scenario_file: {}: expected a scenario file, found {found}",
                crate::paths::display(source),
                crate::paths::display(&point.scenario_file)
            );
        }
    }
    Ok(())
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
    /// The sealed copy of the binary or of a release file changed before or during the point's
    /// run (`seal::Sealed::check`): what ran is not what was keyed, so its value is not used.
    SealChanged,
}

impl FailureKind {
    /// Whether a point of this kind failed: a point the release cannot model, or one left to
    /// another shard, is counted apart, never as a failure.
    pub fn is_failure(self) -> bool {
        !matches!(self, FailureKind::NotModelled | FailureKind::OtherShard)
    }

    /// Every kind, for readers of a kind by its name.
    pub const ALL: [FailureKind; 9] = {
        use FailureKind::*;
        [Input, Exit, Timeout, Metrics, Incomplete, NotCached, OtherShard, NotModelled, SealChanged]
    };
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
