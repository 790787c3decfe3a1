//! The BLIS arm against a real simulator: inference-sim at f90a1e3a, given by `BLIS_REAL_BIN`
//! (`.ci/run` sets it to the team's copy after checking its SHA-256). Every trial is ignored,
//! with the variable named, when it is not set, and fails under CI=true.
//!
//! The points are chosen small (a few dozen requests each), so the suite takes seconds; the
//! one exception is the pinned `blis-release/f90a1e3a` figure (41 points, a few minutes cold,
//! served from `target-cache/blis` afterwards).

mod support;
use support::blis as blis_support;

use blis_support::point;
use harness::blis::{
    self, metrics, run_points, workload::workload_spec, CacheMode, FailureKind, PointSpec, ProgressMode, RunOptions,
    POINT_DIR,
};
use harness::inputs::{Flags, InputKind, Inputs};
use harness::task::Value;
use libtest_mimic::{Arguments, Failed, Trial};
use sha2::Digest;
use std::path::{Path, PathBuf};
use std::time::Duration;

const VAR: &str = "BLIS_REAL_BIN";

type Test = Box<dyn FnOnce(&Path) -> Result<(), Failed> + Send>;

fn main() {
    let args = Arguments::from_args();
    let binary = std::env::var_os(VAR).filter(|v| !v.is_empty()).map(PathBuf::from);
    let ci = support::on_ci();
    let mut tests: Vec<(String, Test)> = vec![
        ("real/dialect/flags".into(), Box::new(dialect_is_flags)),
        ("real/point/rerun-by-hand-gives-the-same-metrics".into(), Box::new(rerun_by_hand)),
        ("real/metrics/known-answer-ttft-and-warmup-cut".into(), Box::new(known_answer_ttft)),
        ("real/not-modelled/unknown-hardware".into(), Box::new(not_modelled_hardware)),
        ("real/not-modelled/no-model-config".into(), Box::new(not_modelled_model)),
        ("real/determinism/bit-identical".into(), Box::new(determinism)),
        ("real/trace-v2/vectors-replayed-request-by-request".into(), Box::new(vectors_replayed)),
        ("real/quantization/weights-priced-at-the-stated-precision".into(), Box::new(quantized_weights)),
        (RELEASE_TRIAL.into(), Box::new(release_figures)),
    ];
    for (name, spec, accepted) in blis_support::spec_parity_cases() {
        tests.push((format!("real/spec-parity/{name}"), Box::new(move |bin: &Path| spec_parity(bin, &spec, accepted))));
    }
    let trials: Vec<Trial> = tests
        .into_iter()
        .map(|(name, test)| match &binary {
            Some(bin) => {
                let missing = if name == RELEASE_TRIAL { team_inputs() } else { Vec::new() };
                let bin = bin.clone();
                let trial = Trial::test(name, move || test(&bin));
                if missing.is_empty() || ci {
                    trial
                } else {
                    trial.with_ignored_flag(true).with_kind(format!("needs {}", missing.join(", ")))
                }
            }
            None if ci => Trial::test(name, || {
                Err(format!("CI=true: {VAR} must name the team's real blis (.ci/run sets it; docs/contributing.md)")
                    .into())
            }),
            None => Trial::test(name, || Ok(())).with_ignored_flag(true).with_kind(format!("needs {VAR}")),
        })
        .collect();
    let mut trials = trials;
    trials.push(releases_trial(ci));
    libtest_mimic::run(&args, trials).exit();
}

/// The folder of unpacked releases (`<dir>/<tag>/blis` beside its release files).
const RELEASES_VAR: &str = harness::inputs::InputKind::Releases.env_var();
const RELEASES_TRIAL: &str = "real/baseline/two-releases-each-from-its-own-root";
const TWO_RELEASES: [&str; 2] = ["v0.7.12", "v0.7.13"];

