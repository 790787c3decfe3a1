//! Every release of the simulator under `BLIS_RELEASES` (one folder per tag, `blis` beside
//! the files it reads from its working directory; /work/shared/blis-releases/README.md), two
//! trials each:
//!
//! - `history/<tag>/help`: what the release's own `blis run --help` lists, read here by this
//!   file's own reading of the option lines, against what the arm detects (dialect or the
//!   reason it has none, metrics file flag, `--timeout`, latency model default, and whether its
//!   workload spec knows `concurrency`, from the binary's own bytes).
//! - `history/<tag>/point`: one cheap point (llama-3.1-70b-instruct on H100, tp 4, fp8, 256:64
//!   lengths at concurrency 2: 24 requests) through the normal runner with the cache off. Where
//!   the release can model it, every request completes and the metrics summarize; where it
//!   cannot, the refusal is of the expected kind and names why.
//!
//! - `history/gate/v0.7.12-to-v0.7.13`: the gate's `blis-releases` task over the two releases
//!   between which the default latency model changed, pinned, its committed figures judged.
//!
//! Without `BLIS_RELEASES` one trial stands for all, ignored with the reason (failing under
//! CI=true).

mod support;

use harness::blis::{self, dialect, run_points, CacheMode, FailureKind, ProgressMode, RunOptions, Target};
use harness::inputs::{Flags, Inputs};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::time::Duration;

const VAR: &str = harness::inputs::InputKind::Releases.env_var();
const MODEL: &str = "llama-3.1-70b-instruct";

fn main() {
    let args = Arguments::from_args();
    let dir = std::env::var_os(VAR).filter(|v| !v.is_empty()).map(PathBuf::from);
    let trials = match dir {
        Some(dir) => match tags(&dir) {
            Ok(tags) => tags
                .into_iter()
                .flat_map(|tag| {
                    let root = dir.join(&tag);
                    let r2 = root.clone();
                    [
                        Trial::test(format!("history/{tag}/help"), move || help_trial(&root)),
                        Trial::test(format!("history/{tag}/point"), move || point_trial(&r2)),
                    ]
                })
                .chain([gate_trial(&dir)])
                .collect(),
            Err(e) => vec![Trial::test("history", move || Err(e.into()))],
        },
        None if support::on_ci() => vec![Trial::test("history", || {
            Err(format!("CI=true: {VAR} must name the folder of unpacked releases (one folder per tag)").into())
        })],
        None => vec![Trial::test("history", || Ok(()))
            .with_ignored_flag(true)
            .with_kind(format!("needs {VAR} (the unpacked releases, one folder per tag)"))],
    };
    libtest_mimic::run(&args, trials).exit();
}

/// The release folders (those holding a `blis`), sorted.
fn tags(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{VAR}={}: {e}", dir.display()))?;
    let mut tags: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("blis").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    tags.sort();
    if tags.is_empty() {
        return Err(format!("{VAR}={} holds no <tag>/blis", dir.display()));
    }
    Ok(tags)
}

fn fail(msg: impl Into<String>) -> Failed {
    msg.into().into()
}

/// This file's own reading of a help text: each option line's long name and its description.
struct Options(Vec<(String, String)>);

impl Options {
    fn of(root: &Path) -> Result<Options, Failed> {
        let out = std::process::Command::new(root.join("blis"))
            .args(["run", "--help"])
            .current_dir(root)
            .env_clear()
            .output()
            .map_err(|e| fail(format!("running {}/blis run --help: {e}", root.display())))?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        let mut options = Vec::new();
        for line in text.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            // `--name type  text` or `-x, --name type  text`.
            let at = match words.first() {
                Some(w) if w.starts_with("--") => 0,
                Some(w)
                    if w.starts_with('-') && w.ends_with(',') && words.get(1).is_some_and(|n| n.starts_with("--")) =>
                {
                    1
                }
                _ => continue,
            };
            let name = words[at].to_string();
            let rest = line[line.find(&name).unwrap() + name.len()..].trim().to_string();
            options.push((name, rest));
        }
        Ok(Options(options))
    }

    fn has(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| n == name)
    }

    fn text(&self, name: &str) -> Option<&str> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, t)| t.as_str())
    }

    /// The flags the arm needs that this help does not list (either name of a renamed one).
    fn missing_for_the_arm(&self) -> Vec<&'static str> {
        let needed: [&[&'static str]; 10] = [
            &["--workload-spec"],
            &["--seed"],
            &["--log"],
            &["--metrics-path", "--results-path"],
            &["--model"],
            &["--hardware"],
            &["--tp"],
            &["--model-config-folder"],
            &["--max-num-seqs", "--max-num-running-reqs"],
            &["--block-size-in-tokens"],
        ];
        needed.iter().filter(|names| !names.iter().any(|n| self.has(n))).map(|names| names[0]).collect()
    }

    /// The default of `--latency-model`: the `(default "X")` the line ends with, else the
    /// backend written `X (default)`.
    fn latency_default(&self) -> Option<String> {
        let text = self.text("--latency-model")?;
        if let Some(rest) = text.strip_suffix("\")") {
            if let Some(i) = rest.rfind("(default \"") {
                return Some(rest[i + 10..].to_string());
            }
        }
        let marked = text.find(" (default)")?;
        let before = &text[..marked];
        let start = before.rfind([' ', ',', ':']).map_or(0, |i| i + 1);
        Some(before[start..].to_string())
    }
}

