//! Reading a tree for the lock: which files it holds and their SHA-256, without following a
//! symlink or opening anything that is not a regular file.
//!
//! Two ways to look at a tree. A vendored tree (`scan_tree`) is ours: every file in it counts,
//! so a stray file is "extra". A live checkout (`scan_globs`) holds much more than we vendor:
//! only the files the lock's globs match count.
//!
//! Anything that cannot be hashed as a plain file is recorded as a problem (path + reason),
//! never skipped: a symlink (refused, not followed, so nothing outside the tree is ever read),
//! a directory, FIFO, socket or device where a file is expected (a FIFO is never opened: that
//! would block), a file whose open or read fails, a name that is not UTF-8.

use super::glob::{segment_matches, Glob};
use oracles::hashing::{self, Sha256Digest};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, Read};
use std::path::Path;

/// The two stamp files `vendor` writes at the root of each vendored tree.
pub const COMMIT_STAMP: &str = ".upstream-commit";
pub const MANIFEST_STAMP: &str = ".upstream-manifest";

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scan {
    /// Every regular file read, by `/`-separated path relative to the root.
    pub files: BTreeMap<String, Sha256Digest>,
    /// Files whose bytes are not valid UTF-8 (every file the harness reads is YAML or JSON,
    /// which must be UTF-8); a subset of `files`' keys.
    pub not_utf8: BTreeSet<String>,
    /// Entries that could not be hashed, with the reason.
    pub problems: BTreeMap<String, String>,
    /// For `scan_globs`: how many entries each glob matched, in the lock's glob order.
    pub glob_hits: Vec<usize>,
}

/// Every entry below `root` except the two stamps at its top.
pub fn scan_tree(root: &Path) -> io::Result<Scan> {
    let mut scan = Scan::default();
    walk(root, "", &mut scan)?;
    Ok(scan)
}

fn walk(dir: &Path, prefix: &str, scan: &mut Scan) -> io::Result<()> {
    for (name, path, utf8_name) in sorted_entries(dir)? {
        let rel = join(prefix, &name);
        if prefix.is_empty() && (name == COMMIT_STAMP || name == MANIFEST_STAMP) {
            continue;
        }
        let Some(meta) = entry_metadata(&path, &rel, utf8_name, scan) else { continue };
        if meta.is_dir() {
            walk(&path, &rel, scan)?;
        } else {
            classify_and_hash(&path, rel, &meta, scan);
        }
    }
    Ok(())
}

/// The entry's own metadata (links are not followed), or `None` with the problem recorded: a
/// name that is not UTF-8, or an entry that cannot be read.
fn entry_metadata(path: &Path, rel: &str, utf8_name: bool, scan: &mut Scan) -> Option<fs::Metadata> {
    if !utf8_name {
        scan.problems.insert(rel.to_string(), "file name is not UTF-8".into());
        return None;
    }
    match fs::symlink_metadata(path) {
        Ok(meta) => Some(meta),
        Err(e) => {
            scan.problems.insert(rel.to_string(), format!("unreadable: {e}"));
            None
        }
    }
}

/// Only the entries the globs match, each glob expanded one segment at a time so the rest of a
/// large checkout (its `.git`, other directories) is never walked.
pub fn scan_globs(root: &Path, globs: &[Glob]) -> io::Result<Scan> {
    let mut scan = Scan::default();
    for glob in globs {
        let mut hits = 0;
        expand(root, "", glob.segments(), &mut scan, &mut hits)?;
        scan.glob_hits.push(hits);
    }
    Ok(scan)
}

fn expand(dir: &Path, prefix: &str, segments: &[String], scan: &mut Scan, hits: &mut usize) -> io::Result<()> {
    let Some((pattern, rest)) = segments.split_first() else { return Ok(()) };
    for (name, path, utf8_name) in sorted_entries(dir)? {
        if !segment_matches(pattern, &name) {
            continue;
        }
        let rel = join(prefix, &name);
        let Some(meta) = entry_metadata(&path, &rel, utf8_name, scan) else {
            *hits += 1;
            continue;
        };
        if rest.is_empty() {
            *hits += 1;
            if meta.is_dir() {
                scan.problems.insert(rel, "is a directory, expected a file".into());
            } else {
                classify_and_hash(&path, rel, &meta, scan);
            }
        } else if meta.is_dir() {
            expand(&path, &rel, rest, scan, hits)?;
        } else if meta.file_type().is_symlink() {
            *hits += 1;
            scan.problems.insert(rel, "symlink refused (not followed out of the tree)".into());
        }
    }
    Ok(())
}

