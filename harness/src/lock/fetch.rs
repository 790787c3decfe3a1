//! `vendor --fetch`: clone each upstream at its locked commit, where a network is available.
//!
//! BLK `scripts/fetch-testdata.sh` (docs/upstream.md §8): check out the locked commit and require
//! HEAD to equal it before copying anything. A tag or branch could move; a full commit id
//! cannot, so the commit is what is checked out, and HEAD is read back to prove it.

use super::file::{check_commit, Lock};
use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

fn git(dir: Option<&Path>, args: &[&str]) -> Result<String> {
    let mut cmd = Command::new("git");
    if let Some(dir) = dir {
        cmd.arg("-C").arg(dir);
    }
    // Never prompt for credentials: a missing network or a private URL fails fast.
    cmd.args(args).env("GIT_TERMINAL_PROMPT", "0");
    let out = cmd.output().with_context(|| format!("running git {}", args.join(" ")))?;
    if !out.status.success() {
        bail!("git {} failed ({}): {}", args.join(" "), out.status, String::from_utf8_lossy(&out.stderr).trim());
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The full commit id HEAD points at in `checkout`.
pub fn head(checkout: &Path) -> Result<String> {
    git(Some(checkout), &["rev-parse", "--verify", "HEAD^{commit}"])
}

/// Fails unless `checkout`'s HEAD is exactly `commit`.
pub fn require_head(checkout: &Path, commit: &str) -> Result<()> {
    let found = head(checkout)?;
    if found != commit {
        bail!("{}: HEAD is {found}, the lock says {commit}", checkout.display());
    }
    Ok(())
}

/// Clones `url` into `into` and checks out `commit` detached, then requires HEAD == commit.
pub fn clone_at(url: &str, commit: &str, into: &Path) -> Result<()> {
    check_commit(commit).map_err(anyhow::Error::msg)?;
    let into_text = into.to_str().context("clone target is not a UTF-8 path")?;
    git(None, &["clone", "--quiet", "--no-checkout", "--", url, into_text])
        .with_context(|| format!("cloning {url} (is a network available?)"))?;
    git(Some(into), &["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", commit])
        .with_context(|| format!("checking out {commit} in {url}"))?;
    require_head(into, commit)
}

/// Clones every repository the lock names (the trees' and the corpora's), each once, into
/// `workdir/<repo name>`, the layout `vendor_from` looks for. Returns `workdir`.
pub fn fetch_all(lock: &Lock, workdir: &Path) -> Result<PathBuf> {
    let mut done: Vec<(&str, &str)> = Vec::new();
    for u in &lock.upstreams {
        if let Some((_, commit)) = done.iter().find(|(repo, _)| *repo == u.repo) {
            if *commit != u.commit {
                bail!("{} is locked at two commits ({commit} and {})", u.repo, u.commit);
            }
            continue;
        }
        clone_at(&u.repo, &u.commit, &workdir.join(u.repo_basename()))?;
        done.push((&u.repo, &u.commit));
    }
    Ok(workdir.to_path_buf())
}
