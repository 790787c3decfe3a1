//! Records the git commit this binary is built from, for `cargo xtask --version` and the
//! reports: `unknown` when git or the repository is absent (a source tarball), never a failure.

use std::path::Path;
use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=XTASK_COMMIT={commit}");
    // Rebuild when HEAD moves: HEAD itself (a checkout), the branch it names (a commit), and
    // packed-refs (a branch whose ref was packed). In a worktree `.git` is a file naming the
    // real git dir, so ask git where HEAD lives.
    let git_dir = Command::new("git")
        .args(["rev-parse", "--git-dir"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string());
    if let Some(dir) = git_dir {
        let dir = Path::new(&dir);
        let head = dir.join("HEAD");
        println!("cargo:rerun-if-changed={}", head.display());
        if let Ok(text) = std::fs::read_to_string(&head) {
            if let Some(reference) = text.strip_prefix("ref: ") {
                let reference = reference.trim();
                // A worktree's branch refs live in the common dir.
                let common = Command::new("git")
                    .args(["rev-parse", "--git-common-dir"])
                    .output()
                    .ok()
                    .and_then(|o| String::from_utf8(o.stdout).ok())
                    .map(|s| s.trim().to_string())
                    .unwrap_or_else(|| dir.display().to_string());
                let common = Path::new(&common);
                println!("cargo:rerun-if-changed={}", common.join(reference).display());
                println!("cargo:rerun-if-changed={}", common.join("packed-refs").display());
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
