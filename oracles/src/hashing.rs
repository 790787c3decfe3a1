//! SHA-256 over bytes and the manifest format the lock and the vendored trees share.
//!
//! A manifest line is `<64 lowercase hex>  <relpath>` (two spaces, as `sha256sum` prints it,
//! so `sha256sum -c` can check a vendored tree by hand), lines sorted bytewise by path
//! (BLK `scripts/fetch-testdata.sh` writes `.upstream-manifest` this way; docs/upstream.md §8).
//! Nothing here touches a file: callers hand in bytes or a reader.

use sha2::{Digest as _, Sha256};
use std::fmt;
use std::io::{self, Read};

/// A SHA-256 digest.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Sha256Digest(pub [u8; 32]);

impl Sha256Digest {
    pub fn to_hex(&self) -> String {
        self.to_string()
    }

    /// Accepts exactly 64 lowercase hex digits (what `sha256sum` prints); anything else is an
    /// error that says what was wrong.
    pub fn from_hex(text: &str) -> Result<Sha256Digest, String> {
        if text.len() != 64 {
            return Err(format!("a SHA-256 is 64 hex digits, got {} characters", text.len()));
        }
        let mut out = [0u8; 32];
        for (i, pair) in text.as_bytes().chunks(2).enumerate() {
            let hi = hex_value(pair[0]);
            let lo = hex_value(pair[1]);
            match (hi, lo) {
                (Some(hi), Some(lo)) => out[i] = hi * 16 + lo,
                _ => return Err(format!("not lowercase hex: {text:?}")),
            }
        }
        Ok(Sha256Digest(out))
    }
}

fn hex_value(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        _ => None,
    }
}

impl fmt::Display for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Sha256Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sha256Digest({self})")
    }
}

pub fn sha256(bytes: &[u8]) -> Sha256Digest {
    Sha256Digest(Sha256::digest(bytes).into())
}

/// Streams `reader` through SHA-256 in fixed-size chunks, so a large corpus file is never held
/// in memory whole. Returns the digest and the number of bytes read.
pub fn sha256_reader(mut reader: impl Read) -> io::Result<(Sha256Digest, u64)> {
    let mut hasher = Sha256::new();
    // 64 KiB: large enough that syscalls do not dominate, small enough to stay in cache.
    let mut buf = vec![0u8; 64 * 1024];
    let mut total = 0u64;
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        total += n as u64;
    }
    Ok((Sha256Digest(hasher.finalize().into()), total))
}

/// One manifest line: a file's digest and its path relative to the tree root, `/`-separated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestEntry {
    pub digest: Sha256Digest,
    pub path: String,
}

/// Why a relative path cannot appear in a manifest, or `None` when it can. Paths are text so
/// the manifest stays a text file; they are relative, `/`-separated, without `.`/`..` parts,
/// and cannot hold a newline, a backslash or a carriage return (which `sha256sum` escapes).
pub fn invalid_relpath(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("empty path");
    }
    if path.starts_with('/') {
        return Some("absolute path");
    }
    if path.contains(['\n', '\r', '\\', '\0']) {
        return Some("path contains a newline, carriage return, backslash or NUL");
    }
    if path.split('/').any(|part| part.is_empty() || part == "." || part == "..") {
        return Some("path has an empty, `.` or `..` component");
    }
    None
}

/// Sorts bytewise by path (what `LC_ALL=C sort -k2` gives), the one order a manifest has.
pub fn sort_entries(entries: &mut [ManifestEntry]) {
    entries.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
}

/// Renders entries as manifest text, sorted, one `\n`-terminated line each.
pub fn render_manifest(entries: &[ManifestEntry]) -> String {
    let mut sorted = entries.to_vec();
    sort_entries(&mut sorted);
    let mut out = String::with_capacity(sorted.len() * 100);
    for e in &sorted {
        out.push_str(&render_line(e));
        out.push('\n');
    }
    out
}

pub fn render_line(entry: &ManifestEntry) -> String {
    format!("{}  {}", entry.digest, entry.path)
}

/// Parses one `<sha256>  <relpath>` line.
pub fn parse_line(line: &str) -> Result<ManifestEntry, String> {
    let Some((hex, path)) = line.split_once("  ") else {
        return Err("expected `<sha256>  <relpath>` (two spaces between)".to_string());
    };
    let digest = Sha256Digest::from_hex(hex)?;
    if let Some(why) = invalid_relpath(path) {
        return Err(format!("{why}: {path:?}"));
    }
    Ok(ManifestEntry { digest, path: path.to_string() })
}

/// A manifest error: 1-based line number and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestError {
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for ManifestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

