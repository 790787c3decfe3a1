//! Rust against the real numpy, live (`python3` with numpy, installed by `.ci/run` from
//! testdata/numpy/requirements.txt): many random seeds, ranges (some beyond 2^32, the full int64
//! span, empty and out-of-bounds ones) and sizes (some 0, some long enough to regenerate the MT
//! state), replayed call after call on one generator; plus the committed fixtures re-drawn by
//! numpy and the committed known-answer file regenerated (its values: the numpy version that
//! wrote it is not a known answer). Each trial runs once per interpreter of BLIS_NUMPY_PYTHONS
//! and is named after the numpy it ran against. Without numpy the trials are reported ignored
//! with the reason, except under CI=true, where they fail.

use harness::fixtures::{self, file, known_answers, points};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use oracles::numpy::RandomState;
use std::io::Write;

use std::process::{Command, Stdio};

/// Fixed so a failure reproduces; the cases it draws are printed on failure.
const CASE_SEED: u32 = 20_261_129;
const SEQUENCES: usize = 400;

/// The interpreters to test against, `:`-separated (`.ci/run` gives two venvs: the pinned
/// numpy of testdata/numpy/requirements.txt and the newest on PyPI); default `python3`.
const PYTHONS_VAR: &str = "BLIS_NUMPY_PYTHONS";

/// One differential check, against the interpreter it is given.
type Differential = fn(&str) -> Result<(), Failed>;

fn main() {
    let args = Arguments::from_args();
    let pythons: Vec<String> = std::env::var(PYTHONS_VAR)
        .ok()
        .filter(|v| !v.is_empty())
        .map_or_else(|| vec!["python3".to_string()], |v| v.split(':').map(str::to_string).collect());
    let mut trials = Vec::new();
    let mut versions = Vec::new();
    for (i, py) in pythons.iter().enumerate() {
        // Each trial's name says which numpy it ran against.
        let label = match numpy_version(py) {
            Ok(v) => {
                versions.push(v.clone());
                format!("numpy-{v}")
            }
            Err(_) => format!("no-numpy-{i}"),
        };
        let tests: [(&str, Differential); 4] = [
            ("randint", randint_agrees),
            ("bootstrap-intervals", bootstrap_agrees),
            ("fixtures", fixtures_agree),
            ("known-answer-file", known_answers_regenerate),
        ];
        for (name, test) in tests {
            let py = py.clone();
            trials.push(Trial::ignorable_test(format!("numpy/differential/{label}/{name}"), move || {
                with_numpy(&py, test)
            }));
        }
    }
    trials.push(Trial::ignorable_test("numpy/differential/pinned-version-ran", move || pinned_version_ran(&versions)));
    libtest_mimic::run(&args, trials).exit();
}

mod support;
use support::on_ci as ci;

fn with_numpy(py: &str, test: Differential) -> Result<Completion, Failed> {
    if let Err(why) = numpy_version(py) {
        if ci() {
            return Err(format!(
                "CI=true but {why}; install it with \
                `{py} -m pip install -r testdata/numpy/requirements.txt`"
            )
            .into());
        }
        return Ok(Completion::ignored_with(format!("needs {py} with numpy: {why}")));
    }
    test(py).map(|()| Completion::Completed)
}

/// The numpy pinned by testdata/numpy/requirements.txt (what the known answers were written
/// with) must be among those tested; under CI=true its absence fails, else it is ignored.
fn pinned_version_ran(versions: &[String]) -> Result<Completion, Failed> {
    let text = std::fs::read_to_string(numpy_dir().join("requirements.txt")).map_err(|e| e.to_string())?;
    let pinned = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("numpy=="))
        .ok_or("testdata/numpy/requirements.txt pins no numpy==")?
        .trim()
        .to_string();
    if versions.contains(&pinned) {
        return Ok(Completion::Completed);
    }
    let why = format!("the pinned numpy {pinned} was not among those tested ({versions:?}; set {PYTHONS_VAR})");
    if ci() {
        Err(why.into())
    } else {
        Ok(Completion::ignored_with(why))
    }
}

