//! `cargo xtask reproduce`: the release gate. Every figure of the manifest is reproduced,
//! mismatched or refused; each task is computed twice in separate processes (this binary,
//! re-invoked with the hidden `--render-task`) and the two renderings must be byte-identical.
//! The second rendering reads the points the first one ran from the run's store and re-runs
//! only a deterministic sample outside the cache (`--determinism`; `harness::blis::rendering`).

use crate::inputs::{reads, Reads as _};
use anyhow::{Context as _, Result};
use harness::blis::rendering::{self, Determinism, Rendering};
use harness::gate::{self, evaluate::InProcess, report, tasks::Context, Renderer};
use harness::task::{exit, TaskError};
use std::path::{Path, PathBuf};

reads! {
    /// Every input a task of the gate's table needs (`harness::gate::tasks::TASKS`), and the
    /// releases of the `blis-releases` figures.
    pub struct GateInputs { measurements, catalog, registry, scenarios, blis, releases }
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: GateInputs,
    /// Compare the --blis candidate with this baseline `blis` (the release it replaces) on the
    /// same points; exit 1 when a figure the manifest's `baseline_rule` holds is worse
    /// (docs/baseline.md).
    #[arg(long, value_name = "PATH", value_parser = crate::score::parse_path)]
    baseline_blis: Option<PathBuf>,
    /// Evaluate only these figure ids (an id ending in `/` selects a group).
    #[arg(long, num_args = 1.., value_name = "ID")]
    only: Vec<String>,
    /// Exit 2 when any figure was refused for an input that exists but was not given (not for
    /// refusals no input of this tool can lift, nor for figures the inputs given cannot compute).
    #[arg(long)]
    require_all: bool,
    /// Print every figure on its own line (by default: the reproduced and mismatched ones, and
    /// the refused ones grouped by the input they need).
    #[arg(short, long)]
    verbose: bool,
    /// Write the stable JSON report here.
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// Write the markdown report (fit for a CI step summary) here.
    #[arg(long, value_name = "FILE")]
    report_md: Option<PathBuf>,
    /// Write the self-contained HTML report (figure table, per-arm and per-sweep charts) here.
    #[arg(long, value_name = "FILE")]
    report_html: Option<PathBuf>,
    /// Write the per-point table of the headline task (CSV, one row per point x arm, `-`:
    /// stdout) to FILE: every headline cell is the mean |e| of a selection of its rows
    /// (docs/points.md).
    #[arg(long, value_name = "FILE")]
    points: Option<PathBuf>,
    /// The figure manifest [default: harness/figures.yaml].
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
    /// The lock to verify the inputs against [default: lockfiles/upstream.lock] (for tests
    /// against stand-in upstreams).
    #[arg(long, value_name = "FILE", hide = true)]
    lockfile: Option<PathBuf>,
    /// Internal: compute one task in this process and print its rendering as JSON.
    #[arg(long, hide = true, value_name = "TASK")]
    render_task: Option<String>,
    /// Which BLIS points the second rendering of a task re-runs outside the cache, to check the
    /// simulator's determinism: `sample` (one point per sweep and task, the cheapest by N x
    /// (isl + osl), then the smallest content key; every other point is read from the first
    /// rendering's results) or
    /// `full` (every point).
    #[arg(long, value_name = "sample|full", default_value = "sample", value_parser = Determinism::parse)]
    determinism: Determinism,
    /// Internal: with --render-task, the run's store of BLIS point outcomes.
    #[arg(long, hide = true, value_name = "DIR", requires = "render_task")]
    render_store: Option<PathBuf>,
    /// Internal: with --render-store, this is the second rendering (serve from the store,
    /// re-run the determinism points outside the cache).
    #[arg(long, hide = true, requires = "render_store")]
    render_second: bool,
}

