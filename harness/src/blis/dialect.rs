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
    /// `--model-config-folder`, relative to the working directory.
    pub model_config_folder: String,
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
            if PASSED_ENGINE_KEYS.contains(&k.as_str()) || k == "enable_prefix_caching" {
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
    unexpressed.sort();
    // The whole folder: the release reads `config.json`, and may read more from it.
    let mut key_files = release.files.clone();
    key_files.push(KeyedFile::tree(folder.clone(), &release.root.join(&folder)).map_err(Err)?);
    Ok(FlagDeployment {
        model: model_id,
        model_config_folder: folder,
        hardware: gpu.clone(),
        tp,
        limit_flags: [spelled("--max-num-seqs", &release.flags), spelled("--max-num-batched-tokens", &release.flags)],
        optional,
        unexpressed,
        key_files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
