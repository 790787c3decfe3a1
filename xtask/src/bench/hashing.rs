//! `cargo xtask bench hashing`: what `lock verify` spends hashing the vendored trees, against
//! `sha256sum` over the same files, alternating in one run so both see the same machine load.
//! The ratio is recorded in docs/lock.md (goal: within 1.2x of `sha256sum`).

use anyhow::{bail, ensure, Context, Result};
use harness::lock::{self, tree};
use harness::task::exit;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const ROUNDS: usize = 21;

pub fn run() -> Result<u8> {
    let lock = lock::load(&lock::default_lock_path())?;
    let testdata = harness::paths::testdata();
    let mut files: Vec<PathBuf> = Vec::new();
    for u in lock.vendored() {
        let root = testdata.join(u.name());
        if !root.is_dir() {
            bail!("{} is absent; run `cargo xtask vendor --from DIR` first", harness::paths::display(&root));
        }
        files.extend(u.files.iter().map(|f| root.join(&f.path)));
    }
    let bytes: u64 = files.iter().map(|f| f.metadata().map(|m| m.len()).unwrap_or(0)).sum();

    let mut ours = Vec::with_capacity(ROUNDS);
    let mut theirs = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        // Ours: exactly what verification does per file (open, stream, hash, UTF-8 check).
        let start = Instant::now();
        for f in &files {
            tree::hash_file(f).with_context(|| format!("hashing {}", f.display()))?;
        }
        ours.push(start.elapsed());

        // sha256sum over the same list, in one process, output discarded.
        let start = Instant::now();
        let status = Command::new("sha256sum")
            .args(&files)
            .stdout(std::process::Stdio::null())
            .status()
            .context("running sha256sum")?;
        theirs.push(start.elapsed());
        ensure!(status.success(), "sha256sum failed: {status}");
    }
    let (ours, theirs) = (median(&mut ours), median(&mut theirs));
    println!("files: {} ({} bytes), median of {ROUNDS} alternating rounds", files.len(), bytes);
    println!("ours (harness::lock::tree::hash_file): {:.2} ms", ms(ours));
    println!("sha256sum (one process, all files):    {:.2} ms", ms(theirs));
    println!("ratio ours / sha256sum: {:.2}x (goal: <= 1.2x)", ours.as_secs_f64() / theirs.as_secs_f64());
    bulk()?;
    Ok(exit::OK)
}

/// The trees are small, so process start-up dominates `sha256sum` above. One 64 MiB file
/// compares the hashing itself.
fn bulk() -> Result<()> {
    const SIZE: usize = 64 << 20;
    let path = std::env::temp_dir().join(format!("blis-repro-bench-hashing-{}", std::process::id()));
    let data: Vec<u8> = (0..SIZE).map(|i| (i as u32).wrapping_mul(2654435761).to_le_bytes()[3]).collect();
    std::fs::write(&path, &data).with_context(|| format!("writing {}", path.display()))?;
    drop(data);
    let result = (|| -> Result<()> {
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            let start = Instant::now();
            tree::hash_file(&path)?;
            ours.push(start.elapsed());
            let start = Instant::now();
            let status = Command::new("sha256sum").arg(&path).stdout(std::process::Stdio::null()).status()?;
            theirs.push(start.elapsed());
            ensure!(status.success(), "sha256sum failed: {status}");
        }
        let (ours, theirs) = (median(&mut ours), median(&mut theirs));
        let mib_s = |d: Duration| (SIZE >> 20) as f64 / d.as_secs_f64();
        println!("bulk, one 64 MiB file (median of 5):");
        println!(
            "  ours: {:.1} ms ({:.0} MiB/s), sha256sum: {:.1} ms ({:.0} MiB/s), ratio {:.2}x",
            ms(ours),
            mib_s(ours),
            ms(theirs),
            mib_s(theirs),
            ours.as_secs_f64() / theirs.as_secs_f64()
        );
        Ok(())
    })();
    let _ = std::fs::remove_file(&path);
    result
}

fn median(samples: &mut [Duration]) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
