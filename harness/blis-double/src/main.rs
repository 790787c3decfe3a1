//! `blis-double`: a test-only stand-in for the `blis` binary.
//!
//! It speaks one of the two command-line dialects the harness detects from `blis run --help`
//! (`BLIS_DOUBLE_DIALECT=flags` for the flag dialect of inference-sim at f90a1e3a, else the
//! scenario dialect of the latency-kernel contract):
//!
//! ```text
//! blis-double run --scenario NAME --scenarios DIR --catalog DIR --registry DIR
//!     --workload-spec FILE --seed N --metrics-path FILE --timeout -1 --log error
//! blis-double run --model M --hardware GPU --tp N --model-config-folder DIR --max-num-seqs N
//!     --max-num-batched-tokens N --block-size-in-tokens N --workload-spec FILE --seed N
//!     --metrics-path FILE --timeout -1 --log error          (any order, as cobra parses)
//! ```
//!
//! The scenario dialect is pinned to the harness's order (exit 2 otherwise). In the flag
//! dialect, like the real binary, an unknown flag exits 1, the GPU must be a key of
//! `hardware_config.json` in the working directory, and the model folder must hold a
//! `config.json`. The workload spec is read the way the real reader reads it
//! (`sim/workload/spec.go` @ f90a1e3a): unknown fields refused, distribution types limited to
//! the real six, `concurrency` with `rate_fraction` refused. The double samples `empirical`
//! and `constant` lengths (a closed-loop client only); other real types are refused as not
//! modelled by the double. The metrics JSON has the real field names and units (`arrived_at`
//! in seconds, times in ms, requests sorted by arrival, no completion index).
//!
//! The model is not BLIS: it only has to be a pure function of its inputs in which the engine
//! settings and the lengths move the latencies, so the harness's plumbing, caching and
//! sensitivity rows can be tested without the real simulator.
//!
//! Failure modes for tests, chosen with environment variables:
//! - `BLIS_DOUBLE_MODE=exit1`: prints a few stderr lines and exits 1.
//! - `BLIS_DOUBLE_MODE=malformed`: writes a metrics file that is not JSON, exits 0.
//! - `BLIS_DOUBLE_MODE=incomplete`: one request left running (completed < injected), exits 0.
//! - `BLIS_DOUBLE_MODE=timed_out`: every request completes but `timed_out_requests` is 1.
//! - `BLIS_DOUBLE_MODE=no_metrics`: exits 0 without writing a metrics file.
//! - `BLIS_DOUBLE_MODE=hang`: sleeps forever (the harness's timeout must kill it).
//! - `BLIS_DOUBLE_MODE=grandchild`: starts `sleep 1000` (or `sleep $BLIS_DOUBLE_SLEEP`), then
//!   hangs (the timeout must kill both).
//! - `BLIS_DOUBLE_MODE=huge_stderr`: writes one 50 MB stderr line, exits 1.
//! - `BLIS_DOUBLE_MODE=fifo_metrics`: leaves a FIFO at the metrics path, exits 0.
//! - `BLIS_DOUBLE_MODE=devzero_metrics`: leaves a symlink to `/dev/zero` there, exits 0.
//! - `BLIS_DOUBLE_MODE=huge_metrics`: leaves a sparse file of `BLIS_DOUBLE_BYTES` there, exits 0.
//! - `BLIS_DOUBLE_MODE=background`: starts `sleep $BLIS_DOUBLE_SLEEP` in the background, then
//!   writes its metrics and exits 0 (the child's end must take the sleep too).
//! - `BLIS_DOUBLE_MODE=setsid`: the same with `setsid sleep ...` (a new session and group);
//!   `setsid_hang`: starts that, then hangs (the timeout must take it).
//! - `BLIS_DOUBLE_CWD_LOG=FILE`: appends the working directory to FILE (where the child ran).
//! - `BLIS_DOUBLE_ENV_LOG=FILE`: writes every variable of its environment to FILE.
//! - `BLIS_DOUBLE_ONLY=TEXT`: apply the mode only when the scenario (or model) contains TEXT.
//!
//! A knob for a release that models only some of the sweeps (issue 23):
//! - `BLIS_DOUBLE_NOT_MODELLED=GPU,GPU...` (case-insensitive): a point on one of these GPUs (the
//!   scenario's `cluster.hardware`, or `--hardware`) fails the way inference-sim at f90a1e3a
//!   fails on a GPU missing from its `hardware_config.json` (`cmd/root.go` logs
//!   `Failed to load hardware config: ...` through logrus.Fatalf, `sim/latency/config.go` says
//!   `GPU "X" not found in hardware config (available: [...])`): that line on stderr, exit 1.
//!
//! A knob for the baseline comparison (`--baseline-blis`, docs/baseline.md):
//! - `BLIS_DOUBLE_SLOWDOWN=F` (a finite number of at least 0, default 0): every step takes
//!   `1 + F x ln(concurrency)` times as long, so concurrency 1 is unchanged and the higher
//!   points of a sweep slow down: a candidate whose TPOT shape error grows at high concurrency.
//!
//! A knob for the gate's determinism check (`cargo xtask reproduce --determinism`):
//! - `BLIS_DOUBLE_NOISE=F` (a number in [0, 1], default 0): a nondeterministic simulator. The
//!   points whose workload file and seed hash (FNV-1a) below F of the 64-bit range get a
//!   different first inter-token latency on every run (the clock's nanoseconds and the process
//!   id), so their metrics files differ between two runs; the other points stay exact.