/// Whether the binary's bytes hold the struct tag of a closed-loop client (`yaml:"concurrency`).
fn knows_concurrency(root: &Path) -> Result<bool, Failed> {
    let bytes = std::fs::read(root.join("blis"))?;
    let needle = b"yaml:\"concurrency";
    Ok(bytes.windows(needle.len()).any(|w| w == needle))
}

fn options(root: &Path) -> RunOptions {
    let bin = root.join("blis");
    let mut opts = RunOptions::new(bin, root.join("no-catalog"), root.join("no-registry"));
    opts.cache = CacheMode::Off;
    opts.progress = ProgressMode::Silent;
    opts.workers = 1;
    opts.timeout = Duration::from_secs(120);
    opts
}

fn detect(root: &Path) -> Result<Target, String> {
    let opts = options(root);
    let sealed = blis::Sealed::of(&opts.binary, &opts.blis_root).map_err(|e| format!("{e:#}"))?;
    Target::detect(&opts, &sealed, false).map_err(|e| e.to_string())
}

fn help_trial(root: &Path) -> Result<(), Failed> {
    let help = Options::of(root)?;
    let missing = help.missing_for_the_arm();
    let target = detect(root);
    if !missing.is_empty() {
        let why = match target {
            Ok(t) => return Err(fail(format!("the help lacks {missing:?}, yet the arm detected {:?}", t.dialect()))),
            Err(why) => why,
        };
        for flag in &missing {
            if !why.contains(flag) {
                return Err(fail(format!("the help lacks {flag}; the arm's reason does not name it: {why}")));
            }
        }
        return Ok(());
    }
    let release = match target.map_err(|e| fail(format!("the help lists every flag the arm needs, yet: {e}")))? {
        Target::Flags(r) => r,
        Target::Scenario => return Err(fail("a release is not of the scenario dialect")),
    };
    let metrics = if help.has("--metrics-path") { "--metrics-path" } else { "--results-path" };
    if release.metrics_flag != metrics {
        return Err(fail(format!("metrics flag: help lists {metrics}, the arm passes {}", release.metrics_flag)));
    }
    if release.timeout != help.has("--timeout") {
        return Err(fail(format!(
            "--timeout listed: {}, the arm passes it: {}",
            help.has("--timeout"),
            release.timeout
        )));
    }
    let default = help.latency_default();
    let detected = release.latency_model.as_ref().and_then(|m| m.default.clone());
    if help.has("--latency-model") != release.latency_model.is_some() || default != detected {
        return Err(fail(format!("latency model default: the help says {default:?}, the arm read {detected:?}")));
    }
    let runs = release.latency_model_run(None);
    if runs != default.clone().unwrap_or_else(|| dialect::BUILT_IN_LATENCY_MODEL.to_string()) {
        return Err(fail(format!("latency_model_run(None) is {runs}, the help's default {default:?}")));
    }
    if release.spec_gap.is_none() != knows_concurrency(root)? {
        return Err(fail(format!(
            "the binary {} `yaml:\"concurrency`, the arm's spec gap is {:?}",
            if knows_concurrency(root)? { "holds" } else { "lacks" },
            release.spec_gap
        )));
    }
    Ok(())
}

