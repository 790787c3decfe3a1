//! Which command line a `blis` binary takes, read from the binary itself.
//!
//! Two dialects exist. Releases with the latency kernel take a scenario file and the catalog
//! and registry directories (`--scenario --scenarios --catalog --registry`). Earlier releases,
//! such as inference-sim at f90a1e3a, take the deployment as flags (`--model --hardware --tp
//! --max-num-seqs --max-num-batched-tokens --block-size-in-tokens`, with the model's
//! `config.json` found under `model_configs/` of the working directory; `cmd/root.go`). The
//! releases v0.7.x name two of those flags `--max-num-running-reqs` and
//! `--max-num-scheduled-tokens` (same settings, same help text); the names the help lists are
//! the names passed. The dialect is read from `blis run --help`, once per binary (keyed by its SHA-256 and the
//! environment the harness gives it) per process.
//!
//! For the flag dialect the deployment comes from the committed scenario file (model,
//! hardware, tensor parallelism) checked against what the release ships beside the binary:
//! `hardware_config.json` (the GPU names it knows), `model_configs/<model>/config.json` and
//! `defaults.yaml` (model ids it knows). A point the release cannot model is `NotModelled`
//! with the reason; scenario settings it has no flag for are listed (`unexpressed`).

use super::binary::hex;
use super::cache::KeyedFile;
use super::EngineSettings;
use anyhow::{bail, Context, Result};
use serde_yaml::Value;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `--scenario --scenarios --catalog --registry` (the latency-kernel contract).
    Scenario,
    /// `--model --hardware --tp ...` (releases before the latency kernel).
    Flags,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Scenario => "scenario",
            Dialect::Flags => "flags",
        }
    }
}

const SCENARIO_FLAGS: [&str; 4] = ["--scenario", "--scenarios", "--catalog", "--registry"];
const DEPLOYMENT_FLAGS: [&str; 6] =
    ["--model", "--hardware", "--tp", "--max-num-seqs", "--max-num-batched-tokens", "--block-size-in-tokens"];

/// The engine-limit flags under the names releases before f90a1e3a give them (v0.7.x: the same
/// settings, "Maximum number of requests running together" and "Maximum total number of new
/// tokens across running requests", renamed for vLLM parity later), by the current name.
const EARLIER_NAMES: [(&str, &str); 2] =
    [("--max-num-seqs", "--max-num-running-reqs"), ("--max-num-batched-tokens", "--max-num-scheduled-tokens")];

/// The name this release's help lists for `flag` (the current one, else its earlier name).
fn spelled(flag: &'static str, listed: &[String]) -> &'static str {
    if listed.iter().any(|f| f == flag) {
        return flag;
    }
    EARLIER_NAMES
        .iter()
        .find(|(now, _)| *now == flag)
        .map(|(_, then)| *then)
        .filter(|then| listed.iter().any(|f| f == then))
        .unwrap_or(flag)
}
const COMMON_FLAGS: [&str; 5] = ["--workload-spec", "--seed", "--metrics-path", "--timeout", "--log"];

/// The flag names a help text lists (`--name`, as the first word of an option line).
pub fn listed_flags(help: &str) -> Vec<String> {
    let mut flags = Vec::new();
    for line in help.lines() {
        for word in line.split(|c: char| c.is_whitespace() || c == ',' || c == '=') {
            if let Some(name) = word.strip_prefix("--") {
                if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
                    flags.push(word.to_string());
                }
            }
        }
    }
    flags
}

/// The dialect a help text describes, or why it is neither.
pub fn from_help(help: &str) -> Result<Dialect, String> {
    let flags = listed_flags(help);
    let has = |f: &&str| flags.iter().any(|g| g == f);
    let missing_common: Vec<&str> = COMMON_FLAGS.iter().filter(|f| !has(f)).copied().collect();
    if !missing_common.is_empty() {
        return Err(format!("`blis run --help` does not list {}", missing_common.join(", ")));
    }
    if SCENARIO_FLAGS.iter().all(has) {
        return Ok(Dialect::Scenario);
    }
    if DEPLOYMENT_FLAGS.iter().all(|f| has(&spelled(f, &flags))) {
        return Ok(Dialect::Flags);
    }
    Err(format!(
        "`blis run --help` lists neither the scenario flags ({}) nor the deployment flags ({})",
        SCENARIO_FLAGS.join(" "),
        DEPLOYMENT_FLAGS.join(" ")
    ))
}

