//! `cargo xtask bench score`: scoring the whole corpus, timed. Reading the corpora and the
//! scenario tree is timed apart from scoring and rendering, since the gate pays both.

use crate::inputs::Reads as _;
use anyhow::Result;
use harness::score;
use harness::task::exit;
use std::time::{Duration, Instant};

#[derive(clap::Args)]
pub struct Args {
    /// Repetitions; the report gives the fastest and the median.
    // `--iterations`: its name before the one name for repetition counts (docs/naming.md).
    #[arg(long, alias = "iterations", default_value_t = 20)]
    pub runs: usize,
    #[command(flatten)]
    pub inputs: super::ScorerInputs,
}

pub fn run(args: Args) -> Result<u8> {
    let inputs = args.inputs.resolve();
    let n = args.runs.max(1);
    let (mut load, mut scoring, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let mut sweeps = 0;
    for _ in 0..n {
        let t0 = Instant::now();
        let (corpora, scenarios) = match score::load_inputs(&inputs) {
            Ok(x) => x,
            Err(e) => return crate::outcome::exit_code(Err(e)),
        };
        let t1 = Instant::now();
        for config_tier in [None, Some(oracles::tiers::ConfigTier::Measured)] {
            let arms = score::headline_arms(&corpora.e2e, None);
            let scored = score::score(&corpora, &scenarios, &arms, &score::Selection::vllm(config_tier));
            sweeps += scored.sweeps.len();
            std::hint::black_box(score::render::report(&scored));
        }
        let t2 = Instant::now();
        load.push(t1 - t0);
        scoring.push(t2 - t1);
        total.push(t2 - t0);
    }
    let show = |name: &str, v: &mut Vec<Duration>| {
        v.sort();
        println!("{name:<42} fastest {:>8.1} ms  median {:>8.1} ms", ms(v[0]), ms(v[v.len() / 2]));
    };
    println!("scoring the whole corpus ({n} iterations; {} sweeps scored per iteration)", sweeps / n);
    show("read corpora + scenario tree", &mut load);
    show("score + render (all tiers, measured tier)", &mut scoring);
    show("total", &mut total);
    Ok(exit::OK)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
