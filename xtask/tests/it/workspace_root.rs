//! One target directory serving two clones: cargo keeps one xtask binary fresh for both, so the
//! binary must read the clone it is run from, not the one it was compiled in. The second clone
//! here is a copy of what `fixtures check` reads (the workspace markers and the fixture folder)
//! with one fixture changed: a run that finds the copy fails naming that file, a run that read
//! the compile-time clone would pass.

use crate::support::{root, xtask};
use predicates::prelude::*;
use std::path::Path;

/// A second clone: the workspace markers and testdata/inferencex-workloads, seed3.json altered.
fn second_clone() -> tempfile::TempDir {
    let clone = tempfile::tempdir().unwrap();
    for rel in ["Cargo.toml", "harness/Cargo.toml", "oracles/Cargo.toml", "xtask/Cargo.toml"] {
        copy(&root().join(rel), &clone.path().join(rel));
    }
    let fixtures = root().join("testdata/inferencex-workloads");
    for entry in std::fs::read_dir(&fixtures).unwrap() {
        let entry = entry.unwrap();
        copy(&entry.path(), &clone.path().join("testdata/inferencex-workloads").join(entry.file_name()));
    }
    let seed3 = clone.path().join("testdata/inferencex-workloads/seed3.json");
    let text = std::fs::read_to_string(&seed3).unwrap();
    // The first input length, one larger (925 -> 926): still a valid file, no longer numpy's.
    let at = text.find("\"input_lens\": [").unwrap() + "\"input_lens\": [".len();
    let end = at + text[at..].find(',').unwrap();
    let first: u32 = text[at..end].parse().unwrap();
    std::fs::write(&seed3, format!("{}{}{}", &text[..at], first + 1, &text[end..])).unwrap();
    clone
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap();
}

#[test]
fn the_runtime_manifest_dir_of_cargo_run_selects_the_clone() {
    let clone = second_clone();
    xtask(clone.path())
        .env("CARGO_MANIFEST_DIR", clone.path().join("xtask"))
        .args(["fixtures", "check"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("input_lens[0]: file has 926"));
}

#[test]
fn without_cargo_the_working_directory_selects_the_clone() {
    let clone = second_clone();
    xtask(&clone.path().join("testdata/inferencex-workloads"))
        .env_remove("CARGO_MANIFEST_DIR")
        .args(["fixtures", "check"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("input_lens[0]: file has 926"));
}

#[test]
fn the_clone_this_binary_was_built_in_still_checks_clean() {
    xtask(&root()).env("CARGO_MANIFEST_DIR", root().join("xtask")).args(["fixtures", "check"]).assert().success();
}

#[test]
fn outside_every_clone_the_compile_time_root_is_the_last_fallback() {
    let outside = tempfile::tempdir().unwrap();
    xtask(outside.path()).env_remove("CARGO_MANIFEST_DIR").args(["fixtures", "check"]).assert().success();
}