impl Args {
    /// Every file this command writes, by its flag: one list, so what is checked before any
    /// work is what can own stdout.
    fn reports(&self) -> [(&'static str, Option<&std::path::Path>); 4] {
        [
            ("--report-json", self.report_json.as_deref()),
            ("--report-md", self.report_md.as_deref()),
            ("--report-html", self.report_html.as_deref()),
            ("--points", self.points.as_deref()),
        ]
    }
}

pub fn run(args: Args) -> Result<u8> {
    let manifest_path = args.manifest.clone().unwrap_or_else(gate::manifest_path);
    let lock = args.lockfile.clone().unwrap_or_else(harness::lock::default_lock_path);
    let cx = Context { inputs: args.inputs.resolve(), manifest: manifest_path.clone(), lock };
    if let Some(task) = &args.render_task {
        if let Some(store) = &args.render_store {
            if !args.render_second {
                rendering::set(Rendering::First { store: store.clone() });
            } else {
                if args.determinism == Determinism::Full {
                    harness::blis::disable_cache_in_this_process();
                }
                rendering::set(Rendering::Second { store: store.clone(), determinism: args.determinism });
            }
        }
        let text = InProcess(&cx).render(task)?;
        if let (Some(store), true) = (&args.render_store, args.render_second) {
            let reruns = serde_json::to_vec(&rendering::take_reruns())?;
            harness::atomic::write_owned(&reruns_path(store, task), &reruns)?;
        }
        print!("{text}");
        return Ok(exit::OK);
    }
    crate::outcome::check_reports(args.reports())?;
    let manifest = harness::gate::load_manifest(&manifest_path)?;
    // An id that selects nothing is a typo more often than not: said before any work.
    for only in &args.only {
        if !manifest.figures.iter().any(|f| gate::evaluate::selects(&manifest, only, &f.id)) {
            eprintln!(
                "error: --only {only} selects no figure of {}; the nearest ids: {}",
                manifest_path.display(),
                gate::ids::nearest_ids(&manifest, only).join(", ")
            );
            return Ok(exit::USAGE);
        }
    }
    // A baseline or a binary that cannot run is bad input, said before the gate's work (the
    // gate would otherwise refuse the binary's figures as if no --blis had been given).
    crate::score::check_baseline(args.baseline_blis.as_deref())?;
    if cx.inputs.blis.is_some() {
        harness::blis::binary::require(&cx.inputs, "the gate's BLIS arm").map_err(anyhow::Error::new)?;
    }
    // The run's store of BLIS point outcomes: the first rendering of each task writes it, the
    // second reads it; removed when the gate ends.
    let store = tempfile::Builder::new().prefix("blis-gate-run-").tempdir().context("creating the gate's run store")?;
    let renderer = ChildProcess {
        args: &args,
        manifest: &manifest_path,
        store: store.path(),
        rendered: Default::default(),
        reruns: Default::default(),
    };
    // A bar on a terminal only (never under CI=true), so logs and snapshots do not change.
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut progress = |done: usize, total: usize, task: &str| {
        let bar = bar.get_or_insert_with(|| harness::term::bar(total, "tasks"));
        bar.set_position(done as u64);
        if task.is_empty() {
            bar.finish_and_clear();
        } else {
            bar.set_message(task.to_string());
        }
    };
    let options = gate::GateOptions { only: &args.only };
    // SIGINT and SIGTERM are caught while the tasks render: each rendering child is told, and
    // the store is removed before the gate exits 130.
    let (results, blis_points, tables) = harness::interrupt::interruptible(|| {
        gate::evaluate_with_points(&manifest, &cx, &renderer, &options, &mut progress)
    });
    if harness::interrupt::interrupted() {
        drop(store);
        eprintln!("reproduce: interrupted; the renderings stopped, the run's store removed");
        std::process::exit(exit::INTERRUPTED);
    }
    if results.is_empty() {
        anyhow::bail!("--only {} selects no figure of {}", args.only.join(" "), manifest_path.display());
    }
    // A report written to stdout (`--report-json -`) owns it: the summary goes to stderr, so
    // the report can be piped into another program.
    let report_to_stdout = crate::outcome::report_on_stdout(args.reports());
    let say = |text: &str| crate::outcome::say(text, report_to_stdout);
    let paint =
        if !report_to_stdout && harness::term::stdout_colour() { report::Paint::Ansi } else { report::Paint::Plain };
    if args.verbose {
        say(&report::verbose(&results, paint))?;
    } else {
        say(&report::brief(&results, paint))?;
    }
    let reruns = renderer.reruns.take();
    if let Some(text) = reruns_text(&reruns, args.determinism, args.verbose) {
        say(&text)?;
    }
    // The baseline comparison: a refusal (no candidate, no corpora) exits 2, a worse figure 1.
    let mut baseline_code = exit::OK;
    let comparison = match &args.baseline_blis {
        None => None,
        Some(path) => match manifest
            .rule(&manifest_path)
            .map_err(TaskError::Failed)
            .and_then(|rule| harness::blis::baseline::for_gate(&cx.inputs, path, &rule))
        {
            Ok(cmp) => {
                say(&format!("\n{}\n{}", cmp.render(), cmp.cache_lines()))?;
                let worse = cmp.worse();
                if !worse.is_empty() {
                    let names: Vec<&str> = worse.iter().map(|f| f.key.as_str()).collect();
                    eprintln!("baseline: the candidate is worse than the baseline on {} (exit 1)", names.join(", "));
                    baseline_code = exit::FAILED;
                }
                if cmp.compared_nothing() {
                    eprintln!("baseline: no figure the baseline rule holds was compared: the comparison compared nothing (exit 1)");
                    baseline_code = exit::FAILED;
                }
                Some(cmp)
            }
            Err(TaskError::Refused(r)) => {
                say(&format!("\nbaseline comparison refused: {r}\n"))?;
                baseline_code = exit::REFUSED;
                None
            }
            Err(TaskError::Failed(e)) => return Err(e),
        },
    };
    if let Some(path) = &args.report_json {
        let mut text = report::json_with_blis_points(&results, &blis_points);
        if comparison.is_some() || !reruns.is_empty() {
            let mut value: serde_json::Value = serde_json::from_str(&text)?;
            if let Some(cmp) = &comparison {
                value["baseline_comparison"] = cmp.json();
            }
            if !reruns.is_empty() {
                value["determinism_reruns"] = serde_json::json!({"mode": args.determinism.name(), "tasks": reruns});
            }
            text = serde_json::to_string_pretty(&value)? + "\n";
        }
        harness::atomic::write_report(path, text.as_bytes())?;
    }
    if let Some(path) = &args.report_md {
        let mut text = report::markdown(&results);
        if let Some(more) = reruns_text(&reruns, args.determinism, true) {
            text = format!("{text}\n{more}");
        }
        if let Some(cmp) = &comparison {
            text = format!("{text}{}", cmp.render());
        }
        harness::atomic::write_report(path, text.as_bytes())?;
    }
    if let Some(path) = &args.report_html {
        let html = harness::report_html::for_gate_with_baseline(&cx.inputs, &manifest, &results, comparison.as_ref());
        harness::atomic::write_report(path, html.as_bytes())?;
    }
    if let Some(path) = &args.points {
        // The full headline's table holds the measured tier's rows too (`measured_tier`).
        let (task, rows) = match tables
            .get("headline")
            .map(|t| ("headline", t))
            .or(tables.iter().next().map(|(k, t)| (k.as_str(), t)))
        {
            Some((task, rows)) => (task, rows.as_slice()),
            None => ("", &[][..]),
        };
        let rows = harness::score::points::from_values(rows)?;
        harness::atomic::write_report(path, harness::score::points::csv(&rows).as_bytes())?;
        if task.is_empty() {
            // With the corpora given, the selection is why: naming the corpora would be false.
            let why = match cx.inputs.get(harness::inputs::InputKind::Measurements) {
                Some(_) => "no selected figure scores points",
                None => "no task that ran scores points (the headline needs the corpora)",
            };
            eprintln!("points: {why}: the table has its header only");
        } else if path.as_os_str() != "-" {
            eprintln!("{} point rows of the {task} task written to {}", rows.len(), path.display());
        }
    }
    let summary = report::Summary::of(&results);
    Ok(if summary.mismatched > 0 || baseline_code == exit::FAILED {
        exit::FAILED
    } else if baseline_code == exit::REFUSED || (args.require_all && summary.refused_missing_input > 0) {
        exit::REFUSED
    } else {
        exit::OK
    })
}

/// Renders a task in a fresh process of this same binary, so two renderings share no state.
/// The second rendering of a task runs with the BLIS point cache off, so a `blis` task is
/// really computed twice (the first may be served from an earlier run's cache).
struct ChildProcess<'a> {
    args: &'a Args,
    manifest: &'a PathBuf,
    store: &'a Path,
    rendered: std::cell::RefCell<std::collections::BTreeSet<String>>,
    /// Per task, the points its second rendering re-ran outside the cache.
    reruns: std::cell::RefCell<Reruns>,
}

