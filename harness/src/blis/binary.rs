//! The `--blis PATH` input: refused before the first point when it cannot be run, so a bad
//! path is one clear message rather than one failure per point (docs/upstream.md §7).

use crate::inputs::{InputKind, Inputs, Refusal};
use crate::task::TaskError;
use anyhow::{Context, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// An empty, missing, directory or non-executable path is refused, naming `--blis`/`BLIS_BIN`.
pub fn validate(path: &Path, needed_for: &str) -> Result<PathBuf, Refusal> {
    let refuse = |detail: String| Refusal::new(InputKind::Blis, needed_for, detail);
    if path.as_os_str().is_empty() {
        return Err(refuse("the path is empty".into()));
    }
    let meta = std::fs::metadata(path).map_err(|e| refuse(format!("{}: {e}", path.display())))?;
    if meta.is_dir() {
        return Err(refuse(format!("{} is a directory, not an executable file", path.display())));
    }
    if !is_executable(&meta) {
        return Err(refuse(format!("{} is not executable", path.display())));
    }
    Ok(path.to_path_buf())
}

/// The binary from `--blis` or `BLIS_BIN`, validated; refused when neither was given.
pub fn require(inputs: &Inputs, needed_for: &str) -> Result<PathBuf, Refusal> {
    match inputs.get(InputKind::Blis) {
        Some(input) => validate(&input.path, needed_for).map_err(|mut refusal| {
            refusal.detail = format!("{} (from {})", refusal.detail, input.source_label());
            refusal
        }),
        None => Err(Refusal::new(InputKind::Blis, needed_for, "not supplied".into())),
    }
}

#[cfg(unix)]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.is_file() && meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(meta: &std::fs::Metadata) -> bool {
    meta.is_file()
}

/// SHA-256 of the binary's bytes, hex: part of every point's cache key, so a rebuilt binary
/// misses the cache.
pub fn digest(path: &Path) -> Result<String> {
    let mut file = std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
    let mut hasher = Sha256::new();
    std::io::copy(&mut file, &mut hasher).with_context(|| format!("reading {}", path.display()))?;
    Ok(hex(&hasher.finalize()))
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `lockfiles/blis-releases.lock`: `TAG SHA256` per line, `#` comments: the builds whose BLIS
/// figures the manifest holds (a release tag, or a commit for an untagged build), hashes only.
pub fn locked_builds() -> Result<std::collections::BTreeMap<String, String>, TaskError> {
    let path = crate::paths::workspace_root().join("lockfiles").join("blis-releases.lock");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| TaskError::Failed(anyhow::anyhow!("reading {}: {e}", path.display())))?;
    let mut locked = std::collections::BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        match fields.as_slice() {
            [tag, sha] if sha.len() == 64 && sha.chars().all(|c| c.is_ascii_hexdigit()) => {
                locked.insert(tag.to_string(), sha.to_lowercase());
            }
            _ => {
                return Err(TaskError::Failed(anyhow::anyhow!(
                    "{}:{}: expected `TAG SHA256` (64 hex digits), found {line:?}",
                    path.display(),
                    i + 1
                )))
            }
        }
    }
    Ok(locked)
}
