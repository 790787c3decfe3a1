//! The content-addressed point cache.
//!
//! A point's key is SHA-256 over everything its answer can depend on (`KeyInputs`): the
//! binary's bytes, every variable of the child's environment (the rest is cleared), the
//! scenario file name and deployment text, the workload text, the seed, and every other file or
//! tree the child reads (`KeyInputs::files`). A point is a pure function of those
//! (docs/upstream.md §7), so a hit is the answer a run would give, and any changed input misses.
//! docs/blis-arm.md lists what is in the key and why.
//!
//! An entry holds what the simulator said, not what the harness made of it: the per-request
//! record the summarizer reads (the counts and, per request, arrival, TTFT, ITL and e2e), as a
//! JSON string with its SHA-256, plus the SHA-256 of the metrics file the record was read from.
//! The summary is computed from the record on every read (`metrics::parse` then the
//! summarizer), so a changed summarizer can never be served from an old entry. One entry per
//! file, `<dir>/<key[0..2]>/<key>.json`, written with `harness::atomic::write_owned` (temp file +
//! rename at exactly that name: a symlink planted there is replaced, never written through), so an interrupted run leaves either the old state or a complete entry; a damaged
//! entry fails its checksum and is recomputed, never trusted; an entry of an older format is
//! recomputed and counted.

use super::binary::hex;
use super::metrics::MetricsFile;
use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Format 2: per-request records (format 1 held the summary).
const FORMAT: &str = "blis-repro-point-cache/2";

/// One file or tree the child reads besides the point's own files, as the key sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KeyedFile {
    /// What it is, independent of where it lies: `catalog tree`, `hardware_config.json`, ...
    pub name: String,
    /// SHA-256 of the file's bytes, or of a tree's manifest (`tree_sha256`).
    pub sha256: String,
    /// Where it was read (not hashed: the same bytes anywhere are the same input).
    pub source: PathBuf,
}

impl KeyedFile {
    /// A folder, hashed by its manifest (`tree_sha256`).
    pub fn tree(name: impl Into<String>, dir: &Path) -> Result<KeyedFile> {
        Ok(KeyedFile { name: name.into(), sha256: tree_sha256(dir)?, source: dir.to_path_buf() })
    }
}

/// SHA-256 of a folder's manifest: `<sha256>  <relpath>` per regular file, sorted, as the lock
/// writes it (`oracles::hashing::render_manifest`), so a vendored tree's value is its lock
/// hash. A symlink, FIFO, device or unreadable entry is an error, never followed or opened.
pub fn tree_sha256(dir: &Path) -> Result<String> {
    let scan = crate::lock::tree::scan_tree(dir).with_context(|| format!("hashing the tree {}", dir.display()))?;
    if let Some((path, why)) = scan.problems.iter().next() {
        bail!("hashing the tree {}: {path}: {why}", dir.display());
    }
    let entries: Vec<oracles::hashing::ManifestEntry> =
        scan.files.into_iter().map(|(path, digest)| oracles::hashing::ManifestEntry { digest, path }).collect();
    Ok(hex(&Sha256::digest(oracles::hashing::render_manifest(&entries).as_bytes())))
}

/// Everything one point's answer can depend on.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct KeyInputs {
    /// SHA-256 of the binary's bytes (the private copy that runs).
    pub binary_sha256: String,
    /// Every variable set in the child's environment; nothing else reaches it.
    pub env: Vec<(String, String)>,
    pub scenario_name: String,
    /// Scenario dialect: the scenario variant; flag dialect: the deployment flags.
    pub deployment: String,
    /// The workload spec, or the TraceV2 header and data.
    pub workload: String,
    pub seed: u64,
    /// Every other file or tree the child reads. A new input the child reads (a generated
    /// model config, say) is one more entry here.
    pub files: Vec<KeyedFile>,
}