use serde_json::json;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: blis-double run --scenario NAME --scenarios DIR --catalog DIR \
--registry DIR --workload-spec FILE --seed N --metrics-path FILE --timeout -1 --log error";

const SCENARIO_HELP: &str = "Run the inference simulation (blis-double, scenario dialect)

Usage:
  blis run [flags]

Flags:
      --catalog string         Catalog directory
  -h, --help                   help for run
      --log string             Log level (default \"warn\")
      --metrics-path string    File to write MetricsOutput JSON
      --registry string        Registry directory
      --scenario string        Scenario file name under --scenarios
      --scenarios string       Scenario directory
      --seed int               Seed (default 42)
      --timeout int            Per-request deadline in seconds; negative = disabled (default 300)
      --workload-spec string   Path to YAML workload specification file
";

const FLAGS_HELP: &str = "Run the inference simulation (blis-double, flag dialect)

Usage:
  blis run [flags]

Flags:
      --block-size-in-tokens int     Number of tokens in a KV cache block (default 16)
      --hardware string              GPU type
  -h, --help                         help for run
      --latency-model string         Latency model backend: trained-physics (default), roofline (default \"trained-physics\")
      --log string                   Log level (default \"warn\")
      --max-num-batched-tokens int   Token budget per step (default 2048)
      --max-num-seqs int             Maximum running requests (default 256)
      --metrics-path string          File to write MetricsOutput JSON
      --model string                 LLM name
      --model-config-folder string   Path to folder containing config.json
      --seed int                     Seed (default 42)
      --timeout int                  Per-request deadline in seconds; negative = disabled (default 300)
      --tp int                       Tensor parallelism
      --workload-spec string         Path to YAML workload specification file
";

enum Source {
    /// `--scenario NAME --scenarios DIR` (engine and tp from the variant).
    Scenario { name: String, dir: PathBuf, catalog: PathBuf, registry: PathBuf },
    /// The flag dialect: the engine from flags, no prefix caching flag.
    Flags { model: String, hardware: String, engine: Engine },
}

struct Args {
    source: Source,
    workload_spec: PathBuf,
    seed: u64,
    metrics_path: PathBuf,
}

impl Args {
    /// What `BLIS_DOUBLE_ONLY` matches against.
    fn name(&self) -> &str {
        match &self.source {
            Source::Scenario { name, .. } => name,
            Source::Flags { model, .. } => model,
        }
    }
}

/// The scenario dialect: the flags in the order the harness sends them; values that the
/// harness always sends the same way are pinned so a drifting command line is caught here.
fn parse_scenario_args(argv: &[String]) -> Result<Args, String> {
    const FLAGS: [&str; 9] = [
        "--scenario",
        "--scenarios",
        "--catalog",
        "--registry",
        "--workload-spec",
        "--seed",
        "--metrics-path",
        "--timeout",
        "--log",
    ];
    if argv.first().map(String::as_str) != Some("run") {
        return Err("the first argument must be `run`".into());
    }
    let rest = &argv[1..];
    if rest.len() != FLAGS.len() * 2 {
        return Err(format!("expected {} arguments after `run`, got {}", FLAGS.len() * 2, rest.len()));
    }
    let mut values = Vec::new();
    for (i, flag) in FLAGS.iter().enumerate() {
        if rest[2 * i] != *flag {
            return Err(format!("argument {} must be {flag}, got {:?}", 2 * i + 2, rest[2 * i]));
        }
        values.push(rest[2 * i + 1].clone());
    }
    if values[7] != "-1" {
        return Err(format!("--timeout must be -1, got {:?}", values[7]));
    }
    if values[8] != "error" {
        return Err(format!("--log must be error, got {:?}", values[8]));
    }
    let seed = values[5].parse::<u64>().map_err(|_| format!("--seed must be an integer, got {:?}", values[5]))?;
    Ok(Args {
        source: Source::Scenario {
            name: values[0].clone(),
            dir: values[1].clone().into(),
            catalog: values[2].clone().into(),
            registry: values[3].clone().into(),
        },
        workload_spec: values[4].clone().into(),
        seed,
        metrics_path: values[6].clone().into(),
    })
}

/// `BLIS_DOUBLE_RELEASE=early`: the flag dialect of the releases before v0.7.0 that list no
/// `--latency-model` (v0.3.0 ... v0.6.6): the metrics file flag is `--results-path`, there is
/// no `--timeout` (no per-request deadline) and no `--latency-model`. Anything else: the flag
/// dialect of f90a1e3a (`--metrics-path`, `--timeout`, `--latency-model`).
fn flags_help() -> String {
    if std::env::var("BLIS_DOUBLE_RELEASE").is_ok_and(|r| r == "early") {
        FLAGS_HELP
            .lines()
            .filter(|l| !l.contains("--timeout ") && !l.contains("--latency-model "))
            .map(|l| {
                if l.contains("--metrics-path ") {
                    "      --results-path string          File to save BLIS results to".to_string()
                } else {
                    l.to_string()
                }
            })
            .map(|l| l + "\n")
            .collect()
    } else {
        FLAGS_HELP.to_string()
    }
}

/// The option names a help text lists (the first `--word` of each option line).
fn help_flags(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")).map(|w| w.trim_end_matches(',').to_string()))
        .collect()
}

/// The backends of the help's `--latency-model` line (`a (default), b (default "a")`).
fn latency_choices(help: &str) -> Vec<String> {
    let Some(line) = help.lines().find(|l| l.trim_start().starts_with("--latency-model ")) else { return Vec::new() };
    let list = line.split_once(':').map_or("", |(_, l)| l);
    let list = list.split(" (default \"").next().unwrap_or(list);
    list.split(',')
        .map(|c| c.trim().trim_end_matches("(default)").trim().to_string())
        .filter(|c| !c.is_empty())
        .collect()
}

/// The flag dialect, parsed as cobra does: any order, each flag once, unknown flags refused
/// (exit 1, like the real binary): the flags known are exactly those its help lists. The model
/// and hardware are checked against the working directory's `hardware_config.json` and the
/// model config folder; a `--latency-model` not among the help's backends is refused as the
/// real binary refuses it (`unknown --latency-model "x"; valid options: ...`).
fn parse_flag_args(argv: &[String]) -> Result<Args, String> {
    let help = flags_help();
    let known = help_flags(&help);
    if argv.first().map(String::as_str) != Some("run") {
        return Err("Error: unknown command".into());
    }
    let mut values: std::collections::BTreeMap<String, String> = Default::default();
    let mut rest = argv[1..].iter();
    while let Some(flag) = rest.next() {
        if !known.iter().any(|k| k == flag) {
            return Err(format!("Error: unknown flag: {flag}"));
        }
        let value = rest.next().ok_or(format!("Error: flag needs an argument: {flag}"))?;
        values.insert(flag.clone(), value.clone());
    }
    let get = |f: &str| values.get(f).cloned();
    let int = |f: &str, default: u64| -> Result<u64, String> {
        get(f).map_or(Ok(default), |v| v.parse().map_err(|_| format!("Error: invalid argument {v:?} for {f}")))
    };
    let lists = |f: &str| known.iter().any(|k| k == f);
    // Where the help lists `--timeout`, the harness always disables the deadline.
    if (lists("--timeout") && get("--timeout").as_deref() != Some("-1")) || get("--log").as_deref() != Some("error") {
        return Err("blis-double: the harness always sends --log error, and --timeout -1 where it is listed".into());
    }
    if let Some(model) = get("--latency-model") {
        let choices = latency_choices(&help);
        if !choices.contains(&model) {
            return Err(format!(
                "level=fatal msg=\"unknown --latency-model {model:?}; valid options: {}\"",
                choices.join(", ")
            ));
        }
    }
    let metrics_flag = if lists("--metrics-path") { "--metrics-path" } else { "--results-path" };
    let model = get("--model").ok_or("level=fatal msg=\"--model is required\"")?;
    let hardware = get("--hardware").unwrap_or_default();
    let hw_text = std::fs::read_to_string("hardware_config.json")
        .map_err(|e| format!("level=fatal msg=\"Failed to load hardware config: {e}\""))?;
    let hw: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&hw_text).map_err(|e| format!("level=fatal msg=\"hardware config: {e}\""))?;
    if !hw.contains_key(&hardware) {
        return Err(format!(
            "level=fatal msg=\"Failed to load hardware config: GPU {hardware:?} not found in hardware config\""
        ));
    }
    let bare = model.rsplit('/').next().unwrap_or(&model).to_string();
    let folder = get("--model-config-folder").unwrap_or_else(|| format!("model_configs/{bare}"));
    if !Path::new(&folder).join("config.json").is_file() {
        return Err(format!("level=fatal msg=\"no config.json for {model}; pass --model-config-folder\""));
    }
    let engine = Engine {
        max_num_seqs: int("--max-num-seqs", 256)? as usize,
        max_num_batched_tokens: int("--max-num-batched-tokens", 2048)?,
        block_size: int("--block-size-in-tokens", 16)?,
        enable_prefix_caching: false,
        tp: int("--tp", 1)?.max(1),
    };
    if engine.max_num_seqs == 0 || engine.max_num_batched_tokens == 0 || engine.block_size == 0 {
        return Err("level=fatal msg=\"engine limits must be positive\"".into());
    }
    Ok(Args {
        source: Source::Flags { model, hardware, engine },
        workload_spec: get("--workload-spec").ok_or("level=fatal msg=\"--workload-spec is required\"")?.into(),
        seed: int("--seed", 42)?,
        metrics_path: get(metrics_flag).ok_or(format!("level=fatal msg=\"{metrics_flag} is required\""))?.into(),
    })
}

#[derive(Clone, Copy)]
struct Engine {
    max_num_seqs: usize,
    max_num_batched_tokens: u64,
    block_size: u64,
    enable_prefix_caching: bool,
    tp: u64,
}

struct Workload {
    concurrency: usize,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
}

/// The scenario's `cluster.hardware` (empty when it states none).
fn scenario_hardware(path: &Path) -> String {
    use serde::Deserialize;
    let Ok(text) = std::fs::read_to_string(path) else { return String::new() };
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let Ok(value) = serde_yaml::Value::deserialize(doc) else { return String::new() };
        if value.get("kind").and_then(|k| k.as_str()) == Some("Scenario") {
            let hw = value.get("cluster").and_then(|c| c.get("hardware")).and_then(|h| h.as_str());
            return hw.unwrap_or_default().to_string();
        }
    }
    String::new()
}

/// `BLIS_DOUBLE_NOT_MODELLED`: the real release's fatal line for a GPU it has no entry for.
fn not_modelled(hardware: &str) -> Option<String> {
    let list = std::env::var("BLIS_DOUBLE_NOT_MODELLED").unwrap_or_default();
    let listed: Vec<&str> = list.split(',').map(str::trim).filter(|g| !g.is_empty()).collect();
    listed.iter().any(|g| g.eq_ignore_ascii_case(hardware)).then(|| {
        format!(
            "level=fatal msg=\"Failed to load hardware config: GPU {hardware:?} not found in hardware config (available: every GPU but [{}])\"",
            listed.join(" ")
        )
    })
}

fn read_engine(path: &Path) -> Result<Engine, String> {
    use serde::Deserialize;
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut deployment = None;
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let value = serde_yaml::Value::deserialize(doc).map_err(|e| format!("{}: {e}", path.display()))?;
        if value.get("kind").and_then(|k| k.as_str()) == Some("Deployment") {
            deployment = Some(value);
        }
    }
    let deployment = deployment.ok_or_else(|| format!("{}: no Deployment document", path.display()))?;
    let pools = deployment.get("pools").and_then(|p| p.as_sequence()).ok_or("no pools")?;
    let [pool] = pools.as_slice() else {
        return Err(format!("{} pools, expected 1", pools.len()));
    };
    let engine = pool.get("engine").ok_or("pool has no engine")?;
    let uint = |key: &str| -> Result<u64, String> {
        engine.get(key).and_then(|v| v.as_u64()).ok_or(format!("engine.{key} missing or not an integer"))
    };
    let tp = pool.get("parallel").and_then(|p| p.get("tp")).and_then(|v| v.as_u64()).unwrap_or(1);
    let engine = Engine {
        max_num_seqs: uint("max_num_seqs")? as usize,
        max_num_batched_tokens: uint("max_num_batched_tokens")?,
        block_size: uint("block_size")?,
        enable_prefix_caching: engine
            .get("enable_prefix_caching")
            .and_then(|v| v.as_bool())
            .ok_or("engine.enable_prefix_caching missing or not a bool")?,
        tp: tp.max(1),
    };
    if engine.max_num_seqs == 0 || engine.max_num_batched_tokens == 0 || engine.block_size == 0 {
        return Err("max_num_seqs, max_num_batched_tokens and block_size must be positive".into());
    }
    Ok(engine)
}

