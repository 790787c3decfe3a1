//! Reading an input file so that every way it can be wrong is said plainly: what stands where
//! the file should be (nothing, a folder, a symlink loop, a FIFO ...), and, for text that is not
//! UTF-8, the byte offset of the first bad byte.

use anyhow::{bail, Result};
use std::path::Path;

/// What stands at `path`, in words, when it is not a readable regular file; `None` when it is
/// one (following symlinks).
pub fn not_a_file(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => None,
        Ok(meta) => Some(crate::atomic::describe_kind(&meta.file_type()).to_string()),
        Err(e) => Some(match std::fs::symlink_metadata(path) {
            // The link itself is there, so following it failed.
            Ok(link) if link.file_type().is_symlink() => {
                if e.raw_os_error() == Some(40) {
                    "a symlink loop".to_string()
                } else {
                    match std::fs::read_link(path) {
                        Ok(to) => format!("a symlink to {}, which does not exist", to.display()),
                        Err(_) => "a dangling symlink".to_string(),
                    }
                }
            }
            _ if e.kind() == std::io::ErrorKind::NotFound => "nothing (no such file)".to_string(),
            _ => format!("something unreadable ({e})"),
        }),
    }
}

/// The bytes of the regular file at `path`; the error names the file and what stands there.
pub fn bytes(path: &Path) -> Result<Vec<u8>> {
    let label = crate::paths::display(path);
    if let Some(found) = not_a_file(path) {
        bail!("{label}: expected a file, found {found}");
    }
    std::fs::read(path).map_err(|e| anyhow::anyhow!("{label}: cannot read: {e}"))
}

/// The bytes of the regular file at `path`, at most `max` of them, read without ever blocking
/// on what stands there: opened non-blocking and without following a symlink, then refused
/// unless it is a regular file no larger than `max` (a FIFO, a device such as `/dev/zero`, a
/// directory or a symlink is an error, and so is a file that grows past `max` while read).
/// `NotFound` is kept as the error kind, so a caller can tell "absent" from "wrong".
pub fn regular_file_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK | libc::O_NOFOLLOW);
    let file = options.open(path).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => Error::new(ErrorKind::InvalidData, "a symlink, not a regular file"),
        _ => e,
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = crate::atomic::describe_kind(&meta.file_type());
        return Err(Error::new(ErrorKind::InvalidData, format!("{kind}, not a regular file")));
    }
    if meta.len() > max {
        return Err(Error::new(ErrorKind::InvalidData, format!("{} bytes, more than the {max} allowed", meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(Error::new(ErrorKind::InvalidData, format!("grew past the {max} bytes allowed while read")));
    }
    Ok(bytes)
}

/// The text of the file at `path`: as [`bytes`], and UTF-8, else an error naming the byte
/// offset of the first invalid sequence.
pub fn text(path: &Path) -> Result<String> {
    let label = crate::paths::display(path);
    String::from_utf8(bytes(path)?).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        anyhow::anyhow!("{label}: not UTF-8: invalid byte 0x{:02x} at byte offset {at}", e.as_bytes()[at])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn says_what_stands_where_a_file_should_be() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("folder")).unwrap();
        std::os::unix::fs::symlink("loop-b", d.join("loop-a")).unwrap();
        std::os::unix::fs::symlink("loop-a", d.join("loop-b")).unwrap();
        std::os::unix::fs::symlink("gone", d.join("dangling")).unwrap();
        for (name, expected) in [
            ("folder", "found a directory"),
            ("loop-a", "found a symlink loop"),
            ("dangling", "found a symlink to gone, which does not exist"),
            ("absent", "found nothing (no such file)"),
        ] {
            let err = format!("{:#}", text(&d.join(name)).unwrap_err());
            assert!(err.contains(name) && err.contains(expected), "{name}: {err}");
        }
    }

    #[test]
    fn non_utf8_names_the_byte_offset() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.json");
        std::fs::write(&path, b"{\"a\": \"\xff\"}").unwrap();
        let err = format!("{:#}", text(&path).unwrap_err());
        assert!(err.contains("c.json") && err.contains("byte offset 7") && err.contains("0xff"), "{err}");
    }
}
