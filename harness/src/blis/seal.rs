//! A sealed run: the binary and the release files it reads, copied once into a private folder,
//! hashed from that copy and made read-only; the child runs there (docs/blis-arm.md, Sealed
//! runs).
//!
//! The cache key is built from the copy, and the copy is all the child can read relative to its
//! working directory, so what is keyed is what runs: an edit to the release's folder during a
//! run changes nothing the run reads, and a file a release reads that was never copied fails
//! loudly (missing) instead of being read unhashed. Build systems that run actions on exactly
//! their declared inputs (Bazel's sandbox, Nix's store) do it for the same reason.

use super::binary::hex;
use super::cache::KeyedFile;
use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// What a release reads from its working directory besides the binary: `defaults.yaml`,
/// `hardware_config.json` and `model_configs/` (every release from v0.4; the releases'
/// `BUILDINFO` lists them as `runtime_files`), and the oldest releases' `coefficients.yaml` and
/// `workloads.yaml`. Only these are copied: the folder may hold anything else (a binary's own
/// directory may be `/usr/local/bin`).
pub const RELEASE_FILES: [&str; 5] =
    ["defaults.yaml", "hardware_config.json", "model_configs", "coefficients.yaml", "workloads.yaml"];

/// A seal's folder under the temporary folder: `blis-seal-XXXXXX`.
const PREFIX: &str = "blis-seal-";
/// The file in a seal's folder its process holds an exclusive `flock` on while it runs.
const LOCK: &str = "lock";

/// The most a seal copies (binary and files together): a release's files are a few MB.
pub const MAX_SEALED_BYTES: u64 = 4 << 30;
/// Folders nested deeper than this (or a link that loops) are refused.
const MAX_DEPTH: usize = 32;

/// The private copy a run reads: `program/<name>` and `root/` (the release files), plus
/// `trees/<name>` for folders passed by path (the scenario dialect's catalog and registry).
pub struct Sealed {
    /// Removed on drop, after `Drop` makes it writable again.
    dir: tempfile::TempDir,
    program: PathBuf,
    root: PathBuf,
    /// The binary and folder the user named, for messages and records.
    binary: PathBuf,
    origin_root: PathBuf,
    binary_sha256: String,
    /// Each release file present in the root, hashed from the copy (name, sha256 of the file
    /// or of the tree's manifest), in `RELEASE_FILES` order.
    files: Vec<KeyedFile>,
    /// Folders copied under `trees/`: (where they came from, where the copy lies).
    trees: Vec<(PathBuf, PathBuf)>,
    copied: u64,
    /// Every entry of the copy as sealed, checked again around every point (`Sealed::check`).
    status: Vec<(PathBuf, Status)>,
    /// The open `lock` file, exclusively `flock`ed while this seal lives (`clear_stale`).
    _lock: std::fs::File,
}

