//! `cargo xtask <task>`: the command line of blis-repro. Each task lives in its own module and
//! does nothing but parse its flags and call into `harness`; paths are resolved from the
//! workspace root, found at run time (harness::paths).

mod bench;
mod blis;
mod cache;
mod explain;
mod fixtures;
mod fuzz;
mod history;
mod inputs;
mod lock;
mod oracle;
mod outcome;
mod reproduce;
mod score;
mod this_binary;
mod vendor;

use clap::{Parser, Subcommand};
use harness::task::exit;
use std::process::ExitCode;

/// The crate version and the commit it was built from (xtask/build.rs), as `--version` prints
/// it and every gate report records it.
const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("XTASK_COMMIT"), ")");

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Reproduce and audit BLIS's published accuracy figures", version = VERSION)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// The release gate: every published figure, reproduced, mismatched or refused.
    Reproduce(reproduce::Args),
    /// One figure of the gate opened down to its points: expected value and source, tolerance,
    /// definition, inputs, our value with n and interval, the sweeps contributing most.
    Explain(explain::Args),
    /// The InferenceX workload fixtures (numpy-exact length vectors).
    #[command(subcommand)]
    Fixtures(fixtures::Command),
    /// Definitions on their own: numpy's randint, the error-definition audit.
    #[command(subcommand)]
    Oracle(oracle::Command),
    /// Copy the locked globs of each upstream into testdata/.
    Vendor(vendor::Args),
    /// Verify, diff or update lockfiles/upstream.lock.
    #[command(subcommand)]
    Lock(lock::Command),
    /// Score the corpora (and the BLIS arm when --blis is given).
    Score(score::Args),
    /// The BLIS arm run by every release of a history, compared release to release.
    History(history::Args),
    /// The BLIS arm: run points, the determinism figure, the test double.
    #[command(subcommand)]
    Blis(blis::Command),
    /// The BLIS point cache.
    #[command(subcommand)]
    Cache(cache::Command),
    /// Property-based fuzzing of every file reader; reports cases per second.
    Fuzz(fuzz::Args),
    /// Benchmarks (speed is measured here, never asserted in tests).
    #[command(subcommand)]
    Bench(bench::Command),
}

fn main() -> ExitCode {
    harness::version::set(VERSION.to_string());
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { exit::USAGE } else { exit::OK };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    // The root is found at run time (harness::paths); a binary started outside every clone
    // says so before any task reads or writes a path.
    if let Err(e) = harness::paths::try_workspace_root() {
        eprintln!("error: {e}");
        return ExitCode::from(exit::FAILED);
    }
    let result = match cli.task {
        Task::Reproduce(args) => reproduce::run(args),
        Task::Explain(args) => explain::run(args),
        Task::Fixtures(cmd) => fixtures::run(cmd),
        Task::Oracle(cmd) => oracle::run(cmd),
        Task::Vendor(args) => vendor::run(args),
        Task::Lock(cmd) => lock::run(cmd),
        Task::Score(args) => score::run(args),
        Task::History(args) => history::run(args),
        Task::Blis(cmd) => blis::run(cmd),
        Task::Cache(cmd) => cache::run(cmd),
        Task::Fuzz(args) => fuzz::run(args),
        Task::Bench(cmd) => bench::run(cmd),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("error: {err:#}");
            let usage = err.downcast_ref::<outcome::UsageError>().is_some();
            ExitCode::from(if usage { exit::USAGE } else { exit::FAILED })
        }
    }
}
