//! `cargo xtask bench intervals`: what the 95% bootstrap intervals add to `cargo xtask score`.
//! The vLLM headline is scored with three arms (a stand-in BLIS arm carrying AISimulate's
//! values, so every cell of 3 arms x 4 metrics x 3 tiers plus the breakdowns and the paired
//! lines has an interval) and rendered at 10,000 resamples and at 1; the difference is the
//! intervals' cost. Each repetition starts with no resample table drawn, as a fresh process does.

use crate::inputs::Reads as _;
use anyhow::Result;
use harness::score::{self, intervals, ArmPoint};
use harness::task::exit;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Repetitions; the report gives the fastest and the median.
    // `--iterations`: its name before the one name for repetition counts (docs/naming.md).
    #[arg(long, alias = "iterations", default_value_t = 10)]
    pub runs: usize,
    #[command(flatten)]
    pub inputs: super::ScorerInputs,
}

pub fn run(args: Args) -> Result<u8> {
    let inputs = args.inputs.resolve();
    let n = args.runs.max(1);
    let (corpora, scenarios) = match score::load_inputs(&inputs) {
        Ok(x) => x,
        Err(e) => return crate::outcome::exit_code(Err(e)),
    };
    let blis = score::Arm::published(&corpora.e2e, "BLIS", "blis", |p| ArmPoint {
        tpot: p.aisimulate_tpot_relative,
        ttft: p.aisimulate_ttft_relative,
    });
    let arms = score::headline_arms(&corpora.e2e, Some(blis));
    let mut scored = score::score(&corpora, &scenarios, &arms, &score::Selection::vllm(None));
    // Wall time and this thread's CPU time (the machine may be shared: CPU time is what the
    // work costs, wall time what a user waits).
    let mut time = |resamples: usize| {
        scored.resamples = resamples;
        let (mut wall, mut cpu): (Vec<Duration>, Vec<Duration>) = (0..n)
            .map(|_| {
                intervals::forget_tables();
                let (t, c) = (Instant::now(), thread_cpu());
                std::hint::black_box(score::render::report(&scored));
                (t.elapsed(), thread_cpu().saturating_sub(c))
            })
            .unzip();
        wall.sort();
        cpu.sort();
        ((wall[0], wall[wall.len() / 2]), (cpu[0], cpu[cpu.len() / 2]))
    };
    let (one, one_cpu) = time(1);
    let (full, full_cpu) = time(oracles::bootstrap::DEFAULT_RESAMPLES);
    println!(
        "bootstrap intervals on the vLLM headline ({n} iterations; {} sweeps, 3 arms, {} build)",
        scored.sweeps.len(),
        if cfg!(debug_assertions) { "dev" } else { "release" }
    );
    let show = |name: &str, (fast, median): (Duration, Duration)| {
        println!("{name:<44} fastest {:>8.1} ms  median {:>8.1} ms", ms(fast), ms(median));
    };
    show("wall: score report, 1 resample", one);
    show("wall: score report, 10000 resamples", full);
    show("wall: added by 10000 resamples", (full.0.saturating_sub(one.0), full.1.saturating_sub(one.1)));
    show("cpu: score report, 1 resample", one_cpu);
    show("cpu: score report, 10000 resamples", full_cpu);
    show("cpu: added by 10000 resamples", (full_cpu.0.saturating_sub(one_cpu.0), full_cpu.1.saturating_sub(one_cpu.1)));
    Ok(exit::OK)
}

/// CPU time of this thread so far (Linux `/proc/thread-self/schedstat`, nanoseconds on CPU);
/// zero where it cannot be read.
fn thread_cpu() -> Duration {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next().and_then(|ns| ns.parse().ok()))
        .map_or(Duration::ZERO, Duration::from_nanos)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