fn releases_trial(ci: bool) -> Trial {
    match std::env::var_os(RELEASES_VAR).filter(|v| !v.is_empty()).map(PathBuf::from) {
        Some(dir) => Trial::test(RELEASES_TRIAL, move || two_releases_each_from_its_own_root(&dir)),
        None if ci => Trial::test(RELEASES_TRIAL, || {
            Err(format!("CI=true: {RELEASES_VAR} must name the folder of unpacked releases (/work/releases)").into())
        }),
        None => Trial::test(RELEASES_TRIAL, || Ok(()))
            .with_ignored_flag(true)
            .with_kind(format!("needs {RELEASES_VAR} (unpacked {} and {})", TWO_RELEASES[0], TWO_RELEASES[1])),
    }
}

/// `--baseline-blis` between two real releases: the baseline's options (`for_binary`, as
/// `baseline::compare_with_inputs` builds them) run its binary sealed with its own folder's
/// release files: every child of each release starts in a seal (never in the other release's
/// folder), and each point's key holds that release's own files, hashed as its folder holds them.
fn two_releases_each_from_its_own_root(dir: &Path) -> Result<(), Failed> {
    let [a, b] = TWO_RELEASES.map(|tag| dir.join(tag).join("blis"));
    let s = setup(&a);
    let p = llama_point(&s);
    let candidate = s.opts.clone();
    let baseline = candidate.for_binary(b.clone());
    let spawned = || blis::pool::SPAWNED.lock().unwrap_or_else(|e| e.into_inner()).len();
    let mut keys = Vec::new();
    for (opts, bin, other) in [(&candidate, &a, &b), (&baseline, &b, &a)] {
        let (own, other) = (std::fs::canonicalize(root(bin))?, std::fs::canonicalize(root(other))?);
        let before = spawned();
        let o = run_points(std::slice::from_ref(&p), opts)?.outcomes.remove(0);
        o.result.as_ref().map_err(|f| fail(format!("{}: {:?}: {}", bin.display(), f.kind, f.reason)))?;
        if std::fs::canonicalize(&o.cwd)? != own {
            return Err(fail(format!("{} recorded as run from {}", bin.display(), o.cwd.display())));
        }
        let started: Vec<PathBuf> = blis::pool::SPAWNED.lock().unwrap_or_else(|e| e.into_inner())[before..]
            .iter()
            .map(|(_, c)| c.clone())
            .collect();
        let sealed = |cwd: &PathBuf| cwd.ends_with("root") && cwd.display().to_string().contains("blis-seal-");
        if started.is_empty() || !started.iter().all(sealed) || started.iter().any(|c| c.starts_with(&other)) {
            return Err(fail(format!("{}: children started in {started:?}, not in its seal", bin.display())));
        }
        for name in ["hardware_config.json", "defaults.yaml", "model_configs"] {
            let f = o.key_files.iter().find(|f| f.name == name).ok_or_else(|| fail(format!("{name} not keyed")))?;
            if !std::fs::canonicalize(&f.source)?.starts_with(&own) {
                return Err(fail(format!("{name} keyed from {}, not {}", f.source.display(), own.display())));
            }
            let expected = if name == "model_configs" {
                blis::cache::tree_sha256(&own.join(name))?
            } else {
                sha(&std::fs::read(own.join(name))?)
            };
            if f.sha256 != expected {
                return Err(fail(format!("{name}: keyed {} but {} holds {expected}", f.sha256, own.display())));
            }
        }
        keys.push(o.key);
    }
    if keys[0] == keys[1] {
        return Err(fail("two releases gave one key"));
    }
    Ok(())
}

const RELEASE_TRIAL: &str = "real/figures/blis-releases/f90a1e3a";

/// The team's inputs the release figure reads, by variable, when missing.
fn team_inputs() -> Vec<&'static str> {
    let inputs = Inputs::from_process(&Flags::default());
    [InputKind::Measurements, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios]
        .into_iter()
        .filter(|k| !inputs.present(*k))
        .map(|k| k.env_var())
        .collect()
}

