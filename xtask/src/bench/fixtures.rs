//! `cargo xtask bench fixtures`: `fixtures check`'s work in Rust (read points.json, then per
//! seed read `seed<N>.json`, regenerate it and compare) against numpy generating the same
//! vectors (testdata/numpy/workloads.py), in one run.
//!
//! Start-up is excluded on both sides the same way: each side runs in one warm process (this
//! one, and one `python3` interpreter with numpy imported), does one untimed warm-up pass, then
//! times each repetition alone with a monotonic clock (`Instant`, `time.perf_counter`); the
//! figure is the median. Process start-up, imports, the first pass and JSON output are outside
//! every timed span. The Rust figure includes reading the five files from disk (page cache) on
//! every repetition and checks them on every core, as `fixtures check` does; the numpy figure
//! is the draw alone, as InferenceX does it (a fresh `np.random.seed` per point), on one core.

use anyhow::{bail, ensure, Context, Result};
use harness::fixtures::{self, check, points};
use harness::task::exit;
use oracles::workload::Params;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Timed repetitions per side (after one untimed warm-up pass); the median is reported.
    // `--repeats`: its name before the one name for repetition counts (docs/naming.md).
    #[arg(long, default_value_t = 51, alias = "repeats")]
    runs: usize,
}

/// What `cargo xtask fixtures check` does without a corpus, minus printing: every seed's file
/// read, regenerated and compared. Fails unless every file matches.
fn check_all(dir: &Path) -> Result<usize> {
    let list = points::load(&dir.join(points::FILE_NAME))?;
    let pts = list.points();
    let mut matched = 0;
    for result in check::check_seeds(dir, &fixtures::SEEDS, &pts) {
        let result = result?;
        ensure!(result.ok(), "{}", result.summary());
        matched += result.points;
    }
    Ok(matched)
}

fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

fn time_repeats(repeats: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?; // warm-up: page cache, allocator, branch predictors
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64());
    }
    Ok(median(times))
}

pub fn run(args: Args) -> Result<u8> {
    ensure!(args.runs >= 1, "--runs must be at least 1");
    let dir = fixtures::default_dir();
    let points_path = dir.join(points::FILE_NAME);
    let pts = points::load(&points_path)?.points();
    let requests: usize = pts.iter().map(|p| Params::inferencex(0).num_prompts(p)).sum();

    let check_s = time_repeats(args.runs, || {
        std::hint::black_box(check_all(&dir)?);
        Ok(())
    })?;
    let draw_s = time_repeats(args.runs, || {
        for seed in fixtures::SEEDS {
            std::hint::black_box(check::generate(Params::inferencex(seed), &pts)?);
        }
        Ok(())
    })?;

    let script = harness::paths::testdata().join("numpy").join("workloads.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(["bench", &points_path.to_string_lossy(), &args.runs.to_string()])
        .output()
        .context("starting python3 (needs numpy: pip install -r testdata/numpy/requirements.txt)")?;
    if !out.status.success() {
        bail!("workloads.py bench failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let numpy: serde_json::Value = serde_json::from_slice(&out.stdout).context("workloads.py output")?;
    let numpy_s = numpy["median_s"].as_f64().context("workloads.py gave no median_s")?;
    let version = numpy["numpy_version"].as_str().unwrap_or("?");

    println!(
        "5 seeds x {} points ({} requests per seed, 2 vectors each), median of {} after 1 warm-up, \
         in-process (start-up excluded on both sides):",
        pts.len(),
        requests,
        args.runs
    );
    println!("  rust `fixtures check` (read + regenerate + compare): {:9.3} ms", check_s * 1e3);
    println!("  rust draw alone (check::generate):                  {:9.3} ms", draw_s * 1e3);
    println!("  numpy {version:<6} draw (one warm interpreter):      {:9.3} ms", numpy_s * 1e3);
    println!("  ratio numpy draw / rust check: {:.2}x", numpy_s / check_s);
    println!("  ratio numpy draw / rust draw:  {:.2}x", numpy_s / draw_s);
    if cfg!(debug_assertions) {
        println!("  (debug build: the recorded figures come from `cargo run --release -p xtask -- bench fixtures`)");
    }
    Ok(exit::OK)
}
