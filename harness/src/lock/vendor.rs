//! Materialising the vendored trees from a source, and rewriting the lock from one.
//!
//! A source is a folder holding, for each upstream, either `<section>/` (the team's artifact
//! copy: `catalog/`, `registry/`, `scenarios/`, `measurements/`) or `<repo name>/<path>` (a
//! checkout of each upstream side by side, which is also what `--fetch` clones into).

use super::file::{self, Lock, Upstream};
use super::tree::{self, Scan, COMMIT_STAMP, MANIFEST_STAMP};
use super::verify;
use anyhow::{anyhow, bail, Context, Result};
use oracles::hashing::{self, ManifestEntry};
use std::fs;
use std::path::{Path, PathBuf};

/// Where `upstream`'s globs are rooted inside `from`.
pub fn source_root(upstream: &Upstream, from: &Path) -> Result<PathBuf> {
    let by_section = from.join(upstream.name());
    let mut by_repo = from.join(upstream.repo_basename());
    if upstream.path != "." {
        by_repo = by_repo.join(&upstream.path);
    }
    for candidate in [&by_section, &by_repo] {
        if candidate.is_dir() {
            return Ok(candidate.clone());
        }
    }
    bail!(
        "no source for [{}] in {}: expected {}/ (artifact copy) or {}/ (checkout of {})",
        upstream.name(),
        from.display(),
        upstream.name(),
        by_repo.strip_prefix(from).unwrap_or(&by_repo).display(),
        upstream.repo
    )
}

/// Reads a source for one section: every glob must match something, and nothing may be a
/// symlink or otherwise unreadable.
fn scan_source(upstream: &Upstream, root: &Path) -> Result<Scan> {
    let scan = tree::scan_globs(root, &upstream.globs).with_context(|| format!("reading {}", root.display()))?;
    for (glob, hits) in upstream.globs.iter().zip(&scan.glob_hits) {
        if *hits == 0 {
            bail!("[{}] glob {glob} matches nothing in {}", upstream.name(), root.display());
        }
    }
    if let Some((path, why)) = scan.problems.iter().next() {
        bail!("[{}] {}: {why}", upstream.name(), root.join(path).display());
    }
    Ok(scan)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vendored {
    pub name: &'static str,
    pub dest: PathBuf,
    pub files: usize,
    /// Files upstream has under the globs that a `partial` section does not pin: left out, so
    /// the tree is exactly what the lock pins (a full upstream checkout has more than the
    /// team's copy the lock was written from).
    pub not_pinned: usize,
}

/// Copies each vendored section's glob matches from `from` into `testdata/<section>`, checks
/// them against the lock, stamps them, and swaps them in. Every tree is staged and checked
/// before any is swapped, so a failure anywhere leaves every previous tree as it was.
pub fn vendor_from(lock: &Lock, from: &Path, testdata: &Path) -> Result<Vec<Vendored>> {
    vendor_sections(lock.vendored(), from, testdata)
}

/// `vendor_from` over the given sections.
fn vendor_sections<'a>(
    sections: impl Iterator<Item = &'a Upstream>,
    from: &Path,
    testdata: &Path,
) -> Result<Vec<Vendored>> {
    fs::create_dir_all(testdata).with_context(|| format!("creating {}", testdata.display()))?;
    let mut staged = Vec::new();
    for u in sections {
        let root = source_root(u, from)?;
        let mut scan = scan_source(u, &root)?;
        let mut not_pinned = 0;
        if u.partial.is_some() {
            let pinned: std::collections::BTreeSet<&str> = u.files.iter().map(|e| e.path.as_str()).collect();
            let before = scan.files.len();
            scan.files.retain(|path, _| pinned.contains(path.as_str()));
            not_pinned = before - scan.files.len();
        }
        let stage = tempfile::Builder::new()
            .prefix(&format!(".vendor-{}-", u.name()))
            .tempdir_in(testdata)
            .with_context(|| format!("creating a staging folder in {}", testdata.display()))?;
        let mut entries = Vec::new();
        for rel in scan.files.keys() {
            let bytes = crate::read::bytes(&root.join(rel))?;
            let target = stage.path().join(rel);
            fs::create_dir_all(target.parent().expect("a file path has a parent"))?;
            fs::write(&target, &bytes).with_context(|| format!("writing {}", target.display()))?;
            // Hash what was copied, not what was scanned, so a source changing underneath is
            // caught by the comparison below.
            entries.push(ManifestEntry { digest: hashing::sha256(&bytes), path: rel.clone() });
        }
        let copied = Scan { files: entries.iter().map(|e| (e.path.clone(), e.digest)).collect(), ..Scan::default() };
        let c = verify::compare(u, &copied);
        if !c.ok() {
            let mut why = verify::render_diff(u, &c);
            why.push_str("the source is not what the lock pins; if upstream moved on purpose, run `cargo xtask lock update --from DIR` and review the diff");
            bail!("{} does not match the lock:\n{why}", root.display());
        }
        fs::write(stage.path().join(COMMIT_STAMP), format!("{}\n", u.commit))?;
        fs::write(stage.path().join(MANIFEST_STAMP), hashing::render_manifest(&entries))?;
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(stage.path(), fs::Permissions::from_mode(0o755))?;
        staged.push((u, stage, entries.len(), not_pinned));
    }
    let mut done = Vec::new();
    for (u, stage, files, not_pinned) in staged {
        let dest = testdata.join(u.name());
        swap_in(stage, &dest)?;
        done.push(Vendored { name: u.name(), dest, files, not_pinned });
    }
    Ok(done)
}