impl KeyInputs {
    /// The content key.
    pub fn key(&self) -> String {
        let mut h = Sha256::new();
        // Length-prefixed fields: no two different inputs hash the same byte stream.
        let mut field = |text: &str| {
            h.update((text.len() as u64).to_le_bytes());
            h.update(text.as_bytes());
        };
        field(FORMAT);
        field(&self.binary_sha256);
        let mut env = self.env.clone();
        env.sort();
        field(&env.len().to_string());
        for (k, v) in &env {
            field(k);
            field(v);
        }
        field(&self.scenario_name);
        field(&self.deployment);
        field(&self.workload);
        field(&self.seed.to_string());
        let mut files: Vec<(&str, &str)> = self.files.iter().map(|f| (f.name.as_str(), f.sha256.as_str())).collect();
        files.sort();
        field(&files.len().to_string());
        for (name, sha) in files {
            field(name);
            field(sha);
        }
        hex(&h.finalize())
    }
}

#[derive(Serialize, Deserialize)]
struct Entry {
    format: String,
    key: String,
    /// The per-request record (`MetricsFile`, only the fields the summarizer reads) as JSON
    /// text; `checksum` is the SHA-256 of exactly these bytes.
    record: String,
    checksum: String,
    /// SHA-256 of the metrics file the simulator wrote.
    metrics_sha256: String,
    /// What the run that made the entry cost. Outside the key and the checksum (two runs of one
    /// point agree on the record, not on the time), never read into a figure; absent in entries
    /// written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    cost: Option<PointCost>,
}

/// What one simulation of a point cost: the child's wall time from start to exit and its CPU
/// time (user + system), in seconds. Only for scheduling and the shard bench
/// (docs/blis-arm.md, Shards): it varies run to run, so no figure or rendering reads it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointCost {
    pub wall_s: f64,
    /// `None` where the platform gives no per-child CPU time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<f64>,
}

impl PointCost {
    pub fn of(cost: super::pool::ChildCost) -> PointCost {
        PointCost { wall_s: cost.wall.as_secs_f64(), cpu_s: cost.cpu.map(|c| c.as_secs_f64()) }
    }

    /// A time that is not a finite, non-negative number of seconds is damage, not a time.
    fn check(&self) -> Result<()> {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if !ok(self.wall_s) {
            bail!("cost.wall_s is {}, expected a non-negative number of seconds", self.wall_s);
        }
        if let Some(cpu) = self.cpu_s.filter(|v| !ok(*v)) {
            bail!("cost.cpu_s is {cpu}, expected a non-negative number of seconds");
        }
        Ok(())
    }
}

/// Only the format field: what an entry of any format has.
#[derive(Deserialize)]
struct AnyFormat {
    format: String,
}

/// What a cache entry holds: the simulator's record and the SHA-256 of its metrics file.
#[derive(Debug)]
pub struct Record {
    pub file: MetricsFile,
    pub metrics_sha256: String,
    /// What the run that made it cost (`None`: not recorded).
    pub cost: Option<PointCost>,
}

