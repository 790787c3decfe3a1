//! Tidy: invariants of xtask's own source, kept by reading it.

use crate::support::root;
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A process of this build is started through `this_binary::command` alone: a path to the
/// file this process was started from may name another build by the time it is used (a rebuild
/// during a long gate), and the gate's second rendering must run the code of its first.
#[test]
fn only_this_binary_rs_starts_the_running_program() {
    let mut files = Vec::new();
    for krate in ["xtask/src", "harness/src"] {
        rust_files(&root().join(krate), &mut files);
    }
    assert!(files.len() > 50, "the walk found only {} files", files.len());
    let allowed = root().join("xtask/src/this_binary.rs");
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| **f != allowed)
        .filter(|f| std::fs::read_to_string(f).unwrap().contains("current_exe"))
        .map(|f| f.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert!(offenders.is_empty(), "use crate::this_binary::command() instead of current_exe in {offenders:?}");
}
