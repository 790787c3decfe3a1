//! Records the git commit this binary is built from, for `cargo xtask --version` and the
//! reports: `unknown` when git or the repository is absent (a source tarball), never a failure;
//! and whether the sources compiled into it differ from that commit, so a report written by a
//! modified build does not claim to be the commit's.

use std::path::Path;
use std::process::Command;

/// What is compiled into the binary, from the workspace root: the three crates' sources and
/// manifests, the lock, and the data harness includes (`include_str!`).
const COMPILED: [&str; 9] = [
    "Cargo.toml",
    "Cargo.lock",
    "xtask/Cargo.toml",
    "xtask/build.rs",
    "xtask/src",
    "harness/Cargo.toml",
    "harness/src",
    "oracles",
    "testdata/python-round",
];

/// git's answer to `args`, trimmed (maybe empty), or None when git is missing or fails.
fn git_output(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok().filter(|o| o.status.success())?;
    Some(String::from_utf8(out.stdout).ok()?.trim().to_string())
}

/// git's non-empty answer to `args`.
fn git(args: &[&str]) -> Option<String> {
    git_output(args).filter(|s| !s.is_empty())
}

/// Asks cargo to rerun this script when `path` changes. Only a path that exists: cargo counts a
/// missing one as changed on every build, which would recompile xtask on every `cargo xtask`.
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask sits in the workspace");
    let root = root.to_str().expect("a UTF-8 workspace path");
    let commit = match git(&["rev-parse", "HEAD"]) {
        None => "unknown".to_string(),
        Some(commit) => {
            // Tracked changes and new files alike (a new module is compiled untracked).
            let mut status = vec!["-C", root, "status", "--porcelain", "--untracked-files=all", "--"];
            status.extend(COMPILED);
            match git_output(&status) {
                Some(changes) if changes.is_empty() => commit,
                Some(_) => format!("{commit} with uncommitted changes"),
                None => format!("{commit}, uncommitted changes unknown"),
            }
        }
    };
    println!("cargo:rustc-env=XTASK_COMMIT={commit}");
    // Rerun when what is compiled changes (a directory is scanned whole), so the mark follows an
    // edit and its undoing; and when the index does (a commit or a staged file).
    for path in COMPILED {
        watch(&Path::new(root).join(path));
    }
    // Rebuild when HEAD moves: HEAD itself (a checkout), the folder of the branch it names (a
    // commit writes the branch's file there, also when the branch was packed and had none), and
    // packed-refs (a branch whose ref was packed). In a worktree `.git` is a file naming the
    // real git dir, and branch refs live in the common dir, so ask git where each is.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        if let Some(index) = git(&["rev-parse", "--path-format=absolute", "--git-path", "index"]) {
            watch(Path::new(&index));
        }
        let head = Path::new(&dir).join("HEAD");
        watch(&head);
        let reference =
            std::fs::read_to_string(&head).ok().and_then(|t| t.strip_prefix("ref: ").map(|r| r.trim().to_string()));
        if let Some(reference) = reference {
            let common = git(&["rev-parse", "--git-common-dir"]).unwrap_or(dir);
            let branch = Path::new(&common).join(reference);
            watch(branch.parent().unwrap_or(&branch));
            watch(&Path::new(&common).join("packed-refs"));
        }
    }
}