/// A scenario in the committed shape: llama-3.1-70b-instruct on H100, tp 4, fp8 weights.
fn scenario(dir: &Path) -> PathBuf {
    let text = blis::double::SYNTHETIC_SCENARIO
        .replace("model: synthetic-model", &format!("model: {MODEL}"))
        .replace("tp: 2", "tp: 4");
    let path = dir.join("llama-3.1-70b-instruct-h100-fp8-tp4.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

fn point_trial(root: &Path) -> Result<(), Failed> {
    let help = Options::of(root)?;
    let missing = help.missing_for_the_arm();
    let dir = tempfile::tempdir()?;
    let point = support::blis::point(scenario(dir.path()), 2, 0);
    let opts = options(root);
    let report = run_points(std::slice::from_ref(&point), &opts);
    if !missing.is_empty() {
        return match report {
            Ok(_) => Err(fail(format!("the help lacks {missing:?}, yet the point ran"))),
            Err(e) if missing.iter().all(|f| e.to_string().contains(f)) => Ok(()),
            Err(e) => Err(fail(format!("refused, but the reason does not name {missing:?}: {e}"))),
        };
    }
    let outcome = report.map_err(|e| fail(format!("{e}")))?.outcomes.remove(0);
    let config = root.join("model_configs").join(MODEL).join("config.json");
    let expected_failure = if !knows_concurrency(root)? {
        Some("`concurrency`")
    } else if !config.is_file() {
        Some("no model config")
    } else {
        None
    };
    match (expected_failure, &outcome.result) {
        (None, Ok(m)) => {
            let expected = 12 * u64::from(point.concurrency);
            if m.completed != expected || m.tpot_ms <= 0.0 || m.ttft_ms <= 0.0 || m.ttft_samples != expected {
                return Err(fail(format!("{expected} requests expected, got {m:?}")));
            }
            Ok(())
        }
        (None, Err(f)) => Err(fail(format!("{:?}: {} {:?}", f.kind, f.reason, f.stderr_tail))),
        (Some(why), Err(f)) if f.kind == FailureKind::NotModelled && f.reason.contains(why) => Ok(()),
        (Some(why), other) => Err(fail(format!("expected not modelled naming {why}, got {other:?}"))),
    }
}

/// The releases the gate trial gives the task: the step where the default latency model
/// changed (docs/history.md), so the pinned history names a change.
const GATE_RELEASES: [&str; 2] = ["v0.7.12", "v0.7.13"];

fn gate_trial(dir: &Path) -> Trial {
    let dir = dir.to_path_buf();
    let trial = Trial::test("history/gate/v0.7.12-to-v0.7.13", move || gate_two_releases(&dir));
    support::unless_missing(trial, support::missing_corpora_and_scenarios().as_deref())
}

/// The gate's `blis-releases` task over v0.7.12 and v0.7.13 alone (through the default point
/// cache): its report and values pinned; every committed `blis-release/<tag>/...` figure of the
/// two `ok`, every other locked release's refused naming the releases given; tampering one
/// committed value makes it the one MISMATCH.
fn gate_two_releases(dir: &Path) -> Result<(), Failed> {
    use harness::gate::evaluate::Status;
    let given = tempfile::tempdir()?;
    for tag in GATE_RELEASES {
        std::os::unix::fs::symlink(dir.join(tag), given.path().join(tag))?;
    }
    let inputs = Inputs::from_process(&Flags { releases: Some(given.path().to_path_buf()), ..Flags::default() });
    let figures = harness::gate::tasks::release_figures(&harness::gate::manifest_path())?;
    let out = harness::history::task_releases(&inputs, &figures).map_err(|e| fail(format!("{e:?}")))?;
    harness::assert_figure_snapshot!("blis_releases__v0_7_12_to_v0_7_13", support::report_with_values(&out));
    let text = std::fs::read_to_string(harness::gate::manifest_path())?;
    let (task, only) = ("blis-releases", ["blis-release/".to_string()]);
    let results = support::gate::judge(&text, &inputs, task, &out, &only)?;
    for tag in GATE_RELEASES {
        let prefix = format!("blis-release/{tag}/");
        let of_tag: Vec<_> = results.iter().filter(|r| r.id.starts_with(&prefix)).collect();
        if of_tag.is_empty() {
            return Err(fail(format!("the manifest commits no {prefix} figure")));
        }
        if let Some(bad) = of_tag.iter().find(|r| r.status != Status::Ok) {
            return Err(fail(format!("{} is {:?}: {}", bad.id, bad.status, bad.detail)));
        }
    }
    let others: Vec<_> = results
        .iter()
        .filter(|r| {
            r.id.starts_with("blis-release/v") && !GATE_RELEASES.iter().any(|t| r.id.contains(&format!("/{t}/")))
        })
        .collect();
    let given_line = format!("given: {}", GATE_RELEASES.join(", "));
    match others
        .iter()
        .find(|r| r.status != Status::Refused || r.need.as_ref().map(|n| &n.supplied_by) != Some(&given_line))
    {
        _ if others.is_empty() => return Err(fail("the manifest commits figures of no other release")),
        Some(bad) => {
            return Err(fail(format!(
                "{} is {:?} ({:?}), not refused naming {given_line}",
                bad.id, bad.status, bad.need
            )))
        }
        None => {}
    }
    let id = "blis-release/v0.7.13/all/tpot-shape";
    let tampered = harness::tamper::raise(&text, "- tag: v0.7.13\n", "all: {tpot_shape: ")?;
    support::gate::the_one_mismatch(&support::gate::judge(&tampered.text, &inputs, task, &out, &only)?, id)
}