/// Parses a whole manifest strictly: every line well-formed, paths unique and in bytewise
/// order, the text ending with a newline. A manifest that was sorted differently or edited by
/// hand is reported, not silently re-sorted.
pub fn parse_manifest(text: &str) -> Result<Vec<ManifestEntry>, ManifestError> {
    let mut out: Vec<ManifestEntry> = Vec::new();
    if !text.is_empty() && !text.ends_with('\n') {
        let line = text.lines().count();
        return Err(ManifestError { line, reason: "last line has no trailing newline".into() });
    }
    for (i, line) in text.lines().enumerate() {
        let entry = parse_line(line).map_err(|reason| ManifestError { line: i + 1, reason })?;
        if let Some(prev) = out.last() {
            match prev.path.as_bytes().cmp(entry.path.as_bytes()) {
                std::cmp::Ordering::Less => {}
                std::cmp::Ordering::Equal => {
                    return Err(ManifestError { line: i + 1, reason: format!("duplicate path {:?}", entry.path) })
                }
                std::cmp::Ordering::Greater => {
                    return Err(ManifestError {
                        line: i + 1,
                        reason: format!("{:?} is out of bytewise order", entry.path),
                    })
                }
            }
        }
        out.push(entry);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    // FIPS 180-2 appendix B test vectors (also the first examples in RFC 6234).
    const EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    const TWO_BLOCKS: &str = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";

    #[test]
    fn fips_180_vectors() {
        assert_eq!(sha256(b"").to_hex(), EMPTY);
        assert_eq!(sha256(b"abc").to_hex(), ABC);
        let msg = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(sha256(msg).to_hex(), TWO_BLOCKS);
    }

    #[test]
    fn streaming_equals_one_shot_across_chunk_boundaries() {
        // One million 'a' (FIPS 180-2 B.3), read through a reader that hands out odd sizes.
        struct Dribble(usize);
        impl Read for Dribble {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.min(buf.len()).min(7919);
                buf[..n].fill(b'a');
                self.0 -= n;
                Ok(n)
            }
        }
        let (digest, len) = sha256_reader(Dribble(1_000_000)).unwrap();
        assert_eq!(len, 1_000_000);
        assert_eq!(digest.to_hex(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }

    #[test]
    fn hashing_is_over_bytes_not_text() {
        // Latin-1 "é" and UTF-8 "é" are different files.
        assert_ne!(sha256(&[0xe9]), sha256("é".as_bytes()));
    }

    #[test]
    fn hex_round_trips_and_rejects_uppercase_and_short() {
        let d = Sha256Digest::from_hex(ABC).unwrap();
        assert_eq!(d.to_hex(), ABC);
        assert!(Sha256Digest::from_hex(&ABC.to_uppercase()).unwrap_err().contains("hex"));
        assert!(Sha256Digest::from_hex(&ABC[..63]).unwrap_err().contains("64"));
    }

    #[test]
    fn manifest_is_sorted_bytewise_not_by_locale() {
        // Bytewise, 'Z' (0x5a) sorts before 'a' (0x61), and '-' (0x2d) < '/' (0x2f) < '_'
        // (0x5f); a locale-aware sort would put "Zed" last and ignore the punctuation.
        let e = |p: &str| ManifestEntry { digest: sha256(p.as_bytes()), path: p.into() };
        let text = render_manifest(&[e("a/b"), e("a_z"), e("Zed"), e("a-b")]);
        let paths: Vec<&str> = text.lines().map(|l| &l[66..]).collect();
        assert_eq!(paths, ["Zed", "a-b", "a/b", "a_z"]);
        assert_eq!(parse_manifest(&text).unwrap().len(), 4);
    }

    #[test]
    fn manifest_line_is_what_sha256sum_prints() {
        let line = render_line(&ManifestEntry { digest: sha256(b"abc"), path: "x/y.yaml".into() });
        assert_eq!(line, format!("{ABC}  x/y.yaml"));
        assert_eq!(parse_line(&line).unwrap().path, "x/y.yaml");
    }

    #[test]
    fn parse_errors_name_the_line_and_reason() {
        let good = format!("{ABC}  a.yaml\n");
        let cases = [
            (format!("{good}{EMPTY} b.yaml\n"), 2, "two spaces"),
            (format!("{good}{}  b.yaml\n", &EMPTY[..60]), 2, "64"),
            (format!("{good}{EMPTY}  a.yaml\n"), 2, "duplicate"),
            (format!("{EMPTY}  b.yaml\n{good}"), 2, "order"),
            (format!("{good}{EMPTY}  ../b.yaml\n"), 2, ".."),
            (format!("{good}{EMPTY}  /b.yaml\n"), 2, "absolute"),
            (format!("{good}{EMPTY}  b.yaml"), 2, "trailing newline"),
        ];
        for (text, line, needle) in cases {
            let err = parse_manifest(&text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err}");
            assert!(err.reason.contains(needle), "{text:?}: {err}");
        }
    }

    #[test]
    fn an_interrupted_read_is_retried_and_any_other_error_returned() {
        /// Gives `first` on its first read, then "abc", then the end; after an error other
        /// than Interrupted it must not be read again.
        struct Reader {
            first: Option<io::ErrorKind>,
            done: bool,
            failed: bool,
        }
        impl Read for Reader {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                assert!(!self.failed, "read again after an error that is not Interrupted");
                if let Some(kind) = self.first.take() {
                    self.failed = kind != io::ErrorKind::Interrupted;
                    return Err(io::Error::new(kind, "test"));
                }
                if std::mem::replace(&mut self.done, true) {
                    return Ok(0);
                }
                buf[..3].copy_from_slice(b"abc");
                Ok(3)
            }
        }
        let (digest, n) =
            sha256_reader(Reader { first: Some(io::ErrorKind::Interrupted), done: false, failed: false }).unwrap();
        assert_eq!((digest.to_hex().as_str(), n), (ABC, 3));
        let e = sha256_reader(Reader { first: Some(io::ErrorKind::Other), done: false, failed: false }).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::Other);
    }

    #[test]
    fn each_dot_part_and_each_empty_part_is_refused_alone() {
        for path in ["a/./b", "a/../b", "a//b", "./a", "a/.."] {
            assert_eq!(invalid_relpath(path), Some("path has an empty, `.` or `..` component"), "{path}");
        }
        assert_eq!(invalid_relpath("a/.b/c..d"), None);
    }

    #[test]
    fn a_digest_and_a_manifest_error_say_what_they_are() {
        assert_eq!(format!("{:?}", sha256(b"abc")), format!("Sha256Digest({ABC})"));
        assert_eq!(ManifestError { line: 3, reason: "duplicate path".into() }.to_string(), "line 3: duplicate path");
    }
}