// The YAML keys of inference-sim's `WorkloadSpec`, `ClientSpec`, `ArrivalSpec` and `DistSpec`
// (`sim/workload/spec.go` @ f90a1e3a); the real reader refuses any other.
const SPEC_KEYS: [&str; 11] = [
    "version",
    "seed",
    "category",
    "clients",
    "cohorts",
    "aggregate_rate",
    "horizon",
    "num_requests",
    "servegen_data",
    "inference_perf",
    "goodput_slo_targets",
];
const CLIENT_KEYS: [&str; 21] = [
    "id",
    "tenant_id",
    "slo_class",
    "model",
    "adapter",
    "rate_fraction",
    "concurrency",
    "think_time_us",
    "arrival",
    "input_distribution",
    "output_distribution",
    "prefix_group",
    "prefix_length",
    "streaming",
    "network",
    "lifecycle",
    "multimodal",
    "reasoning",
    "timeout",
    "slo_target_us",
    "closed_loop",
];
const ARRIVAL_KEYS: [&str; 4] = ["process", "cv", "shape", "scale"];
const DIST_KEYS: [&str; 3] = ["type", "params", "file"];
const DIST_TYPES: [&str; 6] = ["gaussian", "exponential", "pareto_lognormal", "lognormal", "constant", "empirical"];