impl Sealed {
    /// Copies `binary` and the release files of `root` into a new private folder.
    pub fn of(binary: &Path, root: &Path) -> Result<Sealed> {
        static CLEARED: std::sync::Once = std::sync::Once::new();
        CLEARED.call_once(|| {
            clear_stale(&std::env::temp_dir());
        });
        let dir = tempfile::Builder::new().prefix(PREFIX).tempdir().with_context(|| {
            format!("creating a folder for the sealed copy under {}", std::env::temp_dir().display())
        })?;
        let lock = hold_lock(dir.path())?;
        let name = binary.file_name().map(|n| n.to_os_string()).unwrap_or_else(|| "blis".into());
        std::fs::create_dir(dir.path().join("program")).context("creating the sealed copy's program folder")?;
        let program = dir.path().join("program").join(name);
        let mut sealed = Sealed {
            root: dir.path().join("root"),
            dir,
            program,
            binary: binary.to_path_buf(),
            origin_root: root.to_path_buf(),
            binary_sha256: String::new(),
            files: Vec::new(),
            trees: Vec::new(),
            copied: 0,
            status: Vec::new(),
            _lock: lock,
        };
        sealed.binary_sha256 = sealed.copy_file(binary, &sealed.program.clone(), 0o500)?;
        std::fs::create_dir(&sealed.root).context("creating the sealed copy's root")?;
        for name in RELEASE_FILES {
            let from = root.join(name);
            let meta = match std::fs::metadata(&from) {
                Ok(meta) => meta,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => bail!("reading {}: {e}", from.display()),
            };
            let to = sealed.root.join(name);
            let sha256 = if meta.is_dir() {
                sealed.copy_tree(&from, &to, 0)?;
                super::cache::tree_sha256(&to).map_err(|e| anyhow::anyhow!(sealed.unseal(&format!("{e:#}"))))?
            } else {
                sealed.copy_file(&from, &to, 0o400)?
            };
            sealed.files.push(KeyedFile { name: name.to_string(), sha256, source: from });
        }
        read_only(&sealed.root)?;
        read_only(&sealed.dir.path().join("program"))?;
        sealed.record()?;
        Ok(sealed)
    }

    /// Copies the folder `from` into the seal as `trees/<name>` (read-only) and returns its key
    /// entry (`<name> tree`, the manifest hash of the copy: a vendored tree's lock hash) and
    /// the copy's path.
    pub fn tree(&mut self, name: &str, from: &Path) -> Result<(KeyedFile, PathBuf)> {
        let trees = self.dir.path().join("trees");
        if !trees.exists() {
            std::fs::create_dir(&trees).context("creating the sealed copy's trees folder")?;
        }
        let to = trees.join(name);
        self.copy_tree(from, &to, 0)?;
        read_only(&to)?;
        let sha256 = super::cache::tree_sha256(&to).map_err(|e| anyhow::anyhow!(self.unseal(&format!("{e:#}"))))?;
        self.trees.push((from.to_path_buf(), to.clone()));
        self.record()?;
        Ok((KeyedFile { name: format!("{name} tree"), sha256, source: from.to_path_buf() }, to))
    }

    /// The copy of the binary that runs.
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The child's working directory: the copied release files and nothing else.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// SHA-256 of the binary's bytes as copied: the one digest the key, the history and the
    /// lock check use.
    pub fn binary_sha256(&self) -> &str {
        &self.binary_sha256
    }

    /// The release files present, as every point's key holds them.
    pub fn files(&self) -> &[KeyedFile] {
        &self.files
    }

    /// The binary's digest and each release file's: two builds with the same identity run
    /// every point alike.
    pub fn identity(&self) -> String {
        let mut id = self.binary_sha256.clone();
        for f in &self.files {
            id += &format!(" {}:{}", f.name, f.sha256);
        }
        id
    }

    /// `text` with the seal's paths put back as the user named them (a message from the
    /// child or a reader names the copy).
    pub fn unseal(&self, text: &str) -> String {
        let mut text = text.replace(&self.program.display().to_string(), &self.binary.display().to_string());
        for (from, to) in &self.trees {
            text = text.replace(&to.display().to_string(), &from.display().to_string());
        }
        text.replace(&self.root.display().to_string(), &self.origin_root.display().to_string())
    }