fn classify_and_hash(path: &Path, rel: String, meta: &fs::Metadata, scan: &mut Scan) {
    use std::os::unix::fs::FileTypeExt;
    let ft = meta.file_type();
    let refused = if ft.is_symlink() {
        Some("symlink refused (not followed out of the tree)")
    } else if ft.is_fifo() {
        Some("not a regular file (a FIFO)")
    } else if ft.is_socket() {
        Some("not a regular file (a socket)")
    } else if ft.is_block_device() || ft.is_char_device() {
        Some("not a regular file (a device)")
    } else if !ft.is_file() {
        Some("not a regular file")
    } else {
        None
    };
    if let Some(why) = refused {
        scan.problems.insert(rel, why.to_string());
        return;
    }
    match hash_file(path) {
        Ok((digest, utf8)) => {
            if !utf8 {
                scan.not_utf8.insert(rel.clone());
            }
            scan.files.insert(rel, digest);
        }
        Err(e) => {
            scan.problems.insert(rel, format!("unreadable: {e}"));
        }
    }
}

/// SHA-256 of the file's bytes, streamed, and whether those bytes are valid UTF-8.
pub fn hash_file(path: &Path) -> io::Result<(Sha256Digest, bool)> {
    let mut reader = Utf8Check::new(fs::File::open(path)?);
    let (digest, _) = hashing::sha256_reader(&mut reader)?;
    Ok((digest, reader.finish()))
}

/// A reader that validates UTF-8 as the bytes stream past, carrying an incomplete trailing
/// sequence over to the next chunk.
struct Utf8Check<R> {
    inner: R,
    carry: Vec<u8>,
    valid: bool,
}

impl<R: Read> Utf8Check<R> {
    fn new(inner: R) -> Self {
        Utf8Check { inner, carry: Vec::new(), valid: true }
    }

    fn finish(self) -> bool {
        self.valid && self.carry.is_empty()
    }
}

impl<R: Read> Read for Utf8Check<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.valid && n > 0 {
            self.carry.extend_from_slice(&buf[..n]);
            match std::str::from_utf8(&self.carry) {
                Ok(_) => self.carry.clear(),
                // Incomplete at the end: keep the tail (at most 3 bytes) for the next chunk.
                Err(e) if e.error_len().is_none() => {
                    self.carry.drain(..e.valid_up_to());
                }
                Err(_) => self.valid = false,
            }
        }
        Ok(n)
    }
}

/// A directory's entries sorted by name; the flag is false for a name that is not UTF-8 (its
/// lossy rendering is returned so the problem can name it).
fn sorted_entries(dir: &Path) -> io::Result<Vec<(String, std::path::PathBuf, bool)>> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let raw = entry.file_name();
        let name = raw.to_string_lossy().into_owned();
        out.push((name, entry.path(), raw.to_str().is_some()));
    }
    out.sort();
    Ok(out)
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_check_survives_a_sequence_split_across_reads() {
        // "é" is C3 A9; a reader handing out one byte at a time splits it.
        struct OneByte<'a>(&'a [u8]);
        impl Read for OneByte<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.0.is_empty() || buf.is_empty() {
                    return Ok(0);
                }
                buf[0] = self.0[0];
                self.0 = &self.0[1..];
                Ok(1)
            }
        }
        let check = |bytes: &[u8]| {
            let mut r = Utf8Check::new(OneByte(bytes));
            io::copy(&mut r, &mut io::sink()).unwrap();
            r.finish()
        };
        assert!(check("caf\u{e9} \u{2014} ok".as_bytes()));
        assert!(!check(b"caf\xe9 latin-1"));
        assert!(!check(b"truncated \xc3"));
    }
}