/// The spec fields as the real binary's type data spells them (Go struct tags): the harness
/// reads which fields a release's reader knows from these bytes (`dialect::workload_spec_gap`),
/// so the double carries them as the real binary does, and its reader checks against them.
const GO_TAGS: &str = concat!(
    r#"yaml:"version" yaml:"seed" yaml:"category" yaml:"clients" yaml:"cohorts,omitempty" "#,
    r#"yaml:"aggregate_rate" yaml:"horizon,omitempty" yaml:"num_requests,omitempty" "#,
    r#"yaml:"servegen_data,omitempty" yaml:"inference_perf,omitempty" yaml:"goodput_slo_targets,omitempty" "#,
    r#"yaml:"id" yaml:"tenant_id" yaml:"slo_class" yaml:"model" yaml:"adapter" yaml:"rate_fraction" "#,
    r#"yaml:"concurrency,omitempty" yaml:"think_time_us,omitempty" yaml:"arrival" yaml:"input_distribution" "#,
    r#"yaml:"output_distribution" yaml:"prefix_group,omitempty" yaml:"prefix_length,omitempty" "#,
    r#"yaml:"streaming" yaml:"network,omitempty" yaml:"lifecycle,omitempty" yaml:"multimodal,omitempty" "#,
    r#"yaml:"reasoning,omitempty" yaml:"timeout,omitempty" yaml:"slo_target_us,omitempty" "#,
    r#"yaml:"closed_loop,omitempty" yaml:"process" yaml:"cv,omitempty" yaml:"shape,omitempty" "#,
    r#"yaml:"scale,omitempty" yaml:"type" yaml:"params,omitempty" yaml:"file,omitempty""#
);

