//! oracles::numpy against numpy's own answers (testdata/numpy/known_answers.json, written by
//! testdata/numpy/known_answers.py with real numpy), among the unit tests of the crate that
//! defines the generator: a wrong word, rule or bound fails `cargo test -p oracles --lib`, the
//! test set a mutation run executes (`.cargo/mutants.toml` passes `--lib`).

use super::RandomState;
use crate::workload;
use serde::Deserialize;

/// The parts of the file read here; bounds are Python integers, some beyond int64.
#[derive(Deserialize)]
struct Answers {
    words: Vec<Words>,
    sequences: Vec<Sequence>,
    truncations: Vec<Truncation>,
}

/// Python's `int(length * ratio)`.
#[derive(Deserialize)]
struct Truncation {
    length: u32,
    ratio: f64,
    lower: i64,
}

#[derive(Deserialize)]
struct Words {
    seed: u32,
    first: usize,
    u32: Vec<u32>,
}

#[derive(Deserialize)]
struct Sequence {
    seed: u32,
    calls: Vec<Call>,
}

#[derive(Deserialize)]
struct Call {
    low: i128,
    high: i128,
    size: usize,
    values: Option<Vec<i64>>,
    error: Option<String>,
}

fn answers() -> Answers {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata/numpy/known_answers.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("the committed known answers")).expect("JSON")
}

#[test]
fn every_raw_word_window_is_numpys() {
    let answers = answers();
    assert!(answers.words.len() >= 12, "{}", answers.words.len());
    for w in &answers.words {
        let mut rs = RandomState::seed(w.seed);
        for _ in 0..w.first {
            rs.next_u32();
        }
        let got: Vec<u32> = w.u32.iter().map(|_| rs.next_u32()).collect();
        assert_eq!(got, w.u32, "seed {} from word {}", w.seed, w.first);
    }
    // Two words make a 64-bit draw, the first one high (numpy's mt19937_next64).
    let first = answers.words.iter().find(|w| w.seed == 0 && w.first == 0).unwrap();
    let (high, low) = (u64::from(first.u32[0]), u64::from(first.u32[1]));
    assert_eq!(RandomState::seed(0).next_u64(), (high << 32) | low);
}

#[test]
fn every_randint_sequence_is_numpys_values_and_errors() {
    let answers = answers();
    let mut calls = 0;
    for sequence in &answers.sequences {
        let mut rs = RandomState::seed(sequence.seed);
        for c in &sequence.calls {
            let got = rs.randint(c.low, c.high, c.size);
            match (&c.values, &c.error) {
                (Some(values), None) => {
                    assert_eq!(
                        got.as_ref().ok(),
                        Some(values),
                        "seed {} randint({}, {}, {})",
                        sequence.seed,
                        c.low,
                        c.high,
                        c.size
                    )
                }
                (None, Some(error)) => {
                    assert!(got.is_err(), "numpy refused randint({}, {}, {}): {error}", c.low, c.high, c.size)
                }
                _ => panic!("a call has values or an error"),
            }
            calls += 1;
        }
    }
    assert!(calls >= 30, "{calls}");
}

#[test]
fn every_lower_bound_is_pythons_truncation() {
    let answers = answers();
    assert!(answers.truncations.len() >= 4);
    for t in &answers.truncations {
        assert_eq!(workload::lower_bound(t.length, t.ratio), Some(t.lower), "int({} * {})", t.length, t.ratio);
        assert_eq!(workload::bounds(t.length, t.ratio), Some((t.lower, i64::from(t.length))));
    }
}