    /// Whether the copy is still as it was sealed: every file and folder under `program/`,
    /// `root/` and `trees/` with the same inode, size, mode and modification and change times,
    /// and nothing added. Read-only modes do not bind root, so a release that writes its own
    /// files would otherwise run later points on bytes nobody hashed. The change time is set by
    /// the kernel on every write, rename, link and mode change and by no system call, so a
    /// change shows even where the writer restores the bytes, the size and the modification
    /// time (`record` waits until the clock has moved past the copy's newest change time, so a
    /// change cannot share its tick). The error names the file as the user named it.
    pub fn check(&self) -> Result<(), String> {
        let now = walk(self.dir.path()).map_err(|e| self.unseal(&format!("reading the sealed copy: {e}")))?;
        let was: std::collections::BTreeMap<_, _> = self.status.iter().map(|(p, s)| (p, s)).collect();
        let is: std::collections::BTreeMap<_, _> = now.iter().map(|(p, s)| (p, s)).collect();
        // An entry added or removed before a changed one (its folder changed with it), and the
        // deepest changed entry (a file before its folder).
        let change = is
            .keys()
            .find(|p| !was.contains_key(*p))
            .map(|p| (*p, "appeared in it"))
            .or_else(|| was.keys().find(|p| !is.contains_key(*p)).map(|p| (*p, "was removed")))
            .or_else(|| {
                was.iter()
                    .filter(|(p, s)| is.get(*p).is_some_and(|t| t != *s))
                    .max_by_key(|(p, _)| p.components().count())
                    .map(|(p, _)| (*p, "was written, replaced or had its mode changed"))
            });
        let Some((path, what)) = change else { return Ok(()) };
        let named = if path == Path::new("program") {
            format!("the folder of the copy of {}", self.binary.display())
        } else {
            self.unseal(&self.dir.path().join(path).display().to_string())
        };
        Err(match what {
            "appeared in it" => format!("{named} appeared in the sealed copy during the run"),
            _ => format!("the sealed copy of {named} {what} during the run"),
        })
    }

    /// Takes the status `check` compares with, then waits until a file written now gets a later
    /// change time than any entry's: file times come from a clock that ticks every few
    /// milliseconds, and a change within the tick of sealing would keep the sealed times.
    fn record(&mut self) -> Result<()> {
        self.status = walk(self.dir.path()).context("reading the sealed copy")?;
        if cfg!(not(unix)) {
            return Ok(());
        }
        let newest = self.status.iter().map(|(_, s)| s.changed).max().unwrap_or_default();
        let clock = self.dir.path().join("clock");
        let started = std::time::Instant::now();
        loop {
            std::fs::write(&clock, b"").with_context(|| format!("writing {}", clock.display()))?;
            let now =
                Status::of(&std::fs::symlink_metadata(&clock).with_context(|| format!("reading {}", clock.display()))?);
            let _ = std::fs::remove_file(&clock);
            if now.changed > newest {
                return Ok(());
            }
            if started.elapsed() > std::time::Duration::from_secs(3) {
                bail!(
                    "the file system of {} gives files the same change time for over 3 s, so a change to the \
                     sealed copy could not be told apart (set TMPDIR to a folder on another file system)",
                    std::env::temp_dir().display()
                );
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    /// Copies one regular file (following links), hashing exactly the bytes written.
    fn copy_file(&mut self, from: &Path, to: &Path, mode: u32) -> Result<String> {
        use std::io::{Read, Write};
        let meta = std::fs::metadata(from).with_context(|| format!("reading {}", from.display()))?;
        if !meta.is_file() {
            bail!("{} is not a regular file (a release's files are files and folders)", from.display());
        }
        let mut source = std::fs::File::open(from).with_context(|| format!("reading {}", from.display()))?;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut target = options.open(to).with_context(|| format!("writing the sealed copy {}", to.display()))?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        loop {
            let n = source.read(&mut buf).with_context(|| format!("reading {}", from.display()))?;
            if n == 0 {
                break;
            }
            self.copied += n as u64;
            if self.copied > MAX_SEALED_BYTES {
                bail!(
                    "{}: the binary and release files come to more than {} GiB; a release folder holds a binary \
                     and a few MB of configuration (is --blis-root the release's folder?)",
                    from.display(),
                    MAX_SEALED_BYTES >> 30
                );
            }
            hasher.update(&buf[..n]);
            target.write_all(&buf[..n]).with_context(|| format!("writing the sealed copy {}", to.display()))?;
        }
        drop(target);
        set_mode(to, mode)?;
        Ok(hex(&hasher.finalize()))
    }

    fn copy_tree(&mut self, from: &Path, to: &Path, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            bail!("{}: folders nested more than {MAX_DEPTH} deep (or a link that loops)", from.display());
        }
        std::fs::create_dir(to).with_context(|| format!("writing the sealed copy {}", to.display()))?;
        let mut entries: Vec<_> = std::fs::read_dir(from)
            .with_context(|| format!("reading {}", from.display()))?
            .collect::<std::io::Result<_>>()
            .with_context(|| format!("reading {}", from.display()))?;
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let path = entry.path();
            let meta = std::fs::metadata(&path).with_context(|| format!("reading {}", path.display()))?;
            let target = to.join(entry.file_name());
            if meta.is_dir() {
                self.copy_tree(&path, &target, depth + 1)?;
            } else {
                self.copy_file(&path, &target, 0o400)?;
            }
        }
        Ok(())
    }
}

impl Drop for Sealed {
    fn drop(&mut self) {
        // The folders were made read-only; the temporary folder's removal needs them writable.
        writable(self.dir.path());
    }
}

/// Creates the seal's `lock` file already locked: locked under another name, then renamed, so
/// no sweeper can find a `lock` that nobody holds yet.
fn hold_lock(dir: &Path) -> Result<std::fs::File> {
    let fresh = dir.join("lock.new");
    let file = std::fs::File::create(&fresh).with_context(|| format!("writing {}", fresh.display()))?;
    if !try_lock(&file) {
        bail!("{}: could not take a lock on a file just created", fresh.display());
    }
    std::fs::rename(&fresh, dir.join(LOCK)).with_context(|| format!("writing {}", dir.join(LOCK).display()))?;
    Ok(file)
}

/// An exclusive `flock` without waiting. The kernel drops it when its holder exits, a SIGKILL
/// included, and it binds across processes and PID namespaces that share the folder.
#[cfg(unix)]
fn try_lock(file: &std::fs::File) -> bool {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a descriptor this function borrows; no memory is passed.
    unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) == 0 }
}