fn only_known(value: &serde_yaml::Value, keys: &[&str], at: &str) -> Result<(), String> {
    let map = value.as_mapping().ok_or(format!("{at}: expected a mapping"))?;
    for k in map.keys() {
        let k = k.as_str().unwrap_or("?");
        let tagged = [format!("yaml:\"{k}\""), format!("yaml:\"{k},")].iter().any(|t| GO_TAGS.contains(t.as_str()));
        if !keys.contains(&k) || !tagged {
            return Err(format!("{at}: field {k} not found in type"));
        }
    }
    Ok(())
}

/// A length sampler over the spec's distribution: the empirical PDF as an inverse CDF, or a
/// constant. Other real types are valid specs the double does not model.
enum Sampler {
    Constant(u64),
    Empirical(Vec<(u64, f64)>),
}

impl Sampler {
    fn parse(dist: &serde_yaml::Value, at: &str) -> Result<Sampler, String> {
        only_known(dist, &DIST_KEYS, at)?;
        let kind = dist.get("type").and_then(|t| t.as_str()).unwrap_or("");
        if !DIST_TYPES.contains(&kind) {
            return Err(format!(
                "{at}: unknown distribution type {kind:?}; valid: gaussian, exponential, pareto_lognormal, empirical, constant, lognormal"
            ));
        }
        let params: Vec<(String, f64)> = match dist.get("params") {
            None => Vec::new(),
            Some(p) => p
                .as_mapping()
                .ok_or(format!("{at}.params: expected a mapping"))?
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        serde_yaml::Value::String(s) => s.clone(),
                        serde_yaml::Value::Number(n) => n.to_string(),
                        _ => return Err(format!("{at}.params: a key is not a string")),
                    };
                    let v = v.as_f64().ok_or(format!("{at}.params.{key}: not a number"))?;
                    Ok((key, v))
                })
                .collect::<Result<_, String>>()?,
        };
        match kind {
            "constant" => {
                let v = params
                    .iter()
                    .find(|(k, _)| k == "value")
                    .map(|(_, v)| *v)
                    .ok_or(format!("{at}: constant needs params.value"))?;
                Ok(Sampler::Constant(v.max(1.0) as u64))
            }
            "empirical" => {
                let mut pdf = Vec::new();
                for (k, p) in params {
                    let len: u64 =
                        k.trim().parse().map_err(|_| format!("{at}: empirical PDF key {k:?} is not an integer"))?;
                    pdf.push((len, p));
                }
                if pdf.is_empty() {
                    return Err(format!("{at}: empirical distribution requires a file path or inline params"));
                }
                pdf.sort_by_key(|(l, _)| *l);
                let total: f64 = pdf.iter().map(|(_, p)| p).sum();
                let mut acc = 0.0;
                Ok(Sampler::Empirical(
                    pdf.into_iter()
                        .map(|(l, p)| {
                            acc += p / total;
                            (l, acc)
                        })
                        .collect(),
                ))
            }
            other => {
                Err(format!("blis-double: {at}: the double samples only empirical and constant lengths, not {other}"))
            }
        }
    }

    fn sample(&self, u: f64) -> u64 {
        match self {
            Sampler::Constant(v) => *v,
            Sampler::Empirical(cdf) => cdf.iter().find(|(_, c)| u <= *c).or(cdf.last()).map_or(1, |(l, _)| (*l).max(1)),
        }
    }
}

