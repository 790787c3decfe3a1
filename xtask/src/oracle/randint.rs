//! Placeholder: filled in by its issue.

use anyhow::{bail, Result};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: Args) -> Result<u8> {
    bail!("not implemented yet")
}
