//! The determinism figure: one point run twice outside the cache must give bit-identical
//! metrics (docs/upstream.md §7: a point is a pure function of binary, scenario variant,
//! workload and seed).

use super::{run_points, CacheMode, EngineSettings, PointSpec, ProgressMode, RunOptions};
use crate::inputs::{InputKind, Inputs};
use crate::task::{TaskError, TaskOutput, TaskResult};
use anyhow::{anyhow, Context, Result};
use std::path::Path;

const ISL: u32 = 1024;
const OSL: u32 = 1024;
const CONCURRENCY: u32 = 4;

/// The point the figure runs: the first vLLM scenario by file name that the binary can model
/// (any, for the scenario dialect), its own engine settings (prefix caching on when the file
/// does not say: vLLM's default), 1024:1024 at concurrency 4, with the committed numpy seed-0
/// vectors of that point.
pub fn determinism_point(scenarios: &Path) -> Result<PointSpec> {
    determinism_point_for(scenarios, &super::Target::Scenario)
}

pub fn determinism_point_for(scenarios: &Path, target: &super::Target) -> Result<PointSpec> {
    let mut files: Vec<_> = std::fs::read_dir(scenarios)
        .with_context(|| format!("listing {}", scenarios.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let is_vllm = |p: &&std::path::PathBuf| p.file_name().is_some_and(|n| n.to_string_lossy().contains("vllm"));
    let modelled = |p: &&std::path::PathBuf| match target {
        super::Target::Scenario => true,
        super::Target::Flags(release) => crate::read::text(p).is_ok_and(|text| {
            let any = EngineSettings {
                max_num_seqs: 1,
                max_num_batched_tokens: 1,
                block_size: 1,
                enable_prefix_caching: true,
            };
            super::dialect::flag_deployment(&text, &any, release).is_ok()
        }),
    };
    let file = files
        .iter()
        .filter(modelled)
        .find(is_vllm)
        .or(files.iter().find(modelled))
        .ok_or_else(|| anyhow!("{} holds no scenario file this binary can model", scenarios.display()))?;
    let text = crate::read::text(file)?;
    let stated = super::variant::stated_settings(&text).with_context(|| format!("{}", file.display()))?;
    let missing = |f: &str| anyhow!("{}: pools[0].engine.{f} is not stated", file.display());
    let engine = EngineSettings {
        max_num_seqs: stated.max_num_seqs.ok_or_else(|| missing("max_num_seqs"))?,
        max_num_batched_tokens: stated.max_num_batched_tokens.ok_or_else(|| missing("max_num_batched_tokens"))?,
        block_size: stated.block_size.ok_or_else(|| missing("block_size"))?,
        enable_prefix_caching: stated.enable_prefix_caching.unwrap_or(true),
    };
    let fixtures = super::FixtureSet::load(&crate::fixtures::default_dir(), &[0])?;
    fixtures.point(file.clone(), engine, ISL, OSL, CONCURRENCY, 0)
}

pub fn task_determinism(inputs: &Inputs) -> TaskResult {
    task_determinism_with(inputs, None)
}

/// `task_determinism` with a per-point timeout other than the default (`--timeout`).
pub fn task_determinism_with(inputs: &Inputs, timeout: Option<std::time::Duration>) -> TaskResult {
    let needed_for = "the BLIS determinism figure";
    let binary = super::binary::require(inputs, needed_for)?;
    let scenarios = inputs.require_dir(InputKind::Scenarios, needed_for)?;
    let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?;
    let registry = inputs.require_dir(InputKind::Registry, needed_for)?;
    let mut opts = RunOptions::new(binary, catalog.to_path_buf(), registry.to_path_buf());
    let sealed = super::Sealed::of(&opts.binary, &opts.blis_root)?;
    let target = super::Target::detect(&opts, &sealed, false)?;
    let point = determinism_point_for(scenarios, &target)?;
    drop(sealed);
    opts.cache = CacheMode::Off;
    opts.workers = 1;
    if let Some(t) = timeout {
        opts.timeout = t;
    }
    opts.progress = ProgressMode::Silent;
    let mut runs = Vec::new();
    let mut records = Vec::new();
    for _ in 0..2 {
        let report = run_points(std::slice::from_ref(&point), &opts)?;
        records.extend(super::point_records(&report.outcomes));
        let outcome = report.outcomes.into_iter().next().expect("one point in, one outcome out");
        match outcome.result {
            Ok(m) => runs.push(m),
            Err(f) => {
                return Err(TaskError::Failed(anyhow!(
                    "{}: {:?}: {}\n{}",
                    outcome.label,
                    f.kind,
                    f.reason,
                    f.stderr_tail.join("\n")
                )))
            }
        }
    }
    let (a, b) = (&runs[0], &runs[1]);
    let fields = [
        ("tpot_ms", a.tpot_ms.to_bits() == b.tpot_ms.to_bits()),
        ("ttft_ms", a.ttft_ms.to_bits() == b.ttft_ms.to_bits()),
        ("completed", a.completed == b.completed),
        ("tpot_samples", a.tpot_samples == b.tpot_samples),
        ("ttft_samples", a.ttft_samples == b.ttft_samples),
        ("metrics file", !a.metrics_sha256.is_empty() && a.metrics_sha256 == b.metrics_sha256),
    ];
    let identical = fields.iter().all(|(_, same)| *same);
    let mut report = format!(
        "BLIS determinism: one point, two runs outside the cache, summaries and metrics files compared\npoint: {}\n",
        point.label()
    );
    for (name, same) in fields {
        report += &format!("  {name:<13} {}\n", if same { "bit-identical" } else { "DIFFERS" });
    }
    report += &format!("verdict: {}\n", if identical { "deterministic" } else { "NOT deterministic" });
    let mut out = TaskOutput { report, blis_points: records, ..TaskOutput::default() };
    out.check("bit_identical", identical);
    out.count("completed", a.completed);
    Ok(out)
}
