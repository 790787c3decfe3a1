//! Local git repositories standing in for the upstreams, for `vendor --fetch` tests (there is
//! no network here). Test support only (feature `test-support`).

use crate::lock::file::Lock;
use std::fs;
use std::path::{Path, PathBuf};

/// Where each lock section lives upstream: (repository, section, path inside the repository).
pub const LAYOUT: [(&str, &str, &str); 4] = [
    ("blis-catalog", "catalog", "."),
    ("blis-registry", "registry", "."),
    ("blis-latency-kernel", "scenarios", "testdata/aisimulate"),
    ("blis-latency-kernel", "measurements", "testdata/measurements"),
];

/// `git -C dir args...` with a throwaway identity; its trimmed stdout. Panics with git's
/// stderr when it fails (a test's set-up, not what it checks).
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-c", "commit.gpgsign=false"])
        .args(args)
        .output()
        .expect("running git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("git prints UTF-8").trim().to_string()
}

/// Copies a tree, leaving out our stamps (`.upstream-*`), which upstream does not have.
pub fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with(".upstream-") {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &to.join(&name));
        } else {
            fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// Points the upstreams of `lock` from repository `repo` at `dir` (a file:// URL) and `commit`.
pub fn repin(lock: &mut Lock, repo: &str, dir: &Path, commit: &str) {
    for u in lock.upstreams.iter_mut().filter(|u| u.repo_basename() == repo) {
        u.repo = format!("file://{}", dir.display());
        u.commit = commit.to_string();
    }
}

/// Lays each section's folder (`source(section)`) out under `remotes` as upstream has it
/// ([`LAYOUT`]), commits every repository, and repins `lock` to the stand-ins.
pub fn stand_in_upstreams(remotes: &Path, source: impl Fn(&str) -> PathBuf, lock: &mut Lock) {
    for (repo, section, path) in LAYOUT {
        let root = remotes.join(repo);
        copy_tree(&source(section), &if path == "." { root } else { root.join(path) });
    }
    let mut repos: Vec<&str> = LAYOUT.iter().map(|(repo, _, _)| *repo).collect();
    repos.dedup();
    for repo in repos {
        let dir = remotes.join(repo);
        git(&dir, &["init", "--quiet"]);
        git(&dir, &["add", "."]);
        git(&dir, &["commit", "--quiet", "-m", "stand-in upstream"]);
        let head = git(&dir, &["rev-parse", "HEAD"]);
        repin(lock, repo, &dir, &head);
    }
}
