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

use anyhow::Result;
use std::collections::HashMap;
use std::path::Path;
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
/// Every one is passed by `FlagDeployment::flags`, so every one must be listed.
const DEPLOYMENT_FLAGS: [&str; 7] = [
    "--model",
    "--hardware",
    "--tp",
    "--model-config-folder",
    "--max-num-seqs",
    "--max-num-batched-tokens",
    "--block-size-in-tokens",
];

/// The engine-limit flags under the names releases before f90a1e3a give them (v0.7.x: the same
/// settings, "Maximum number of requests running together" and "Maximum total number of new
/// tokens across running requests", renamed for vLLM parity later), by the current name.
const EARLIER_NAMES: [(&str, &str); 2] =
    [("--max-num-seqs", "--max-num-running-reqs"), ("--max-num-batched-tokens", "--max-num-scheduled-tokens")];

/// The name this release's help lists for `flag` (the current one, else its earlier name).
pub(super) fn spelled(flag: &'static str, listed: &[String]) -> &'static str {
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
/// Flags every dialect needs: the workload spec, the seed and the log level.
const COMMON_FLAGS: [&str; 3] = ["--workload-spec", "--seed", "--log"];

/// The metrics file flag, by the names releases give it: `--metrics-path` (v0.7.0 on, and the
/// scenario contract), else `--results-path` (v0.3.0 ... v0.6.14 and iter27 write the same
/// `MetricsOutput` JSON under that name; checked by running iter27 and reading its file).
pub const METRICS_FLAGS: [&str; 2] = ["--metrics-path", "--results-path"];

/// What the scenario contract states beyond the common flags: its metrics flag and the
/// per-request deadline (`--timeout -1` is always passed in that dialect).
const SCENARIO_CONTRACT: [&str; 2] = ["--metrics-path", "--timeout"];

/// The flag list of `blis run --help` as one phrase, for reasons.
fn missing_reason(missing: &[&str]) -> String {
    format!("`blis run --help` does not list {}", missing.join(", "))
}

/// The metrics file flag this help lists (the first of `METRICS_FLAGS` listed).
pub fn metrics_flag(listed: &[String]) -> Option<&'static str> {
    METRICS_FLAGS.iter().copied().find(|f| listed.iter().any(|g| g == f))
}

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

/// The dialect a help text describes, or why it is neither. `--timeout` is optional in the
/// flag dialect (releases before v0.7.10 have no per-request deadline, so nothing to disable),
/// and the metrics file flag may be either of `METRICS_FLAGS`.
pub fn from_help(help: &str) -> Result<Dialect, String> {
    let flags = listed_flags(help);
    let has = |f: &&str| flags.iter().any(|g| g == f);
    let mut missing: Vec<&str> = COMMON_FLAGS.iter().filter(|f| !has(f)).copied().collect();
    if metrics_flag(&flags).is_none() {
        missing.push("--metrics-path (or --results-path)");
    }
    if SCENARIO_FLAGS.iter().all(has) {
        missing.extend(SCENARIO_CONTRACT.iter().filter(|f| !has(f)).copied());
        if !missing.is_empty() {
            return Err(format!("{} (the scenario dialect's contract)", missing_reason(&missing)));
        }
        return Ok(Dialect::Scenario);
    }
    // Every flag the arm would need and the release lacks, named at once: the reason a
    // release cannot run a point at all (v0.1.0 ... v0.3.0).
    missing.extend(DEPLOYMENT_FLAGS.iter().map(|f| spelled(f, &flags)).filter(|f| !has(f)));
    if missing.is_empty() {
        return Ok(Dialect::Flags);
    }
    Err(format!(
        "{}: it takes neither the scenario flags ({}) nor the deployment flags ({}) with a workload spec",
        missing_reason(&missing),
        SCENARIO_FLAGS.join(" "),
        DEPLOYMENT_FLAGS.join(" ")
    ))
}

/// The latency model backends a release offers, as its `--latency-model` help line says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyModel {
    /// The model that runs when the flag is not given: the line's `(default "X")` (cobra's
    /// rendering of the flag's default), else the choice the line marks `(default)` (v0.6.7 ...
    /// v0.6.9 mark it so and render no default value).
    pub default: Option<String>,
    /// The backends listed after `:` in the description, in the release's order.
    pub choices: Vec<String>,
}

