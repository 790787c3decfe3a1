//! The BLIS arm: one `blis run` per point (docs/upstream.md §7), on a bounded pool, cached
//! by content, each failure isolated and explained.
//!
//! `run_points` is the entry point: given the points (scenario file, resolved engine settings,
//! concurrency, the numpy length vectors and the seed) and the run options, it returns one
//! `PointOutcome` per point, in the given order. A failing point carries its reason and the
//! last lines of the binary's stderr; the caller drops its sweep (docs/upstream.md §6).
//! See docs/blis-arm.md.

pub mod arm;
pub mod baseline;
pub mod binary;
pub mod cache;
pub mod cost;
pub mod deployment;
pub mod determinism;
pub mod dialect;
pub mod double;
mod heartbeat;
pub mod ledger;
pub mod lengths;
pub mod metrics;
pub mod options;
pub mod point;
pub mod pool;
pub mod prepare;
pub mod progress;
pub mod records;
pub mod rendering;
pub mod runner;
pub mod seal;
pub mod sensitivity;
pub mod shard;
pub mod simulate;
pub mod variant;
pub mod workload;

pub use arm::task_sensitivity;
pub use cache::Cache;
pub use determinism::task_determinism;
pub use lengths::FixtureSet;
pub use metrics::PointMetrics;
pub use shard::Shard;
pub use variant::EngineSettings;

pub use options::{
    default_cache_dir, default_workers, disable_cache_in_this_process, CacheMode, ProgressMode, RunOptions,
    PASSED_PREFIX,
};
pub use point::{FailureKind, PointFailure, PointOutcome, PointRun, PointSpec, POINT_DIR};
pub use prepare::{command_line, Target};
pub use records::{outcomes_json, point_records, render_outcomes};
pub use runner::{estimated_cost, planned_keys, point_files, run_points, run_points_sealed, RunReport, RunSummary};
pub use seal::Sealed;
pub use simulate::MAX_METRICS_BYTES;

// The pieces the files of the arm share (each imports what it uses through `super::*`).
use crate::task::TaskError;
use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