pub enum Lookup {
    Hit(Record),
    Miss,
    /// An entry of an earlier format: recomputed (and counted), never an error.
    OldFormat(String),
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
        match crate::read::regular_file_bounded(&path, MAX_ENTRY_BYTES) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Lookup::Miss,
            Err(e) => Lookup::Corrupt(format!("reading {}: {e}", path.display())),
            Ok(bytes) => match decode(&bytes, key) {
                Ok(record) => Lookup::Hit(record),
                Err(DecodeError::OldFormat(f)) => Lookup::OldFormat(format!("{}: format {f:?}", path.display())),
                Err(DecodeError::Corrupt(e)) => Lookup::Corrupt(format!("{}: {e:#}", path.display())),
            },
        }
    }

    /// Stores the record read from a metrics file whose bytes hash to `metrics_sha256`, without
    /// a cost.
    pub fn put(&self, key: &str, file: &MetricsFile, metrics_sha256: &str) -> Result<()> {
        crate::atomic::write_owned(&self.entry_path(key), &encode(key, file, metrics_sha256, None)?)
    }

    /// Stores a record with what its run cost.
    pub fn store(&self, key: &str, record: &Record) -> Result<()> {
        crate::atomic::write_owned(
            &self.entry_path(key),
            &encode(key, &record.file, &record.metrics_sha256, record.cost)?,
        )
    }

    fn put_bytes(&self, key: &str, bytes: &[u8]) -> Result<()> {
        crate::atomic::write_owned(&self.entry_path(key), bytes)
    }

    /// Every entry file below the cache directory, keyed by the key its name states. An entry
    /// anywhere but where the cache puts its key (`<key[0..2]>/<key>.json`, lower-case hex), or
    /// a key that stands twice (in two folders, or in two cases), is an error naming the key: a
    /// lookup would never find it, and a merge must not copy it.
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
                let Some(key) = name.strip_suffix(".json") else { continue };
                if key.len() != 64 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
                    continue;
                }
                let lower = key.to_ascii_lowercase();
                let home = self.entry_path(&lower);
                if file != home {
                    if std::fs::symlink_metadata(&home).is_ok() {
                        bail!(
                            "key {lower} stands twice in {}: {} and {}",
                            self.dir.display(),
                            home.display(),
                            file.display()
                        );
                    }
                    bail!(
                        "{}: the entry of key {lower} is misplaced: the cache keeps it at {}",
                        file.display(),
                        home.display()
                    );
                }
                out.insert(lower, file);
            }
        }
        Ok(out)
    }
}

/// An entry is a few hundred bytes per request (docs/blis-arm.md); no real point comes near.
pub const MAX_ENTRY_BYTES: u64 = 256 << 20;

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

pub fn encode(key: &str, file: &MetricsFile, metrics_sha256: &str, cost: Option<PointCost>) -> Result<Vec<u8>> {
    let record = serde_json::to_string(file)?;
    let entry = Entry {
        format: FORMAT.into(),
        key: key.into(),
        checksum: checksum(&record),
        record,
        metrics_sha256: metrics_sha256.into(),
        cost,
    };
    let mut bytes = serde_json::to_vec_pretty(&entry)?;
    bytes.push(b'\n');
    Ok(bytes)
}

pub enum DecodeError {
    OldFormat(String),
    Corrupt(anyhow::Error),
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DecodeError::OldFormat(format) => write!(f, "format {format:?}, expected {FORMAT:?}"),
            DecodeError::Corrupt(e) => write!(f, "{e:#}"),
        }
    }
}

/// The record an entry holds, read as strictly as a metrics file (`metrics::parse`).
pub fn decode(bytes: &[u8], expected_key: &str) -> Result<Record, DecodeError> {
    let corrupt = |e: anyhow::Error| DecodeError::Corrupt(e);
    let any: AnyFormat = serde_json::from_slice(bytes).context("not a cache entry").map_err(corrupt)?;
    if any.format != FORMAT {
        if any.format.starts_with("blis-repro-point-cache/") {
            return Err(DecodeError::OldFormat(any.format));
        }
        return Err(corrupt(anyhow::anyhow!("format {:?}, expected {FORMAT:?}", any.format)));
    }
    let entry: Entry = serde_json::from_slice(bytes).context("not a cache entry").map_err(corrupt)?;
    if entry.key != expected_key {
        return Err(corrupt(anyhow::anyhow!("states key {}, stored under {expected_key}", entry.key)));
    }
    if checksum(&entry.record) != entry.checksum {
        return Err(corrupt(anyhow::anyhow!("checksum mismatch")));
    }
    if let Some(cost) = &entry.cost {
        cost.check().map_err(corrupt)?;
    }
    let file = super::metrics::parse(&entry.record).context("the record").map_err(corrupt)?;
    Ok(Record { file, metrics_sha256: entry.metrics_sha256, cost: entry.cost })
}

#[derive(Debug, Default, PartialEq, Eq)]
pub struct MergeStats {
    pub copied: usize,
    pub already_present: usize,
    /// Entries of an earlier format, left out (a run recomputes them).
    pub old_format: usize,
}

