//! The upstream lock: `lockfiles/upstream.lock` pins each upstream (blis-catalog,
//! blis-registry, blis-latency-kernel's scenarios and measurement corpora) to a commit and to
//! the SHA-256 of every file the harness reads; `cargo xtask vendor` materialises the trees
//! under `testdata/` from a source; `cargo xtask lock verify` proves they are the pinned ones.
//! docs/upstream.md §8 has the upstream facts; docs/lock.md the workflow.

pub mod fetch;
pub mod file;
pub mod glob;
pub mod tree;
pub mod vendor;
pub mod verify;

pub use file::{Lock, LockError, Upstream};
pub use verify::{verify, Outcome, TreeCheck, VerifyReport};

use crate::inputs::{InputKind, Inputs};
use crate::task::{TaskError, TaskResult};
use anyhow::{anyhow, Context};
use std::path::{Path, PathBuf};

/// `lockfiles/upstream.lock`.
pub fn default_lock_path() -> PathBuf {
    crate::paths::lockfiles().join("upstream.lock")
}

pub fn load(path: &Path) -> anyhow::Result<Lock> {
    let text = crate::read::text(path).context("reading the lock")?;
    file::parse(&text).map_err(|e| anyhow!("{}: {e}", crate::paths::display(path)))
}

/// The release gate's lock figure: the vendored trees (or explicit overrides) and, when
/// supplied, the measurements, checked against `lockfiles/upstream.lock`. A mismatch is not an
/// error here: it is the figure (`verified` false, and the report says which file); the gate
/// uses `verify` for the per-input status. Only an unreadable lock is an error.
pub fn task_verify(inputs: &Inputs, lock_path: &Path) -> TaskResult {
    let lock = load(lock_path).map_err(TaskError::Failed)?;
    Ok(verify(&lock, inputs).to_task_output())
}

/// The pins docs/upstream.md §8 gives, with no files yet: what `lock update` starts from when
/// there is no lock file.
pub fn default_pins() -> Lock {
    let glob = |g: &str| glob::Glob::parse(g).expect("built-in globs are valid");
    let copy = "inference-sim/inference-sim@129e0b823a5a36f7ef8bf1bda8ded5395c3a0ca8";
    let section = |kind, repo: &str, tag: Option<&str>, commit: &str, path: &str, globs: &[&str], via: &str| Upstream {
        kind,
        repo: format!("https://github.com/inference-sim/{repo}"),
        tag: tag.map(str::to_string),
        commit: commit.to_string(),
        path: path.to_string(),
        globs: globs.iter().map(|g| glob(g)).collect(),
        partial: None,
        via: Some(format!("{copy} testdata/blis/{via} (the team's copy)")),
        files: Vec::new(),
    };
    let mut catalog = section(
        InputKind::Catalog,
        "blis-catalog",
        Some("0.3.0"),
        "747a2213e13030ae675f9872c3e2a76b6b770d50",
        ".",
        &["hardware/*.yaml", "networks/*.yaml", "devices/storage.yaml", "models/*/graph.yaml"],
        "catalog",
    );
    catalog.partial = Some(
        "the team's copy holds 5 of 9 hardware descriptors (no h200), 1 of 3 networks and 20 of 32 \
         model graphs (none for deepseek-v3, gpt-oss-120b, llama-3.1-70b-instruct, minimax-m2.5, \
         minimax-m3, qwen3.5-397b-a17b); these gaps are the copy's, not the published run's"
            .to_string(),
    );
    Lock {
        upstreams: vec![
            catalog,
            section(
                InputKind::Registry,
                "blis-registry",
                Some("v0.2.0"),
                "46d930c0fb96e603b76c507acaf14910d48c4ccb",
                ".",
                &["coefficients/*.yaml"],
                "registry",
            ),
            section(
                InputKind::Scenarios,
                "blis-latency-kernel",
                None,
                "545ac11b7954934e8add404ffcb586803e6f7777",
                "testdata/aisimulate",
                &["*.yaml"],
                "scenarios",
            ),
            section(
                InputKind::Measurements,
                "blis-latency-kernel",
                None,
                "545ac11b7954934e8add404ffcb586803e6f7777",
                "testdata/measurements",
                &["*.json"],
                "measurements",
            ),
        ],
    }
}

/// A measurements folder against the pinned corpus hashes, on its own (for a caller that has
/// a folder rather than resolved `Inputs`).
pub fn check_measurements(lock: &Lock, dir: &Path) -> TreeCheck {
    let input = crate::inputs::InputPath {
        kind: InputKind::Measurements,
        path: dir.to_path_buf(),
        origin: crate::inputs::Origin::Flag,
    };
    verify::check_section(lock.get(InputKind::Measurements), Some(&input))
}
