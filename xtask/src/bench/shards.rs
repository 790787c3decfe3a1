//! `cargo xtask bench shards --n N[,N...]`: how evenly `--shard I/N` spreads the planned points
//! (harness::blis::cost::bench_shards): makespan / ideal from the cost model, and from the
//! recorded times where `--blis` gives the keys and the cache holds their entries.

use crate::inputs::{reads, Reads as _};
use anyhow::Result;
use harness::blis::{self, RunOptions};
use harness::inputs::InputKind;
use harness::task::exit;
use std::path::PathBuf;

reads! {
    /// The corpora and the trees the points are planned from; the binary, for content keys.
    pub struct ShardInputs { measurements, scenarios, catalog, registry, blis }
}

#[derive(clap::Args)]
pub struct Args {
    /// Shard counts, comma-separated
    #[arg(long, value_name = "N", value_delimiter = ',', default_value = "4,8,16", value_parser = clap::value_parser!(u32).range(1..=1024))]
    n: Vec<u32>,
    /// The point cache whose recorded times are read (with --blis) [default: target-cache/blis]
    #[arg(long, value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    #[command(flatten)]
    inputs: ShardInputs,
}

pub fn run(args: Args) -> Result<u8> {
    // A cache the user names is read, so one that is not a folder is bad input before any
    // work; only the default may be absent (then no time is recorded).
    if let Some(dir) = &args.cache_dir {
        if !dir.is_dir() {
            anyhow::bail!("--cache-dir {}: expected the folder of a point cache, found no folder there", dir.display());
        }
    }
    let inputs = args.inputs.resolve();
    let cache_dir = args.cache_dir.clone().unwrap_or_else(blis::default_cache_dir);
    let result = (|| {
        let opts = match inputs.get(InputKind::Blis) {
            Some(_) => Some(RunOptions::quiet_from_inputs(&inputs, "the shard bench's content keys")?),
            None => None,
        };
        let text = blis::cost::bench_shards(&inputs, &args.n, opts.as_ref(), &cache_dir)?;
        print!("{text}");
        Ok(exit::OK)
    })();
    crate::outcome::exit_code(result)
}
