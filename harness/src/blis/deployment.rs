//! What a flag-dialect release ships beside its binary (`hardware_config.json`,
//! `defaults.yaml`, `model_configs/`), and a point stated to it as flags: the deployment read
//! from the committed scenario file and checked against what the release can model, the
//! settings it has no flag for, and the weights' quantization through a model config of the
//! point's own (the flag dialect of `blis::dialect`).

use super::binary::hex;
use super::cache::KeyedFile;
use super::dialect::{metrics_flag, spelled, Help, LatencyModel, METRICS_FLAGS};
use super::EngineSettings;
use anyhow::{bail, Context, Result};
use serde_yaml::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The latency model that runs, given the `--latency-model` line (if any) and a pin (if any).
pub fn latency_model_run(model: Option<&LatencyModel>, pinned: Option<&str>) -> String {
    match (pinned, model.and_then(|m| m.default.as_deref())) {
        (Some(p), _) => p.to_string(),
        (None, Some(d)) => d.to_string(),
        (None, None) => BUILT_IN_LATENCY_MODEL.to_string(),
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
    /// Every flag `blis run --help` lists (optional settings are passed only when listed).
    flags: Vec<String>,
    /// `blis replay` takes TraceV2 files (the route for per-request length vectors); probed only
    /// for a run with such points, `false` otherwise.
    pub replay: bool,
    /// The `--latency-model` line of its help; `None` when it lists no such flag.
    pub latency_model: Option<LatencyModel>,
    /// The flag it writes the metrics JSON to (`--metrics-path`, or `--results-path`).
    pub metrics_flag: &'static str,
    /// Its help lists `--timeout` (a per-request deadline, disabled with `-1`).
    pub timeout: bool,
    /// Why its workload spec reader cannot take the arm's spec (`workload_spec_gap`).
    pub spec_gap: Option<String>,
}

/// What the release runs for latency when none is pinned and it lists no `--latency-model`.
pub const BUILT_IN_LATENCY_MODEL: &str = "built-in (no --latency-model flag)";

impl Release {
    /// The latency model a point runs with: the pin, else the help's default, else the
    /// release's only (built-in) model.
    pub fn latency_model_run(&self, pinned: Option<&str>) -> String {
        latency_model_run(self.latency_model.as_ref(), pinned)
    }

    /// `--latency-model NAME` for a pin, or why the release cannot take it (an input error:
    /// the pin asks for something this release does not offer).
    pub fn latency_model_flags(&self, pinned: Option<&str>) -> Result<Vec<String>, String> {
        let Some(name) = pinned else { return Ok(Vec::new()) };
        let Some(model) = &self.latency_model else {
            return Err(format!(
                "latency model `{name}` is pinned, but this release's `blis run --help` lists no --latency-model \
                 (it has one built-in latency model)"
            ));
        };
        if !model.choices.is_empty() && !model.choices.iter().any(|c| c == name) {
            return Err(format!(
                "latency model `{name}` is pinned, but this release's --latency-model offers only {}",
                model.choices.join(", ")
            ));
        }
        Ok(vec!["--latency-model".into(), name.to_string()])
    }

    /// What `blis run --help` of this release lists, by flag name.
    pub fn lists(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }

    /// Reads the release files in `root` for a binary whose help says `help`; `spec_gap` is
    /// `workload_spec_gap` of the binary.
    pub fn load(root: &Path, help: &Help, replay: bool, spec_gap: Option<String>) -> Result<Release> {
        let flags = help.flags.clone();
        let metrics_flag = metrics_flag(&flags)
            .with_context(|| format!("`blis run --help` lists none of {}", METRICS_FLAGS.join(", ")))?;
        let timeout = flags.iter().any(|f| f == "--timeout");
        let hw_path = root.join("hardware_config.json");
        let hw_text = crate::read::text(&hw_path)?;
        let hw: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&hw_text)
            .with_context(|| format!("{}: expected a JSON object of GPU names", hw_path.display()))?;
        let defaults_path = root.join("defaults.yaml");
        let defaults_text = crate::read::text(&defaults_path)?;
        let defaults: Value =
            serde_yaml::from_str(&defaults_text).with_context(|| format!("parsing {}", defaults_path.display()))?;
        let known_models = match defaults.get("defaults") {
            Some(Value::Mapping(m)) => m.keys().filter_map(|k| k.as_str().map(str::to_string)).collect(),
            Some(_) => bail!("{}: `defaults` is not a mapping of model ids", defaults_path.display()),
            None => Vec::new(),
        };
        Ok(Release {
            root: root.to_path_buf(),
            hardware: hw.keys().cloned().collect(),
            known_models,
            flags,
            replay,
            latency_model: help.latency_model.clone(),
            metrics_flag,
            timeout,
            spec_gap,
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
    if let Some(gap) = &release.spec_gap {
        return not(gap.clone());
    }
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
    let config_bytes = crate::read::bytes(&config).context("reading a model config").map_err(Err)?;
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
    // The release's own files (`model_configs/` among them) are keyed once per run, from the
    // sealed copy the point runs in (`seal::Sealed::files`); only a point's own files are here.
    let mut key_files = Vec::new();
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