/// (binary SHA-256, child environment) to (dialect, flags listed by the help).
type DialectKey = (String, Vec<(String, String)>);
type Detected = (Dialect, Vec<String>);
static DETECTED: Mutex<Option<HashMap<DialectKey, Detected>>> = Mutex::new(None);

/// Runs `blis run --help` (once per binary digest and environment in this process).
pub fn detect(binary: &Path, digest: &str, cwd: &Path, env: &[(String, String)]) -> Result<Dialect, String> {
    detect_with_flags(binary, digest, cwd, env).map(|(d, _)| d)
}

/// The dialect and every flag the help lists.
pub fn detect_with_flags(
    binary: &Path,
    digest: &str,
    cwd: &Path,
    env: &[(String, String)],
) -> Result<Detected, String> {
    let key = (digest.to_string(), env.to_vec());
    if let Some(d) = DETECTED.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).get(&key) {
        return Ok(d.clone());
    }
    let help = help_text(binary, cwd, env, "run")?;
    let dialect = from_help(&help).map_err(|e| format!("{}: {e}", binary.display()))?;
    let found = (dialect, listed_flags(&help));
    DETECTED.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).insert(key, found.clone());
    Ok(found)
}

static REPLAY: Mutex<Option<HashMap<DialectKey, bool>>> = Mutex::new(None);

/// Whether `blis replay --help` lists the TraceV2 flags the arm's vectors form needs
/// (`--trace-header --trace-data --session-mode --horizon`; inference-sim's `cmd/replay.go`). Once per
/// binary digest and environment in this process; a binary without the subcommand is `false`.
pub fn replay_supported(binary: &Path, digest: &str, cwd: &Path, env: &[(String, String)]) -> bool {
    let key = (digest.to_string(), env.to_vec());
    if let Some(r) = REPLAY.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).get(&key) {
        return *r;
    }
    let help = help_text(binary, cwd, env, "replay").unwrap_or_default();
    let flags = listed_flags(&help);
    let supported = ["--trace-header", "--trace-data", "--session-mode", "--horizon", "--metrics-path", "--seed"]
        .iter()
        .all(|f| flags.iter().any(|g| g == f));
    REPLAY.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).insert(key, supported);
    supported
}

/// `blis <command> --help`, stdout and stderr, at most 1 MiB of each, within 60 s.
fn help_text(binary: &Path, cwd: &Path, env: &[(String, String)], command: &str) -> Result<String, String> {
    let dir = tempfile::Builder::new().prefix("blis-help-").tempdir().map_err(|e| {
        format!("creating a temporary folder for `{command} --help` under {}: {e}", std::env::temp_dir().display())
    })?;
    let run = super::pool::ChildRun {
        program: binary,
        args: vec![command.into(), "--help".into()],
        cwd,
        env,
        timeout: Duration::from_secs(60),
        stderr_path: dir.path().join("stderr.txt"),
        stdout_path: Some(dir.path().join("stdout.txt")),
    };
    // Caught here, whoever asks: an interrupt during the probe kills the child's group,
    // removes the probe's folder and exits 130 (the caller has nothing left to clean).
    let end = super::pool::interruptible(|| {
        let end = super::pool::run_child(&run);
        (end, super::pool::nested_interruptible())
    });
    let (end, nested) = end;
    if super::pool::interrupted() {
        drop(dir);
        if nested {
            return Err("interrupted".into());
        }
        eprintln!("blis: interrupted during `{command} --help`; its child stopped, its temporary directory removed");
        std::process::exit(130);
    }
    let end = end.map_err(|e| format!("running `{} {command} --help`: {e}", binary.display()))?;
    if !matches!(end, super::pool::ChildEnd::Exited(_)) {
        return Err(format!("`{} {command} --help` did not finish within 60 s", binary.display()));
    }
    let read = |name: &str| {
        use std::io::Read;
        let mut text = Vec::new();
        if let Ok(f) = std::fs::File::open(dir.path().join(name)) {
            let _ = f.take(1 << 20).read_to_end(&mut text);
        }
        String::from_utf8_lossy(&text).into_owned()
    };
    let (out, err) = (read("stdout.txt"), read("stderr.txt"));
    if out.is_empty() && err.is_empty() && folder_is_full(dir.path()) {
        // The help went nowhere: a full disk, not a binary without the flags.
        return Err(format!(
            "`{} {command} --help` wrote nothing: the temporary folder {} has no free space (TMPDIR)",
            binary.display(),
            std::env::temp_dir().display()
        ));
    }
    Ok(out + "\n" + &err)
}