fn read_workload(path: &Path, seed: u64) -> Result<Workload, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let spec: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    only_known(&spec, &SPEC_KEYS, "workload spec")?;
    let clients = spec.get("clients").and_then(|c| c.as_sequence()).ok_or("no clients")?;
    for (i, c) in clients.iter().enumerate() {
        let at = format!("client[{i}]");
        only_known(c, &CLIENT_KEYS, &at)?;
        let concurrency = c.get("concurrency").and_then(|v| v.as_u64()).unwrap_or(0);
        let rate = c.get("rate_fraction").and_then(|v| v.as_f64()).unwrap_or(0.0);
        if concurrency > 0 && rate > 0.0 {
            return Err(format!("invalid workload spec: {at}: concurrency and rate_fraction are mutually exclusive"));
        }
        if let Some(a) = c.get("arrival") {
            only_known(a, &ARRIVAL_KEYS, &format!("{at}.arrival"))?;
        }
    }
    let [client] = clients.as_slice() else {
        return Err("blis-double: models exactly one client".into());
    };
    let concurrency = client.get("concurrency").and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    if concurrency == 0 {
        return Err("blis-double: models a closed-loop (concurrency) client only".into());
    }
    let input = Sampler::parse(
        client.get("input_distribution").ok_or("input_distribution missing")?,
        "client[0].input_distribution",
    )?;
    let output = Sampler::parse(
        client.get("output_distribution").ok_or("output_distribution missing")?,
        "client[0].output_distribution",
    )?;
    let total =
        spec.get("num_requests").and_then(|v| v.as_u64()).filter(|n| *n > 0).ok_or("blis-double: needs num_requests")?
            as usize;
    let spec_seed = spec.get("seed").and_then(|v| v.as_u64()).unwrap_or(0);
    let mut rng = xorshift(seed ^ spec_seed.rotate_left(17) ^ 0x5DEE_CE66);
    let (mut inputs, mut outputs) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for _ in 0..total {
        inputs.push(input.sample(rng()));
        outputs.push(output.sample(rng()));
    }
    Ok(Workload { concurrency, inputs, outputs })
}

/// Uniform draws in [0, 1).
fn xorshift(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct Request {
    id: usize,
    arrival_ms: f64,
    prompt_left: u64,
    output_left: u64,
    context: u64,
    first_token_ms: Option<f64>,
}

struct Finished {
    id: usize,
    ttft_ms: f64,
    itl_ms: f64,
    e2e_ms: f64,
    arrival_ms: f64,
}

/// A continuous-batching engine driven by a closed-loop client: N requests in flight, each
/// completion injects the next. Per step, decoding requests take one token each from the token
/// budget, then prefills take chunks of what is left; admission is capped by max_num_seqs. The
/// step time grows with prefill tokens, decodes and the KV read rounded up to whole blocks.
fn simulate(engine: &Engine, workload: &Workload, seed: u64) -> Result<Vec<Finished>, String> {
    let slowdown = 1.0 + slowdown()? * (workload.concurrency.max(1) as f64).ln();
    let total = workload.inputs.len();
    let mut jitter = xorshift(seed);
    let mut now = 0.0f64;
    let mut next = 0usize;
    let mut waiting: VecDeque<Request> = VecDeque::new();
    let mut running: Vec<Request> = Vec::new();
    let mut finished = Vec::with_capacity(total);
    let mut prefix_cached = false;
    let inject = |id: usize, at: f64| Request {
        id,
        arrival_ms: at,
        prompt_left: workload.inputs[id],
        output_left: workload.outputs[id],
        context: 0,
        first_token_ms: None,
    };
    while next < total.min(workload.concurrency) {
        waiting.push_back(inject(next, 0.0));
        next += 1;
    }
    while finished.len() < total {
        while running.len() < engine.max_num_seqs {
            let Some(mut request) = waiting.pop_front() else {
                break;
            };
            // Every prompt opens with the same first block (a chat template): with prefix
            // caching on, every request after the first reuses it.
            if engine.enable_prefix_caching {
                if prefix_cached && request.prompt_left > engine.block_size {
                    request.prompt_left -= engine.block_size;
                    request.context += engine.block_size;
                }
                prefix_cached = true;
            }
            running.push(request);
        }
        let mut budget = engine.max_num_batched_tokens;
        let (mut decodes, mut prefill_tokens, mut kv_read) = (0u64, 0u64, 0u64);
        let mut emitted = vec![false; running.len()];
        for (i, request) in running.iter_mut().enumerate() {
            if budget == 0 {
                break;
            }
            if request.prompt_left == 0 {
                budget -= 1;
                decodes += 1;
                kv_read += request.context.div_ceil(engine.block_size) * engine.block_size;
                request.context += 1;
                emitted[i] = true;
            }
        }
        for (i, request) in running.iter_mut().enumerate() {
            if budget == 0 {
                break;
            }
            if request.prompt_left > 0 {
                let chunk = request.prompt_left.min(budget);
                budget -= chunk;
                prefill_tokens += chunk;
                request.prompt_left -= chunk;
                request.context += chunk;
                emitted[i] = request.prompt_left == 0;
            }
        }
        if decodes == 0 && prefill_tokens == 0 {
            return Err("the engine cannot make progress".into());
        }
        let work = 4.0 + 0.035 * decodes as f64 + 0.0021 * prefill_tokens as f64 + 0.000_04 * kv_read as f64;
        now += work / (engine.tp as f64).sqrt() * (1.0 + 0.01 * jitter()) * slowdown;
        let mut still = Vec::with_capacity(running.len());
        for (request, emitted) in running.drain(..).zip(emitted) {
            let mut request = request;
            if emitted {
                request.first_token_ms.get_or_insert(now);
                request.output_left = request.output_left.saturating_sub(1);
            }
            if emitted && request.output_left == 0 {
                let ttft = request.first_token_ms.unwrap_or(now) - request.arrival_ms;
                let e2e = now - request.arrival_ms;
                let out = workload.outputs[request.id];
                let itl = if out > 1 { (e2e - ttft) / (out - 1) as f64 } else { 0.0 };
                finished.push(Finished {
                    id: request.id,
                    ttft_ms: ttft,
                    itl_ms: itl,
                    e2e_ms: e2e,
                    arrival_ms: request.arrival_ms,
                });
                if next < total {
                    waiting.push_back(inject(next, now));
                    next += 1;
                }
            } else {
                still.push(request);
            }
        }
        running = still;
    }
    Ok(finished)
}

/// `BLIS_DOUBLE_SLOWDOWN`: absent or empty is 0.
fn slowdown() -> Result<f64, String> {
    match std::env::var("BLIS_DOUBLE_SLOWDOWN") {
        Ok(text) if !text.is_empty() => match text.parse::<f64>() {
            Ok(f) if f.is_finite() && f >= 0.0 => Ok(f),
            _ => Err(format!("BLIS_DOUBLE_SLOWDOWN={text:?}: expected a finite number of at least 0")),
        },
        _ => Ok(0.0),
    }
}

/// `BLIS_DOUBLE_NOISE`: absent or empty is 0.
fn noise_fraction() -> Result<f64, String> {
    match std::env::var("BLIS_DOUBLE_NOISE") {
        Ok(text) if !text.is_empty() => match text.parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
            _ => Err(format!("BLIS_DOUBLE_NOISE={text:?}: expected a number from 0 to 1")),
        },
        _ => Ok(0.0),
    }
}