#[cfg(not(unix))]
fn try_lock(_: &std::fs::File) -> bool {
    true
}

/// Removes the seals under `temp` that no process holds: a run killed with SIGKILL leaves its
/// read-only copy behind, and an ordinary user cannot delete a folder made read-only without
/// making it writable first. Only folders of this user with a `lock` file nobody holds are
/// touched; a seal being created (no `lock` yet), another user's, or a link is left alone.
/// Returns what was removed. Run once per process, by the first seal.
pub fn clear_stale(temp: &Path) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    let Ok(entries) = std::fs::read_dir(temp) else { return removed };
    for entry in entries.flatten() {
        let path = entry.path();
        if !entry.file_name().to_string_lossy().starts_with(PREFIX) || !is_own_folder(&path) {
            continue;
        }
        let lock = path.join(LOCK);
        let free = std::fs::symlink_metadata(&lock).is_ok_and(|m| m.is_file())
            && std::fs::File::open(&lock).is_ok_and(|f| try_lock(&f));
        if free {
            writable(&path);
            if std::fs::remove_dir_all(&path).is_ok() {
                removed.push(path);
            }
        }
    }
    removed
}

/// A real folder (not a link) owned by this process's user.
fn is_own_folder(path: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // SAFETY: geteuid has no preconditions.
        meta.is_dir() && meta.uid() == unsafe { libc::geteuid() }
    }
    #[cfg(not(unix))]
    meta.is_dir()
}

/// What `Sealed::check` compares of one entry.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Status {
    device: u64,
    inode: u64,
    mode: u32,
    len: u64,
    modified: (i64, i64),
    /// The change time (ctime): seconds and nanoseconds.
    changed: (i64, i64),
}