/// Whether the file system holding `dir` has no block left for an unprivileged writer.
fn folder_is_full(dir: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let Ok(path) = std::ffi::CString::new(dir.as_os_str().as_bytes()) else { return false };
        // SAFETY: a NUL-terminated path and a zeroed out-parameter of the right type.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(path.as_ptr(), &mut st) } != 0 {
            return false;
        }
        st.f_bavail == 0 || st.f_favail == 0
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        false
    }
}

/// What a flag-dialect release ships beside its binary (its working directory).
#[derive(Clone, Debug)]
pub struct Release {
    root: PathBuf,
    /// GPU names of `hardware_config.json`, as spelled there.
    hardware: Vec<String>,
    /// Model ids that are keys of `defaults.yaml`'s `defaults`.
    known_models: Vec<String>,
    /// `hardware_config.json` and `defaults.yaml`, as every point's key holds them.
    files: Vec<KeyedFile>,
    /// Every flag `blis run --help` lists (optional settings are passed only when listed).
    flags: Vec<String>,
    /// `blis replay` takes TraceV2 files (the route for per-request length vectors).
    pub replay: bool,
}

impl Release {
    pub fn load(root: &Path, flags: Vec<String>, replay: bool) -> Result<Release> {
        let hw_path = root.join("hardware_config.json");
        let hw_text = std::fs::read_to_string(&hw_path).with_context(|| format!("reading {}", hw_path.display()))?;
        let hw: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&hw_text)
            .with_context(|| format!("{}: expected a JSON object of GPU names", hw_path.display()))?;
        let defaults_path = root.join("defaults.yaml");
        let defaults_text =
            std::fs::read_to_string(&defaults_path).with_context(|| format!("reading {}", defaults_path.display()))?;
        let defaults: Value =
            serde_yaml::from_str(&defaults_text).with_context(|| format!("parsing {}", defaults_path.display()))?;
        let known_models = match defaults.get("defaults") {
            Some(Value::Mapping(m)) => m.keys().filter_map(|k| k.as_str().map(str::to_string)).collect(),
            Some(_) => bail!("{}: `defaults` is not a mapping of model ids", defaults_path.display()),
            None => Vec::new(),
        };
        let keyed = |name: &str, path: &Path, text: &str| KeyedFile {
            name: name.into(),
            sha256: hex(&Sha256::digest(text.as_bytes())),
            source: path.to_path_buf(),
        };
        let files = vec![
            keyed("hardware_config.json", &hw_path, &hw_text),
            keyed("defaults.yaml", &defaults_path, &defaults_text),
        ];
        Ok(Release {
            root: root.to_path_buf(),
            hardware: hw.keys().cloned().collect(),
            known_models,
            files,
            flags,
            replay,
        })
    }
}

