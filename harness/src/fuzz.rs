//! Property-based fuzzing of every reader that takes a file from outside: the corpus readers,
//! the lock parser, the figure manifest, the scenario reader and the metrics reader. Each case
//! takes a real-shaped seed document (testdata/fuzz/, or the committed lock and manifest),
//! applies one to four mutations (truncation, type swaps, NaN/Infinity, huge numbers,
//! duplicate keys, deep nesting, non-UTF-8 bytes, emptiness, byte noise), writes it under the
//! file's real name and reads it back. The property: no panic, and either the document or an
//! error naming the file. (The CLI turns any such error into exit 1: xtask's `main`.)
//!
//! `cargo test` runs a bounded number of cases per reader (harness/tests/fuzz_readers.rs);
//! `cargo xtask fuzz --runs N` runs more and reports cases per second (docs/fuzzing.md).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// One reader under fuzz.
pub struct Target {
    /// Path-like name, e.g. `corpus/aisimulate-summary`.
    pub name: &'static str,
    /// The name the mutated file is written under (what the error must name).
    pub file_name: &'static str,
    /// Where its seed documents live.
    seeds: fn() -> Vec<PathBuf>,
    /// Reads the file. `Err` must name it.
    read: fn(&Path) -> anyhow::Result<()>,
    /// Whether the reader takes text rather than a file, so the error cannot name a file (the
    /// metrics reader: its caller names the point).
    text_only: bool,
}

fn seed(name: &str) -> Vec<PathBuf> {
    vec![crate::paths::testdata().join("fuzz").join(name)]
}

/// Every reader that takes a file from outside.
pub fn targets() -> Vec<Target> {
    use crate::corpus::{aisimulate, e2e, inferencex, scenario};
    vec![
        Target {
            name: "corpus/aisimulate-summary",
            file_name: "aisimulate_summary.json",
            seeds: || seed("aisimulate_summary.json"),
            read: |p| aisimulate::load(p).map(drop),
            text_only: false,
        },
        Target {
            name: "corpus/aisimulate-e2e",
            file_name: "aisimulate_e2e.json",
            seeds: || seed("aisimulate_e2e.json"),
            read: |p| e2e::load(p).map(drop),
            text_only: false,
        },
        Target {
            name: "corpus/inferencex-absolutes",
            file_name: "inferencex_absolutes.json",
            seeds: || seed("inferencex_absolutes.json"),
            read: |p| inferencex::load_absolutes(p).map(drop),
            text_only: false,
        },
        Target {
            name: "corpus/inferencex-engine-settings",
            file_name: "inferencex_engine_settings.json",
            seeds: || seed("inferencex_engine_settings.json"),
            read: |p| inferencex::load_engine_settings(p).map(drop),
            text_only: false,
        },
        Target {
            name: "corpus/scoreable",
            file_name: "scoreable.json",
            seeds: || seed("scoreable.json"),
            read: |p| crate::score::load_scoreable(p).map(drop),
            text_only: false,
        },
        Target {
            name: "scenario",
            file_name: "m-h100-fp8-vllm-tp2.yaml",
            seeds: || seed("scenario.yaml"),
            read: |p| scenario::load(p).map(drop),
            text_only: false,
        },
        Target {
            name: "lock",
            file_name: "upstream.lock",
            seeds: || vec![crate::lock::default_lock_path()],
            read: |p| crate::lock::load(p).map(drop),
            text_only: false,
        },
        Target {
            name: "manifest",
            file_name: "figures.yaml",
            seeds: || vec![crate::gate::manifest_path()],
            read: |p| crate::gate::load_manifest(p).map(drop),
            text_only: false,
        },
        // The metrics reader (harness/src/blis/metrics.rs) takes text: the file is read (and a
        // non-UTF-8 one refused, naming it) by `read::text` first.
        Target {
            name: "blis-metrics",
            file_name: "metrics.json",
            seeds: || seed("metrics.json"),
            read: |p| crate::blis::metrics::parse(&crate::read::text(p)?).map(drop),
            text_only: true,
        },
    ]
}

/// What one run of a target found.
#[derive(Clone, Debug)]
pub struct Report {
    pub target: &'static str,
    pub cases: u32,
    /// Mutated documents the reader still accepted (mutations may keep a document valid).
    pub accepted: u32,
    pub rejected: u32,
    pub elapsed: Duration,
}

