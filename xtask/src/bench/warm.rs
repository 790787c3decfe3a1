//! `cargo xtask bench warm --blis PATH --releases DIR`: the gate and the history when the point
//! cache already holds every point they need, which is what a maintainer waits for on a re-run.
//! Each command runs once to warm the cache (timed and reported apart: on a cold cache it is the
//! whole simulation), then `--runs` more times; the report gives the median, fastest and slowest
//! of those. Every run goes through the runner's ledger (`harness::blis::ledger`), so the report
//! also says how many simulations a warm run still starts (the gate's determinism sample, which
//! re-runs outside the cache by design) and their summed simulator time. The commands are this
//! binary's own, run with the caller's environment: the other inputs (corpora, trees) come from
//! where they would for a user. docs/speed.md records a run.

use crate::inputs::{reads, Reads as _};
use anyhow::{Context, Result};
use harness::blis;
use harness::inputs::InputKind;
use harness::task::{exit, TaskError};
use std::ffi::OsString;
use std::process::Stdio;
use std::time::{Duration, Instant};

reads! {
    /// The release under test and the folder of releases the history reads.
    pub struct WarmInputs { blis, releases }
}

#[derive(clap::Args)]
pub struct Args {
    /// Timed runs of each command after its warming run; the report gives the median, fastest
    /// and slowest.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    #[command(flatten)]
    pub inputs: WarmInputs,
}

/// One command as the bench runs it: what it prints for a reader, and its arguments.
struct Timed {
    shown: String,
    args: Vec<OsString>,
    /// Variables the child must not inherit, so it reads only the inputs its line names.
    unset: Vec<&'static str>,
}

/// One run: its wall time, the simulations it started and their summed simulator time.
struct Run {
    wall: Duration,
    simulations: usize,
    simulator_ms: u64,
}

pub fn run(args: Args) -> Result<u8> {
    // A missing input is a refusal (exit 2), as on every command.
    crate::outcome::exit_code(measure(args))
}

fn measure(args: Args) -> Result<u8, TaskError> {
    let inputs = args.inputs.resolve();
    let needed_for = "the warm bench";
    let binary = blis::binary::require(&inputs, needed_for)?;
    let releases = inputs.require_dir(InputKind::Releases, needed_for)?.to_path_buf();
    // `reproduce --blis` alone: a folder of releases in the environment would add the release
    // figures of every release in it.
    let no_releases: Vec<&str> =
        [Some(InputKind::Releases.env_var()), InputKind::Releases.deprecated_env_var()].into_iter().flatten().collect();
    let commands = [
        Timed {
            shown: "reproduce --blis BLIS".into(),
            args: vec!["reproduce".into(), "--blis".into(), binary.clone().into()],
            unset: no_releases,
        },
        Timed {
            shown: "history --releases DIR".into(),
            args: vec!["history".into(), "--releases".into(), releases.clone().into()],
            unset: Vec::new(),
        },
        Timed {
            shown: "reproduce --blis BLIS --releases DIR".into(),
            args: vec!["reproduce".into(), "--blis".into(), binary.into(), "--releases".into(), releases.into()],
            unset: Vec::new(),
        },
    ];
    println!("bench warm: {} timed run(s) of each command after one warming run; BLIS and DIR as given", args.runs);
    println!();
    println!("| command | exit | warming run s | median s | fastest s | slowest s | simulations per warm run | their simulator s |");
    println!("|---|---|---|---|---|---|---|---|");
    for c in &commands {
        let (first, code) = time_once(c)?;
        let mut runs = Vec::new();
        for _ in 0..args.runs {
            let (run, again) = time_once(c)?;
            if again != code {
                eprintln!("bench warm: `{}` exited {again} after exiting {code} on its warming run", c.shown);
                return Ok(exit::FAILED);
            }
            runs.push(run);
        }
        runs.sort_by_key(|r| r.wall);
        let median = &runs[runs.len() / 2];
        let secs = |d: Duration| format!("{:.2}", d.as_secs_f64());
        println!(
            "| `{}` | {code} | {} | {} | {} | {} | {} | {:.2} |",
            c.shown,
            secs(first.wall),
            secs(median.wall),
            secs(runs[0].wall),
            secs(runs[runs.len() - 1].wall),
            median.simulations,
            median.simulator_ms as f64 / 1000.0
        );
    }
    Ok(exit::OK)
}

/// Runs `c` once with a ledger of its own; its output is discarded but for the end of its
/// stderr, shown when it fails to start or is killed.
fn time_once(c: &Timed) -> Result<(Run, i32)> {
    let ledger = tempfile::NamedTempFile::new().context("creating the run ledger")?;
    let stderr = tempfile::NamedTempFile::new().context("creating a file for the command's stderr")?;
    let mut command = crate::this_binary::command().context("locating the xtask binary")?;
    command
        .args(&c.args)
        .env(blis::ledger::VAR, ledger.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr.reopen().context("reopening the stderr file")?);
    for var in &c.unset {
        command.env_remove(var);
    }
    let started = Instant::now();
    let status = command.status().with_context(|| format!("running `{}`", c.shown))?;
    let wall = started.elapsed();
    let Some(code) = status.code() else {
        let text = harness::read::text(stderr.path()).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(20).collect();
        anyhow::bail!("`{}` ended by {status}:\n{}", c.shown, tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
    };
    let text = std::fs::read_to_string(ledger.path()).context("reading the run ledger")?;
    let ms: Vec<u64> = text.lines().filter_map(blis::ledger::parse_line).map(|e| e.ms).collect();
    Ok((Run { wall, simulations: ms.len(), simulator_ms: ms.iter().sum() }, code))
}
