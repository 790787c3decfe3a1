//! `cargo xtask fixtures ...` and `cargo xtask oracle randint`, as a user runs them. Every
//! command starts from a fresh working directory with no BLIS_* or CI variable leaking in.

use assert_cmd::Command;
use harness::fixtures::{self, file, points};
use predicates::prelude::*;
use tempfile::TempDir;

use crate::support::xtask_without_corpora as xtask_in;

fn xtask() -> Command {
    xtask_in(&std::env::temp_dir())
}

/// A copy of the committed fixture folder to tamper with.
fn fixture_copy() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(fixtures::default_dir()).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

/// A tiny measurement corpus: three sweeps, three distinct points.
fn small_corpus() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("aisimulate_e2e.json"),
        r#"{"sweeps": [
          {"workload": "1024:1024", "framework": "vllm", "points": [{"concurrency": 1}, {"concurrency": 2}]},
          {"workload": "1024:1024", "framework": "sglang", "points": [{"concurrency": 2}]},
          {"workload": "8192:1024", "framework": "trt", "points": [{"concurrency": 4}]}]}"#,
    )
    .unwrap();
    dir
}

#[test]
fn oracle_randint_prints_numpys_seed0_values_on_one_line() {
    xtask()
        .args(["oracle", "randint", "--seed", "0", "--low", "819", "--high", "1025", "--size", "5"])
        .assert()
        .success()
        .stdout("991 866 936 1011 886\n");
}

#[test]
fn oracle_randint_takes_the_full_int64_span() {
    // numpy: np.random.seed(0); np.random.randint(-2**63, 2**63, size=2)
    xtask()
        .args(["oracle", "randint", "--seed", "0", "--low", "-9223372036854775808"])
        .args(["--high", "9223372036854775808", "--size", "2"])
        .assert()
        .success()
        .stdout("900450186894289455 3969543146641149120\n");
}

#[test]
fn oracle_randint_size_zero_prints_nothing_even_for_an_empty_range() {
    xtask()
        .args(["oracle", "randint", "--seed", "0", "--low", "5", "--high", "5", "--size", "0"])
        .assert()
        .success()
        .stdout("\n");
}