fn root(bin: &Path) -> PathBuf {
    bin.parent().unwrap().to_path_buf()
}

fn fail(msg: impl Into<String>) -> Failed {
    msg.into().into()
}

/// A scenario in the committed shape for `model` on `hardware` at tp 2 (written for the tests).
fn scenario(dir: &Path, name: &str, model: &str, hardware: &str) -> PathBuf {
    let text = blis::double::SYNTHETIC_SCENARIO
        .replace("model: synthetic-model", &format!("model: {model}"))
        .replace("hardware: h100", &format!("hardware: {hardware}"));
    let path = dir.join(format!("{name}.yaml"));
    std::fs::write(&path, text).unwrap();
    path
}

struct Setup {
    dir: tempfile::TempDir,
    opts: RunOptions,
}

fn setup(bin: &Path) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["catalog", "registry", "scenarios"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    let mut opts = RunOptions::new(bin.to_path_buf(), dir.path().join("catalog"), dir.path().join("registry"));
    opts.cache = CacheMode::Off;
    opts.progress = ProgressMode::Silent;
    opts.workers = 2;
    opts.timeout = Duration::from_secs(300);
    Setup { dir, opts }
}

/// llama-3.1-70b-instruct on H100 at tp 2, 256:64 lengths at concurrency 2 (24 requests).
fn llama_point(s: &Setup) -> PointSpec {
    let file = scenario(&s.dir.path().join("scenarios"), "llama-h100", "llama-3.1-70b-instruct", "h100");
    point(file, 2, 0)
}

fn dialect_is_flags(bin: &Path) -> Result<(), Failed> {
    let digest = blis::binary::digest(bin)?;
    let d = blis::dialect::detect(bin, &digest, &root(bin), &[]).map_err(fail)?;
    if d != blis::dialect::Dialect::Flags {
        return Err(fail(format!("expected the flag dialect, detected {d:?}")));
    }
    Ok(())
}

