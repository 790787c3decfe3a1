//! The content-addressed point cache.
//!
//! A point's key is SHA-256 over the binary's bytes (its digest), the scenario file name and
//! variant text, the workload spec text and the seed (`key`): a point is a pure function of
//! those (docs/upstream.md §7), so a hit is the same answer a run would give, and a changed
//! binary or input misses. One entry per file, `<dir>/<key[0..2]>/<key>.json`, holding the
//! summarized metrics as a JSON string plus the SHA-256 of that string. Entries are written
//! with `harness::atomic::write` (temp file + rename), so an interrupted run (Ctrl-C, a kill)
//! leaves either the old state or a complete entry, never a torn one; a damaged entry fails its
//! checksum and is recomputed, never trusted.

use super::binary::hex;
use super::metrics::PointMetrics;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FORMAT: &str = "blis-repro-point-cache/1";

/// Bumped whenever `metrics::summarize` changes meaning, so old entries miss.
const SUMMARY_VERSION: &str = "summarize/2";

/// The content key of one point.
pub fn key(binary_digest: &str, scenario_name: &str, variant: &str, workload: &str, seed: u64) -> String {
    let mut h = Sha256::new();
    // Length-prefixed fields: no two different inputs hash the same byte stream.
    for field in [FORMAT, SUMMARY_VERSION, binary_digest, scenario_name, variant, workload, &seed.to_string()] {
        h.update((field.len() as u64).to_le_bytes());
        h.update(field.as_bytes());
    }
    hex(&h.finalize())
}

/// What the key knows the binary by: its digest, and the extra environment it runs with (a
/// test steering the double's knobs is another binary as far as its answers go). With no
/// extra environment, the digest alone, so existing entries stay valid.
pub fn binary_identity(digest: &str, env: &[(String, String)]) -> String {
    let mut env = env.to_vec();
    env.sort();
    let mut out = digest.to_string();
    for (k, v) in env {
        out += &format!("\n{k}={v}");
    }
    out
}

#[derive(Serialize, Deserialize)]
struct Entry {
    format: String,
    key: String,
    /// `PointMetrics` as JSON text; `checksum` is the SHA-256 of exactly these bytes.
    metrics: String,
    checksum: String,
}

pub enum Lookup {
    Hit(PointMetrics),
    Miss,
    /// The entry exists but cannot be trusted; the reason says why.
    Corrupt(String),
}

#[derive(Clone, Debug)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn entry_path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    pub fn get(&self, key: &str) -> Lookup {
        let path = self.entry_path(key);
        match std::fs::read(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Lookup::Miss,
            Err(e) => Lookup::Corrupt(format!("reading {}: {e}", path.display())),
            Ok(bytes) => match decode(&bytes, key) {
                Ok(metrics) => Lookup::Hit(metrics),
                Err(e) => Lookup::Corrupt(format!("{}: {e:#}", path.display())),
            },
        }
    }

    pub fn put(&self, key: &str, metrics: &PointMetrics) -> Result<()> {
        crate::atomic::write(&self.entry_path(key), &encode(key, metrics)?)
    }

    /// Every entry file below the cache directory, keyed by the key its name states.
    pub fn entries(&self) -> Result<BTreeMap<String, PathBuf>> {
        let mut out = BTreeMap::new();
        if !self.dir.exists() {
            return Ok(out);
        }
        for shard in read_dir_sorted(&self.dir)? {
            if !shard.is_dir() {
                continue;
            }
            for file in read_dir_sorted(&shard)? {
                let name = file.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                if let Some(key) = name.strip_suffix(".json") {
                    if key.len() == 64 && key.bytes().all(|b| b.is_ascii_hexdigit()) {
                        out.insert(key.to_string(), file.clone());
                    }
                }
            }
        }
        Ok(out)
    }
}

fn read_dir_sorted(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("listing {}", dir.display()))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .with_context(|| format!("listing {}", dir.display()))?;
    paths.sort();
    Ok(paths)
}

