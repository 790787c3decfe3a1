//! Placeholder: filled in by its issue.

use anyhow::Result;

#[derive(clap::Subcommand)]
pub enum Command {}

pub fn run(cmd: Command) -> Result<u8> {
    match cmd {}
}