/// One point's deployment in the flag dialect.
#[derive(Clone, Debug, PartialEq)]
pub struct FlagDeployment {
    /// `--model`: the id `defaults.yaml` knows for the scenario's model, else its bare name.
    pub model: String,
    /// `--model-config-folder`: the release's own folder (relative to the working directory), or
    /// `<point-dir>/model-config` when the point writes its own copy (`model_config`).
    pub model_config_folder: String,
    /// The copy of the release's `config.json` the point writes into its directory, with the
    /// `quantization_config` of the scenario's weight format; `None`: the shipped file is read.
    pub model_config: Option<String>,
    /// SHA-256 of the `config.json` the run reads (the shipped one or the point's copy).
    pub model_config_sha256: String,
    /// Scenario settings stated through a route the release offers, and how.
    pub expressed: Vec<String>,
    pub hardware: String,
    pub tp: u64,
    /// The release's names for `--max-num-seqs` and `--max-num-batched-tokens`.
    pub limit_flags: [&'static str; 2],
    /// Further scenario settings passed as flags the release lists (`--max-model-len`, ...).
    pub optional: Vec<(String, String)>,
    /// Scenario settings the release has no flag for, as `key: value`.
    pub unexpressed: Vec<String>,
    /// What the cache key adds: the release files and the model config folder the run reads.
    pub key_files: Vec<KeyedFile>,
}

impl FlagDeployment {
    /// The flags before the common ones, in the order they are passed.
    pub fn flags(&self, engine: &EngineSettings) -> Vec<String> {
        vec![
            "--model".into(),
            self.model.clone(),
            "--hardware".into(),
            self.hardware.clone(),
            "--tp".into(),
            self.tp.to_string(),
            "--model-config-folder".into(),
            self.model_config_folder.clone(),
            self.limit_flags[0].into(),
            engine.max_num_seqs.to_string(),
            self.limit_flags[1].into(),
            engine.max_num_batched_tokens.to_string(),
            "--block-size-in-tokens".into(),
            engine.block_size.to_string(),
        ]
        .into_iter()
        .chain(self.optional.iter().flat_map(|(f, v)| [f.clone(), v.clone()]))
        .collect()
    }
}

/// Why the release cannot model a point.
#[derive(Clone, Debug, PartialEq)]
pub struct NotModelled(pub String);

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_yaml::to_string(other).map(|s| s.trim().to_string()).unwrap_or_default(),
    }
}

/// Engine keys passed as flags (the point's resolved values) in the flag dialect.
const PASSED_ENGINE_KEYS: [&str; 3] = ["max_num_seqs", "max_num_batched_tokens", "block_size"];

/// Engine keys passed as the scenario states them, when the release's help lists the flag
/// (`cmd/root.go`: `--gpu-memory-utilization`, `--max-model-len`).
const OPTIONAL_ENGINE_FLAGS: [(&str, &str); 2] =
    [("gpu_memory_utilization", "--gpu-memory-utilization"), ("max_model_len", "--max-model-len")];

