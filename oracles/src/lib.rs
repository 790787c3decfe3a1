//! Definitions that know nothing of files or commands: numpy's legacy generator, the
//! InferenceX workload draw, AISimulate's and upstream's error metrics, hashing, tier rules.
//! Everything here is a pure function over plain data, tested on known answers someone else
//! wrote.

pub mod accuracy;
pub mod bootstrap;
pub mod hashing;
pub mod numpy;
pub mod scoring;
pub mod tiers;
pub mod workload;