#[test]
fn oracle_randint_empty_range_fails_with_numpys_message() {
    xtask()
        .args(["oracle", "randint", "--seed", "0", "--low", "5", "--high", "5", "--size", "1"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(predicate::str::contains("ValueError: low >= high"));
}

#[test]
fn oracle_randint_huge_size_is_a_usage_error_not_an_abort() {
    xtask()
        .args(["oracle", "randint", "--seed", "0", "--low", "0", "--high", "10", "--size", "99999999999999"])
        .assert()
        .code(64)
        .stdout("")
        .stderr(predicate::str::contains("--size").and(predicate::str::contains("0..=100000000")));
}

#[test]
fn oracle_randint_streamed_in_steps_is_the_one_call_draw() {
    // Sizes past the CLI's step (65536), on a rejection-sampled 32-bit range and a 64-bit one.
    for (low, high) in [(819_i128, 1025_i128), (-(1_i128 << 40), 1_i128 << 41)] {
        let size = 150_001;
        let expected = oracles::numpy::RandomState::seed(7).randint(low, high, size).unwrap();
        let expected: Vec<String> = expected.iter().map(i64::to_string).collect();
        xtask()
            .args(["oracle", "randint", "--seed", "7", "--size", &size.to_string()])
            .arg(format!("--low={low}"))
            .arg(format!("--high={high}"))
            .assert()
            .code(0)
            .stdout(expected.join(" ") + "\n");
    }
}

#[test]
fn oracle_randint_without_a_seed_is_a_usage_error() {
    xtask().args(["oracle", "randint", "--low", "0", "--high", "5", "--size", "1"]).assert().code(64);
}

#[test]
fn fixtures_check_prints_29_points_match_for_each_seed() {
    let assert = xtask().args(["fixtures", "check"]).assert().success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    for seed in 0..5 {
        assert!(stdout.contains(&format!("seed{seed}: 29 points match")), "{stdout}");
    }
    assert!(stdout.contains("points: derivation not checked"), "{stdout}");
}

#[test]
fn fixtures_check_names_seed_point_index_and_both_values_and_writes_nothing() {
    let dir = fixture_copy();
    let path = dir.path().join("seed2.json");
    let mut fixture = file::load(&path).unwrap();
    let point = fixture.points.iter_mut().find(|p| p.point.label() == "8k1k-c4").unwrap();
    let committed = point.input_lens[5];
    point.input_lens[5] = if committed == 8192 { 8191 } else { committed + 1 };
    let tampered_value = point.input_lens[5];
    std::fs::write(&path, file::render(&fixture)).unwrap();
    let before = std::fs::read(&path).unwrap();

    xtask()
        .args(["fixtures", "check", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stdout(predicate::str::contains("seed0: 29 points match"))
        .stderr(predicate::str::contains(format!(
            "seed 2, point 8k1k-c4: input_lens[5]: file has {tampered_value}, numpy's draw is {committed}"
        )));
    assert_eq!(std::fs::read(&path).unwrap(), before, "check must not rewrite the file");
}

#[test]
fn fixtures_check_refuses_a_malformed_file_naming_file_point_and_reason() {
    let dir = fixture_copy();
    let path = dir.path().join("seed4.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("\"concurrency\": 1,", "\"concurrency\": 1, \"note\": 1,", 1)).unwrap();
    xtask()
        .args(["fixtures", "check", "--dir"])
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("seed4.json: point 1k1k-c1 (points[0]):"))
        .stderr(predicate::str::contains("unknown field `note`"));
}

#[test]
fn fixtures_points_without_a_corpus_is_refused_naming_flag_and_variable() {
    xtask()
        .args(["fixtures", "points"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--measurements").and(predicate::str::contains("BLIS_MEASUREMENTS")));
}

#[test]
fn points_generate_check_round_trip_on_a_small_corpus() {
    let corpus = small_corpus();
    let out = tempfile::tempdir().unwrap();
    xtask()
        .args(["fixtures", "points", "--dir"])
        .arg(out.path())
        .arg("--measurements")
        .arg(corpus.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("3 points (2 with vllm) over 3 sweeps"));
    let list = points::load(&out.path().join(points::FILE_NAME)).unwrap();
    assert_eq!(list.points.len(), 3);
    xtask().args(["fixtures", "generate", "--dir"]).arg(out.path()).assert().success();
    xtask()
        .args(["fixtures", "check", "--dir"])
        .arg(out.path())
        .env("BLIS_MEASUREMENTS", corpus.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("seed4: 3 points match"))
        .stdout(predicate::str::contains("equals the derivation"));
}

#[test]
fn check_fails_when_the_committed_list_no_longer_equals_the_derivation() {
    let corpus = small_corpus();
    let before = std::fs::read(fixtures::default_dir().join(points::FILE_NAME)).unwrap();
    xtask()
        .args(["fixtures", "check", "--measurements"])
        .arg(corpus.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("point 1k1k-c4 is committed but no longer derived"));
    xtask().args(["fixtures", "points", "--check", "--measurements"]).arg(corpus.path()).assert().code(1);
    assert_eq!(std::fs::read(fixtures::default_dir().join(points::FILE_NAME)).unwrap(), before);
}

#[test]
fn fixtures_check_with_a_corpus_folder_that_is_not_there_is_an_error_naming_the_variable() {
    // Given, but wrong: not a refusal (exit 2 is only for an input nobody supplied).
    xtask().args(["fixtures", "check"]).env("BLIS_MEASUREMENTS", "/nonexistent/measurements").assert().code(1).stderr(
        predicate::str::contains(
            "BLIS_MEASUREMENTS=/nonexistent/measurements: the measurement corpora must be a folder, found nothing",
        ),
    );
}

/// A seed file that is a 1 TiB sparse file, a link to `/dev/zero` or a FIFO, and a FIFO for
/// `points.json`: each is an error naming the file and what stands there, never an abort on
/// allocation and never a hang (the timeout fails the test if the check blocks).
#[test]
fn fixtures_check_refuses_a_huge_sparse_seed_a_device_and_a_fifo_without_reading_them() {
    let mkfifo =
        |path: &std::path::Path| assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
    type Plant<'a> = &'a dyn Fn(&std::path::Path);
    let cases: [(&str, Plant, &str); 4] = [
        ("seed2.json", &|p| std::fs::File::create(p).unwrap().set_len(1 << 40).unwrap(), "one of 1099511627776 bytes"),
        ("seed3.json", &|p| std::os::unix::fs::symlink("/dev/zero", p).unwrap(), "found a character device"),
        ("seed1.json", &|p| mkfifo(p), "found a FIFO"),
        ("points.json", &|p| mkfifo(p), "found a FIFO"),
    ];
    for (name, plant, expected) in cases {
        let dir = fixture_copy();
        let path = dir.path().join(name);
        std::fs::remove_file(&path).unwrap();
        plant(&path);
        xtask()
            .args(["fixtures", "check", "--dir"])
            .arg(dir.path())
            .timeout(std::time::Duration::from_secs(60))
            .assert()
            .code(1)
            .stderr(predicate::str::contains(name).and(predicate::str::contains(expected)));
    }
}
