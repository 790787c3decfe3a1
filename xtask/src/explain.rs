//! `cargo xtask explain ID`: one gate figure opened down to the points that make it
//! (harness::gate::explain); a group id lists the figures under it.

use crate::inputs::{reads, Reads as _};
use anyhow::Result;
use harness::gate::{self, explain::Explained, tasks::Context};
use harness::task::exit;
use std::path::PathBuf;

reads! {
    /// Every input a figure's task may read (the gate's inputs).
    pub struct ExplainInputs { measurements, catalog, registry, scenarios, blis, releases }
}

#[derive(clap::Args)]
pub struct Args {
    /// A figure id of harness/figures.yaml (`headline/all/aic/ttft-shape`), or a group of them
    /// by its prefix (`headline/all/`), which lists the ids under it.
    #[arg(value_name = "ID")]
    id: String,
    #[command(flatten)]
    inputs: ExplainInputs,
    /// The figure manifest [default: harness/figures.yaml].
    #[arg(long, value_name = "FILE")]
    manifest: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<u8> {
    let manifest_path = args.manifest.clone().unwrap_or_else(gate::manifest_path);
    let manifest = gate::load_manifest(&manifest_path)?;
    let cx = Context {
        inputs: args.inputs.resolve(),
        manifest: manifest_path.clone(),
        lock: harness::lock::default_lock_path(),
    };
    // A binary that cannot run is bad input, said before any work (as `reproduce` says it).
    if cx.inputs.blis.is_some() {
        harness::blis::binary::require(&cx.inputs, "the gate's BLIS figures").map_err(anyhow::Error::new)?;
    }
    match gate::explain::explain(&manifest, &cx, &args.id)? {
        Explained::Figure { text, code } => {
            crate::outcome::say(&text, false)?;
            Ok(code)
        }
        Explained::Group { text } => {
            crate::outcome::say(&text, false)?;
            Ok(exit::OK)
        }
        Explained::Unknown { nearest } => {
            eprintln!(
                "error: {} is no figure id or group of {}; the nearest ids: {}",
                args.id,
                harness::paths::display(&manifest_path),
                nearest.join(", ")
            );
            Ok(exit::USAGE)
        }
    }
}
