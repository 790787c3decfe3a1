//! Atomic file writes: write a temp file beside the target, then rename over it, so a crash or
//! an error never leaves a half-written file behind.
//!
//! A path the user gives is theirs: a symlink there is followed (the rename happens in its
//! target's folder, so the link stays a link), anything there that is not a regular file (a
//! FIFO, a device, a folder, a socket) is refused rather than replaced, and a file being
//! replaced keeps its mode. A new file gets the mode `File::create` would give it (0666 less the
//! umask), not the temp file's private 0600.

use anyhow::{bail, Context, Result};
use std::io::Write;
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// How many symlinks in a row we follow before calling it a loop (Linux's own limit).
const MAX_LINKS: usize = 40;

pub fn write(path: &Path, contents: &[u8]) -> Result<()> {
    write_with(path, contents, "")
}

/// What a refusal of a report path adds: the way out only a report flag has.
const REPORT_HINT: &str = " (give a file path, or `-` for stdout where the flag allows it)";

/// [`write`], a refusal ending with `hint`.
fn write_with(path: &Path, contents: &[u8], hint: &str) -> Result<()> {
    let target = resolve_links(path)?;
    let existing_mode = existing_file_mode(path, &target, hint)?;
    let dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    // 0666 here is filtered by the umask at creation, exactly as for File::create.
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| format!("creating a temp file in {}", dir.display()))?;
    if let Some(mode) = existing_mode {
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))
            .with_context(|| format!("keeping the mode of {}", path.display()))?;
    }
    tmp.write_all(contents)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(&target).map_err(|e| e.error).with_context(|| format!("renaming into {}", target.display()))?;
    Ok(())
}

/// Writes a file the tool itself owns (a cache entry, say) at exactly `path`: a temp file in
/// `path`'s folder renamed onto `path`. Unlike [`write`], nothing at `path` is followed: a
/// symlink planted there is replaced by the file (`rename` replaces the link itself, never its
/// target), and the folder must be a real directory, not a link to one elsewhere (it is created
/// when missing, as `create_dir_all` would). Anything else at `path` (a folder, a FIFO) is
/// refused, as `rename` itself refuses a folder.
pub fn write_owned(path: &Path, contents: &[u8]) -> Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let meta = std::fs::symlink_metadata(dir).with_context(|| format!("inspecting {}", dir.display()))?;
    if !meta.is_dir() {
        bail!(
            "{}: refusing to write into {}, which is not a real directory",
            path.display(),
            describe_kind(&meta.file_type())
        );
    }
    match std::fs::symlink_metadata(path) {
        Ok(meta) if !meta.file_type().is_file() && !meta.file_type().is_symlink() => {
            bail!("{}: refusing to replace {} with a regular file", path.display(), describe_kind(&meta.file_type()))
        }
        _ => {}
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(".tmp-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| format!("creating a temp file in {}", dir.display()))?;
    tmp.write_all(contents)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    tmp.persist(path).map_err(|e| e.error).with_context(|| format!("renaming into {}", path.display()))?;
    Ok(())
}

/// The mode of the regular file at `target` (`path` resolved), `None` when nothing is there,
/// or an error when something that is not a regular file stands there. Only reads.
fn existing_file_mode(path: &Path, target: &Path, hint: &str) -> Result<Option<u32>> {
    match std::fs::metadata(target) {
        Ok(meta) if meta.file_type().is_file() => Ok(Some(meta.permissions().mode())),
        Ok(meta) => bail!(
            "{}: refusing to replace {} with a regular file{hint}",
            path.display(),
            describe_kind(&meta.file_type())
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("inspecting {}", path.display())),
    }
}

/// A report flag's value: `-` is stdout (a closed pipe is the reader's choice, not an error),
/// anything else a file written with [`write`].
pub fn write_report(path: &Path, contents: &[u8]) -> Result<()> {
    if path.as_os_str() == "-" {
        let mut out = std::io::stdout().lock();
        return match out.write_all(contents).and_then(|()| out.flush()) {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e).context("writing to stdout"),
            _ => Ok(()),
        };
    }
    write_with(path, contents, REPORT_HINT)
}