type Reruns = std::collections::BTreeMap<String, Vec<rendering::Rerun>>;

fn reruns_path(store: &Path, task: &str) -> PathBuf {
    store.join(format!("reruns-{task}.json"))
}

/// What the second renderings re-ran: the count, whether every re-run matched, and (verbose,
/// or when one differed) which points. None when no task ran a BLIS point.
fn reruns_text(reruns: &Reruns, determinism: Determinism, list: bool) -> Option<String> {
    let all: Vec<(&String, &rendering::Rerun)> =
        reruns.iter().flat_map(|(task, rs)| rs.iter().map(move |r| (task, r))).collect();
    if all.is_empty() {
        return None;
    }
    let differing = all.iter().filter(|(_, r)| !r.identical).count();
    let earlier = all.iter().filter(|(_, r)| r.earlier).count();
    let how = match determinism {
        Determinism::Sample => {
            "one point per sweep and task, the cheapest, then the smallest key; --determinism full re-runs every point"
        }
        Determinism::Full => "every point, --determinism full",
    };
    let verdict = if differing == 0 { "all identical".to_string() } else { format!("{differing} DIFFER") };
    let reused =
        if earlier > 0 { format!("; {earlier} of them re-run once for an earlier task") } else { String::new() };
    let mut out =
        format!("determinism: {} BLIS points re-run outside the cache ({how}{reused}): {verdict}\n", all.len());
    for (task, r) in all {
        if list || !r.identical {
            let mut what = if r.identical { "identical".to_string() } else { format!("DIFFERS: {}", r.difference) };
            if r.earlier {
                what += " (re-run for an earlier task)";
            }
            out += &format!("  {task}: {} [{}] {what}\n", r.label, &r.key[..12.min(r.key.len())]);
        }
    }
    Some(out)
}