/// The point's deployment for a flag-dialect release, or why it cannot be modelled.
/// `Err(Ok(..))` is "not modelled"; `Err(Err(..))` is a scenario file that cannot be read.
pub fn flag_deployment(
    scenario_text: &str,
    engine: &EngineSettings,
    release: &Release,
) -> Result<FlagDeployment, std::result::Result<NotModelled, anyhow::Error>> {
    let docs = super::variant::parse_documents(scenario_text).map_err(Err)?;
    let kind = |k: &str| docs.iter().find(|d| d.get("kind").and_then(Value::as_str) == Some(k));
    let scenario = kind("Scenario").context("no document with `kind: Scenario`").map_err(Err)?;
    let deployment = kind("Deployment").context("no document with `kind: Deployment`").map_err(Err)?;
    let model = scenario.get("model").and_then(Value::as_str).context("Scenario has no `model`").map_err(Err)?;
    let hardware = scenario
        .get("cluster")
        .and_then(|c| c.get("hardware"))
        .and_then(Value::as_str)
        .context("Scenario has no `cluster.hardware`")
        .map_err(Err)?;
    let pools =
        deployment.get("pools").and_then(Value::as_sequence).context("Deployment has no `pools`").map_err(Err)?;
    let [pool] = pools.as_slice() else {
        return Err(Err(anyhow::anyhow!("Deployment states {} pools; a point describes one", pools.len())));
    };
    let not = |why: String| Err(Ok(NotModelled(why)));
    let Some(gpu) = release.hardware.iter().find(|h| h.eq_ignore_ascii_case(hardware)) else {
        return not(format!(
            "hardware `{hardware}` is not in hardware_config.json (this release knows {})",
            release.hardware.join(", ")
        ));
    };
    let bare = model.rsplit('/').next().unwrap_or(model);
    let folder = format!("model_configs/{bare}");
    let config = release.root.join(&folder).join("config.json");
    if !config.is_file() {
        return not(format!(
            "no model config for `{model}` ({folder}/config.json is not shipped; the release would download it)"
        ));
    };
    let config_bytes =
        std::fs::read(&config).with_context(|| format!("reading model config {}", config.display())).map_err(Err)?;
    let shipped = model_config_fields(&config_bytes).with_context(|| format!("model config {}", config.display()));
    let shipped = shipped.map_err(Err)?;
    let model_id = release
        .known_models
        .iter()
        .find(|id| id.rsplit('/').next().is_some_and(|b| b.eq_ignore_ascii_case(bare)))
        .cloned()
        .unwrap_or_else(|| bare.to_string());
    let parallel = pool.get("parallel");
    let int = |key: &str, default: u64| parallel.and_then(|p| p.get(key)).and_then(Value::as_u64).unwrap_or(default);
    let tp = int("tp", 1);
    let mut unexpressed = Vec::new();
    for (key, default) in [("pp", 1), ("dp", 1)] {
        let v = int(key, default);
        if v != default {
            unexpressed.push(format!("parallel.{key}: {v}"));
        }
    }
    if parallel.and_then(|p| p.get("enable_expert_parallel")).and_then(Value::as_bool) == Some(true) {
        unexpressed.push("parallel.enable_expert_parallel: true".into());
    }
    let mut optional = Vec::new();
    if let Some(Value::Mapping(e)) = pool.get("engine") {
        let mut rest: BTreeMap<String, String> = BTreeMap::new();
        for (k, v) in e {
            let k = scalar(k);
            if PASSED_ENGINE_KEYS.contains(&k.as_str()) || k == "enable_prefix_caching" || k == "quantization" {
                continue;
            }
            match OPTIONAL_ENGINE_FLAGS.iter().find(|(key, flag)| *key == k && release.flags.iter().any(|f| f == flag))
            {
                Some((_, flag)) => optional.push((flag.to_string(), scalar(v))),
                None => {
                    rest.insert(k, scalar(v));
                }
            }
        }
        optional.sort();
        unexpressed.extend(rest.into_iter().map(|(k, v)| format!("engine.{k}: {v}")));
    }
    // The point's resolved value, whatever the file says: this release has no flag for it.
    unexpressed.push(format!("engine.enable_prefix_caching: {}", engine.enable_prefix_caching));
    let mut expressed = Vec::new();
    // The whole shipped folder is keyed: the release reads `config.json`, and may read more.
    let mut key_files = release.files.clone();
    key_files.push(KeyedFile::tree(folder.clone(), &release.root.join(&folder)).map_err(Err)?);
    let mut folder = folder;
    let mut model_config = None;
    let quantization = pool.get("engine").and_then(|e| e.get("quantization")).map(scalar);
    if let Some(method) = quantization.filter(|m| !m.is_empty()) {
        match weight_format(&method) {
            Some(format) => {
                let text = quantized_model_config(&shipped.raw, &format);
                expressed.push(format!(
                    "engine.quantization: {method} as the model config's quantization_config ({}: {} bytes/param \
                     weights), --model-config-folder {MODEL_CONFIG_DIR}",
                    format.summary, format.weight_bytes
                ));
                folder = MODEL_CONFIG_DIR.to_string();
                model_config = Some(text);
            }
            None => unexpressed.push(format!(
                "engine.quantization: {method} (no quantization_config this release reads; weights at {}, {} bytes/param)",
                shipped.dtype, shipped.dtype_bytes
            )),
        }
    }
    unexpressed.sort();
    let read_bytes = model_config.as_ref().map_or(config_bytes.as_slice(), |t| t.as_bytes());
    let model_config_sha256 = hex(&Sha256::digest(read_bytes));
    if model_config.is_some() {
        // The copy written into the point's directory: its bytes are an input of the run.
        key_files.push(KeyedFile {
            name: format!("{MODEL_CONFIG_DIR}/config.json (written per point)"),
            sha256: model_config_sha256.clone(),
            source: PathBuf::from(MODEL_CONFIG_DIR),
        });
    }
    Ok(FlagDeployment {
        model: model_id,
        model_config_folder: folder,
        model_config,
        model_config_sha256,
        expressed,
        hardware: gpu.clone(),
        tp,
        limit_flags: [spelled("--max-num-seqs", &release.flags), spelled("--max-num-batched-tokens", &release.flags)],
        optional,
        unexpressed,
        key_files,
    })
}