/// Replaces `dest` with the staged folder: the old tree is first renamed aside (same
/// filesystem, so each rename is atomic), then the new one renamed in; if that fails the old
/// one is put back. The old tree is deleted only once the new one is in place.
fn swap_in(stage: tempfile::TempDir, dest: &Path) -> Result<()> {
    let parent = dest.parent().expect("dest is testdata/<section>");
    let aside_dir = tempfile::Builder::new().prefix(".vendor-old-").tempdir_in(parent)?;
    let aside = aside_dir.path().join("tree");
    let had_old = match fs::symlink_metadata(dest) {
        Ok(_) => {
            fs::rename(dest, &aside).with_context(|| format!("moving {} aside", dest.display()))?;
            true
        }
        Err(_) => false,
    };
    if let Err(e) = fs::rename(stage.path(), dest) {
        if had_old {
            fs::rename(&aside, dest).with_context(|| format!("restoring {}", dest.display()))?;
        }
        return Err(anyhow!(e).context(format!("moving the new tree into {}", dest.display())));
    }
    // The staged folder now lives at dest; do not let its guard delete anything.
    let _ = stage.keep();
    drop(aside_dir);
    Ok(())
}

/// What `lock update` changed in one section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SectionUpdate {
    pub name: &'static str,
    pub files: usize,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
}

/// The lock rewritten from `from`: pins (repo, tag, commit, path, globs, partial, via) kept
/// from `base`, every `file` line recomputed. Files that are not UTF-8 are refused: everything
/// the harness reads is YAML or JSON, so such a file is damaged, not data to pin.
pub fn relock(base: &Lock, from: &Path) -> Result<(Lock, Vec<SectionUpdate>)> {
    let mut lock = base.clone();
    let mut updates = Vec::new();
    for u in lock.upstreams.iter_mut() {
        let root = source_root(u, from)?;
        let scan = scan_source(u, &root)?;
        if let Some(path) = scan.not_utf8.iter().next() {
            bail!("{}: not valid UTF-8 (every locked file is YAML or JSON)", root.join(path).display());
        }
        let new: Vec<ManifestEntry> =
            scan.files.iter().map(|(p, d)| ManifestEntry { digest: *d, path: p.clone() }).collect();
        let c = verify::compare(u, &scan);
        updates.push(SectionUpdate {
            name: u.name(),
            files: new.len(),
            added: c.extra,
            removed: c.missing,
            changed: c.changed.into_iter().map(|ch| ch.path).collect(),
        });
        u.files = new;
        hashing::sort_entries(&mut u.files);
    }
    // What we write must be what we can read back.
    let text = file::render(&lock);
    file::parse(&text).map_err(|e| anyhow!("internal: the rewritten lock does not parse: {e}"))?;
    Ok((lock, updates))
}

/// `lock update`: relock and write atomically.
pub fn update_lock_file(lock_path: &Path, from: &Path) -> Result<Vec<SectionUpdate>> {
    // Only nothing at all is a fresh lock: a dangling link or a FIFO there is refused.
    let base = match fs::symlink_metadata(lock_path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => super::default_pins(),
        _ => file::parse(&crate::read::text(lock_path)?).map_err(|e| anyhow!("{}: {e}", lock_path.display()))?,
    };
    let (lock, updates) = relock(&base, from)?;
    crate::atomic::write(lock_path, file::render(&lock).as_bytes())?;
    Ok(updates)
}

/// `vendor --fetch`: clone every upstream at its locked commit into a temporary folder (gone
/// afterwards), then vendor from it as from any checkout: the three trees and, into
/// `testdata/measurements` (git-ignored, the corpora's default once there), the corpora.
pub fn vendor_fetched(lock: &Lock, testdata: &Path) -> Result<Vec<Vendored>> {
    let clones = tempfile::tempdir().context("creating a folder for the clones")?;
    // SIGINT/SIGTERM caught while cloning (git, in this process group, gets a terminal's
    // Ctrl-C too): the clones, hundreds of MB, are removed before the exit, never left behind.
    let fetched = crate::interrupt::interruptible(|| super::fetch::fetch_all(lock, clones.path()));
    if crate::interrupt::interrupted() {
        drop(clones);
        eprintln!("vendor: interrupted; the temporary clones removed");
        std::process::exit(130);
    }
    let from = fetched?;
    vendor_sections(lock.upstreams.iter(), &from, testdata)
}
