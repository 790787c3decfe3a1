//! Records the git commit this binary is built from, for `cargo xtask --version` and the
//! reports: `unknown` when git or the repository is absent (a source tarball), never a failure.

use std::path::Path;
use std::process::Command;

/// git's answer to `args`, trimmed, or None when git is missing or fails.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.trim().to_string()).filter(|s| !s.is_empty())
}

fn main() {
    let commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=XTASK_COMMIT={commit}");
    // Rebuild when HEAD moves: HEAD itself (a checkout), the branch it names (a commit), and
    // packed-refs (a branch whose ref was packed). In a worktree `.git` is a file naming the
    // real git dir, and branch refs live in the common dir, so ask git where each is.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let head = Path::new(&dir).join("HEAD");
        println!("cargo:rerun-if-changed={}", head.display());
        let reference =
            std::fs::read_to_string(&head).ok().and_then(|t| t.strip_prefix("ref: ").map(|r| r.trim().to_string()));
        if let Some(reference) = reference {
            let common = git(&["rev-parse", "--git-common-dir"]).unwrap_or(dir);
            println!("cargo:rerun-if-changed={}", Path::new(&common).join(reference).display());
            println!("cargo:rerun-if-changed={}", Path::new(&common).join("packed-refs").display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
