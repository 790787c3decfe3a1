//! `cargo xtask cache merge DIR... [--into DIR]` and `cargo xtask cache stats [DIR]`: the BLIS
//! point cache (harness::blis::cache). Merging is how shard jobs' caches are combined before a
//! final job scores with `--cache-only`.

use anyhow::Result;
use harness::blis::{cache, default_cache_dir};
use harness::task::exit;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Combine shard caches; two different entries for one key are an error (nothing written).
    Merge {
        #[arg(required = true, value_name = "DIR")]
        sources: Vec<PathBuf>,
        /// Target cache [default: target-cache/blis]
        #[arg(long, value_name = "DIR")]
        into: Option<PathBuf>,
    },
    /// Count entries, verify every checksum, and sum the run costs the entries recorded.
    Stats {
        /// [default: target-cache/blis]
        dir: Option<PathBuf>,
    },
}

pub fn run(cmd: Command) -> Result<u8> {
    match cmd {
        Command::Merge { sources, into } => {
            let into = into.unwrap_or_else(default_cache_dir);
            let stats = cache::merge(&sources, &into)?;
            println!(
                "merged {} source(s) into {}: {} entries copied, {} already present, {} of an old format left out",
                sources.len(),
                harness::paths::display(&into),
                stats.copied,
                stats.already_present,
                stats.old_format
            );
            // Sources with no entry at all are a mistyped path or a job that stored nothing.
            if stats.copied + stats.already_present == 0 {
                eprintln!("cache merge: no entry in any source (exit 1)");
                return Ok(exit::FAILED);
            }
            Ok(exit::OK)
        }
        Command::Stats { dir } => {
            let dir = dir.unwrap_or_else(default_cache_dir);
            let stats = cache::stats(&dir)?;
            println!(
                "{}: {} entries, {} bytes, {} corrupt, {} of an old format (recomputed when met)",
                harness::paths::display(&dir),
                stats.entries,
                stats.bytes,
                stats.corrupt.len(),
                stats.old_format
            );
            let c = &stats.costs;
            if c.with_cost > 0 {
                let longest = c
                    .longest
                    .as_ref()
                    .map(|(s, key)| format!(", longest {s:.2} s ({})", &key[..12]))
                    .unwrap_or_default();
                println!(
                    "recorded run costs: {} entries, {:.2} s wall, {:.2} s CPU over the {} with CPU time{longest}; {} without a recorded cost",
                    c.with_cost, c.wall_s, c.cpu_s, c.with_cpu, c.without_cost
                );
            } else {
                println!("recorded run costs: none ({} entries without a recorded cost)", c.without_cost);
            }
            for path in &stats.corrupt {
                println!("corrupt: {}", harness::paths::display(path));
            }
            Ok(if stats.corrupt.is_empty() { exit::OK } else { exit::FAILED })
        }
    }
}