fn checksum(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

pub fn encode(key: &str, metrics: &PointMetrics) -> Result<Vec<u8>> {
    let metrics = serde_json::to_string(metrics)?;
    let entry = Entry { format: FORMAT.into(), key: key.into(), checksum: checksum(&metrics), metrics };
    let mut bytes = serde_json::to_vec_pretty(&entry)?;
    bytes.push(b'\n');
    Ok(bytes)
}

pub fn decode(bytes: &[u8], expected_key: &str) -> Result<PointMetrics> {
    let entry: Entry = serde_json::from_slice(bytes).context("not a cache entry")?;
    if entry.format != FORMAT {
        bail!("format {:?}, expected {FORMAT:?}", entry.format);
    }
    if entry.key != expected_key {
        bail!("states key {}, stored under {expected_key}", entry.key);
    }
    if checksum(&entry.metrics) != entry.checksum {
        bail!("checksum mismatch");
    }
    serde_json::from_str(&entry.metrics).context("metrics do not parse")
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct MergeStats {
    pub copied: usize,
    pub already_present: usize,
}

/// Combines shard caches into `into`. Every source entry must verify; two different entries
/// for one key are an error (a point is a pure function of its key, so a conflict means a
/// nondeterministic binary or a damaged cache), reported before anything is written.
pub fn merge(sources: &[PathBuf], into: &Path) -> Result<MergeStats> {
    let target = Cache::new(into);
    let mut chosen: BTreeMap<String, (PathBuf, Vec<u8>)> = BTreeMap::new();
    for (key, path) in target.entries()? {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        decode(&bytes, &key).with_context(|| format!("{} is corrupt", path.display()))?;
        chosen.insert(key, (path, bytes));
    }
    let mut stats = MergeStats::default();
    let mut to_write = Vec::new();
    for source in sources {
        if !source.is_dir() {
            bail!("{} is not a cache directory", source.display());
        }
        for (key, path) in Cache::new(source).entries()? {
            let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            let metrics = decode(&bytes, &key).with_context(|| format!("{} is corrupt", path.display()))?;
            match chosen.get(&key) {
                Some((other, other_bytes)) => {
                    let other_metrics = decode(other_bytes, &key)?;
                    if other_metrics != metrics {
                        bail!(
                            "conflicting entries for key {key}: {} and {} differ (a point must be a pure \
                             function of its key: is the binary nondeterministic?)",
                            other.display(),
                            path.display()
                        );
                    }
                    stats.already_present += 1;
                }
                None => {
                    to_write.push((key.clone(), metrics));
                    chosen.insert(key, (path, bytes));
                }
            }
        }
    }
    for (key, metrics) in &to_write {
        target.put(key, metrics)?;
        stats.copied += 1;
    }
    Ok(stats)
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub entries: usize,
    pub corrupt: Vec<PathBuf>,
    pub bytes: u64,
}

pub fn stats(dir: &Path) -> Result<CacheStats> {
    let mut stats = CacheStats::default();
    for (key, path) in Cache::new(dir).entries()? {
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        stats.entries += 1;
        stats.bytes += bytes.len() as u64;
        if decode(&bytes, &key).is_err() {
            stats.corrupt.push(path);
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> PointMetrics {
        PointMetrics {
            tpot_ms: 0.1 + 0.2,
            ttft_ms: 1.0 / 3.0,
            completed: 12,
            tpot_samples: 10,
            ttft_samples: 12,
            metrics_sha256: "ab".into(),
        }
    }

    #[test]
    fn an_entry_round_trips_bit_for_bit() {
        let k = key("d", "s.yaml", "v", "w", 0);
        assert_eq!(decode(&encode(&k, &metrics()).unwrap(), &k).unwrap(), metrics());
    }

    #[test]
    fn a_flipped_digit_fails_the_checksum() {
        let k = key("d", "s.yaml", "v", "w", 0);
        let text = String::from_utf8(encode(&k, &metrics()).unwrap()).unwrap();
        let damaged = text.replacen("\\\"completed\\\":12", "\\\"completed\\\":13", 1);
        assert_ne!(damaged, text);
        assert!(decode(damaged.as_bytes(), &k).unwrap_err().to_string().contains("checksum"));
    }

    #[test]
    fn no_extra_environment_keeps_the_bare_digest() {
        assert_eq!(binary_identity("d", &[]), "d");
    }

    #[test]
    fn every_input_moves_the_key() {
        let base = key("d", "s", "v", "w", 0);
        for other in [
            key("e", "s", "v", "w", 0),
            key("d", "t", "v", "w", 0),
            key("d", "s", "x", "w", 0),
            key("d", "s", "v", "x", 0),
            key("d", "s", "v", "w", 1),
            key("ds", "", "v", "w", 0),
            key(&binary_identity("d", &[("BLIS_DOUBLE_SLOWDOWN".into(), "1".into())]), "s", "v", "w", 0),
        ] {
            assert_ne!(base, other);
        }
    }
}
