//! `cargo xtask bench fixtures`: drawing all five fixtures (every point's input and output
//! lengths) in Rust against the same draw in Python with numpy (testdata/numpy/workloads.py),
//! in one run. Both sides time the draw alone, in-process, median of the repeats; start-up and
//! JSON are left out of both.

use anyhow::{bail, Context, Result};
use harness::fixtures::{self, check, points};
use harness::task::exit;
use oracles::workload::Params;
use std::process::Command;
use std::time::Instant;

const REPEATS: usize = 21;

pub fn run() -> Result<u8> {
    let points_path = fixtures::default_dir().join(points::FILE_NAME);
    let list = points::load(&points_path)?;
    let pts = list.points();
    let requests: usize = pts.iter().map(|p| Params::inferencex(0).num_prompts(p)).sum();

    let mut rust = Vec::with_capacity(REPEATS);
    for _ in 0..REPEATS {
        let start = Instant::now();
        for seed in fixtures::SEEDS {
            std::hint::black_box(check::generate(Params::inferencex(seed), &pts)?);
        }
        rust.push(start.elapsed().as_secs_f64());
    }
    rust.sort_by(f64::total_cmp);
    let rust_median = rust[REPEATS / 2];

    let script = harness::paths::testdata().join("numpy").join("workloads.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(["bench", &points_path.to_string_lossy(), &REPEATS.to_string()])
        .output()
        .context("starting python3 (needs numpy: pip install -r testdata/numpy/requirements.txt)")?;
    if !out.status.success() {
        bail!("workloads.py bench failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let numpy: serde_json::Value = serde_json::from_slice(&out.stdout).context("workloads.py output")?;
    let python_median = numpy["median_s"].as_f64().context("workloads.py gave no median_s")?;

    println!(
        "draw of 5 seeds x {} points ({} requests per seed, 2 vectors), median of {REPEATS}:",
        pts.len(),
        requests
    );
    println!("  rust (oracles::numpy):  {:8.2} ms", rust_median * 1e3);
    println!(
        "  python numpy {:<9} {:8.2} ms",
        format!("{}:", numpy["numpy_version"].as_str().unwrap_or("?")),
        python_median * 1e3
    );
    println!("  ratio python / rust: {:.1}x", python_median / rust_median);
    if cfg!(debug_assertions) {
        println!("  (debug build: the recorded figure comes from `cargo run --release -p xtask -- bench fixtures`)");
    }
    Ok(exit::OK)
}