impl Report {
    pub fn cases_per_second(&self) -> f64 {
        f64::from(self.cases) / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// One edit of a document.
#[derive(Clone, Debug)]
enum Mutation {
    /// Cut the document at a fraction of its length.
    Truncate(f64),
    /// Replace the token (a run of value characters) at a fraction of the length.
    SwapToken(f64, &'static str),
    /// Repeat the line at a fraction of the length (a duplicate key, in JSON or YAML).
    DuplicateLine(f64),
    /// Wrap the token at a fraction of the length in `depth` brackets.
    Nest(f64, usize),
    /// Insert bytes that are not UTF-8.
    NonUtf8(f64, &'static [u8]),
    /// Flip one bit.
    FlipBit(f64, u8),
    /// Delete a run of bytes.
    Delete(f64, usize),
    /// Everything gone.
    Empty,
}

/// Replacement tokens: type swaps, non-finite and huge numbers, and YAML oddities.
const TOKENS: &[&str] = &[
    "NaN",
    "Infinity",
    "-Infinity",
    ".nan",
    ".inf",
    "-.inf",
    "1e999",
    "-1e999",
    "-1",
    "0",
    "-0",
    "18446744073709551616",
    "-9223372036854775809",
    "340282366920938463463374607431768211456",
    "1e-400",
    "null",
    "true",
    "\"x\"",
    "\"\"",
    "[]",
    "{}",
    "~",
    "''",
    "&a",
    "*a",
    "!!binary",
    "0x1F",
    "1_000",
    "\"\\ud800\"",
    "\"\\u0000\"",
];

/// Bytes a reader may stumble on: a stray byte, a cut-off sequence, an encoded surrogate (all
/// not UTF-8), and a NUL and a byte-order mark (UTF-8, but rarely expected).
const NOT_UTF8: &[&[u8]] = &[b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\xef\xbb\xbf"];

/// The cases' randomness: numpy's MT19937 (`oracles::numpy`), seeded from the run's seed, so
/// a run is reproduced by its seed on any machine.
struct Draw(oracles::numpy::RandomState);

impl Draw {
    fn new(seed: u64) -> Draw {
        Draw(oracles::numpy::RandomState::seed((seed ^ (seed >> 32)) as u32))
    }

    /// Uniform in `0..n` (`n` is small: the modulo bias is below 2^-50).
    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n as u64) as usize
    }

    fn within(&mut self, range: std::ops::Range<usize>) -> usize {
        range.start + self.below(range.end - range.start)
    }

    /// Uniform in [0, 1), 53 bits.
    fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// One mutation, the kinds weighted as listed (token swaps most often: they make the readers'
/// type and range errors).
fn mutation(d: &mut Draw) -> Mutation {
    const WEIGHTS: [usize; 8] = [2, 6, 2, 1, 2, 2, 2, 1];
    let mut ticket = d.below(WEIGHTS.iter().sum());
    let mut kind = 0;
    while ticket >= WEIGHTS[kind] {
        ticket -= WEIGHTS[kind];
        kind += 1;
    }
    let at = d.unit();
    match kind {
        0 => Mutation::Truncate(at),
        1 => Mutation::SwapToken(at, d.pick(TOKENS)),
        2 => Mutation::DuplicateLine(at),
        3 => {
            let depths = [1..8usize, 100..200, 1_000..3_000];
            let range = depths[d.below(depths.len())].clone();
            Mutation::Nest(at, d.within(range))
        }
        4 => Mutation::NonUtf8(at, d.pick(NOT_UTF8)),
        5 => Mutation::FlipBit(at, d.below(8) as u8),
        6 => Mutation::Delete(at, d.within(1..40)),
        _ => Mutation::Empty,
    }
}

/// One case: a seed document and one to four mutations applied in turn.
#[derive(Clone, Debug)]
struct Case {
    which: usize,
    mutations: Vec<Mutation>,
}

fn case(d: &mut Draw, seeds: usize) -> Case {
    let which = d.below(seeds);
    let count = d.within(1..5);
    Case { which, mutations: (0..count).map(|_| mutation(d)).collect() }
}

/// Smaller or plainer versions of a mutation, for shrinking.
fn simpler(m: &Mutation) -> Vec<Mutation> {
    let at = |a: f64| [0.0, a / 2.0].into_iter().filter(move |b| *b < a);
    match *m {
        Mutation::Truncate(a) => at(a).map(Mutation::Truncate).collect(),
        Mutation::SwapToken(a, t) => at(a).map(|b| Mutation::SwapToken(b, t)).collect(),
        Mutation::DuplicateLine(a) => at(a).map(Mutation::DuplicateLine).collect(),
        Mutation::Nest(a, depth) => {
            let mut v: Vec<Mutation> = at(a).map(|b| Mutation::Nest(b, depth)).collect();
            if depth > 1 {
                v.push(Mutation::Nest(a, depth / 2));
            }
            v
        }
        Mutation::NonUtf8(a, b) => at(a).map(|c| Mutation::NonUtf8(c, b)).collect(),
        Mutation::FlipBit(a, bit) => at(a).map(|b| Mutation::FlipBit(b, bit)).collect(),
        Mutation::Delete(a, n) => {
            let mut v: Vec<Mutation> = at(a).map(|b| Mutation::Delete(b, n)).collect();
            if n > 1 {
                v.push(Mutation::Delete(a, n / 2));
            }
            v
        }
        Mutation::Empty => Vec::new(),
    }
}

/// The smallest case found that still fails (at most `budget` tries): mutations dropped one
/// at a time, then each made plainer, until nothing smaller fails.
fn shrink(mut case: Case, mut why: String, fails: &dyn Fn(&Case) -> Option<String>, budget: usize) -> (Case, String) {
    let mut tries = 0;
    loop {
        let mut smaller = Vec::new();
        for i in 0..case.mutations.len() {
            if case.mutations.len() > 1 {
                let mut c = case.clone();
                c.mutations.remove(i);
                smaller.push(c);
            }
        }
        for (i, m) in case.mutations.iter().enumerate() {
            for plainer in simpler(m) {
                let mut c = case.clone();
                c.mutations[i] = plainer;
                smaller.push(c);
            }
        }
        let found = smaller.into_iter().find_map(|c| {
            tries += 1;
            (tries <= budget).then(|| fails(&c).map(|w| (c, w))).flatten()
        });
        match found {
            Some((c, w)) => (case, why) = (c, w),
            None => return (case, why),
        }
    }
}

fn index(bytes: &[u8], at: f64) -> usize {
    ((bytes.len() as f64) * at) as usize
}

/// The token around `i`: a run of characters a scalar value is made of.
fn token_span(bytes: &[u8], i: usize) -> (usize, usize) {
    let is_value = |b: u8| b.is_ascii_alphanumeric() || b"-+._\"'".contains(&b);
    let i = i.min(bytes.len());
    let mut start = i;
    while start > 0 && is_value(bytes[start - 1]) {
        start -= 1;
    }
    let mut end = i;
    while end < bytes.len() && is_value(bytes[end]) {
        end += 1;
    }
    (start, end)
}

fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    match *m {
        Mutation::Truncate(at) => bytes.truncate(index(bytes, at)),
        Mutation::SwapToken(at, token) => {
            let (start, end) = token_span(bytes, index(bytes, at));
            bytes.splice(start..end, token.bytes());
        }
        Mutation::DuplicateLine(at) => {
            let i = index(bytes, at).min(bytes.len());
            let start = bytes[..i].iter().rposition(|b| *b == b'\n').map_or(0, |p| p + 1);
            let end = bytes[i..].iter().position(|b| *b == b'\n').map_or(bytes.len(), |p| i + p + 1);
            let mut line = bytes[start..end].to_vec();
            if !line.ends_with(b"\n") {
                line.push(b'\n');
            }
            bytes.splice(start..start, line);
        }
        Mutation::Nest(at, depth) => {
            let (start, end) = token_span(bytes, index(bytes, at));
            let (open, close) = if depth % 2 == 0 {
                ("[".repeat(depth), "]".repeat(depth))
            } else {
                ("{\"k\": ".repeat(depth), "}".repeat(depth))
            };
            bytes.splice(end..end, close.into_bytes());
            bytes.splice(start..start, open.into_bytes());
        }
        Mutation::NonUtf8(at, junk) => {
            let i = index(bytes, at);
            bytes.splice(i..i, junk.iter().copied());
        }
        Mutation::FlipBit(at, bit) => {
            let i = index(bytes, at);
            if let Some(b) = bytes.get_mut(i) {
                *b ^= 1 << bit;
            }
        }
        Mutation::Delete(at, n) => {
            let i = index(bytes, at);
            let end = (i + n).min(bytes.len());
            bytes.drain(i..end);
        }
        Mutation::Empty => bytes.clear(),
    }
}

/// Runs `cases` mutated documents through `target`, deterministically from `seed`. `Err` is
/// the first failing case (shrunk), described with the mutations and the message.
pub fn run(target: &Target, cases: u32, seed: u64) -> Result<Report, String> {
    let seeds: Vec<Vec<u8>> = (target.seeds)()
        .iter()
        .map(|p| crate::read::bytes(p).map_err(|e| format!("{}: seed {e:#}", target.name)))
        .collect::<Result<_, _>>()?;
    // Every case writes its file: on tmpfs that costs microseconds, on a busy disk milliseconds.
    let dir = tempfile::Builder::new()
        .prefix("blis-fuzz-")
        .tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .map_err(|e| e.to_string())?;
    let path = dir.path().join(target.file_name);
    // Each case writes its document under the reader's file name and reads it back; `Some`
    // says why the property failed.
    let (accepted, rejected) = (std::cell::Cell::new(0u32), std::cell::Cell::new(0u32));
    let check = |c: &Case| -> Option<String> {
        let mut bytes = seeds[c.which].clone();
        for m in &c.mutations {
            apply(&mut bytes, m);
        }
        if let Err(e) = std::fs::write(&path, &bytes) {
            return Some(format!("writing {}: {e}", path.display()));
        }
        match (target.read)(&path) {
            Ok(()) => {
                accepted.set(accepted.get() + 1);
                None
            }
            Err(e) => {
                rejected.set(rejected.get() + 1);
                let message = format!("{e:#}");
                (!target.text_only && !message.contains(target.file_name))
                    .then(|| format!("the error does not name {}: {message}", target.file_name))
            }
        }
    };
    let mut draw = Draw::new(seed);
    let started = Instant::now();
    // SIGINT/SIGTERM caught: the case loop stops and the folder (in /dev/shm, memory) is
    // removed before the exit, never left behind.
    let failure = crate::interrupt::interruptible(|| {
        for _ in 0..cases {
            if crate::interrupt::interrupted() {
                return None;
            }
            let c = case(&mut draw, seeds.len());
            if let Some(why) = check(&c) {
                return Some((c, why));
            }
        }
        None
    });
    if crate::interrupt::interrupted() {
        drop(dir);
        eprintln!("fuzz: interrupted; its temporary folder removed");
        std::process::exit(130);
    }
    let elapsed = started.elapsed();
    match failure {
        None => Ok(Report { target: target.name, cases, accepted: accepted.get(), rejected: rejected.get(), elapsed }),
        Some((c, why)) => {
            let (c, why) = shrink(c, why, &check, MAX_SHRINK_TRIES);
            Err(format!("{}: {why}\n  seed document {}, mutations {:?}", target.name, c.which, c.mutations))
        }
    }
}

/// How many smaller cases a failure's shrinking may try.
const MAX_SHRINK_TRIES: usize = 200;

#[cfg(test)]
mod tests {
    #[test]
    fn every_seed_is_read_as_it_stands() {
        for t in super::targets() {
            for seed in (t.seeds)() {
                let dir = tempfile::tempdir().unwrap();
                let path = dir.path().join(t.file_name);
                std::fs::copy(&seed, &path).unwrap();
                if let Err(e) = (t.read)(&path) {
                    panic!("{}: the seed {} is not read: {e:#}", t.name, seed.display());
                }
            }
        }
    }

    #[test]
    fn a_seed_gives_the_same_cases_and_another_seed_others() {
        let cases = |seed| {
            let mut d = super::Draw::new(seed);
            format!("{:?}", (0..50).map(|_| super::case(&mut d, 3)).collect::<Vec<_>>())
        };
        assert_eq!(cases(11), cases(11));
        assert_ne!(cases(11), cases(12));
    }

    #[test]
    fn a_failure_shrinks_to_the_one_plain_mutation_that_makes_it() {
        use super::{Case, Mutation};
        let case = Case {
            which: 0,
            mutations: vec![
                Mutation::Truncate(0.9),
                Mutation::SwapToken(0.7, "NaN"),
                Mutation::Delete(0.2, 30),
                Mutation::Nest(0.4, 150),
            ],
        };
        let fails = |c: &Case| {
            c.mutations.iter().any(|m| matches!(m, Mutation::SwapToken(_, "NaN"))).then(|| "NaN read".to_string())
        };
        let (small, why) = super::shrink(case, "NaN read".into(), &fails, 200);
        assert_eq!(format!("{:?}", small.mutations), r#"[SwapToken(0.0, "NaN")]"#);
        assert_eq!(why, "NaN read");
    }

    #[test]
    fn mutations_change_the_document() {
        let mut bytes = b"{\"a\": 12, \"b\": [1, 2]}\n".to_vec();
        super::apply(&mut bytes, &super::Mutation::SwapToken(0.3, "NaN"));
        assert_eq!(bytes, b"{\"a\": NaN, \"b\": [1, 2]}\n");
        super::apply(&mut bytes, &super::Mutation::DuplicateLine(0.5));
        assert_eq!(bytes, b"{\"a\": NaN, \"b\": [1, 2]}\n{\"a\": NaN, \"b\": [1, 2]}\n");
    }
}
