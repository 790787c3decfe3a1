//! Reading an input file so that every way it can be wrong is said plainly: what stands where
//! the file should be (nothing, a folder, a symlink loop, a FIFO ...), how much larger than it
//! can legitimately be it is, and, for text that is not UTF-8, the byte offset of the first bad
//! byte.
//!
//! Every read of a file the user gives goes through here, and every one is bounded: a file is
//! opened non-blocking (a FIFO or a device never stalls the read), refused unless it is a
//! regular file, refused when it is larger than its reader's bound (a sparse 1 TiB file or a
//! link to `/dev/zero` is an error, never an allocation), and read no further than that bound
//! (a file that grows while read is refused too).

use anyhow::{bail, Result};
use std::path::Path;

/// The bound of a read whose reader states none: larger than any input this tool reads by far
/// (the corpora are a few MiB), small enough to allocate.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

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

/// The bytes of the regular file at `path`, at most [`MAX_INPUT_BYTES`] of them
/// ([`bytes_at_most`]).
pub fn bytes(path: &Path) -> Result<Vec<u8>> {
    bytes_at_most(path, MAX_INPUT_BYTES)
}

/// The bytes of the regular file at `path` (symlinks followed), at most `max` of them; the
/// error names the file and what stands there, or how large it is. Never blocks on a FIFO or a
/// device, never allocates more than `max`.
pub fn bytes_at_most(path: &Path, max: u64) -> Result<Vec<u8>> {
    let (file, len) = open_at_most(path, max)?;
    read_bounded(file, len, max).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", crate::paths::display(path)))
}

/// The regular file at `path` (symlinks followed), opened for reading, and its length, once it
/// is known to be no longer than `max`: for a reader that reads it its own way, which must
/// still read no more than `max` bytes (`Read::take`). The error names the file and what
/// stands there.
pub fn open_at_most(path: &Path, max: u64) -> Result<(std::fs::File, u64)> {
    let label = crate::paths::display(path);
    // Said from the metadata first, which never opens: the plainest words for what is there.
    if let Some(found) = not_a_file(path) {
        bail!("{label}: expected a file, found {found}");
    }
    let (file, len) = open_regular(path, false).map_err(|e| anyhow::anyhow!("{label}: expected a file: {e}"))?;
    if len > max {
        bail!("{label}: expected a file of at most {max} bytes, found one of {len} bytes");
    }
    Ok((file, len))
}

/// Opens `path` non-blocking (with `no_follow`, without following a symlink at its last
/// component), then refuses anything but a regular file, from the opened
/// file's own metadata (so what was checked is what is read).
fn open_regular(path: &Path, no_follow: bool) -> std::io::Result<(std::fs::File, u64)> {
    use std::io::{Error, ErrorKind};
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    let flags = libc::O_NONBLOCK | if no_follow { libc::O_NOFOLLOW } else { 0 };
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, flags);
    let file = options.open(path).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) if no_follow => Error::new(ErrorKind::InvalidData, "a symlink, not a regular file"),
        _ => e,
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        let kind = crate::atomic::describe_kind(&meta.file_type());
        return Err(Error::new(ErrorKind::InvalidData, format!("{kind}, not a regular file")));
    }
    Ok((file, meta.len()))
}

/// Reads `file` (`len` bytes by its metadata) to its end, refusing it past `max` bytes.
fn read_bounded(file: std::fs::File, len: u64, max: u64) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind, Read};
    if len > max {
        return Err(Error::new(ErrorKind::InvalidData, format!("{len} bytes, more than the {max} allowed")));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(Error::new(ErrorKind::InvalidData, format!("grew past the {max} bytes allowed while read")));
    }
    Ok(bytes)
}

/// The bytes of the regular file at `path`, at most `max` of them, read without ever blocking
/// on what stands there: opened non-blocking and without following a symlink, then refused
/// unless it is a regular file no larger than `max` (a FIFO, a device such as `/dev/zero`, a
/// directory or a symlink is an error, and so is a file that grows past `max` while read).
/// `NotFound` is kept as the error kind, so a caller can tell "absent" from "wrong".
pub fn regular_file_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let (file, len) = open_regular(path, true)?;
    read_bounded(file, len, max)
}

/// The text of the file at `path`: as [`bytes`], and UTF-8, else an error naming the byte
/// offset of the first invalid sequence.
pub fn text(path: &Path) -> Result<String> {
    text_at_most(path, MAX_INPUT_BYTES)
}

/// [`text`] of a file that can legitimately be at most `max` bytes.
pub fn text_at_most(path: &Path, max: u64) -> Result<String> {
    let label = crate::paths::display(path);
    String::from_utf8(bytes_at_most(path, max)?).map_err(|e| {
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
    fn a_huge_sparse_file_a_device_and_a_fifo_are_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::File::create(d.join("sparse")).unwrap().set_len(1 << 40).unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.join("zero")).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(d.join("fifo")).status().unwrap().success());
        std::fs::write(d.join("small"), b"12345").unwrap();
        for (name, max, expected) in [
            ("sparse", MAX_INPUT_BYTES, "at most 268435456 bytes, found one of 1099511627776 bytes"),
            ("zero", MAX_INPUT_BYTES, "found a character device"),
            ("fifo", MAX_INPUT_BYTES, "found a FIFO"),
            ("small", 4, "at most 4 bytes, found one of 5 bytes"),
        ] {
            let err = format!("{:#}", bytes_at_most(&d.join(name), max).unwrap_err());
            assert!(err.contains(name) && err.contains(expected), "{name}: {err}");
        }
        assert_eq!(text_at_most(&d.join("small"), 5).unwrap(), "12345");
        // The cache's reader: no symlink followed, a FIFO refused without blocking.
        let fifo = regular_file_bounded(&d.join("fifo"), 10).unwrap_err();
        assert!(fifo.to_string().contains("a FIFO, not a regular file"), "{fifo}");
        let link = regular_file_bounded(&d.join("zero"), 10).unwrap_err();
        assert!(link.to_string().contains("a symlink"), "{link}");
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