/// The `--latency-model` line of a help text, parsed; `None` when no option line names it
/// (releases before v0.6.7). Lines that only mention the flag (`--dp ... --latency-model
/// trained-physics only`) are not its line: the option's line starts with it.
pub fn latency_model_from_help(help: &str) -> Option<LatencyModel> {
    let line = help.lines().find_map(|l| {
        let l = l.trim_start();
        let rest = l.strip_prefix("--latency-model").or_else(|| {
            // `-x, --latency-model` (a shorthand before the long name).
            l.split_once(", ")
                .and_then(|(short, long)| short.starts_with('-').then_some(long))
                .and_then(|long| long.strip_prefix("--latency-model"))
        })?;
        rest.starts_with(char::is_whitespace).then_some(rest)
    })?;
    // `string   Description: a (default), b (default "a")`: the type word, then the text.
    let text = line.trim_start();
    let text = text.split_once(char::is_whitespace).map_or("", |(_, d)| d).trim();
    let (text, rendered) = match text.rfind("(default \"") {
        Some(i) if text.ends_with("\")") => {
            let value = &text[i + "(default \"".len()..text.len() - 2];
            (text[..i].trim_end(), Some(value.to_string()))
        }
        _ => (text, None),
    };
    let mut marked = None;
    let mut choices = Vec::new();
    if let Some((_, list)) = text.split_once(':') {
        for item in list.split(',') {
            let item = item.trim();
            let (name, is_default) = match item.strip_suffix("(default)") {
                Some(n) => (n.trim(), true),
                None => (item, false),
            };
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                continue;
            }
            if is_default && marked.is_none() {
                marked = Some(name.to_string());
            }
            choices.push(name.to_string());
        }
    }
    let default = rendered.filter(|d| !d.is_empty()).or(marked);
    Some(LatencyModel { default, choices })
}

/// What `blis run --help` says, read once per binary.
#[derive(Clone, Debug)]
pub struct Help {
    pub dialect: Dialect,
    /// Every flag the help lists.
    pub flags: Vec<String>,
    pub latency_model: Option<LatencyModel>,
}

/// (binary SHA-256, child environment) to what its help says.
type DialectKey = (String, Vec<(String, String)>);
static DETECTED: Mutex<Option<HashMap<DialectKey, Help>>> = Mutex::new(None);

/// Runs `blis run --help` (once per binary digest and environment in this process).
pub fn detect(binary: &Path, digest: &str, cwd: &Path, env: &[(String, String)]) -> Result<Dialect, String> {
    detect_help(binary, digest, cwd, env).map(|h| h.dialect)
}

/// The dialect and every flag the help lists.
pub fn detect_with_flags(
    binary: &Path,
    digest: &str,
    cwd: &Path,
    env: &[(String, String)],
) -> Result<(Dialect, Vec<String>), String> {
    detect_help(binary, digest, cwd, env).map(|h| (h.dialect, h.flags))
}

/// What `blis run --help` says: the dialect (or why it has none), the flags, the latency model.
pub fn detect_help(binary: &Path, digest: &str, cwd: &Path, env: &[(String, String)]) -> Result<Help, String> {
    let key = (digest.to_string(), env.to_vec());
    if let Some(d) = DETECTED.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).get(&key) {
        return Ok(d.clone());
    }
    let help = help_text(binary, cwd, env, "run")?;
    let found = help_facts(&help).map_err(|e| format!("{}: {e}", binary.display()))?;
    DETECTED.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).insert(key, found.clone());
    Ok(found)
}

/// `from_help`, `listed_flags` and `latency_model_from_help` of one help text.
pub fn help_facts(help: &str) -> Result<Help, String> {
    Ok(Help { dialect: from_help(help)?, flags: listed_flags(help), latency_model: latency_model_from_help(help) })
}

