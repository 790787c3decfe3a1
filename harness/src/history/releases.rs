//! The releases a history runs: one folder per tag (`--releases DIR`, as
//! `../shared/blis-releases/unpack.sh` lays them out) or a list of `TAG=PATH`, ordered by
//! version. Whatever cannot be a release (a file, a tag that is not a version, two entries
//! naming one version, a `blis` that is missing or not executable) is kept as a rejected entry
//! with the reason, so the report has a line for it and the other releases still run.

use std::cmp::Ordering;
use std::fmt;
use std::path::{Path, PathBuf};

/// `vMAJOR.MINOR.PATCH` with an optional `-PRERELEASE`, ordered as semver orders them (a
/// pre-release before its release; numeric identifiers numerically).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
    pub pre: Vec<String>,
}

impl Version {
    /// `v0.7.13`, `0.7.13`, `v1.0.0-rc.1`; anything else is `None`.
    pub fn parse(tag: &str) -> Option<Version> {
        let text = tag.strip_prefix('v').unwrap_or(tag);
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (text, None),
        };
        let numbers: Vec<&str> = core.split('.').collect();
        let [major, minor, patch] = numbers.as_slice() else { return None };
        let number = |s: &str| {
            (!s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) && (s == "0" || !s.starts_with('0')))
                .then(|| s.parse::<u64>().ok())
                .flatten()
        };
        let pre = match pre {
            None => Vec::new(),
            Some(p) => {
                let ids: Vec<String> = p.split('.').map(str::to_string).collect();
                // A numeric identifier has no leading zero (semver 2.0.0, item 9): `rc.01` and
                // `rc.1` would otherwise be two spellings that order as one version.
                let numeric_with_zero =
                    |id: &String| id.len() > 1 && id.starts_with('0') && id.chars().all(|c| c.is_ascii_digit());
                let valid = |id: &String| {
                    !id.is_empty()
                        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
                        && !numeric_with_zero(id)
                };
                if !ids.iter().all(valid) {
                    return None;
                }
                ids
            }
        };
        Some(Version { major: number(major)?, minor: number(minor)?, patch: number(patch)?, pre })
    }
}

impl Ord for Version {
    fn cmp(&self, other: &Version) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        core.then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            (false, false) => {
                for (a, b) in self.pre.iter().zip(&other.pre) {
                    let order = match (a.parse::<u64>(), b.parse::<u64>()) {
                        (Ok(x), Ok(y)) => x.cmp(&y),
                        (Ok(_), Err(_)) => Ordering::Less,
                        (Err(_), Ok(_)) => Ordering::Greater,
                        (Err(_), Err(_)) => a.cmp(b),
                    };
                    if order != Ordering::Equal {
                        return order;
                    }
                }
                self.pre.len().cmp(&other.pre.len())
            }
        })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Version) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}.{}.{}", self.major, self.minor, self.patch)?;
        if !self.pre.is_empty() {
            write!(f, "-{}", self.pre.join("."))?;
        }
        Ok(())
    }
}

/// One release to run: its tag as given, its version, its `blis` and its folder (the working
/// directory every point of it runs in).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Release {
    pub tag: String,
    /// `None` for a build the lock names by its commit (e.g. `f90a1e3a`): it has no place in
    /// the version order and comes after every tag.
    pub version: Option<Version>,
    pub binary: PathBuf,
}

/// An entry that is not a release, with why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejected {
    pub tag: String,
    pub reason: String,
}

/// What a listing found: the releases in version order, then the rejected entries in the
/// order they were found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Listing {
    pub releases: Vec<Release>,
    pub rejected: Vec<Rejected>,
}

/// One folder per release under `dir`, named by its tag, each holding `blis`.
pub fn from_dir(dir: &Path) -> anyhow::Result<Listing> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| anyhow::anyhow!("--releases {}: cannot read the folder: {e}", dir.display()))?;
    let mut names: Vec<(String, PathBuf)> = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| anyhow::anyhow!("--releases {}: reading an entry: {e}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        names.push((name, entry.path()));
    }
    names.sort();
    if names.is_empty() {
        anyhow::bail!(
            "--releases {}: the folder is empty; expected one folder per release, named by its tag, each holding `blis`",
            dir.display()
        );
    }
    let mut candidates = Vec::new();
    let mut listing = Listing::default();
    for (name, path) in names {
        if !path.is_dir() {
            // What it is, in words: a symlink loop or a FIFO is not "a file".
            let what = crate::read::not_a_file(&path).unwrap_or_else(|| "a file".into());
            listing.rejected.push(Rejected {
                tag: name,
                reason: format!("{what}, not a folder (a release is a folder named by its tag holding `blis`)"),
            });
            continue;
        }
        candidates.push((name, path.join("blis")));
    }
    order(candidates, listing)
}

