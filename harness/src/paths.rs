//! Paths resolved from the workspace root, never from the working directory alone, so every task
//! behaves the same wherever it is started.
//!
//! The root is found at run time, as rust-analyzer's xtask does: one `CARGO_TARGET_DIR` often
//! serves several clones, and cargo then keeps one binary fresh for all of them. A root baked in
//! at compile time would make that binary read and write the clone it was built in, not the one
//! the user is in. So the candidates are, in order: the `CARGO_MANIFEST_DIR` that `cargo run` and
//! `cargo test` set for the running package, the working directory, and only then the directory
//! this crate was compiled in. From each, the search goes upward to the first directory that
//! holds the workspace (see [`holds_workspace`]).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The files that make a directory the blis-repro workspace root: the workspace manifest and the
/// two library crates beside it.
const MARKERS: [&str; 3] = ["Cargo.toml", "harness/Cargo.toml", "oracles/Cargo.toml"];

/// Whether `dir` is a blis-repro workspace root.
pub fn holds_workspace(dir: &Path) -> bool {
    MARKERS.iter().all(|m| dir.join(m).is_file())
        && std::fs::read_to_string(dir.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]"))
}

/// Where the root was looked for, in order (see the module's documentation).
pub fn candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(dir) = std::env::var_os("CARGO_MANIFEST_DIR") {
        out.push(PathBuf::from(dir));
    }
    if let Ok(dir) = std::env::current_dir() {
        out.push(dir);
    }
    out
}

/// The compile-time root: the last fallback, for a binary started outside any clone.
fn compiled_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new(env!("CARGO_MANIFEST_DIR"))).to_path_buf()
}

/// The first workspace root found upward from each of `candidates`, else `fallback` when it holds
/// the workspace; otherwise an error naming every place looked at.
pub fn find_root(candidates: &[PathBuf], fallback: &Path) -> Result<PathBuf, String> {
    for start in candidates {
        if let Some(root) = start.ancestors().find(|dir| holds_workspace(dir)) {
            return Ok(root.to_path_buf());
        }
    }
    if holds_workspace(fallback) {
        return Ok(fallback.to_path_buf());
    }
    let looked: Vec<String> = candidates.iter().map(|c| format!("{} (and above)", c.display())).collect();
    Err(format!(
        "cannot find the blis-repro workspace (a directory holding {}): looked upward from {} and at {}, \
         the directory this binary was built in; run it from inside a clone",
        MARKERS.join(", "),
        if looked.is_empty() { "nowhere".to_string() } else { looked.join(", ") },
        fallback.display()
    ))
}

/// The root of the blis-repro workspace, found once per process; an error when none holds it.
pub fn try_workspace_root() -> Result<&'static Path, &'static str> {
    static ROOT: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    match ROOT.get_or_init(|| find_root(&candidates(), &compiled_root())) {
        Ok(root) => Ok(root),
        Err(e) => Err(e),
    }
}

/// The root of the blis-repro workspace. `xtask` checks [`try_workspace_root`] before any task
/// runs and reports the error; past that point the root is known to exist.
pub fn workspace_root() -> PathBuf {
    match try_workspace_root() {
        Ok(root) => root.to_path_buf(),
        Err(e) => panic!("{e}"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_workspace(dir: &Path) {
        for m in MARKERS {
            let path = dir.join(m);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, if m == "Cargo.toml" { "[workspace]\n" } else { "[package]\n" }).unwrap();
        }
    }

    #[test]
    fn the_first_candidate_holding_the_workspace_wins_over_the_fallback() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fake_workspace(a.path());
        fake_workspace(b.path());
        let inner = b.path().join("xtask/src");
        std::fs::create_dir_all(&inner).unwrap();
        assert_eq!(find_root(&[inner], a.path()).unwrap(), b.path());
    }

    #[test]
    fn a_candidate_outside_any_workspace_falls_through_to_the_next() {
        let (outside, ws) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fake_workspace(ws.path());
        let got = find_root(&[outside.path().to_path_buf(), ws.path().to_path_buf()], outside.path());
        assert_eq!(got.unwrap(), ws.path());
    }

    #[test]
    fn a_package_manifest_alone_is_not_the_root() {
        let ws = tempfile::tempdir().unwrap();
        fake_workspace(ws.path());
        // harness/ holds a Cargo.toml but not the workspace: the search goes on upward.
        assert_eq!(find_root(&[ws.path().join("harness")], Path::new("/nonexistent")).unwrap(), ws.path());
    }

    #[test]
    fn no_workspace_anywhere_is_reported_with_every_place_looked_at() {
        let outside = tempfile::tempdir().unwrap();
        let gone = outside.path().join("deleted-clone");
        let err = find_root(&[outside.path().to_path_buf()], &gone).unwrap_err();
        assert!(err.contains("cannot find the blis-repro workspace"), "{err}");
        assert!(err.contains(&outside.path().display().to_string()), "{err}");
        assert!(err.contains("deleted-clone"), "{err}");
    }
}