fn sha(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Runs `p` through the arm, checks that the recorded workload hash is that of `files` (what
/// the point's directory holds, in order), then re-runs the recorded command by hand in a fresh
/// directory holding them; returns the hand-run metrics file text, the arm's summary and run.
fn rerun_recorded(
    bin: &Path,
    opts: &blis::RunOptions,
    p: &PointSpec,
    files: &[(&str, String)],
) -> Result<(String, metrics::PointMetrics, blis::PointRun), Failed> {
    let report = run_points(std::slice::from_ref(p), opts)?;
    let o = report.outcomes.into_iter().next().unwrap();
    let m = o.result.map_err(|f| fail(format!("{:?}: {} {:?}", f.kind, f.reason, f.stderr_tail)))?;
    let run = o.run.ok_or_else(|| fail("no recorded run"))?;
    let contents: String = files.iter().map(|(_, text)| text.as_str()).collect();
    if sha(contents.as_bytes()) != run.workload_sha256 {
        return Err(fail("the recorded workload hash is not that of the files the point was given"));
    }
    let by_hand = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(by_hand.path().join(name), text).unwrap();
    }
    // The point's own model config (its quantized weights), as the arm wrote it.
    for (name, text) in blis::point_files(p, opts).map_err(|e| fail(format!("{e:?}")))? {
        if let Some(rest) = name.strip_prefix("model-config/") {
            std::fs::create_dir_all(by_hand.path().join("model-config")).unwrap();
            std::fs::write(by_hand.path().join("model-config").join(rest), text).unwrap();
        }
    }
    let args: Vec<String> =
        run.command[1..].iter().map(|a| a.replace(POINT_DIR, &by_hand.path().display().to_string())).collect();
    let out = std::process::Command::new(&run.command[0]).args(&args).current_dir(root(bin)).output()?;
    if !out.status.success() {
        return Err(fail(format!("by hand: {}", String::from_utf8_lossy(&out.stderr))));
    }
    let text = std::fs::read_to_string(by_hand.path().join("metrics.json"))?;
    Ok((text, m, run))
}

/// The point's recorded command, by hand at `--log info` in a directory holding its files
/// (`point_files`): the binary's stderr, and the folder the command names for the model config.
fn logged_at_info(opts: &RunOptions, p: &PointSpec) -> Result<(String, String), Failed> {
    let o = run_points(std::slice::from_ref(p), opts)?.outcomes.into_iter().next().unwrap();
    o.result.map_err(|f| fail(format!("{:?}: {} {:?}", f.kind, f.reason, f.stderr_tail)))?;
    let run = o.run.ok_or_else(|| fail("no recorded run"))?;
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in blis::point_files(p, opts).map_err(|e| fail(format!("{e:?}")))? {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let mut args: Vec<String> =
        run.command[1..].iter().map(|a| a.replace(POINT_DIR, &dir.path().display().to_string())).collect();
    let log = args.iter().position(|a| a == "--log").ok_or_else(|| fail("no --log in the recorded command"))?;
    args[log + 1] = "info".into();
    let folder = args.iter().position(|a| a == "--model-config-folder").map(|i| run.command[i + 2].clone());
    let out = std::process::Command::new(&run.command[0]).args(&args).current_dir(&opts.blis_root).output()?;
    if !out.status.success() {
        return Err(fail(format!("by hand: {}", String::from_utf8_lossy(&out.stderr))));
    }
    Ok((String::from_utf8_lossy(&out.stderr).into_owned(), folder.unwrap_or_default()))
}

/// `total-kv-blocks=N` as the release logs it at `--log info`.
fn kv_blocks(log: &str) -> Result<u64, Failed> {
    let at = log.find("total-kv-blocks=").ok_or_else(|| fail(format!("no total-kv-blocks in the log:\n{log}")))?;
    let digits: String = log[at + 16..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().map_err(|_| fail(format!("unreadable total-kv-blocks in:\n{log}")))
}

/// The llama scenario's fp8 (and nvfp4) weights reach the release through the point's model
/// config: at `--log info` it reports the quantized weight precision, and the KV pool it sizes
/// grows against the same deployment with 16-bit weights (no quantization stated).
fn quantized_weights(bin: &Path) -> Result<(), Failed> {
    let s = setup(bin);
    let dir = s.dir.path().join("scenarios");
    let llama = blis::double::SYNTHETIC_SCENARIO.replace("model: synthetic-model", "model: llama-3.1-70b-instruct");
    let mut blocks = Vec::new();
    for (name, quantization, logged) in [
        ("llama-bf16", None, None),
        ("llama-fp8", Some("fp8"), Some("weight precision: 1.00 bytes/param")),
        ("llama-nvfp4", Some("nvfp4"), Some("weight precision: 0.50 bytes/param")),
    ] {
        let line = quantization.map_or(String::new(), |q| format!("      quantization: {q}\n"));
        let path = dir.join(format!("{name}.yaml"));
        std::fs::write(&path, llama.replace("      quantization: fp8\n", &line)).unwrap();
        let (log, folder) = logged_at_info(&s.opts, &point(path, 2, 0))?;
        match logged {
            Some(text) if !log.contains(text) => return Err(fail(format!("{name}: no `{text}` in the log:\n{log}"))),
            None if log.contains("quantized model detected") => {
                return Err(fail(format!("{name}: quantized weights without a stated quantization:\n{log}")))
            }
            _ => {}
        }
        let expected = if quantization.is_some() { blis::dialect::MODEL_CONFIG_DIR } else { "model_configs/" };
        if !folder.starts_with(expected) {
            return Err(fail(format!("{name}: --model-config-folder {folder}, expected {expected}...")));
        }
        blocks.push((name, kv_blocks(&log)?));
    }
    if !(blocks[0].1 < blocks[1].1 && blocks[1].1 < blocks[2].1) {
        return Err(fail(format!("the KV pool does not grow as the weights shrink: {blocks:?}")));
    }
    eprintln!("KV blocks at tp 2: {blocks:?}");
    Ok(())
}

/// The llama point through the arm, then its recorded command by hand.
fn run_and_rerun(bin: &Path) -> Result<(String, metrics::PointMetrics, PointSpec), Failed> {
    let s = setup(bin);
    let p = llama_point(&s);
    let (text, m, _) = rerun_recorded(bin, &s.opts, &p, &[("workload.yaml", workload_spec(&p)?)])?;
    Ok((text, m, p))
}

fn rerun_by_hand(bin: &Path) -> Result<(), Failed> {
    let (text, m, _) = run_and_rerun(bin)?;
    if sha(text.as_bytes()) != m.metrics_sha256 {
        return Err(fail("the metrics file written by hand differs from the arm's run"));
    }
    Ok(())
}

/// On a real metrics file: every request completed, and TTFT over all completions equals the
/// binary's own `ttft_mean_ms` (all of this release's TTFTs are positive).
fn known_answer_ttft(bin: &Path) -> Result<(), Failed> {
    let (text, m, p) = run_and_rerun(bin)?;
    let raw: serde_json::Value = serde_json::from_str(&text)?;
    let theirs = raw["ttft_mean_ms"].as_f64().ok_or_else(|| fail("no ttft_mean_ms"))?;
    if m.completed != 12 * u64::from(p.concurrency) || m.ttft_samples != m.completed {
        return Err(fail(format!("{m:?}")));
    }
    if ((m.ttft_ms - theirs) / theirs).abs() > 1e-9 {
        return Err(fail(format!("ours {} vs the binary's ttft_mean_ms {theirs}", m.ttft_ms)));
    }
    // The warm-up cut is by completion time: the 2N requests finishing first are left out.
    let file = metrics::parse(&text)?;
    let order = metrics::completion_order(&file.requests);
    let after: Vec<f64> =
        order.iter().skip(2 * p.concurrency as usize).map(|r| r.itl_ms).filter(|v| *v > 0.0).collect();
    let mean = after.iter().sum::<f64>() / after.len() as f64;
    if mean.to_bits() != m.tpot_ms.to_bits() {
        return Err(fail(format!("tpot {} vs {mean}", m.tpot_ms)));
    }
    Ok(())
}

/// The vectors form: the numpy lengths reach the simulator request by request through
/// `blis replay`, and the recorded command re-run by hand writes the same metrics file.
fn vectors_replayed(bin: &Path) -> Result<(), Failed> {
    let s = setup(bin);
    // Long outputs: each session's twelve rounds run past 600 s of simulated time, replay's
    // default horizon for a trace whose arrivals are all zero.
    let base = llama_point(&s);
    let output_lens = base.output_lens.iter().map(|o| 3000 + o).collect();
    let p = PointSpec { form: blis::workload::LengthForm::Vectors, osl: 3064, output_lens, ..base };
    let (header, data) = blis::workload::trace_v2(&p)?;
    let (text, m, run) = rerun_recorded(bin, &s.opts, &p, &[("trace.yaml", header), ("trace.csv", data)])?;
    if run.command.get(1).map(String::as_str) != Some("replay") {
        return Err(fail(format!("{:?}", run.command)));
    }
    if sha(text.as_bytes()) != m.metrics_sha256 {
        return Err(fail("the metrics file written by hand differs from the arm's run"));
    }
    // Every request ran with the lengths it was given: 2N copies of request 0, then the vectors.
    let raw: serde_json::Value = serde_json::from_str(&text)?;
    let mut got: Vec<(u64, u64)> = raw["requests"]
        .as_array()
        .ok_or_else(|| fail("no requests"))?
        .iter()
        .map(|r| (r["num_prefill_tokens"].as_u64().unwrap_or(0), r["num_decode_tokens"].as_u64().unwrap_or(0)))
        .collect();
    let n = 2 * p.concurrency as usize;
    let mut want: Vec<(u64, u64)> = std::iter::repeat_n((p.input_lens[0], p.output_lens[0]), n)
        .chain(p.input_lens.iter().copied().zip(p.output_lens.iter().copied()))
        .map(|(i, o)| (u64::from(i), u64::from(o)))
        .collect();
    got.sort();
    want.sort();
    if got != want {
        return Err(fail(format!("replayed lengths differ: {got:?} vs {want:?}")));
    }
    Ok(())
}

fn not_modelled(bin: &Path, model: &str, hardware: &str, why: &str) -> Result<(), Failed> {
    let s = setup(bin);
    let file = scenario(&s.dir.path().join("scenarios"), "x", model, hardware);
    let report = run_points(&[point(file, 1, 0)], &s.opts)?;
    match &report.outcomes[0].result {
        Err(f) if f.kind == FailureKind::NotModelled && f.reason.contains(why) => Ok(()),
        other => Err(fail(format!("expected not modelled ({why}), got {other:?}"))),
    }
}

fn not_modelled_hardware(bin: &Path) -> Result<(), Failed> {
    not_modelled(bin, "llama-3.1-70b-instruct", "b200", "hardware `b200` is not in hardware_config.json")
}

fn not_modelled_model(bin: &Path) -> Result<(), Failed> {
    not_modelled(bin, "gpt-oss-120b", "h100", "no model config for `gpt-oss-120b`")
}

fn determinism(bin: &Path) -> Result<(), Failed> {
    let s = setup(bin);
    scenario(&s.dir.path().join("scenarios"), "llama-3.1-70b-instruct-h100-vllm-tp2", "llama-3.1-70b-instruct", "h100");
    let d = s.dir.path();
    let inputs = Inputs::from_process(&Flags {
        blis: Some(bin.to_path_buf()),
        scenarios: Some(d.join("scenarios")),
        catalog: Some(d.join("catalog")),
        registry: Some(d.join("registry")),
        measurements: None,
        releases: None,
    });
    let out = blis::task_determinism(&inputs).map_err(|e| fail(format!("{e:?}")))?;
    match out.values.get("bit_identical") {
        Some(Value::Check(true)) => Ok(()),
        _ => Err(fail(out.report)),
    }
}

/// The real binary accepts or refuses each spec as `spec_parity_cases` says (and the double
/// does the same, `tests/blis_hygiene.rs`).
fn spec_parity(bin: &Path, spec: &str, accepted: bool) -> Result<(), Failed> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("w.yaml"), spec).unwrap();
    let out = std::process::Command::new(std::path::absolute(bin)?)
        .args(["run", "--model", "llama-3.1-70b-instruct", "--hardware", "H100", "--tp", "2", "--workload-spec"])
        .arg(dir.path().join("w.yaml"))
        .arg("--metrics-path")
        .arg(dir.path().join("m.json"))
        .args(["--seed", "0", "--timeout", "-1", "--log", "error"])
        .current_dir(root(bin))
        .output()?;
    if out.status.success() != accepted {
        return Err(fail(format!(
            "expected {}, got {}: {}",
            if accepted { "accepted" } else { "refused" },
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(())
}

/// The release's BLIS column over the team's corpora, by the task every locked build's figures
/// come from (`--blis` a locked build, no folder of releases), pinned (through the default
/// point cache).
fn release_figures(bin: &Path) -> Result<(), Failed> {
    // This build alone: a folder of releases in the environment (CI sets BLIS_RELEASES) would
    // add every release in it to the task, its history and its snapshot.
    let alone =
        [InputKind::Measurements, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios, InputKind::Blis];
    let inputs = Inputs::from_process(&Flags { blis: Some(bin.to_path_buf()), ..Flags::default() }).only(&alone);
    let figures = harness::gate::tasks::release_figures(&harness::gate::manifest_path())?;
    let out = harness::history::task_releases(&inputs, &figures).map_err(|e| fail(format!("{e:?}")))?;
    harness::assert_figure_snapshot!("blis_releases__f90a1e3a", support::report_with_values(&out));
    committed_values_are_gated(&inputs, &out)?;
    against_itself(bin, &inputs)
}

/// The committed `blis-release/f90a1e3a/...` values hold for the release's output, and
/// tampering one committed expected value gives a MISMATCH naming that figure.
fn committed_values_are_gated(inputs: &Inputs, out: &harness::task::TaskOutput) -> Result<(), Failed> {
    use harness::gate::evaluate::Status;
    let text = std::fs::read_to_string(harness::gate::manifest_path())?;
    let (task, only) = (harness::history::RELEASES_TASK, ["blis-release/f90a1e3a/".to_string()]);
    let results = support::gate::judge(&text, inputs, task, out, &only)?;
    let numbers = results.iter().filter(|r| r.id.starts_with("blis-release/f90a1e3a/all/")).count();
    if numbers != 8 || results.len() != 10 {
        return Err(fail(format!(
            "expected 10 committed figures, 8 of the BLIS column; found {} and {numbers}",
            results.len()
        )));
    }
    if let Some(bad) = results.iter().find(|r| r.status != Status::Ok) {
        return Err(fail(format!("{} is {:?}: {}", bad.id, bad.status, bad.detail)));
    }
    let id = "blis-release/f90a1e3a/all/ttft-shape";
    let tampered = harness::tamper::raise(&text, "- tag: f90a1e3a\n", "ttft_shape: ")?;
    support::gate::the_one_mismatch(&support::gate::judge(&tampered.text, inputs, task, out, &only)?, id)
}

/// `--baseline-blis` with the release as both candidate and baseline, over the points the
/// release figure above just ran (so it reuses that cache): every figure it computes is the
/// same, it says so, and the baseline (same hash) is served entirely from the cache.
fn against_itself(bin: &Path, inputs: &Inputs) -> Result<(), Failed> {
    let manifest_path = harness::gate::manifest_path();
    let manifest = harness::gate::load_manifest(&manifest_path).map_err(|e| fail(format!("{e:#}")))?;
    let rule = manifest.rule(&manifest_path).map_err(|e| fail(format!("{e:?}")))?;
    let (corpora, scenarios) = harness::score::load_inputs(inputs).map_err(|e| fail(format!("{e:?}")))?;
    let dir = |k: InputKind| inputs.require_dir(k, "the test").map(Path::to_path_buf).map_err(|e| fail(e.to_string()));
    let mut opts = RunOptions::new(bin.to_path_buf(), dir(InputKind::Catalog)?, dir(InputKind::Registry)?);
    opts.progress = ProgressMode::Silent;
    let selection = harness::score::Selection::vllm(None);
    let resolved = harness::score::resolve::resolve(&corpora, &scenarios, Some(&opts.catalog), &selection);
    let cmp = blis::baseline::compare(&resolved, &dir(InputKind::Scenarios)?, &opts, &opts, &rule)
        .map_err(|e| fail(format!("{e:?}")))?;
    let text = cmp.render();
    // Every interval defined is exactly zero: each resample sums the same numbers for both.
    let zero = oracles::bootstrap::Interval { low: 0.0, high: 0.0 };
    let defined: Vec<_> = cmp.figures.iter().filter_map(|f| f.interval.as_ref()?.as_ref().ok()).collect();
    if defined.is_empty()
        || defined.iter().any(|i| **i != zero)
        || !cmp.verdict_text().contains("no change detected: all.tpot_shape (0, 95% interval [0.00, 0.00])")
    {
        return Err(fail(cmp.render()));
    }
    if !cmp.no_difference() || !cmp.verdict_text().starts_with("no difference") {
        return Err(fail(text));
    }
    if cmp.baseline.ran != 0 || cmp.baseline.cached != cmp.candidate.cached + cmp.candidate.ran {
        return Err(fail(format!("the baseline was not served from the cache:\n{}", cmp.cache_lines())));
    }
    harness::assert_figure_snapshot!("baseline__f90a1e3a_against_itself_no_difference", text);
    Ok(())
}