/// The YAML field names the Go struct tags of a binary declare (`yaml:"name` up to `"` or `,`):
/// Go keeps every struct tag in the binary's type data, stripped (`-s -w`) or not, so the
/// fields a release's workload spec reader knows can be read from its bytes.
pub fn yaml_tags(bytes: &[u8]) -> std::collections::BTreeSet<String> {
    const OPEN: &[u8] = b"yaml:\"";
    let mut tags = std::collections::BTreeSet::new();
    let mut i = 0;
    while let Some(at) = bytes[i..].iter().position(|&b| b == b'y') {
        let at = i + at;
        if !bytes[at..].starts_with(OPEN) {
            i = at + 1;
            continue;
        }
        let start = at + OPEN.len();
        let end = bytes[start..].iter().take(64).position(|&b| b == b'"' || b == b',').map(|n| start + n);
        if let Some(end) = end {
            if let Ok(name) = std::str::from_utf8(&bytes[start..end]) {
                if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    tags.insert(name.to_string());
                }
            }
        }
        i = start;
    }
    tags
}

/// Why a release's workload spec reader cannot take the arm's spec, read from the binary:
/// the spec fields the arm writes (`workload::spec_fields`) that no `yaml:"..."` struct tag of
/// the binary declares. `None`: every field is declared. A binary declaring no `yaml` tag at
/// all is not Go (or not readable this way) and is not judged here.
/// Once per binary digest in this process.
pub fn workload_spec_gap(binary: &Path, digest: &str) -> Result<Option<String>> {
    static GAPS: Mutex<Option<HashMap<String, Option<String>>>> = Mutex::new(None);
    if let Some(g) = GAPS.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).get(digest) {
        return Ok(g.clone());
    }
    let bytes = crate::read::bytes_at_most(binary, MAX_BINARY_BYTES)?;
    let gap = spec_gap_of(&bytes);
    GAPS.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).insert(digest.into(), gap.clone());
    Ok(gap)
}

/// The largest binary read whole for its tags: a real `blis` is about 11 MB.
const MAX_BINARY_BYTES: u64 = 1 << 30;

/// `workload_spec_gap` of a binary's bytes.
pub fn spec_gap_of(bytes: &[u8]) -> Option<String> {
    let tags = yaml_tags(bytes);
    if tags.is_empty() {
        return None;
    }
    let missing: Vec<String> = super::workload::spec_fields().into_iter().filter(|f| !tags.contains(f)).collect();
    (!missing.is_empty()).then(|| {
        let fields = missing.iter().map(|f| format!("`{f}`")).collect::<Vec<_>>().join(", ");
        format!(
            "its workload spec has no {fields} field (the binary declares no `yaml:\"{}` struct tag), so the \
             arm's closed-loop spec (one client with `concurrency`) cannot be stated; the release refuses it as \
             `field ... not found in type workload....`",
            missing[0]
        )
    })
}

static REPLAY: Mutex<Option<HashMap<DialectKey, bool>>> = Mutex::new(None);

