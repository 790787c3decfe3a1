//! `cargo xtask bench blis`: the point runner over 200 points with the test double.
//! 1 worker vs all cores (goal: >= 1.8x on 2 cores), and a fully cached re-run vs a cold run
//! (goal: >= 50x). Every run's table must be identical, or the bench fails. Results are
//! recorded in docs/blis-arm.md.

use anyhow::{ensure, Result};
use harness::blis::{self, double, CacheMode, EngineSettings, PointSpec, ProgressMode, RunOptions};
use harness::task::exit;
use std::time::Instant;

const ROUNDS: usize = 3;
const CONCURRENCIES: [u32; 10] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32];

pub fn run() -> Result<u8> {
    let binary = double::build()?;
    let checkout = tempfile::tempdir()?;
    for sub in ["scenarios", "catalog", "registry"] {
        std::fs::create_dir_all(checkout.path().join(sub))?;
    }
    let mut scenarios = Vec::new();
    for tp in [2, 4] {
        let name = format!("synthetic-h100-vllm-tp{tp}");
        let text =
            double::SYNTHETIC_SCENARIO.replace("synthetic-h100-vllm-tp2", &name).replace("tp: 2", &format!("tp: {tp}"));
        let path = checkout.path().join("scenarios").join(format!("{name}.yaml"));
        std::fs::write(&path, text)?;
        scenarios.push(path);
    }
    let engine =
        EngineSettings { max_num_seqs: 256, max_num_batched_tokens: 8192, block_size: 16, enable_prefix_caching: true };
    let mut points = Vec::new();
    for scenario in &scenarios {
        for c in CONCURRENCIES {
            for seed in 0..10u64 {
                let n = 10 * c as usize;
                let salt = seed * 1000 + u64::from(c);
                points.push(PointSpec {
                    scenario_file: scenario.clone(),
                    engine,
                    isl: 1024,
                    osl: 1024,
                    concurrency: c,
                    seed,
                    input_lens: double::synthetic_lengths(1024, n, salt),
                    output_lens: double::synthetic_lengths(1024, n, salt + 7),
                    form: Default::default(),
                });
            }
        }
    }
    let mut base = RunOptions::new(binary, checkout.path().join("catalog"), checkout.path().join("registry"));
    base.blis_root = checkout.path().to_path_buf();
    println!(
        "bench blis: {} points with the test double, {} core(s), best of {ROUNDS} rounds",
        points.len(),
        blis::default_workers()
    );
    let times = measure(&points, &base, ROUNDS)?;
    println!("  parallel speed-up (1 worker / all cores): {:.2}x  (goal >= 1.8x on 2 cores)", times[0] / times[1]);
    println!("  cached re-run speed-up (cold / warm): {:.1}x  (goal >= 50x)", times[2] / times[3]);
    println!("  every run's table identical: yes");
    Ok(exit::OK)
}

/// Runs `points` in four configurations (1 worker, all cores, a cold cache, the warm cache the
/// cold run filled), `rounds` times alternating them, and prints and returns the best time of
/// each: the machine is shared, and the minimum is the least disturbed measurement. Fails when
/// a point fails or is not modelled, a cache count is off, or two runs' tables differ.
pub(super) fn measure(points: &[PointSpec], base: &RunOptions, rounds: usize) -> Result<[f64; 4]> {
    let cores = blis::default_workers();
    let runs: [(&str, usize, Option<bool>); 4] = [
        ("1 worker, no cache", 1, None),
        ("all cores, no cache", cores, None),
        // Some(false): a fresh, empty cache; Some(true): the cache the cold run just filled.
        ("all cores, cold cache", cores, Some(false)),
        ("all cores, warm cache", cores, Some(true)),
    ];
    let mut times = [f64::INFINITY; 4];
    let mut tables = Vec::new();
    for _ in 0..rounds {
        let cache = tempfile::tempdir()?;
        for (i, (name, workers, cache_mode)) in runs.iter().enumerate() {
            let mut opts = base.clone();
            opts.progress = ProgressMode::Silent;
            opts.workers = *workers;
            opts.cache = match cache_mode {
                None => CacheMode::Off,
                Some(_) => CacheMode::ReadWrite(cache.path().to_path_buf()),
            };
            let t = Instant::now();
            let report = blis::run_points(points, &opts).map_err(|e| anyhow::anyhow!("{e}"))?;
            let secs = t.elapsed().as_secs_f64();
            let summary = &report.summary;
            ensure!(summary.failed == 0 && summary.not_modelled == 0, "{name}: {}", summary.render());
            let expect_cached = if *cache_mode == Some(true) { points.len() } else { 0 };
            ensure!(summary.cached == expect_cached, "{name}: {} cached, expected {expect_cached}", summary.cached);
            times[i] = times[i].min(secs);
            tables.push(blis::render_outcomes(&report.outcomes));
        }
    }
    for ((name, _, _), secs) in runs.iter().zip(times) {
        println!("  {name:<24} {secs:>8.3}s  {:>8.2} points/s", points.len() as f64 / secs);
    }
    ensure!(tables.iter().all(|t| *t == tables[0]), "the runs disagree: results depend on workers or cache");
    Ok(times)
}