/// Whether [`write_report`] could write `path`, checked before any work (a report refused after
/// a half-hour run is a half-hour lost): `-` is stdout; otherwise what stands there must be a
/// regular file or nothing (a folder, a FIFO, a device such as `/dev/full` is refused, as
/// [`write`] refuses it), and the nearest folder that exists on the way to it must be one this
/// process can create a file in (tried, and the trial file removed). Only reads, but for that
/// trial file.
pub fn check_writable(path: &Path) -> Result<()> {
    if path.as_os_str() == "-" {
        return Ok(());
    }
    if path.as_os_str().is_empty() {
        bail!("an empty path: expected a file path, or `-` for stdout");
    }
    let target = resolve_links(path)?;
    let mut dir = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    loop {
        match std::fs::metadata(dir) {
            Ok(meta) if meta.is_dir() => break,
            Ok(meta) => bail!(
                "{}: cannot be written: {} is {}, not a folder",
                path.display(),
                dir.display(),
                describe_kind(&meta.file_type())
            ),
            Err(_) => match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                Some(parent) => dir = parent,
                None => {
                    dir = Path::new(".");
                    break;
                }
            },
        }
    }
    existing_file_mode(path, &target, REPORT_HINT)?;
    tempfile::Builder::new()
        .prefix(".tmp-")
        .tempfile_in(dir)
        .map(drop)
        .with_context(|| format!("{}: cannot be written: no file can be created in {}", path.display(), dir.display()))
}

/// Follows symlinks at `path` to the path the bytes would really land at (which may not
/// exist yet: a dangling link is written through, creating its target).
fn resolve_links(path: &Path) -> Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let link =
                    std::fs::read_link(&current).with_context(|| format!("reading the link {}", current.display()))?;
                current = match current.parent() {
                    Some(parent) if link.is_relative() => parent.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    bail!("{}: a symlink loop (more than {MAX_LINKS} links in a row)", path.display())
}