/// `TAG=PATH` entries, PATH being a release's `blis` or its folder.
pub fn from_pairs(pairs: &[String]) -> anyhow::Result<Listing> {
    let mut candidates = Vec::new();
    for pair in pairs {
        let Some((tag, path)) = pair.split_once('=').filter(|(t, p)| !t.is_empty() && !p.is_empty()) else {
            anyhow::bail!("--release {pair:?}: expected TAG=PATH (for example v0.7.13=/opt/blis/v0.7.13/blis)");
        };
        let path = PathBuf::from(path);
        let binary = if path.is_dir() { path.join("blis") } else { path };
        candidates.push((tag.to_string(), binary));
    }
    order(candidates, Listing::default())
}

/// Rejects what cannot run, then sorts the rest by version.
fn order(candidates: Vec<(String, PathBuf)>, mut listing: Listing) -> anyhow::Result<Listing> {
    let mut versioned: Vec<(String, Version, PathBuf)> = Vec::new();
    for (tag, binary) in candidates {
        let Some(version) = Version::parse(&tag) else {
            listing.rejected.push(Rejected {
                tag: tag.clone(),
                reason: format!(
                    "the tag `{tag}` is not a version (vMAJOR.MINOR.PATCH): it has no place in the release order"
                ),
            });
            continue;
        };
        versioned.push((tag, version, binary));
    }
    // Two entries naming one version: neither is taken, since either could be the release.
    let mut kept = Vec::new();
    for (k, (tag, version, binary)) in versioned.iter().enumerate() {
        let same: Vec<&str> = versioned
            .iter()
            .enumerate()
            .filter(|(j, (_, v, _))| v == version && *j != k)
            .map(|(_, (t, _, _))| t.as_str())
            .collect();
        if !same.is_empty() {
            listing.rejected.push(Rejected {
                tag: tag.clone(),
                reason: format!("names the same release ({version}) as {}: neither is run", same.join(", ")),
            });
            continue;
        }
        if let Err(why) = runnable(binary) {
            listing.rejected.push(Rejected { tag: tag.clone(), reason: why });
            continue;
        }
        kept.push(Release { tag: tag.clone(), version: Some(version.clone()), binary: binary.clone() });
    }
    sort(&mut kept);
    listing.releases = kept;
    Ok(listing)
}

/// Version order, builds named by a commit last (in the order given).
pub fn sort(releases: &mut [Release]) {
    releases.sort_by(|a, b| match (&a.version, &b.version) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
}

/// A regular, executable file (what `blis run --help` needs before anything is asked of it).
fn runnable(binary: &Path) -> Result<(), String> {
    let meta = match std::fs::metadata(binary) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!("holds no `blis` ({} does not exist)", shown(binary)))
        }
        Err(e) => return Err(format!("{}: {e}", shown(binary))),
    };
    if !meta.is_file() {
        return Err(format!("{} is not a regular file", shown(binary)));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = meta.permissions().mode();
        if mode & 0o111 == 0 {
            return Err(format!("{} is not executable (mode {:o})", shown(binary), mode & 0o7777));
        }
    }
    Ok(())
}

