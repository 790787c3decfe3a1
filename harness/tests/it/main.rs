//! harness's `#[test]` suites, one binary (each test binary links the harness once). The
//! libtest-mimic suites (`harness = false`: one trial per fixture, corpus or input) stay beside
//! this folder as their own binaries.

#[path = "../support/mod.rs"]
mod support;

mod aisimulate_summary_reader;
mod aisimulate_test_rows;
mod blis_double;
mod blis_hygiene;
mod blis_probe;
mod blis_runner;
mod blis_sealed;
mod blis_sensitivity;
mod gate;
mod lock_tamper;
mod numpy_known_answers;
mod tidy;
