//! Readers for the measurement corpora (docs/upstream.md §5) and the scenario files.
//! Each reader is strict: a bad value is an error naming the file and the path inside it.

pub mod aisimulate;
pub mod corpora;
pub mod e2e;
pub mod inferencex;
pub mod scenario;
pub mod strict;
