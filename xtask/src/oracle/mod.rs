//! `cargo xtask oracle ...`: definitions run on their own.

mod error_definition;
mod randint;

use anyhow::Result;

#[derive(clap::Subcommand)]
pub enum Command {
    /// numpy's legacy `randint(low, high, size)` after `seed(S)`, one line of values.
    Randint(randint::Args),
    /// Recompute AISimulate's published error totals under each definition.
    ErrorDefinition(error_definition::Args),
}

pub fn run(cmd: Command) -> Result<u8> {
    match cmd {
        Command::Randint(args) => randint::run(args),
        Command::ErrorDefinition(args) => error_definition::run(args),
    }
}
