//! Paths resolved from the workspace root (this crate's manifest directory), never from the
//! working directory, so every task behaves the same wherever it is started.

use std::path::{Path, PathBuf};

/// The root of the blis-repro workspace.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("harness/ lives inside the workspace root")
        .to_path_buf()
}

pub fn testdata() -> PathBuf {
    workspace_root().join("testdata")
}

pub fn lockfiles() -> PathBuf {
    workspace_root().join("lockfiles")
}

pub fn snapshots() -> PathBuf {
    workspace_root().join("snapshots")
}

/// Renders `path` relative to the workspace root when it lies inside it, so reports and
/// snapshots never carry this machine's absolute paths.
pub fn display(path: &Path) -> String {
    let root = workspace_root();
    match path.strip_prefix(&root) {
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}