/// Where a point's own model config is written, as its recorded command names it.
pub const MODEL_CONFIG_DIR: &str = "<point-dir>/model-config";

/// A weight format the release's reader knows (`parseQuantizationConfig`,
/// `sim/latency/config.go` @ f90a1e3a: a numeric `bits`, `quant_method: fp8`, or
/// `compressed-tensors` with `config_groups.*.weights.num_bits`), as a checkpoint of that format
/// spells it in its `config.json`.
#[derive(Clone, Debug, PartialEq)]
pub struct WeightFormat {
    pub quantization_config: serde_json::Value,
    /// Bytes per weight the reader derives from it.
    pub weight_bytes: f64,
    /// One phrase for the report (`quant_method fp8`).
    pub summary: &'static str,
}

/// The `quantization_config` for a scenario's `engine.quantization`, or `None` when the
/// release's reader has no format for it (mxfp4 checkpoints, for one, carry `quant_method:
/// mxfp4` and no bit count, which the reader leaves at 16 bits).
pub fn weight_format(method: &str) -> Option<WeightFormat> {
    use serde_json::json;
    let (quantization_config, weight_bytes, summary) = match method.to_ascii_lowercase().as_str() {
        // Hugging Face's fine-grained FP8 checkpoints (and vLLM's `fp8` method); the release
        // ships glm-5.2-fp8 with this form.
        "fp8" => (json!({"activation_scheme": "dynamic", "quant_method": "fp8"}), 1.0, "quant_method fp8"),
        // llm-compressor's NVFP4 checkpoints: compressed-tensors, 4-bit float weights in groups of 16.
        "nvfp4" => (
            json!({
                "config_groups": {"group_0": {
                    "input_activations": {"dynamic": "local", "group_size": 16, "num_bits": 4, "strategy": "tensor_group", "symmetric": true, "type": "float"},
                    "targets": ["Linear"],
                    "weights": {"dynamic": false, "group_size": 16, "num_bits": 4, "strategy": "tensor_group", "symmetric": true, "type": "float"}
                }},
                "format": "nvfp4-pack-quantized",
                "ignore": ["lm_head"],
                "quant_method": "compressed-tensors",
                "quantization_status": "compressed"
            }),
            0.5,
            "compressed-tensors nvfp4-pack-quantized, weights num_bits 4",
        ),
        // AutoAWQ and AutoGPTQ 4-bit checkpoints: a numeric `bits`.
        "awq" => (
            json!({"bits": 4, "group_size": 128, "quant_method": "awq", "version": "gemm", "zero_point": true}),
            0.5,
            "quant_method awq, bits 4",
        ),
        "gptq" => (
            json!({"bits": 4, "desc_act": false, "group_size": 128, "quant_method": "gptq", "sym": true}),
            0.5,
            "quant_method gptq, bits 4",
        ),
        _ => return None,
    };
    Some(WeightFormat { quantization_config, weight_bytes, summary })
}