impl Status {
    #[cfg(unix)]
    fn of(meta: &std::fs::Metadata) -> Status {
        use std::os::unix::fs::MetadataExt;
        Status {
            device: meta.dev(),
            inode: meta.ino(),
            mode: meta.mode(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    #[cfg(not(unix))]
    fn of(meta: &std::fs::Metadata) -> Status {
        Status { len: meta.len(), ..Status::default() }
    }
}

/// Every entry under `program/`, `root/` and `trees/` of a seal, links not followed, sorted by
/// path (relative to the seal).
fn walk(seal: &Path) -> std::io::Result<Vec<(PathBuf, Status)>> {
    fn visit(seal: &Path, rel: &Path, out: &mut Vec<(PathBuf, Status)>, depth: usize) -> std::io::Result<()> {
        let meta = std::fs::symlink_metadata(seal.join(rel))?;
        out.push((rel.to_path_buf(), Status::of(&meta)));
        if meta.is_dir() && depth <= MAX_DEPTH {
            for entry in std::fs::read_dir(seal.join(rel))? {
                visit(seal, &rel.join(entry?.file_name()), out, depth + 1)?;
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    for top in ["program", "root", "trees"] {
        if top != "trees" || seal.join(top).exists() {
            visit(seal, Path::new(top), &mut out, 0)?;
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(out)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .with_context(|| format!("sealing {}", path.display()))
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: u32) -> Result<()> {
    Ok(())
}

/// Every folder under `dir`, `dir` included, made read-only (files already are).
fn read_only(dir: &Path) -> Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("sealing {}", dir.display()))? {
        let entry = entry.with_context(|| format!("sealing {}", dir.display()))?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            read_only(&entry.path())?;
        }
    }
    set_mode(dir, 0o500)
}

fn writable(dir: &Path) {
    let _ = set_mode(dir, 0o700);
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                writable(&entry.path());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn release(dir: &Path) -> PathBuf {
        let bin = dir.join("blis");
        std::fs::write(&bin, "#!/bin/sh\n").unwrap();
        std::fs::write(dir.join("defaults.yaml"), "defaults: {}\n").unwrap();
        std::fs::create_dir_all(dir.join("model_configs/m")).unwrap();
        std::fs::write(dir.join("model_configs/m/config.json"), "{}").unwrap();
        std::fs::write(dir.join("notes.txt"), "not a release file").unwrap();
        bin
    }

    #[test]
    fn the_seal_holds_the_release_files_only_and_is_hashed_from_the_copy() {
        let dir = tempfile::tempdir().unwrap();
        let bin = release(dir.path());
        let sealed = Sealed::of(&bin, dir.path()).unwrap();
        assert_eq!(sealed.binary_sha256(), hex(&Sha256::digest(b"#!/bin/sh\n")));
        let names: Vec<&str> = sealed.files().iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["defaults.yaml", "model_configs"]);
        assert!(sealed.root().join("model_configs/m/config.json").is_file());
        assert!(!sealed.root().join("notes.txt").exists(), "only the release files are copied");
        // The copy is read-only (a mode, which root may override): nothing a run does is meant
        // to change it.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(sealed.root()), 0o500);
            assert_eq!(mode(&sealed.root().join("model_configs/m")), 0o500);
            assert_eq!(mode(&sealed.root().join("defaults.yaml")), 0o400);
            assert_eq!(mode(sealed.program()), 0o500);
        }
        // An edit to the original after sealing changes nothing sealed.
        let before = sealed.identity();
        std::fs::write(dir.path().join("defaults.yaml"), "defaults: {x: 1}\n").unwrap();
        assert_eq!(sealed.identity(), before);
        assert_eq!(std::fs::read_to_string(sealed.root().join("defaults.yaml")).unwrap(), "defaults: {}\n");
        assert_ne!(Sealed::of(&bin, dir.path()).unwrap().identity(), before, "a new seal sees the edit");
        let root = sealed.root().to_path_buf();
        drop(sealed);
        assert!(!root.exists(), "the read-only copy is removed on drop");
    }

    #[cfg(unix)]
    #[test]
    fn a_change_that_keeps_the_bytes_is_still_a_change_even_in_the_tick_of_sealing() {
        use std::os::unix::fs::PermissionsExt;
        for _ in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let bin = release(dir.path());
            let sealed = Sealed::of(&bin, dir.path()).unwrap();
            assert_eq!(sealed.check(), Ok(()));
            // The same mode set again, at once: bytes, size, mode and mtime stay, ctime moves.
            let file = sealed.root().join("model_configs/m/config.json");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o400)).unwrap();
            let e = sealed.check().expect_err("the change time moved");
            assert_eq!(
                e,
                format!(
                    "the sealed copy of {} was written, replaced or had its mode changed during the run",
                    dir.path().join("model_configs/m/config.json").display()
                )
            );
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_stale_seal_is_cleared_and_a_live_one_or_anything_else_is_left() {
        use std::os::unix::fs::PermissionsExt;
        let temp = tempfile::tempdir().unwrap();
        let folder = |name: &str, lock: bool| {
            let dir = temp.path().join(name);
            std::fs::create_dir_all(dir.join("root/model_configs")).unwrap();
            if lock {
                std::fs::write(dir.join(LOCK), "").unwrap();
            }
            // As a killed run leaves it: read-only folders, which a non-root owner cannot empty.
            for sub in ["root/model_configs", "root"] {
                std::fs::set_permissions(dir.join(sub), std::fs::Permissions::from_mode(0o500)).unwrap();
            }
            dir
        };
        let stale = folder("blis-seal-stale1", true);
        let unlocked = folder("blis-seal-nolock", false);
        let other = folder("blis-point-x", true);
        let live = folder("blis-seal-live01", true);
        let held = std::fs::File::open(live.join(LOCK)).unwrap();
        assert!(try_lock(&held));
        std::os::unix::fs::symlink(&stale, temp.path().join("blis-seal-link")).unwrap();
        assert_eq!(clear_stale(temp.path()), vec![stale.clone()]);
        assert!(!stale.exists());
        for kept in [&unlocked, &other, &live] {
            assert!(kept.join("root").is_dir(), "{}", kept.display());
        }
        drop(held);
        assert_eq!(clear_stale(temp.path()), vec![live.clone()], "its holder gone, the live seal is stale");
        for dir in [&unlocked, &other] {
            writable(dir);
        }
    }

    #[test]
    fn a_seal_holds_its_lock_while_it_lives() {
        let dir = tempfile::tempdir().unwrap();
        let bin = release(dir.path());
        let sealed = Sealed::of(&bin, dir.path()).unwrap();
        let seal = sealed.root().parent().unwrap().to_path_buf();
        assert!(!try_lock(&std::fs::File::open(seal.join(LOCK)).unwrap()), "a live seal's lock is held");
        assert_eq!(clear_stale(seal.parent().unwrap()).iter().filter(|p| **p == seal).count(), 0);
    }

    #[test]
    fn messages_name_the_users_paths_not_the_copy() {
        let dir = tempfile::tempdir().unwrap();
        let bin = release(dir.path());
        let sealed = Sealed::of(&bin, dir.path()).unwrap();
        let text = format!("{}: bad; {}/defaults.yaml", sealed.program().display(), sealed.root().display());
        assert_eq!(sealed.unseal(&text), format!("{}: bad; {}/defaults.yaml", bin.display(), dir.path().display()));
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_among_the_release_files_is_refused_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let bin = release(dir.path());
        let fifo = dir.path().join("hardware_config.json");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let e = format!("{:#}", Sealed::of(&bin, dir.path()).err().expect("a FIFO is refused"));
        assert!(e.contains("hardware_config.json") && e.contains("not a regular file"), "{e}");
    }
}