/// Whether `blis replay --help` lists the TraceV2 flags the arm's vectors form needs
/// (`--trace-header --trace-data --session-mode --horizon`; inference-sim's `cmd/replay.go`). Once per
/// binary digest and environment in this process. A binary without the subcommand says so and
/// exits 1 (cobra's `unknown command "replay"`, every release before v0.7): `false`. A probe
/// that crashes, exits non-zero otherwise (a Go panic exits 2) or does not finish within
/// `timeout` (at most 60 s) is an error naming the probe and what it said, never read as "no
/// replay".
pub fn replay_supported(
    binary: &Path,
    digest: &str,
    cwd: &Path,
    env: &[(String, String)],
    timeout: Duration,
) -> Result<bool, String> {
    let key = (digest.to_string(), env.to_vec());
    if let Some(r) = REPLAY.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).get(&key) {
        return Ok(*r);
    }
    let (help, status) = help_output(binary, cwd, env, "replay", timeout)?;
    // cobra's answer for a subcommand the binary lacks (exit 1); any other failure (a Go panic
    // exits 2) says nothing about the flags, so it is no "release without replay".
    let lacks_replay = !status.success() && help.contains("unknown command \"replay\"");
    if !status.success() && !lacks_replay {
        let said: Vec<&str> = help.lines().map(str::trim_end).filter(|l| !l.is_empty()).collect();
        let said = said[said.len().saturating_sub(10)..].join("\n  ");
        return Err(format!(
            "`{} replay --help` exited with {status}, not with a help text or cobra's `unknown command \"replay\"`; \
             it said:\n  {said}",
            binary.display()
        ));
    }
    let flags = listed_flags(&help);
    let supported = !lacks_replay
        && ["--trace-header", "--trace-data", "--session-mode", "--horizon", "--metrics-path", "--seed"]
            .iter()
            .all(|f| flags.iter().any(|g| g == f));
    REPLAY.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).insert(key, supported);
    Ok(supported)
}

/// `blis <command> --help`, stdout and stderr, at most 1 MiB of each, within 60 s.
fn help_text(binary: &Path, cwd: &Path, env: &[(String, String)], command: &str) -> Result<String, String> {
    help_text_within(binary, cwd, env, command, HELP_TIMEOUT)
}

/// The longest a `--help` probe may take (a help prints at once).
const HELP_TIMEOUT: Duration = Duration::from_secs(60);

/// `help_text` within `timeout` (at most `HELP_TIMEOUT`). A probe killed by a signal (a crash)
/// is an error: its output says nothing about the flags.
fn help_text_within(
    binary: &Path,
    cwd: &Path,
    env: &[(String, String)],
    command: &str,
    timeout: Duration,
) -> Result<String, String> {
    help_output(binary, cwd, env, command, timeout).map(|(text, _)| text)
}

