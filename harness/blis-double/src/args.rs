//! The command line of both dialects: the help each prints and the parsers.

use crate::workload::*;
use std::path::{Path, PathBuf};

pub(crate) const USAGE: &str = "usage: blis-double run --scenario NAME --scenarios DIR --catalog DIR \
--registry DIR --workload-spec FILE --seed N --metrics-path FILE --timeout -1 --log error";

pub(crate) const SCENARIO_HELP: &str = "Run the inference simulation (blis-double, scenario dialect)

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

pub(crate) const FLAGS_HELP: &str = "Run the inference simulation (blis-double, flag dialect)

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

pub(crate) enum Source {
    /// `--scenario NAME --scenarios DIR` (engine and tp from the variant).
    Scenario { name: String, dir: PathBuf, catalog: PathBuf, registry: PathBuf },
    /// The flag dialect: the engine from flags, no prefix caching flag.
    Flags { model: String, hardware: String, engine: Engine },
}

pub(crate) struct Args {
    pub(crate) source: Source,
    pub(crate) workload_spec: PathBuf,
    pub(crate) seed: u64,
    pub(crate) metrics_path: PathBuf,
}

impl Args {
    /// What `BLIS_DOUBLE_ONLY` matches against.
    pub(crate) fn name(&self) -> &str {
        match &self.source {
            Source::Scenario { name, .. } => name,
            Source::Flags { model, .. } => model,
        }
    }
}

/// The scenario dialect: the flags in the order the harness sends them; values that the
/// harness always sends the same way are pinned so a drifting command line is caught here.
pub(crate) fn parse_scenario_args(argv: &[String]) -> Result<Args, String> {
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
pub(crate) fn flags_help() -> String {
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
pub(crate) fn help_flags(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")).map(|w| w.trim_end_matches(',').to_string()))
        .collect()
}

/// The backends of the help's `--latency-model` line (`a (default), b (default "a")`).
pub(crate) fn latency_choices(help: &str) -> Vec<String> {
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
pub(crate) fn parse_flag_args(argv: &[String]) -> Result<Args, String> {
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