fn numpy_version(py: &str) -> Result<String, String> {
    let out = Command::new(py)
        .args(["-c", "import numpy; print(numpy.__version__)"])
        .output()
        .map_err(|e| format!("{py} cannot be started ({e})"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    } else {
        Err(format!("numpy cannot be imported by {py}"))
    }
}

fn numpy_dir() -> std::path::PathBuf {
    harness::paths::testdata().join("numpy")
}

/// Runs a script of testdata/numpy with `stdin`, returning stdout.
fn python(py: &str, script: &str, args: &[&str], stdin: &[u8]) -> Result<String, Failed> {
    let mut child = Command::new(py)
        .arg(numpy_dir().join(script))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("python3 {script}: {e}"))?;
    child.stdin.take().unwrap().write_all(stdin).map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("python3 {script} failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    String::from_utf8(out.stdout).map_err(|e| e.to_string().into())
}

fn randint_agrees(py: &str) -> Result<(), Failed> {
    let cases = random_sequences(CASE_SEED, SEQUENCES);
    let stdin = serde_json::to_vec(&cases).unwrap();
    // Typed, not through serde_json::Value: bounds beyond int64 must stay integers.
    #[derive(serde::Deserialize)]
    struct Answered {
        numpy_version: String,
        sequences: Vec<known_answers::Sequence>,
    }
    let Answered { numpy_version, sequences } = serde_json::from_str(&python(py, "differential.py", &[], &stdin)?)
        .map_err(|e| format!("differential.py output: {e}"))?;
    if sequences.len() != cases.len() {
        return Err(format!("numpy answered {} of {} sequences", sequences.len(), cases.len()).into());
    }
    let calls: usize = sequences.iter().map(|s| s.calls.len()).sum();
    let wide = sequences.iter().flat_map(|s| &s.calls).filter(|c| c.high - c.low > 1 << 32).count();
    let mismatches: Vec<String> = sequences.iter().flat_map(known_answers::replay).collect();
    if !mismatches.is_empty() {
        return Err(format!(
            "{} of {calls} calls differ from numpy {} (case seed {CASE_SEED}):\n{}",
            mismatches.len(),
            numpy_version,
            mismatches.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
        )
        .into());
    }
    // The cases must have exercised what they claim to.
    let all = || sequences.iter().flat_map(|s| &s.calls);
    let errors = all().filter(|c| c.error.is_some()).count();
    let empty = all().filter(|c| c.size == 0).count();
    if wide == 0 || errors == 0 || empty == 0 || calls < SEQUENCES {
        return Err(
            format!("weak cases: {calls} calls, {wide} wider than 2^32, {errors} errors, {empty} of size 0").into()
        );
    }
    Ok(())
}

/// Draws random randint sequences: each 1-4 calls, mixing the range classes numpy treats apart.
fn random_sequences(case_seed: u32, count: usize) -> Vec<known_answers::Sequence> {
    let mut rng = RandomState::seed(case_seed);
    let mut pick = |n: u64| -> u64 { rng.next_u64() % n.max(1) };
    let (i64_min, i64_end) = (i128::from(i64::MIN), i128::from(i64::MAX) + 1);
    let mut sequences = Vec::with_capacity(count);
    for _ in 0..count {
        let seed = (pick(u64::from(u32::MAX) + 1)) as u32;
        let mut calls = Vec::new();
        for _ in 0..1 + pick(4) {
            let (low, high): (i128, i128) = match pick(9) {
                0 => {
                    let low = pick(2001) as i128 - 1000;
                    (low, low + pick(300) as i128) // span 0 is an empty range
                }
                1 => {
                    let len = [1024u32, 8192, 1 + pick(20000) as u32][pick(3) as usize];
                    ((f64::from(len) * 0.8).trunc() as i128, i128::from(len) + 1)
                }
                2 => {
                    let low = pick(1 << 40) as i128 - (1 << 39);
                    (low, low + (1i128 << 32) - 2 + pick(6) as i128) // spans around 2^32
                }
                3 => {
                    let span = (1i128 << 32) + pick(1 << 62) as i128 * (1 + pick(2) as i128);
                    let low = i64_min + pick(u64::MAX) as i128 % (i64_end - i64_min - span);
                    (low, low + span)
                }
                4 => (i64_min, i64_end),
                5 => (i64_min + pick(3) as i128, i64_end - pick(3) as i128),
                6 => (pick(10) as i128, pick(10) as i128), // often empty or reversed
                7 => [(i64_min - 1, 0), (0, i64_end + 1), (0, 0)][pick(3) as usize],
                _ => {
                    let low = pick(1 << 20) as i128;
                    let bits = 1 + pick(31);
                    (low, low + 1 + pick(1 << bits) as i128)
                }
            };
            let size = match pick(10) {
                0 | 1 => 0,
                2 => 600 + pick(200) as usize, // crosses a state regeneration
                _ => 1 + pick(40) as usize,
            };
            calls.push(known_answers::Call { low, high, size, values: None, error: None });
        }
        sequences.push(known_answers::Sequence { seed, calls });
    }
    sequences
}

/// numpy's own draw of every committed fixture equals the file, element by element.
fn fixtures_agree(py: &str) -> Result<(), Failed> {
    let dir = fixtures::default_dir();
    let points_path = dir.join(points::FILE_NAME);
    let out = python(py, "workloads.py", &["emit", &points_path.to_string_lossy()], b"")?;
    let drawn: serde_json::Value = serde_json::from_str(&out).map_err(|e| e.to_string())?;
    let mut problems = Vec::new();
    let mut compared = 0;
    for seed in fixtures::SEEDS {
        let committed = file::load(&dir.join(file::file_name(seed))).map_err(|e| e.to_string())?;
        let numpy = drawn["seeds"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["seed"] == seed))
            .ok_or_else(|| format!("workloads.py gave no seed {seed}"))?;
        let numpy_points = numpy["points"].as_array().ok_or("workloads.py: no points")?;
        if numpy_points.len() != committed.points.len() {
            problems.push(format!(
                "seed {seed}: numpy drew {} points, the file has {}",
                numpy_points.len(),
                committed.points.len()
            ));
            continue;
        }
        for (np_point, fp) in numpy_points.iter().zip(&committed.points) {
            for key in ["input_lens", "output_lens"] {
                let numpy_lens: Vec<i64> = serde_json::from_value(np_point[key].clone()).map_err(|e| e.to_string())?;
                let ours = if key == "input_lens" { &fp.input_lens } else { &fp.output_lens };
                compared += ours.len();
                if let Some(i) = (0..numpy_lens.len().max(ours.len())).find(|&i| numpy_lens.get(i) != ours.get(i)) {
                    problems.push(format!(
                        "seed {seed}, point {}, {key}[{i}]: file {:?}, numpy {:?}",
                        fp.point,
                        ours.get(i),
                        numpy_lens.get(i)
                    ));
                }
            }
        }
    }
    if compared == 0 {
        problems.push("nothing compared".into());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}

/// The committed known-answer file is exactly what the installed numpy writes.
fn known_answers_regenerate(py: &str) -> Result<(), Failed> {
    python(py, "known_answers.py", &["--check"], b"").map(|_| ())
}

/// The percentile bootstrap of `oracles::bootstrap` against numpy computing it on the same
/// per-sweep values (testdata/numpy/bootstrap.py: seed, randint table, pooled mean, default
/// `np.percentile`): every interval equal to the last printed digit (two decimals) and within
/// 1e-9, over sweep counts from 2 to the headline's 113, skewed and heavy-tailed values, and one
/// paired case.
fn bootstrap_agrees(py: &str) -> Result<(), Failed> {
    use oracles::bootstrap::{self, SweepTotal};
    let mut rng = RandomState::seed(CASE_SEED);
    let mut uniform = || rng.next_u32() as f64 / f64::from(u32::MAX);
    let mut case = |sweeps: usize, tail: f64| -> Vec<SweepTotal> {
        (0..sweeps)
            .map(|_| {
                let n = 1 + (uniform() * 8.0) as usize;
                // |e| per comparison: mostly a few points, sometimes far out (as TTFT shape is).
                let per = 2.0 + 10.0 * uniform() + if uniform() < 0.1 { tail * uniform() } else { 0.0 };
                SweepTotal { sum_abs: per * n as f64, n }
            })
            .collect()
    };
    let singles = [case(2, 0.0), case(10, 40.0), case(113, 100.0), case(54, 300.0)];
    let (pa, pb) = (case(28, 20.0), case(28, 20.0));
    // The paired case needs the same counts on both sides, as the scorer gives them.
    let pb: Vec<SweepTotal> =
        pa.iter().zip(&pb).map(|(a, b)| SweepTotal { sum_abs: b.sum_abs / b.n as f64 * a.n as f64, n: a.n }).collect();
    let resamples = bootstrap::DEFAULT_RESAMPLES;
    let side =
        |t: &[SweepTotal]| (t.iter().map(|t| t.sum_abs).collect::<Vec<_>>(), t.iter().map(|t| t.n).collect::<Vec<_>>());
    let mut cases: Vec<serde_json::Value> = singles
        .iter()
        .map(|t| {
            let (sums, counts) = side(t);
            serde_json::json!({"sums": sums, "counts": counts})
        })
        .collect();
    let ((a_sums, a_counts), (b_sums, b_counts)) = (side(&pa), side(&pb));
    cases.push(serde_json::json!({"sums": a_sums, "counts": a_counts, "b_sums": b_sums, "b_counts": b_counts}));
    let request = serde_json::json!({"seed": bootstrap::SEED, "resamples": resamples, "cases": cases});
    let out = python(py, "bootstrap.py", &[], &serde_json::to_vec(&request).unwrap())?;
    let answered: serde_json::Value = serde_json::from_str(&out).map_err(|e| format!("bootstrap.py output: {e}"))?;
    let numpy = answered["intervals"].as_array().ok_or("bootstrap.py gave no intervals")?;
    let mut ours: Vec<bootstrap::Interval> = singles
        .iter()
        .map(|t| bootstrap::interval(t, resamples, bootstrap::SEED))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    ours.push(bootstrap::paired_interval(&pa, &pb, resamples, bootstrap::SEED).map_err(|e| e.to_string())?);
    if numpy.len() != ours.len() {
        return Err(format!("numpy answered {} of {} intervals", numpy.len(), ours.len()).into());
    }
    let mut problems = Vec::new();
    for (k, (o, n)) in ours.iter().zip(numpy).enumerate() {
        let (low, high) = (n["low"].as_f64().ok_or("no low")?, n["high"].as_f64().ok_or("no high")?);
        let printed = |a: f64, b: f64| (format!("{a:.2}"), format!("{b:.2}"));
        if printed(o.low, o.high) != printed(low, high) || (o.low - low).abs() > 1e-9 || (o.high - high).abs() > 1e-9 {
            problems.push(format!(
                "case {k}: ours [{}, {}], numpy {} [{low}, {high}]",
                o.low, o.high, answered["numpy_version"]
            ));
        }
    }
    // The comparison tells definitions apart: another seed (other picks) misses the printed digits.
    let other = singles.iter().filter_map(|t| bootstrap::interval(t, resamples, bootstrap::SEED + 1).ok());
    if other.zip(numpy).all(|(o, n)| format!("{:.2}", o.low) == format!("{:.2}", n["low"].as_f64().unwrap_or(0.0))) {
        problems.push("another seed matches numpy too: the cases cannot tell the picks apart".into());
    }
    // The cases must be cases: intervals of some width, not all alike.
    if ours.iter().any(|i| i.high - i.low < 0.01) {
        problems.push(format!("a degenerate case: {ours:?}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n").into())
    }
}