/// The folder and file name only: the report is snapshotted, the machine's paths are not.
fn shown(binary: &Path) -> String {
    let file = binary.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    match binary.parent().and_then(Path::file_name) {
        Some(dir) => format!("{}/{file}", dir.to_string_lossy()),
        None => file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_order_as_semver_not_as_strings() {
        let mut tags = ["v0.7.10", "v0.7.2", "v0.6.14", "v0.7.13", "v1.0.0", "v1.0.0-rc.2", "v1.0.0-rc.10", "v0.7.9"];
        tags.sort_by_key(|t| Version::parse(t).unwrap());
        assert_eq!(
            tags,
            ["v0.6.14", "v0.7.2", "v0.7.9", "v0.7.10", "v0.7.13", "v1.0.0-rc.2", "v1.0.0-rc.10", "v1.0.0"]
        );
        assert_eq!(Version::parse("0.7.2"), Version::parse("v0.7.2"));
        for bad in
            ["iter27", "v0.7", "v0.7.x", "v01.2.3", "v0.7.2-", "v0.7.2-a..b", "", "v", "v2.0.0-rc.01", "v1.0.0-00"]
        {
            assert_eq!(Version::parse(bad), None, "{bad}");
        }
        assert_eq!(Version::parse("v1.2.3-rc.1").unwrap().to_string(), "v1.2.3-rc.1");
        // Equal exactly when they order as equal: no two spellings of one version.
        let (a, b) = (Version::parse("v2.0.0-rc.1").unwrap(), Version::parse("v2.0.0-rc.1a0").unwrap());
        assert_eq!(a == b, a.cmp(&b) == std::cmp::Ordering::Equal);
        assert!(Version::parse("v2.0.0-0a").is_some() && Version::parse("v2.0.0-0").is_some());
    }

    fn folder_with(entries: &[(&str, Option<u32>)]) -> tempfile::TempDir {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        for (name, mode) in entries {
            let path = dir.path().join(name);
            match mode {
                Some(mode) => {
                    std::fs::create_dir(&path).unwrap();
                    let blis = path.join("blis");
                    std::fs::write(&blis, "#!/bin/sh\n").unwrap();
                    std::fs::set_permissions(&blis, std::fs::Permissions::from_mode(*mode)).unwrap();
                }
                None => std::fs::write(&path, "not a release").unwrap(),
            }
        }
        dir
    }

    #[test]
    fn a_folder_lists_releases_in_version_order_and_says_what_each_other_entry_is() {
        let dir = folder_with(&[
            ("v0.7.10", Some(0o755)),
            ("v0.7.9", Some(0o755)),
            ("v0.7.2", Some(0o755)),
            ("0.7.2", Some(0o755)),
            ("iter27", Some(0o755)),
            ("v0.7.3", Some(0o644)),
            ("NOTES.txt", None),
        ]);
        std::fs::create_dir(dir.path().join("v0.7.4")).unwrap();
        let listing = from_dir(dir.path()).unwrap();
        let tags: Vec<&str> = listing.releases.iter().map(|r| r.tag.as_str()).collect();
        assert_eq!(tags, ["v0.7.9", "v0.7.10"]);
        let why = |tag: &str| listing.rejected.iter().find(|r| r.tag == tag).map(|r| r.reason.clone()).unwrap();
        assert!(why("NOTES.txt").contains("a file, not a folder"));
        assert!(why("iter27").contains("not a version"));
        assert!(why("0.7.2").contains("same release (v0.7.2) as v0.7.2"));
        assert!(why("v0.7.2").contains("same release (v0.7.2) as 0.7.2"));
        assert!(why("v0.7.3").contains("v0.7.3/blis is not executable (mode 644)"), "{}", why("v0.7.3"));
        assert!(why("v0.7.4").contains("holds no `blis`"));
        assert_eq!(listing.rejected.len(), 6);
    }

    #[test]
    fn a_symlink_loop_or_a_fifo_among_the_releases_is_called_what_it_is() {
        let dir = folder_with(&[("v0.7.13", Some(0o755))]);
        std::os::unix::fs::symlink("v0.7.12", dir.path().join("v0.7.12")).unwrap();
        std::os::unix::fs::symlink("v0.7.12", dir.path().join("v0.7.11")).unwrap();
        std::fs::remove_file(dir.path().join("v0.7.12")).unwrap();
        std::os::unix::fs::symlink("v0.7.11", dir.path().join("v0.7.12")).unwrap();
        assert!(std::process::Command::new("mkfifo").arg(dir.path().join("v0.7.10")).status().unwrap().success());
        let listing = from_dir(dir.path()).unwrap();
        let why = |tag: &str| listing.rejected.iter().find(|r| r.tag == tag).map(|r| r.reason.clone()).unwrap();
        assert!(why("v0.7.12").starts_with("a symlink loop, not a folder"), "{}", why("v0.7.12"));
        assert!(why("v0.7.10").starts_with("a FIFO, not a folder"), "{}", why("v0.7.10"));
    }

    #[test]
    fn pairs_take_a_binary_or_its_folder_and_refuse_a_malformed_entry() {
        let dir = folder_with(&[("v0.7.13", Some(0o755)), ("v0.7.12", Some(0o755))]);
        let a = format!("v0.7.13={}", dir.path().join("v0.7.13").display());
        let b = format!("v0.7.12={}", dir.path().join("v0.7.12/blis").display());
        let listing = from_pairs(&[a.clone(), b]).unwrap();
        let tags: Vec<&str> = listing.releases.iter().map(|r| r.tag.as_str()).collect();
        assert_eq!(tags, ["v0.7.12", "v0.7.13"]);
        assert!(listing.releases[1].binary.ends_with("v0.7.13/blis"));
        let twice = from_pairs(&[a.clone(), a]).unwrap();
        assert!(twice.releases.is_empty() && twice.rejected.len() == 2, "{twice:?}");
        let err = from_pairs(&["v0.7.13".into()]).unwrap_err().to_string();
        assert!(err.contains("expected TAG=PATH"), "{err}");
        let empty = tempfile::tempdir().unwrap();
        let err = from_dir(empty.path()).unwrap_err().to_string();
        assert!(err.contains("the folder is empty"), "{err}");
    }
}
