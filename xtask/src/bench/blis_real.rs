//! `cargo xtask bench blis-real --blis PATH`: points per second on a real `blis` (flag or
//! scenario dialect) with 1 worker and with every core, and a fully cached re-run. The points
//! are the llama-3.1-70b-instruct h100 vLLM scenarios of `--scenarios` (tp 2, 4, 8) at 1k1k
//! and concurrency 4, 16, 64 with each scenario's own engine settings: nine points a release
//! at f90a1e3a can model. One round (each point takes seconds). Every run's table must be
//! identical, or the bench fails. Results are recorded in docs/blis-arm.md.

use crate::inputs::{reads, Reads as _};
use anyhow::Result;
use harness::blis::{self, double, EngineSettings, PointSpec, RunOptions};
use harness::inputs::InputKind;
use harness::task::{exit, TaskError};

reads! {
    /// The binary, and the scenarios and trees its points read.
    pub struct Args { blis, catalog, registry, scenarios }
}

pub fn run(args: Args) -> Result<u8> {
    // A missing input is a refusal (exit 2), as on every command.
    crate::outcome::exit_code(measure(args))
}

fn measure(args: Args) -> Result<u8, TaskError> {
    let inputs = args.resolve();
    let needed_for = "the real-binary bench";
    let binary = blis::binary::require(&inputs, needed_for)?;
    let scenarios = inputs.require_dir(InputKind::Scenarios, needed_for)?;
    let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?;
    let registry = inputs.require_dir(InputKind::Registry, needed_for)?;
    let mut points = Vec::new();
    for tp in [2, 4, 8] {
        let file = scenarios.join(format!("llama-3.1-70b-instruct-h100-fp8-vllm-tp{tp}.yaml"));
        let text = harness::read::text(&file)?;
        let stated = blis::variant::stated_settings(&text)?;
        let engine = EngineSettings {
            max_num_seqs: stated.max_num_seqs.unwrap_or(256),
            max_num_batched_tokens: stated.max_num_batched_tokens.unwrap_or(8192),
            block_size: stated.block_size.unwrap_or(16),
            enable_prefix_caching: stated.enable_prefix_caching.unwrap_or(true),
        };
        for c in [4u32, 16, 64] {
            let n = 10 * c as usize;
            points.push(PointSpec {
                scenario_file: file.clone(),
                engine,
                isl: 1024,
                osl: 1024,
                concurrency: c,
                seed: 0,
                input_lens: double::synthetic_lengths(1024, n, u64::from(c)),
                output_lens: double::synthetic_lengths(1024, n, u64::from(c) + 7),
                form: Default::default(),
            });
        }
    }
    let base = RunOptions::new(binary, catalog.to_path_buf(), registry.to_path_buf());
    println!("bench blis-real: {} points, {} core(s), one round", points.len(), blis::default_workers());
    let times = super::blis::measure(&points, &base, 1)?;
    println!("  parallel speed-up (1 worker / all cores): {:.2}x", times[0] / times[1]);
    println!("  cached re-run speed-up (cold / warm): {:.0}x", times[2] / times[3]);
    println!("  every run's table identical: yes");
    Ok(exit::OK)
}
