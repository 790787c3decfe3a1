//! xtask's `#[test]` suites, one binary (each links the harness once). The libtest-mimic
//! suites (`harness = false`) stay beside this folder as their own binaries.

#[path = "../support/mod.rs"]
mod support;

mod bad_input_cli;
mod blis_cli;
mod doc_links;
mod explain_cli;
mod fixtures_cli;
mod flags_cli;
mod formatting;
mod lock_cli;
mod naming_cli;
mod points_cli;
mod readme;
mod reproduce_cli;
mod score_cli;
mod tidy;
mod workspace_root;
