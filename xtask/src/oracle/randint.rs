//! `cargo xtask oracle randint`: `np.random.seed(S); np.random.randint(L, H, size=N)`.

use anyhow::Result;
use harness::task::exit;
use oracles::numpy::RandomState;

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
    /// How many values
    #[arg(long)]
    size: usize,
}

pub fn run(args: Args) -> Result<u8> {
    match RandomState::seed(args.seed).randint(args.low, args.high, args.size) {
        Ok(values) => {
            let text: Vec<String> = values.iter().map(i64::to_string).collect();
            println!("{}", text.join(" "));
            Ok(exit::OK)
        }
        Err(e) => {
            // numpy's own ValueError text.
            eprintln!("error: ValueError: {e}");
            Ok(exit::FAILED)
        }
    }
}
