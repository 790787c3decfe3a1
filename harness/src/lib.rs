//! Inputs, figures, runners and reports.
//!
//! `oracles` knows the definitions; this crate knows where the data lives, how it is read and
//! checked, and how a figure is computed, compared and rendered. `xtask` is only a CLI over it.

pub mod atomic;
pub mod chart;
pub mod inputs;
pub mod interrupt;
pub mod parallel;
pub mod paths;
pub mod read;
pub mod task;
pub mod term;
pub mod version;

/// Test support: the one snapshot helper (feature `test-support`, enabled by tests only).
#[cfg(feature = "test-support")]
pub mod snapshots;
/// Test support: local git repositories standing in for the upstreams.
#[cfg(feature = "test-support")]
pub mod stand_in;
/// Test support: a copy of the manifest with one committed value tampered.
#[cfg(feature = "test-support")]
pub mod tamper;

pub mod blis;
pub mod corpus;
pub mod fixtures;
pub mod fuzz;
pub mod gate;
pub mod history;
pub mod lock;
pub mod oracle_report;
pub mod report_html;
pub mod score;

#[cfg(feature = "test-support")]
pub use insta;