/// What stands at a path, for a message: "a directory", "a FIFO", ...
pub fn describe_kind(ft: &std::fs::FileType) -> &'static str {
    if ft.is_file() {
        "a regular file"
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symlink"
    } else if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else {
        "something that is not a file"
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    fn names(dir: &std::path::Path) -> Vec<String> {
        let mut v: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        v.sort();
        v
    }

    #[test]
    fn replaces_contents_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.json");
        super::write(&target, b"first").unwrap();
        super::write(&target, b"second").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"second");
        assert_eq!(names(dir.path()), vec!["out.json"]);
    }

    #[test]
    fn a_symlink_stays_a_link_and_its_target_gets_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("elsewhere");
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("t.md"), b"old").unwrap();
        let link = dir.path().join("l.md");
        std::os::unix::fs::symlink("elsewhere/t.md", &link).unwrap();
        super::write(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(sub.join("t.md")).unwrap(), b"new");
        assert_eq!(names(&sub), vec!["t.md"]);
    }

    #[test]
    fn an_owned_write_replaces_a_planted_link_and_leaves_its_target_alone() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"precious").unwrap();
        let cache = dir.path().join("cache");
        std::fs::create_dir(&cache).unwrap();
        let entry = cache.join("entry.json");
        std::os::unix::fs::symlink(&outside, &entry).unwrap();
        super::write_owned(&entry, b"entry").unwrap();
        assert_eq!(std::fs::read(&outside).unwrap(), b"precious");
        assert!(std::fs::symlink_metadata(&entry).unwrap().file_type().is_file());
        assert_eq!(std::fs::read(&entry).unwrap(), b"entry");
        assert_eq!(names(&cache), vec!["entry.json"]);
        // A folder that is a link to one elsewhere is refused, and nothing lands there.
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, cache.join("ab")).unwrap();
        let err = format!("{:#}", super::write_owned(&cache.join("ab/k.json"), b"x").unwrap_err());
        assert!(err.contains("not a real directory") && err.contains("a symlink"), "{err}");
        assert!(names(&elsewhere).is_empty());
    }

    #[test]
    fn a_symlink_loop_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        std::os::unix::fs::symlink("b", &a).unwrap();
        std::os::unix::fs::symlink("a", dir.path().join("b")).unwrap();
        let err = format!("{:#}", super::write(&a, b"x").unwrap_err());
        assert!(err.contains("symlink loop"), "{err}");
    }

    #[test]
    fn a_fifo_is_refused_and_left_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let err = format!("{:#}", super::write(&fifo, b"x").unwrap_err());
        assert!(err.contains("a FIFO") && err.contains("pipe"), "{err}");
        assert!(std::os::unix::fs::FileTypeExt::is_fifo(&std::fs::symlink_metadata(&fifo).unwrap().file_type()));
        assert_eq!(names(dir.path()), vec!["pipe"]);
    }

    #[test]
    fn a_device_is_refused() {
        // Only the read-only check: a test must never risk replacing a real device node.
        let dev_null = std::path::Path::new("/dev/null");
        let err = format!("{:#}", super::existing_file_mode(dev_null, dev_null, "").unwrap_err());
        assert!(err.contains("a character device"), "{err}");
        assert!(std::os::unix::fs::FileTypeExt::is_char_device(&std::fs::metadata("/dev/null").unwrap().file_type()));
    }

    #[test]
    fn what_cannot_be_written_is_said_before_any_work() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let fifo = d.join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        std::fs::write(d.join("file"), b"x").unwrap();
        for (path, expected) in [
            (d.to_path_buf(), "a directory"),
            (fifo.clone(), "a FIFO"),
            (std::path::PathBuf::from("/dev/full"), "a character device"),
            (d.join("file/report.json"), "is a regular file, not a folder"),
        ] {
            let err = format!("{:#}", super::check_writable(&path).unwrap_err());
            assert!(err.contains(&path.display().to_string()) && err.contains(expected), "{err}");
        }
        for fine in [d.join("new.json"), d.join("file"), d.join("sub/dir/new.json"), "-".into()] {
            super::check_writable(&fine).unwrap();
        }
        assert_eq!(names(d), vec!["file", "pipe"], "the check leaves nothing behind");
    }

    #[test]
    fn only_a_report_path_is_told_about_stdout() {
        let dir = tempfile::tempdir().unwrap();
        let plain = format!("{:#}", super::write(dir.path(), b"x").unwrap_err());
        assert!(plain.ends_with("refusing to replace a directory with a regular file"), "{plain}");
        let report = format!("{:#}", super::write_report(dir.path(), b"x").unwrap_err());
        assert!(report.ends_with("or `-` for stdout where the flag allows it)"), "{report}");
    }

    #[test]
    fn a_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = format!("{:#}", super::write(dir.path(), b"x").unwrap_err());
        assert!(err.contains("a directory"), "{err}");
    }

    #[test]
    fn a_replaced_file_keeps_its_mode() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("upstream.lock");
        std::fs::write(&target, b"old").unwrap();
        for mode in [0o644, 0o640, 0o755] {
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(mode)).unwrap();
            super::write(&target, b"new").unwrap();
            assert_eq!(std::fs::metadata(&target).unwrap().permissions().mode() & 0o7777, mode);
        }
    }

    #[test]
    fn a_new_file_gets_the_mode_file_create_gives() {
        let dir = tempfile::tempdir().unwrap();
        let reference = dir.path().join("reference");
        std::fs::File::create(&reference).unwrap();
        let target = dir.path().join("new");
        super::write(&target, b"x").unwrap();
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&target), mode(&reference));
    }
}
