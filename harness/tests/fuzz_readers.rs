//! The readers under property-based fuzzing (harness::fuzz), a bounded number of cases each so
//! `cargo test` stays within seconds; `cargo xtask fuzz --runs N` runs more. One trial per
//! reader: `cargo test -p harness --test fuzz_readers -- lock`.

use libtest_mimic::{Arguments, Trial};

/// Per reader; fixed seed, so a failure reproduces.
const CASES: u32 = 256;
const SEED: u64 = 11;

fn main() {
    let args = Arguments::from_args();
    let trials = harness::fuzz::targets()
        .into_iter()
        .map(|target| {
            Trial::test(format!("fuzz/{}", target.name), move || {
                harness::fuzz::run(&target, CASES, SEED).map(drop).map_err(Into::into)
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
