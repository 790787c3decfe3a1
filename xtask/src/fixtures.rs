//! `cargo xtask fixtures points|generate|check`: the InferenceX workload fixtures.

use crate::inputs::{reads, Reads as _};
use anyhow::Result;
use harness::fixtures::{self, check, points};
use harness::inputs::InputKind;
use harness::paths::display;
use harness::task::exit;
use std::path::PathBuf;

#[derive(clap::Subcommand)]
pub enum Command {
    /// Derive the point list from aisimulate_e2e.json and write points.json (or, with --check,
    /// only compare).
    Points {
        #[command(flatten)]
        inputs: Corpora,
        /// Compare the committed list with the derivation; never write.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        dir: DirArg,
    },
    /// Write seed0..4.json from points.json (atomically).
    Generate {
        #[command(flatten)]
        dir: DirArg,
    },
    /// Regenerate every fixture and compare element by element; never writes. With the corpus
    /// (--measurements or BLIS_MEASUREMENTS), also re-derive the point list.
    Check {
        #[command(flatten)]
        inputs: Corpora,
        #[command(flatten)]
        dir: DirArg,
    },
}

reads! {
    /// The corpus the point list is derived from.
    pub struct Corpora { measurements }
}

#[derive(clap::Args)]
pub struct DirArg {
    /// Fixture folder [default: testdata/inferencex-workloads]
    #[arg(long = "dir", value_name = "DIR")]
    path: Option<PathBuf>,
}

impl DirArg {
    fn resolve(&self) -> PathBuf {
        self.path.clone().unwrap_or_else(fixtures::default_dir)
    }
}

pub fn run(cmd: Command) -> Result<u8> {
    match cmd {
        Command::Points { inputs, check, dir } => derive_points(&inputs, check, &dir.resolve()),
        Command::Generate { dir } => generate(&dir.resolve()),
        Command::Check { inputs, dir } => check_all(&inputs, &dir.resolve()),
    }
}

fn derive_points(inputs: &Corpora, check_only: bool, dir: &std::path::Path) -> Result<u8> {
    let resolved = inputs.resolve();
    let measurements = match resolved.require_dir(InputKind::Measurements, "fixtures points") {
        Ok(path) => path,
        Err(refusal) => return Ok(crate::outcome::refused(&refusal)),
    };
    let derived = points::derive(measurements)?;
    let target = dir.join(points::FILE_NAME);
    println!(
        "{} points ({} with vllm) over {} sweeps of {}",
        derived.list.points.len(),
        derived.list.count_for("vllm"),
        derived.sweeps,
        points::CORPUS_FILE
    );
    if check_only {
        return compare_points(&target, &derived.list);
    }
    harness::atomic::write(&target, points::render(&derived.list).as_bytes())?;
    println!("wrote {}", display(&target));
    Ok(exit::OK)
}

fn compare_points(target: &std::path::Path, derived: &points::PointList) -> Result<u8> {
    let committed = points::load(target)?;
    let diffs = points::differences(&committed, derived);
    if diffs.is_empty() {
        println!("points: {} equals the derivation", display(target));
        Ok(exit::OK)
    } else {
        for d in &diffs {
            eprintln!("points: {}: {d}", display(target));
        }
        Ok(exit::FAILED)
    }
}

fn generate(dir: &std::path::Path) -> Result<u8> {
    let list = points::load(&dir.join(points::FILE_NAME))?;
    for path in check::generate_files(dir, &fixtures::SEEDS, &list.points())? {
        println!("wrote {}", display(&path));
    }
    Ok(exit::OK)
}

fn check_all(inputs: &Corpora, dir: &std::path::Path) -> Result<u8> {
    // Resolved first: a corpus given but unusable ends the command before the seeds are checked.
    let resolved = inputs.resolve();
    let points_path = dir.join(points::FILE_NAME);
    let list = points::load(&points_path)?;
    let mut code = exit::OK;
    for result in check::check_seeds(dir, &fixtures::SEEDS, &list.points()) {
        let result = match result {
            Ok(result) => result,
            Err(err) => {
                eprintln!("{err:#}");
                code = exit::FAILED;
                continue;
            }
        };
        if result.ok() {
            println!("{}", result.summary());
        } else {
            eprintln!("{}", result.summary());
            for d in &result.differences {
                eprintln!("  {d}");
            }
            code = exit::FAILED;
        }
    }
    match resolved.require_dir(InputKind::Measurements, "the point-list derivation check") {
        Ok(measurements) => {
            let derived = points::derive(measurements)?;
            if compare_points(&points_path, &derived.list)? != exit::OK {
                code = exit::FAILED;
            }
        }
        Err(_) if resolved.measurements.is_none() => {
            println!("points: derivation not checked (pass --measurements DIR or set BLIS_MEASUREMENTS)")
        }
        Err(refusal) => {
            let refused = crate::outcome::refused(&refusal);
            if code == exit::OK {
                code = refused;
            }
        }
    }
    Ok(code)
}