/// Whether this point is one of the noisy fraction: FNV-1a over the workload file and seed.
fn is_noisy(args: &Args, fraction: f64) -> Result<bool, String> {
    if fraction <= 0.0 {
        return Ok(false);
    }
    let bytes = std::fs::read(&args.workload_spec).map_err(|e| format!("{}: {e}", args.workload_spec.display()))?;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes.iter().chain(args.seed.to_le_bytes().iter()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok((h as f64) < fraction * (u64::MAX as f64) || fraction >= 1.0)
}

/// Something that differs from run to run.
fn jitter() -> f64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    1e-6 * f64::from(1 + (nanos ^ std::process::id()) % 997)
}

fn run(args: &Args, mode: &str) -> Result<(), String> {
    let engine = match &args.source {
        Source::Scenario { name, dir, catalog, registry } => {
            for (flag, dir) in [("--scenarios", dir), ("--catalog", catalog), ("--registry", registry)] {
                if !dir.is_dir() {
                    return Err(format!("{flag} {}: not a directory", dir.display()));
                }
            }
            if let Some(fatal) = not_modelled(&scenario_hardware(&dir.join(name))) {
                eprintln!("{fatal}");
                std::process::exit(1);
            }
            read_engine(&dir.join(name))?
        }
        Source::Flags { engine, hardware, .. } => {
            if let Some(fatal) = not_modelled(hardware) {
                eprintln!("{fatal}");
                std::process::exit(1);
            }
            Engine { ..*engine }
        }
    };
    let workload = read_workload(&args.workload_spec, args.seed)?;
    if let Ok(log) = std::env::var("BLIS_DOUBLE_CWD_LOG") {
        use std::io::Write;
        let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&log).map_err(|e| e.to_string())?;
        writeln!(f, "{}", cwd.display()).map_err(|e| e.to_string())?;
    }
    if let Ok(log) = std::env::var("BLIS_DOUBLE_ENV_LOG") {
        let names: Vec<String> = std::env::vars_os().map(|(k, _)| k.to_string_lossy().into_owned()).collect();
        std::fs::write(&log, names.join("\n")).map_err(|e| e.to_string())?;
    }
    let sleep_secs = || std::env::var("BLIS_DOUBLE_SLEEP").unwrap_or_else(|_| "1000".into());
    match mode {
        "fifo_metrics" => {
            let ok =
                std::process::Command::new("mkfifo").arg(&args.metrics_path).status().map_err(|e| e.to_string())?;
            return if ok.success() { Ok(()) } else { Err("mkfifo failed".into()) };
        }
        "devzero_metrics" => {
            return std::os::unix::fs::symlink("/dev/zero", &args.metrics_path).map_err(|e| e.to_string());
        }
        "huge_metrics" => {
            let bytes: u64 = std::env::var("BLIS_DOUBLE_BYTES").ok().and_then(|b| b.parse().ok()).unwrap_or(1 << 30);
            let f = std::fs::File::create(&args.metrics_path).map_err(|e| e.to_string())?;
            return f.set_len(bytes).map_err(|e| e.to_string());
        }
        "background" => {
            std::process::Command::new("sleep").arg(sleep_secs()).spawn().map_err(|e| e.to_string())?;
        }
        "setsid" | "setsid_hang" => {
            std::process::Command::new("setsid").arg("sleep").arg(sleep_secs()).spawn().map_err(|e| e.to_string())?;
            // Let it detach before this process goes on (and, for `setsid`, exits).
            std::thread::sleep(std::time::Duration::from_millis(50));
            if mode == "setsid_hang" {
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                }
            }
        }
        _ => {}
    }
    match mode {
        "exit1" => {
            eprintln!("blis-double: loading {}", args.name());
            eprintln!("blis-double: simulated failure (BLIS_DOUBLE_MODE=exit1)");
            std::process::exit(1);
        }
        "hang" => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        "grandchild" => {
            // A grandchild in the same process group; the harness's timeout must take it too.
            let secs = std::env::var("BLIS_DOUBLE_SLEEP").unwrap_or_else(|_| "1000".into());
            std::process::Command::new("sleep").arg(secs).spawn().map_err(|e| e.to_string())?;
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        "huge_stderr" => {
            use std::io::Write;
            let chunk = vec![b'z'; 1 << 20];
            let mut err = std::io::stderr().lock();
            for _ in 0..50 {
                let _ = err.write_all(&chunk);
            }
            let _ = err.write_all(b"\nblis-double: the last line\n");
            std::process::exit(1);
        }
        "malformed" => {
            return std::fs::write(&args.metrics_path, "{\"completed_requests\": 3,").map_err(|e| e.to_string());
        }
        "no_metrics" => return Ok(()),
        _ => {}
    }
    let mut finished = simulate(&engine, &workload, args.seed)?;
    if is_noisy(args, noise_fraction()?)? {
        if let Some(first) = finished.first_mut() {
            first.itl_ms += jitter();
        }
    }
    let injected = workload.inputs.len();
    let (mut still_running, mut timed_out) = (0, 0);
    match mode {
        "incomplete" => {
            finished.pop();
            still_running = 1;
        }
        "timed_out" => timed_out = 1,
        _ => {}
    }
    let ttft_mean = finished.iter().map(|f| f.ttft_ms).sum::<f64>() / finished.len().max(1) as f64;
    // Whole microsecond ticks, as the real simulator keeps time.
    let us = |ms: f64| (ms * 1e3).round();
    // Sorted by arrival, as the real file is; completion order must be derived from times.
    finished.sort_by(|a, b| us(a.arrival_ms).total_cmp(&us(b.arrival_ms)).then(a.id.cmp(&b.id)));
    let requests: Vec<_> = finished
        .iter()
        .map(|f| {
            let arrival = us(f.arrival_ms);
            json!({
                "arrived_at": arrival / 1e6,
                "requestID": format!("request_{}", f.id),
                "num_prefill_tokens": workload.inputs[f.id],
                "num_decode_tokens": workload.outputs[f.id],
                "ttft_ms": us(f.ttft_ms) / 1e3,
                "itl_ms": f.itl_ms,
                "e2e_ms": (us(f.arrival_ms + f.e2e_ms) - arrival) / 1e3,
                "scheduling_delay_ms": 0.0,
                "round_index": 0,
            })
        })
        .collect();
    let metrics = json!({
        "instance_id": "cluster",
        "completed_requests": finished.len(),
        "still_queued": 0,
        "still_running": still_running,
        "injected_requests": injected,
        "ttft_mean_ms": ttft_mean,
        "preemption_count": 0,
        "dropped_unservable": 0,
        "length_capped_requests": 0,
        "timed_out_requests": timed_out,
        "requests": requests,
    });
    let text = serde_json::to_string_pretty(&metrics).map_err(|e| e.to_string())?;
    std::fs::write(&args.metrics_path, text).map_err(|e| format!("writing {}: {e}", args.metrics_path.display()))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let flags = std::env::var("BLIS_DOUBLE_DIALECT").is_ok_and(|d| d == "flags");
    if argv.len() == 2 && argv[0] == "run" && (argv[1] == "--help" || argv[1] == "-h") {
        print!("{}", if flags { flags_help() } else { SCENARIO_HELP.to_string() });
        return ExitCode::SUCCESS;
    }
    let args = if flags {
        match parse_flag_args(&argv) {
            Ok(args) => args,
            Err(why) => {
                eprintln!("{why}");
                return ExitCode::from(1);
            }
        }
    } else {
        match parse_scenario_args(&argv) {
            Ok(args) => args,
            Err(why) => {
                eprintln!("blis-double: {why}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    };
    let only = std::env::var("BLIS_DOUBLE_ONLY").unwrap_or_default();
    let mode = match std::env::var("BLIS_DOUBLE_MODE") {
        Ok(mode) if args.name().contains(&only) => mode,
        _ => String::new(),
    };
    match run(&args, &mode) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("blis-double: {why}");
            ExitCode::from(1)
        }
    }
}