/// A cache folder given by the user must be one: a missing or non-directory path is an error
/// (a mistyped folder must not read as "0 entries").
fn require_dir(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) => {
            bail!("{} is {}, not a cache directory", dir.display(), crate::atomic::describe_kind(&meta.file_type()))
        }
        Err(e) => bail!("{} is not a cache directory: {e}", dir.display()),
    }
}

/// Reads one entry file, refusing anything that is not a bounded regular file.
fn read_entry(path: &Path) -> Result<Vec<u8>> {
    crate::read::regular_file_bounded(path, MAX_ENTRY_BYTES).with_context(|| format!("reading {}", path.display()))
}

/// Combines shard caches into `into`. Every source entry must verify (one of an earlier format
/// is left out and counted); two different entries for one key are an error (a point is a pure
/// function of its key, so a conflict means a nondeterministic binary or a damaged cache),
/// reported before anything is written.
pub fn merge(sources: &[PathBuf], into: &Path) -> Result<MergeStats> {
    let target = Cache::new(into);
    let mut chosen: BTreeMap<String, (PathBuf, Vec<u8>)> = BTreeMap::new();
    let mut stats = MergeStats::default();
    for (key, path) in target.entries()? {
        let bytes = read_entry(&path)?;
        match decode(&bytes, &key) {
            Ok(_) => {
                chosen.insert(key, (path, bytes));
            }
            Err(DecodeError::OldFormat(_)) => {}
            Err(e) => bail!("{} is corrupt: {e}", path.display()),
        }
    }
    let mut to_write = Vec::new();
    for source in sources {
        require_dir(source)?;
        for (key, path) in Cache::new(source).entries()? {
            let bytes = read_entry(&path)?;
            let record = match decode(&bytes, &key) {
                Ok(r) => r,
                Err(DecodeError::OldFormat(_)) => {
                    stats.old_format += 1;
                    continue;
                }
                Err(e) => bail!("{} is corrupt: {e}", path.display()),
            };
            match chosen.get(&key) {
                Some((other, other_bytes)) => {
                    let same = match decode(other_bytes, &key) {
                        Ok(o) => same_record(&o, &record),
                        Err(_) => false,
                    };
                    if !same {
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
                    to_write.push((key.clone(), bytes.clone()));
                    chosen.insert(key, (path, bytes));
                }
            }
        }
    }
    for (key, bytes) in &to_write {
        target.put_bytes(key, bytes)?;
        stats.copied += 1;
    }
    Ok(stats)
}

fn same_record(a: &Record, b: &Record) -> bool {
    a.metrics_sha256 == b.metrics_sha256
        && serde_json::to_string(&a.file).ok().is_some_and(|t| Some(t) == serde_json::to_string(&b.file).ok())
}

#[derive(Debug, Default, PartialEq)]
pub struct CacheStats {
    pub entries: usize,
    pub corrupt: Vec<PathBuf>,
    /// Entries of an earlier format (a run recomputes them).
    pub old_format: usize,
    pub bytes: u64,
    /// Over the verified entries that record what their run cost.
    pub costs: CostSummary,
}

/// What the verified entries' runs cost, summed (entries without a cost are counted apart).
#[derive(Debug, Default, PartialEq)]
pub struct CostSummary {
    pub with_cost: usize,
    pub without_cost: usize,
    pub wall_s: f64,
    /// Over the entries that record CPU time (`with_cpu` of them).
    pub cpu_s: f64,
    pub with_cpu: usize,
    /// The longest single run, in seconds, and its key.
    pub longest: Option<(f64, String)>,
}

impl CostSummary {
    fn add(&mut self, key: &str, cost: Option<PointCost>) {
        let Some(cost) = cost else {
            self.without_cost += 1;
            return;
        };
        self.with_cost += 1;
        self.wall_s += cost.wall_s;
        if let Some(cpu) = cost.cpu_s {
            self.cpu_s += cpu;
            self.with_cpu += 1;
        }
        if self.longest.as_ref().is_none_or(|(s, _)| cost.wall_s > *s) {
            self.longest = Some((cost.wall_s, key.to_string()));
        }
    }
}

/// Counts and verifies every entry of `dir`, which must be a directory. An entry that cannot
/// be read as a regular file (a directory or FIFO at its path) is counted as corrupt.
pub fn stats(dir: &Path) -> Result<CacheStats> {
    require_dir(dir)?;
    let mut stats = CacheStats::default();
    for (key, path) in Cache::new(dir).entries()? {
        stats.entries += 1;
        let Ok(bytes) = read_entry(&path) else {
            stats.corrupt.push(path);
            continue;
        };
        stats.bytes += bytes.len() as u64;
        match decode(&bytes, &key) {
            Ok(record) => stats.costs.add(&key, record.cost),
            Err(DecodeError::OldFormat(_)) => stats.old_format += 1,
            Err(_) => stats.corrupt.push(path),
        }
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record_text() -> String {
        serde_json::json!({
            "completed_requests": 2, "injected_requests": 2, "still_queued": 0, "still_running": 0,
            "timed_out_requests": 0, "dropped_unservable": 0, "length_capped_requests": 0,
            "requests": [
                {"arrived_at": 0.0, "ttft_ms": 1.0 / 3.0, "itl_ms": 0.1 + 0.2, "e2e_ms": 5.0},
                {"arrived_at": 0.25, "ttft_ms": 2.0, "itl_ms": 7.0, "e2e_ms": 9.5},
            ],
        })
        .to_string()
    }

    fn inputs() -> KeyInputs {
        KeyInputs {
            binary_sha256: "d".into(),
            env: vec![],
            scenario_name: "s".into(),
            deployment: "v".into(),
            workload: "w".into(),
            seed: 0,
            files: vec![],
        }
    }

    #[test]
    fn an_entry_round_trips_bit_for_bit() {
        let k = inputs().key();
        let file = crate::blis::metrics::parse(&record_text()).unwrap();
        let Ok(back) = decode(&encode(&k, &file, "ab", None).unwrap(), &k) else { panic!("decodes") };
        assert_eq!(back.metrics_sha256, "ab");
        assert_eq!(serde_json::to_string(&back.file).unwrap(), serde_json::to_string(&file).unwrap());
        assert_eq!(back.file.requests[0].itl_ms, 0.1 + 0.2);
    }

    #[test]
    fn a_flipped_digit_fails_the_checksum() {
        let k = inputs().key();
        let file = crate::blis::metrics::parse(&record_text()).unwrap();
        let text = String::from_utf8(encode(&k, &file, "ab", None).unwrap()).unwrap();
        let damaged = text.replacen("\\\"e2e_ms\\\":9.5", "\\\"e2e_ms\\\":9.6", 1);
        assert_ne!(damaged, text);
        let Err(DecodeError::Corrupt(e)) = decode(damaged.as_bytes(), &k) else { panic!("not corrupt") };
        assert!(e.to_string().contains("checksum"));
    }

    #[test]
    fn a_recorded_cost_round_trips_outside_the_checksum_and_an_entry_without_one_still_reads() {
        let k = inputs().key();
        let file = crate::blis::metrics::parse(&record_text()).unwrap();
        let cost = PointCost { wall_s: 17.125, cpu_s: Some(3.375) };
        let with = encode(&k, &file, "ab", Some(cost)).unwrap();
        let Ok(back) = decode(&with, &k) else { panic!("decodes") };
        assert_eq!(back.cost, Some(cost));
        // Another run's time for the same record is not damage: the checksum covers the record.
        let text = String::from_utf8(with).unwrap();
        let other = text.replace("17.125", "18.125");
        assert_ne!(other, text);
        assert!(matches!(decode(other.as_bytes(), &k), Ok(r) if r.cost.unwrap().wall_s == 18.125));
        // An entry written before costs were recorded has no `cost` field: it reads, cost unknown.
        let without = String::from_utf8(encode(&k, &file, "ab", None).unwrap()).unwrap();
        assert!(!without.contains("cost"), "{without}");
        assert!(matches!(decode(without.as_bytes(), &k), Ok(r) if r.cost.is_none()));
    }

    #[test]
    fn a_negative_or_missing_time_is_corrupt_naming_the_field() {
        let k = inputs().key();
        let file = crate::blis::metrics::parse(&record_text()).unwrap();
        let text =
            String::from_utf8(encode(&k, &file, "ab", Some(PointCost { wall_s: 17.125, cpu_s: Some(3.375) })).unwrap())
                .unwrap();
        let negative = text.replace("3.375", "-3.375");
        let Err(DecodeError::Corrupt(e)) = decode(negative.as_bytes(), &k) else { panic!("not corrupt") };
        assert!(format!("{e:#}").contains("cost.cpu_s"), "{e:#}");
        let no_wall = text.replace("\"wall_s\": 17.125", "\"wall\": 17.125");
        assert_ne!(no_wall, text);
        assert!(matches!(decode(no_wall.as_bytes(), &k), Err(DecodeError::Corrupt(_))));
    }

    #[test]
    fn stats_sum_the_recorded_costs() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(dir.path());
        let file = crate::blis::metrics::parse(&record_text()).unwrap();
        for (i, cost) in
            [Some(PointCost { wall_s: 2.0, cpu_s: Some(1.0) }), Some(PointCost { wall_s: 3.0, cpu_s: None }), None]
                .into_iter()
                .enumerate()
        {
            let key = KeyInputs { seed: i as u64, ..inputs() }.key();
            cache.store(&key, &Record { file: file.clone(), metrics_sha256: "ab".into(), cost }).unwrap();
        }
        let s = stats(dir.path()).unwrap();
        assert_eq!((s.entries, s.costs.with_cost, s.costs.without_cost, s.costs.with_cpu), (3, 2, 1, 1));
        assert_eq!((s.costs.wall_s, s.costs.cpu_s), (5.0, 1.0));
        assert_eq!(s.costs.longest.as_ref().map(|l| l.0), Some(3.0));
    }

    #[test]
    fn a_format_1_entry_is_old_not_corrupt() {
        let old = r#"{"format": "blis-repro-point-cache/1", "key": "k", "metrics": "{}", "checksum": "x"}"#;
        assert!(matches!(decode(old.as_bytes(), "k"), Err(DecodeError::OldFormat(f)) if f.ends_with("/1")));
    }

    #[test]
    fn every_input_moves_the_key() {
        let base = inputs().key();
        let file = |name: &str, sha: &str| KeyedFile { name: name.into(), sha256: sha.into(), source: PathBuf::new() };
        let mut others = Vec::new();
        let mut change = |f: &dyn Fn(&mut KeyInputs)| {
            let mut i = inputs();
            f(&mut i);
            others.push(i.key());
        };
        change(&|i| i.binary_sha256 = "e".into());
        change(&|i| i.env = vec![("BLIS_DOUBLE_SLOWDOWN".into(), "1".into())]);
        change(&|i| i.scenario_name = "t".into());
        change(&|i| i.deployment = "x".into());
        change(&|i| i.workload = "x".into());
        change(&|i| i.seed = 1);
        change(&|i| i.files = vec![file("catalog tree", "00")]);
        change(&|i| i.files = vec![file("catalog tree", "01")]);
        change(&|i| i.files = vec![file("registry tree", "00")]);
        change(&|i| {
            i.binary_sha256 = "ds".into();
            i.scenario_name = String::new();
        });
        for other in &others {
            assert_ne!(&base, other);
        }
        // Where a file was read is not an input: the same bytes elsewhere give the same key.
        let mut a = inputs();
        a.files = vec![file("catalog tree", "00")];
        let mut b = a.clone();
        b.files[0].source = PathBuf::from("/elsewhere");
        assert_eq!(a.key(), b.key());
    }
}
