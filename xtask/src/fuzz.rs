//! `cargo xtask fuzz [--runs N] [--seed S] [--only NAME]`: the readers' property-based fuzzing
//! (harness::fuzz) at a chosen number of cases per reader, with cases per second. Exit 1 on the
//! first failing case, which is printed shrunk.

use anyhow::Result;
use harness::task::exit;

#[derive(clap::Args)]
pub struct Args {
    /// Mutated documents per reader.
    // `--cases`: its name before the one name for repetition counts (docs/naming.md).
    #[arg(long, alias = "cases", default_value_t = 10_000)]
    runs: u32,
    /// Seed of the case generator (the same seed draws the same cases).
    #[arg(long, default_value_t = 11)]
    seed: u64,
    /// Only the readers whose name starts with this (e.g. `corpus/`, `lock`).
    #[arg(long, value_name = "NAME")]
    only: Option<String>,
}

pub fn run(args: Args) -> Result<u8> {
    let targets: Vec<_> = harness::fuzz::targets()
        .into_iter()
        .filter(|t| args.only.as_deref().is_none_or(|o| t.name.starts_with(o)))
        .collect();
    if targets.is_empty() {
        anyhow::bail!("--only {} selects no reader", args.only.unwrap_or_default());
    }
    let (mut cases, mut seconds, mut failed) = (0u64, 0f64, false);
    for target in &targets {
        match harness::fuzz::run(target, args.runs, args.seed) {
            Ok(r) => {
                println!(
                    "{:<34} {:>8} cases  {:>8} accepted  {:>8} rejected  {:>8.1} s  {:>9.0} cases/s",
                    r.target,
                    r.cases,
                    r.accepted,
                    r.rejected,
                    r.elapsed.as_secs_f64(),
                    r.cases_per_second()
                );
                cases += u64::from(r.cases);
                seconds += r.elapsed.as_secs_f64();
            }
            Err(why) => {
                eprintln!("FAILED {why}");
                failed = true;
            }
        }
    }
    println!(
        "{} readers, {cases} cases in {seconds:.1} s ({:.0} cases/s), {}",
        targets.len(),
        cases as f64 / seconds.max(1e-9),
        if failed { "FAILURES above" } else { "no panic, every error named its file" }
    );
    Ok(if failed { exit::FAILED } else { exit::OK })
}
