//! `cargo xtask vendor --from DIR | --fetch`: materialise testdata/{catalog,registry,scenarios}
//! (and, with `--fetch`, testdata/measurements) from an upstream source, checked against
//! lockfiles/upstream.lock before anything is swapped.

use anyhow::Result;
use harness::lock::{self, vendor};
use harness::task::exit;
use std::path::PathBuf;

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("source").required(true).args(["from", "fetch"])))]
pub struct Args {
    /// A folder holding catalog/, registry/ and scenarios/, or the upstream checkouts side by
    /// side (blis-catalog/, blis-registry/, blis-latency-kernel/)
    #[arg(long, value_name = "DIR")]
    from: Option<PathBuf>,
    /// Clone each upstream at its locked commit instead (needs a network); also fetches the
    /// measurement corpora into testdata/measurements
    #[arg(long)]
    fetch: bool,
    /// The lock to vendor against [default: lockfiles/upstream.lock]
    #[arg(long, value_name = "FILE", hide = true)]
    lockfile: Option<PathBuf>,
    /// Where the trees go [default: testdata/]
    #[arg(long, value_name = "DIR", hide = true)]
    testdata: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8> {
    let lock_path = args.lockfile.unwrap_or_else(lock::default_lock_path);
    let testdata = args.testdata.unwrap_or_else(harness::paths::testdata);
    let lock = lock::load(&lock_path)?;
    let done = match &args.from {
        Some(from) => vendor::vendor_from(&lock, from, &testdata)?,
        None => vendor::vendor_fetched(&lock, &testdata)?,
    };
    for v in &done {
        let u = lock.upstreams.iter().find(|u| u.name() == v.name).expect("vendored from the lock");
        let left_out = match v.not_pinned {
            0 => String::new(),
            n => format!(" ({n} more upstream files are not pinned by this partial lock section: left out)"),
        };
        println!(
            "{}: vendored {} files from {}@{}{left_out}",
            harness::paths::display(&v.dest),
            v.files,
            u.repo_short(),
            u.short_commit()
        );
    }
    Ok(exit::OK)
}
