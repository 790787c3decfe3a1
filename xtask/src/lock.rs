//! `cargo xtask lock verify | diff | update`: lockfiles/upstream.lock against the vendored
//! trees, a live checkout, or a new source.

use crate::inputs::Reads as _;
use anyhow::Result;
use harness::inputs::{InputKind, Origin};
use harness::lock::{self, vendor, verify};
use harness::task::exit;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Check the vendored trees (or an explicit override) and, with --measurements, the corpora
    Verify(VerifyArgs),
    /// Compare a live checkout with the lock, touching nothing
    Diff(DiffArgs),
    /// Rewrite the lock's file hashes from a source (atomically); review with `git diff`
    Update(UpdateArgs),
}

crate::inputs::reads! {
    /// The locked inputs (`lock::file::SECTIONS`).
    pub struct Locked { measurements, catalog, registry, scenarios }
}

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// What to check instead of the vendored trees (and, with the corpora, those too).
    #[command(flatten)]
    data: Locked,
    /// The lock [default: lockfiles/upstream.lock]
    #[arg(long, value_name = "FILE", hide = true)]
    lockfile: Option<PathBuf>,
    /// Where the vendored trees are [default: testdata/]
    #[arg(long, value_name = "DIR", hide = true)]
    testdata: Option<PathBuf>,
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("tree").required(true).multiple(true)
    .args(["catalog", "registry", "scenarios", "measurements"])))]
pub struct DiffArgs {
    /// A blis-catalog checkout
    #[arg(long, value_name = "DIR")]
    catalog: Option<PathBuf>,
    /// A blis-registry checkout
    #[arg(long, value_name = "DIR")]
    registry: Option<PathBuf>,
    /// blis-latency-kernel's testdata/aisimulate
    #[arg(long, value_name = "DIR")]
    scenarios: Option<PathBuf>,
    /// A measurements folder
    #[arg(long, value_name = "DIR")]
    measurements: Option<PathBuf>,
    #[arg(long, value_name = "FILE", hide = true)]
    lockfile: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct UpdateArgs {
    /// A folder holding catalog/, registry/ and scenarios/, or the upstream checkouts side by side
    #[arg(long, value_name = "DIR")]
    from: PathBuf,
    #[arg(long, value_name = "FILE", hide = true)]
    lockfile: Option<PathBuf>,
}

pub fn run(cmd: Command) -> Result<u8> {
    match cmd {
        Command::Verify(args) => run_verify(args),
        Command::Diff(args) => run_diff(args),
        Command::Update(args) => run_update(args),
    }
}

fn run_verify(args: VerifyArgs) -> Result<u8> {
    let lock = lock::load(&args.lockfile.unwrap_or_else(lock::default_lock_path))?;
    let mut inputs = args.data.resolve_unchecked();
    if let Some(testdata) = &args.testdata {
        for slot in [&mut inputs.catalog, &mut inputs.registry, &mut inputs.scenarios] {
            if let Some(input) = slot.as_mut().filter(|i| i.origin == Origin::Vendored) {
                input.path = testdata.join(input.kind.name());
            }
        }
        // The fetched corpora's default, as `Inputs` finds it under the workspace's testdata/.
        if inputs.measurements.as_ref().is_none_or(|i| i.origin == Origin::Vendored) {
            let fetched = testdata.join("measurements");
            inputs.measurements = fetched.is_dir().then_some(harness::inputs::InputPath {
                kind: harness::inputs::InputKind::Measurements,
                path: fetched,
                origin: Origin::Vendored,
            });
        }
    }
    // The report names overrides without their paths (it must read the same on every
    // machine); say here where each one pointed.
    for kind in lock::file::SECTIONS {
        if let Some(input) = inputs.get(kind).filter(|i| i.is_override()) {
            eprintln!("note: {} read from {}", kind.name(), input.source_label());
        }
    }
    let report = lock::verify(&lock, &inputs);
    print!("{}", report.render());
    Ok(if report.ok() { exit::OK } else { exit::FAILED })
}

fn run_diff(args: DiffArgs) -> Result<u8> {
    let lock = lock::load(&args.lockfile.unwrap_or_else(lock::default_lock_path))?;
    let mut same = true;
    for (kind, dir) in [
        (InputKind::Catalog, &args.catalog),
        (InputKind::Registry, &args.registry),
        (InputKind::Scenarios, &args.scenarios),
        (InputKind::Measurements, &args.measurements),
    ] {
        let Some(dir) = dir else { continue };
        if !dir.is_dir() {
            eprintln!("error: {} {} is not a directory", kind.flag(), dir.display());
            return Ok(exit::REFUSED);
        }
        let upstream = lock.get(kind);
        let c = verify::diff(upstream, dir)?;
        same &= c.ok();
        print!("{}", verify::render_diff(upstream, &c));
    }
    Ok(if same { exit::OK } else { exit::FAILED })
}

fn run_update(args: UpdateArgs) -> Result<u8> {
    let lock_path = args.lockfile.unwrap_or_else(lock::default_lock_path);
    let updates = vendor::update_lock_file(&lock_path, &args.from)?;
    for u in &updates {
        println!(
            "{}: {} files ({} added, {} removed, {} changed)",
            u.name,
            u.files,
            u.added.len(),
            u.removed.len(),
            u.changed.len()
        );
        for p in &u.added {
            println!("  + {p}");
        }
        for p in &u.removed {
            println!("  - {p}");
        }
        for p in &u.changed {
            println!("  ~ {p}");
        }
    }
    println!("wrote {}; review the change with `git diff`", harness::paths::display(&lock_path));
    Ok(exit::OK)
}
