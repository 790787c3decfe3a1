//! `cargo xtask oracle randint`: `np.random.seed(S); np.random.randint(L, H, size=N)`.

use anyhow::{Context as _, Result};
use harness::task::exit;
use oracles::numpy::RandomState;
use std::io::Write as _;

/// The most values one call prints. A bound keeps an absurd size a clear usage error instead of
/// an allocation failure or hours of output; 10^8 values is already gigabytes of text.
pub const MAX_SIZE: u64 = 100_000_000;

/// Values drawn (and printed) per step: the draw is streamed, so memory stays this small
/// whatever the size. Drawing in steps is the same stream as one call: the generator keeps no
/// buffer between calls for int64 output (oracles::numpy).
const CHUNK: usize = 1 << 16;

#[derive(clap::Args)]
pub struct Args {
    /// numpy seed (0 ..= 2^32-1)
    #[arg(long)]
    seed: u32,
    /// Inclusive lower bound
    #[arg(long, allow_negative_numbers = true)]
    low: i128,
    /// Exclusive upper bound
    #[arg(long, allow_negative_numbers = true)]
    high: i128,
    /// How many values (at most 100000000)
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=MAX_SIZE))]
    size: u64,
}

pub fn run(args: Args) -> Result<u8> {
    let mut state = RandomState::seed(args.seed);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut values = Vec::with_capacity(CHUNK);
    let mut left = args.size as usize;
    let mut first = true;
    // One step even for size 0: numpy checks nothing then, and prints an empty line.
    while left > 0 || first {
        let n = left.min(CHUNK);
        values.clear();
        if let Err(e) = state.randint_into(args.low, args.high, n, &mut values) {
            // numpy's own ValueError text; nothing has been printed yet (the first step fails).
            eprintln!("error: ValueError: {e}");
            return Ok(exit::FAILED);
        }
        let mut text = String::with_capacity(values.len() * 8);
        for (i, v) in values.iter().enumerate() {
            if !(first && i == 0) {
                text.push(' ');
            }
            text.push_str(&v.to_string());
        }
        if let Err(e) = out.write_all(text.as_bytes()) {
            return closed_pipe_or(e);
        }
        first = false;
        left -= n;
    }
    if let Err(e) = out.write_all(b"\n").and_then(|()| out.flush()) {
        return closed_pipe_or(e);
    }
    Ok(exit::OK)
}

/// `| head` closing the pipe is the reader's choice, not a failure.
fn closed_pipe_or(e: std::io::Error) -> Result<u8> {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        return Ok(exit::OK);
    }
    Err(e).context("writing to stdout")
}