/// The release's `config.json` with `quantization_config` set to the format's (pretty JSON,
/// keys in the shipped order then sorted inside the added object, newline-terminated).
pub fn quantized_model_config(shipped: &serde_json::Map<String, serde_json::Value>, format: &WeightFormat) -> String {
    let mut config = shipped.clone();
    config.insert("quantization_config".into(), format.quantization_config.clone());
    let mut text = serde_json::to_string_pretty(&config).expect("a JSON object always serialises");
    text.push('\n');
    text
}

/// What the release needs of a model config, checked before the point runs.
pub struct ModelConfigFields {
    pub raw: serde_json::Map<String, serde_json::Value>,
    /// `torch_dtype` (or `dtype`) and the bytes the release prices it at.
    pub dtype: String,
    pub dtype_bytes: u32,
}

/// Reads a `config.json` as the release does (`ParseHFConfig`, `GetModelConfigFromHF`,
/// `ValidateRooflineConfig`): a JSON object whose `num_hidden_layers`, `hidden_size` and
/// `num_attention_heads` are positive (at the top level or in `text_config`) and whose
/// `torch_dtype` or `dtype` is a precision the release knows. An error names the field.
pub fn model_config_fields(bytes: &[u8]) -> Result<ModelConfigFields> {
    let value: serde_json::Value = serde_json::from_slice(bytes).context("not valid JSON")?;
    let serde_json::Value::Object(raw) = value else { bail!("expected a JSON object") };
    let text = raw.get("text_config").and_then(serde_json::Value::as_object);
    let get = |k: &str| text.and_then(|t| t.get(k)).or_else(|| raw.get(k));
    for field in ["num_hidden_layers", "hidden_size", "num_attention_heads"] {
        match get(field).and_then(serde_json::Value::as_f64) {
            Some(v) if v >= 1.0 => {}
            _ => bail!("`{field}` must be a positive number (the release cannot size the model without it)"),
        }
    }
    let dtype = get("torch_dtype").or_else(|| get("dtype")).and_then(serde_json::Value::as_str);
    let Some(dtype) = dtype else { bail!("no `torch_dtype` or `dtype`: the release cannot price the weights") };
    let dtype_bytes = match dtype {
        "float32" => 4,
        "float16" | "bfloat16" => 2,
        "int8" | "uint8" | "fp8" | "int4" | "nf4" => 1,
        other => bail!("`torch_dtype` {other:?} is not a precision the release knows (float32, float16, bfloat16, int8, uint8, fp8, int4, nf4)"),
    };
    let dtype = dtype.to_string();
    Ok(ModelConfigFields { raw, dtype, dtype_bytes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_config_folder_is_in_the_point_directory() {
        assert_eq!(MODEL_CONFIG_DIR.strip_prefix(super::super::POINT_DIR), Some("/model-config"));
    }

    #[test]
    fn help_texts_of_both_dialects() {
        let common =
            "  --workload-spec string  x\n  --seed int\n  --metrics-path string\n  --timeout int\n  --log string\n";
        let flags = format!("{common}  --model string\n  --hardware string\n  --tp int\n  --max-num-seqs int\n  --max-num-batched-tokens int\n  --block-size-in-tokens int\n");
        let scenario =
            format!("{common}  --scenario string\n  --scenarios string\n  --catalog string\n  --registry string\n");
        assert_eq!(from_help(&flags), Ok(Dialect::Flags));
        let earlier = flags
            .replace("--max-num-seqs", "--max-num-running-reqs")
            .replace("--max-num-batched-tokens", "--max-num-scheduled-tokens");
        assert_eq!(from_help(&earlier), Ok(Dialect::Flags));
        assert_eq!(spelled("--max-num-seqs", &listed_flags(&earlier)), "--max-num-running-reqs");
        assert_eq!(spelled("--max-num-seqs", &listed_flags(&flags)), "--max-num-seqs");
        assert_eq!(from_help(&scenario), Ok(Dialect::Scenario));
        assert!(from_help(common).unwrap_err().contains("neither"));
        assert!(from_help("usage: nothing").unwrap_err().contains("--workload-spec"));
    }
}