/// `help_text_within` with the probe's exit status.
fn help_output(
    binary: &Path,
    cwd: &Path,
    env: &[(String, String)],
    command: &str,
    timeout: Duration,
) -> Result<(String, std::process::ExitStatus), String> {
    let timeout = timeout.min(HELP_TIMEOUT);
    let dir = tempfile::Builder::new().prefix("blis-help-").tempdir().map_err(|e| {
        format!("creating a temporary folder for `{command} --help` under {}: {e}", std::env::temp_dir().display())
    })?;
    let run = super::pool::ChildRun {
        program: binary,
        args: vec![command.into(), "--help".into()],
        cwd,
        env,
        timeout,
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
    let status = match end {
        super::pool::ChildEnd::Exited(status) => status,
        _ => return Err(format!("`{} {command} --help` did not finish within {timeout:?}", binary.display())),
    };
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return Err(format!("`{} {command} --help` crashed (killed by signal {signal})", binary.display()));
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
    Ok((out + "\n" + &err, status))
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

pub use super::deployment::{
    flag_deployment, latency_model_run, model_config_fields, quantized_model_config, weight_format, FlagDeployment,
    ModelConfigFields, NotModelled, Release, WeightFormat, BUILT_IN_LATENCY_MODEL, MODEL_CONFIG_DIR,
};

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
        let flags = format!("{common}  --model string\n  --hardware string\n  --tp int\n  --model-config-folder string\n  --max-num-seqs int\n  --max-num-batched-tokens int\n  --block-size-in-tokens int\n");
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
        // No --model-config-folder (v0.2.x): the deployment flags are incomplete, and said so.
        let no_folder = flags.replace("  --model-config-folder string\n", "");
        assert!(from_help(&no_folder).unwrap_err().contains("does not list --model-config-folder"));
    }

    #[test]
    fn timeout_is_optional_and_the_metrics_flag_has_two_names() {
        let flags =
            "  --workload-spec string\n  --seed int\n  --results-path string\n  --log string\n  --model string\n  \
                     --hardware string\n  --tp int\n  --model-config-folder string\n  --max-num-running-reqs int\n  \
                     --max-num-scheduled-tokens int\n  --block-size-in-tokens int\n";
        assert_eq!(from_help(flags), Ok(Dialect::Flags));
        assert_eq!(metrics_flag(&listed_flags(flags)), Some("--results-path"));
        let both = format!("{flags}  --metrics-path string\n");
        assert_eq!(metrics_flag(&listed_flags(&both)), Some("--metrics-path"));
        let neither = flags.replace("--results-path", "--output");
        assert!(from_help(&neither).unwrap_err().contains("--metrics-path (or --results-path)"));
        // The scenario contract keeps its deadline flag.
        let scenario = "  --workload-spec string\n  --seed int\n  --metrics-path string\n  --log string\n  \
                        --scenario s\n  --scenarios s\n  --catalog s\n  --registry s\n";
        assert!(from_help(scenario).unwrap_err().contains("--timeout"));
    }

    #[test]
    fn latency_model_lines_of_each_shape() {
        // The shapes the releases print (v0.6.7: a marked default and no rendered one; v0.6.10:
        // both; v0.7.13: another default), and a line that only mentions the flag.
        let v067 = "      --latency-model string   Latency model backend: blackbox (default), roofline, crossmodel\n";
        let m = latency_model_from_help(v067).unwrap();
        assert_eq!(m.default.as_deref(), Some("blackbox"));
        assert_eq!(m.choices, ["blackbox", "roofline", "crossmodel"]);
        let v0610 = "      --latency-model string   Latency model backend: roofline (default), blackbox, crossmodel, \
                     trained-roofline (default \"roofline\")\n";
        let m = latency_model_from_help(v0610).unwrap();
        assert_eq!(m.default.as_deref(), Some("roofline"));
        assert_eq!(m.choices, ["roofline", "blackbox", "crossmodel", "trained-roofline"]);
        let v0713 = "      --dp int   Data parallelism degree (MoE models only; --latency-model trained-physics only) (default 1)\n      \
                     --latency-model string   Latency model backend: trained-physics (default), roofline (default \"trained-physics\")\n";
        let m = latency_model_from_help(v0713).unwrap();
        assert_eq!(m.default.as_deref(), Some("trained-physics"));
        assert_eq!(m.choices, ["trained-physics", "roofline"]);
        let mention_only = "      --dp int   Data parallelism (--latency-model trained-physics only) (default 1)\n";
        assert_eq!(latency_model_from_help(mention_only), None);
        assert_eq!(latency_model_run(None, None), BUILT_IN_LATENCY_MODEL);
        assert_eq!(latency_model_run(Some(&m), None), "trained-physics");
        assert_eq!(latency_model_run(Some(&m), Some("roofline")), "roofline");
    }

    #[test]
    fn the_workload_spec_gap_is_read_from_struct_tags() {
        let fields = super::super::workload::spec_fields();
        for f in ["concurrency", "num_requests", "clients", "input_distribution", "type", "params"] {
            assert!(fields.iter().any(|g| g == f), "{f} not among {fields:?}");
        }
        // Lengths under `params` are values, not fields.
        assert!(!fields.iter().any(|g| g.chars().all(|c| c.is_ascii_digit())));
        let all: String = fields.iter().map(|f| format!("\0yaml:\"{f},omitempty\"\0")).collect();
        assert_eq!(spec_gap_of(all.as_bytes()), None);
        let without: String =
            fields.iter().filter(|f| *f != "concurrency").map(|f| format!("yaml:\"{f}\" json:\"{f}\"")).collect();
        let gap = spec_gap_of(without.as_bytes()).unwrap();
        assert!(gap.contains("`concurrency`") && gap.contains("yaml:\"concurrency"), "{gap}");
        // A field whose name only starts another's (`concurrency_limit`) does not count.
        let prefixed = format!("{without} yaml:\"concurrency_limit\"");
        assert!(spec_gap_of(prefixed.as_bytes()).is_some());
        assert_eq!(spec_gap_of(b"no tags here"), None);
    }
}