impl Renderer for ChildProcess<'_> {
    fn render(&self, task: &str) -> Result<String> {
        let mut cmd = crate::this_binary::command().context("locating the xtask binary")?;
        cmd.arg("reproduce").arg("--render-task").arg(task).arg("--manifest").arg(self.manifest);
        if let Some(lock) = &self.args.lockfile {
            cmd.arg("--lockfile").arg(lock);
        }
        cmd.arg("--render-store").arg(self.store).arg("--determinism").arg(self.args.determinism.name());
        let second = !self.rendered.borrow_mut().insert(task.to_string());
        if second {
            cmd.arg("--render-second");
        }
        let flags = self.args.inputs.flags();
        for (kind, path) in flags.given() {
            cmd.arg(kind.flag()).arg(path);
        }
        // The child's stderr is read as it comes, so a long BLIS run's progress lines (`blis: `)
        // reach the user while it runs; the rest is kept for the error message.
        let which = if second { "second" } else { "first" };
        let mut child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .with_context(|| format!("starting a process to render `{task}`"))?;
        let stderr = child.stderr.take().context("the child's stderr")?;
        let prefix = format!("{task} ({which} rendering): ");
        let forward = std::thread::spawn(move || {
            use std::io::BufRead as _;
            let mut kept = String::new();
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                if line.starts_with("blis: ") {
                    eprintln!("{prefix}{line}");
                }
                kept += &line;
                kept.push('\n');
            }
            kept
        });
        let mut stdout = child.stdout.take().context("the child's stdout")?;
        let read_stdout = std::thread::spawn(move || {
            let mut text = Vec::new();
            std::io::Read::read_to_end(&mut stdout, &mut text).map(|_| text)
        });
        // An interrupt of the gate reaches the rendering too: it stops its simulator children
        // and removes its temporaries, rather than simulating on as an orphan.
        let status = harness::interrupt::wait_forwarding(&mut child, std::time::Duration::from_secs(30))
            .with_context(|| format!("waiting for the rendering of `{task}`"))?;
        let stdout = read_stdout.join().unwrap_or_else(|_| Ok(Vec::new()));
        let stderr = forward.join().unwrap_or_default();
        if harness::interrupt::interrupted() {
            anyhow::bail!("interrupted while rendering `{task}`");
        }
        if !status.success() {
            anyhow::bail!("rendering `{task}` exited with {status}: {}", stderr.trim());
        }
        let stdout = stdout.with_context(|| format!("reading the rendering of `{task}`"))?;
        if second {
            let path = reruns_path(self.store, task);
            let text = harness::read::bytes(&path)?;
            let reruns: Vec<rendering::Rerun> = serde_json::from_slice(&text).context("the re-run list")?;
            if !reruns.is_empty() {
                self.reruns.borrow_mut().insert(task.to_string(), reruns);
            }
        }
        String::from_utf8(stdout).with_context(|| format!("rendering of `{task}` is not UTF-8"))
    }
}
