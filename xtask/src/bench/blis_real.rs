//! `cargo xtask bench blis-real --blis PATH`: points per second on a real `blis` (flag or
//! scenario dialect) with 1 worker and with every core, and a fully cached re-run. The points
//! are the llama-3.1-70b-instruct h100 vLLM scenarios of `--scenarios` (tp 2, 4, 8) at 1k1k
//! and concurrency 4, 16, 64 with each scenario's own engine settings: nine points a release
//! at f90a1e3a can model. One round (each point takes seconds). Every run's table must be
//! identical, or the bench fails. Results are recorded in docs/blis-arm.md.

use crate::inputs::InputArgs;
use anyhow::{ensure, Context, Result};
use harness::blis::{self, double, CacheMode, EngineSettings, PointSpec, ProgressMode, RunOptions};
use harness::inputs::InputKind;
use harness::task::exit;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    inputs: InputArgs,
}

pub fn run(args: Args) -> Result<u8> {
    let inputs = args.inputs.resolve();
    let needed_for = "the real-binary bench";
    let binary = blis::binary::require(&inputs, needed_for)?;
    let scenarios = inputs.require_dir(InputKind::Scenarios, needed_for)?;
    let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?;
    let registry = inputs.require_dir(InputKind::Registry, needed_for)?;
    let mut points = Vec::new();
    for tp in [2, 4, 8] {
        let file = scenarios.join(format!("llama-3.1-70b-instruct-h100-fp8-vllm-tp{tp}.yaml"));
        let text = std::fs::read_to_string(&file).with_context(|| format!("reading {}", file.display()))?;
        let stated = blis::variant::stated_settings(&text)?;
        let engine = EngineSettings {
            max_num_seqs: stated.max_num_seqs.unwrap_or(256),
            max_num_batched_tokens: stated.max_num_batched_tokens.unwrap_or(8192),
            block_size: stated.block_size.unwrap_or(16),
            enable_prefix_caching: stated.enable_prefix_caching.unwrap_or(true),
        };
        for c in [4u32, 16, 64] {
            let n = 10 * c as usize;
            points.push(PointSpec {
                scenario_file: file.clone(),
                engine,
                isl: 1024,
                osl: 1024,
                concurrency: c,
                seed: 0,
                input_lens: double::synthetic_lengths(1024, n, u64::from(c)),
                output_lens: double::synthetic_lengths(1024, n, u64::from(c) + 7),
                form: Default::default(),
            });
        }
    }
    let cores = blis::default_workers();
    let mut base = RunOptions::new(binary, catalog.to_path_buf(), registry.to_path_buf());
    base.progress = ProgressMode::Silent;
    let cache = tempfile::tempdir()?;
    let runs: [(&str, usize, Option<bool>); 4] = [
        ("1 worker, no cache", 1, None),
        ("all cores, no cache", cores, None),
        ("all cores, cold cache", cores, Some(false)),
        ("all cores, warm cache", cores, Some(true)),
    ];
    println!("bench blis-real: {} points, {cores} core(s), one round", points.len());
    let mut times = Vec::new();
    let mut tables = Vec::new();
    for (name, workers, cache_mode) in runs {
        let mut opts = base.clone();
        opts.workers = workers;
        opts.cache = match cache_mode {
            None => CacheMode::Off,
            Some(_) => CacheMode::ReadWrite(cache.path().to_path_buf()),
        };
        let t = Instant::now();
        let report = blis::run_points(&points, &opts).map_err(|e| anyhow::anyhow!("{e}"))?;
        let secs = t.elapsed().as_secs_f64();
        ensure!(report.summary.failed == 0 && report.summary.not_modelled == 0, "{name}: {}", report.summary.render());
        let expect_cached = if cache_mode == Some(true) { points.len() } else { 0 };
        ensure!(
            report.summary.cached == expect_cached,
            "{name}: {} cached, expected {expect_cached}",
            report.summary.cached
        );
        println!("  {name:<24} {secs:>8.3}s  {:>8.2} points/s", points.len() as f64 / secs);
        times.push(secs);
        tables.push(blis::render_outcomes(&report.outcomes));
    }
    ensure!(tables.iter().all(|t| *t == tables[0]), "the runs disagree: results depend on workers or cache");
    println!("  parallel speed-up (1 worker / {cores}): {:.2}x", times[0] / times[1]);
    println!("  cached re-run speed-up (cold / warm): {:.0}x", times[2] / times[3]);
    println!("  every run's table identical: yes");
    Ok(exit::OK)
}
