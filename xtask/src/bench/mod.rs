//! `cargo xtask bench <what>`: speed is measured here and recorded in docs, never asserted in
//! a timed test.

mod blis;
mod blis_real;
mod fixtures;
mod hashing;
mod intervals;
mod score;
mod shards;
mod suite;
mod warm;

use anyhow::Result;

crate::inputs::reads! {
    /// What the corpus scorer reads (`harness::score::load_inputs`).
    pub struct ScorerInputs { measurements, scenarios }
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// `fixtures check` in Rust vs numpy drawing the same vectors.
    Fixtures(fixtures::Args),
    /// Hashing the vendored trees vs `sha256sum`.
    Hashing,
    /// Scoring the whole corpus.
    Score(score::Args),
    /// What the bootstrap intervals add to the score report (10,000 resamples against 1).
    Intervals(intervals::Args),
    /// The BLIS point runner with the test double: workers and cache.
    Blis,
    /// The BLIS point runner on a real `blis` (--blis PATH): points per second, workers, cache.
    BlisReal(blis_real::Args),
    /// How evenly `--shard I/N` spreads the planned points: makespan / ideal from the cost model
    /// and from the times a cache recorded.
    Shards(shards::Args),
    /// Where `cargo test --workspace` spends its time: compiling, each test binary, and every
    /// point the suite simulates (and which it simulates more than once).
    Suite(suite::Args),
    /// The gate and the history on a warm point cache (--blis PATH, --releases DIR): the median
    /// of repeated runs, and the simulations a warm run still starts.
    Warm(warm::Args),
}

pub fn run(cmd: Command) -> Result<u8> {
    match cmd {
        Command::Blis => blis::run(),
        Command::BlisReal(args) => blis_real::run(args),
        Command::Fixtures(args) => fixtures::run(args),
        Command::Hashing => hashing::run(),
        Command::Score(args) => score::run(args),
        Command::Shards(args) => shards::run(args),
        Command::Intervals(args) => intervals::run(args),
        Command::Suite(args) => suite::run(args),
        Command::Warm(args) => warm::run(args),
    }
}
