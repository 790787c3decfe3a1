//! Each reader's bad input, through the command a user runs: exit 1 and an error naming the
//! file (harness::fuzz checks the same property in-process over many mutations; this pins the
//! exit code). One truncated, one non-UTF-8 and one duplicated-key document per reader.

use predicates::prelude::*;

use crate::support::{root, xtask};

/// The seed cut in half, with a byte that is not UTF-8, and with its first key line repeated
/// (a duplicate key).
fn broken(seed: &[u8]) -> [Vec<u8>; 3] {
    let half = seed[..seed.len() / 2].to_vec();
    let mut not_utf8 = seed.to_vec();
    not_utf8.insert(seed.len() / 3, 0xff);
    let text = String::from_utf8(seed.to_vec()).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let key =
        lines.iter().position(|l| !l.trim_start().starts_with('#') && (l.contains(':') || l.contains('='))).unwrap();
    lines.insert(key, lines[key]);
    [half, not_utf8, (lines.join("\n") + "\n").into_bytes()]
}

#[test]
fn a_broken_summary_exits_one_naming_it() {
    let seed = std::fs::read(root().join("testdata/fuzz/aisimulate_summary.json")).unwrap();
    for bad in broken(&seed) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("aisimulate_summary.json"), bad).unwrap();
        xtask(dir.path())
            .args(["oracle", "error-definition", "--summary", "aisimulate_summary.json"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("aisimulate_summary.json"));
    }
}

#[test]
fn a_broken_manifest_exits_one_naming_it() {
    let seed = std::fs::read(root().join("harness/figures.yaml")).unwrap();
    for bad in broken(&seed) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("figures.yaml"), bad).unwrap();
        xtask(dir.path())
            .args(["reproduce", "--manifest", "figures.yaml"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("figures.yaml"));
    }
}

#[test]
fn a_broken_lock_exits_one_naming_it() {
    let seed = std::fs::read(root().join("lockfiles/upstream.lock")).unwrap();
    for bad in broken(&seed) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("upstream.lock"), bad).unwrap();
        xtask(dir.path())
            .args(["lock", "verify", "--lockfile", "upstream.lock"])
            .assert()
            .code(1)
            .stderr(predicate::str::contains("upstream.lock"));
    }
}

#[test]
fn a_broken_corpus_file_exits_one_naming_it() {
    let fuzz = root().join("testdata/fuzz");
    for name in
        ["aisimulate_e2e.json", "inferencex_absolutes.json", "inferencex_engine_settings.json", "scoreable.json"]
    {
        for bad in broken(&std::fs::read(fuzz.join(name)).unwrap()) {
            let dir = tempfile::tempdir().unwrap();
            let m = dir.path().join("m");
            std::fs::create_dir(&m).unwrap();
            for other in [
                "aisimulate_e2e.json",
                "inferencex_absolutes.json",
                "inferencex_engine_settings.json",
                "scoreable.json",
            ] {
                std::fs::copy(fuzz.join(other), m.join(other)).unwrap();
            }
            std::fs::write(m.join(name), bad).unwrap();
            let s = dir.path().join("s");
            std::fs::create_dir(&s).unwrap();
            std::fs::copy(fuzz.join("scenario.yaml"), s.join("x.yaml")).unwrap();
            xtask(dir.path())
                .args(["score", "--measurements", "m", "--scenarios", "s"])
                .assert()
                .code(1)
                .stderr(predicate::str::contains(name));
        }
    }
}

/// A report path that cannot be written (a folder, a FIFO, `/dev/full`) is an error naming it
/// before any work, on every command that writes a report: exit 1, nothing on stdout, no
/// refusal of a missing input (which comes later), and no hang on the FIFO.
#[test]
fn a_report_path_that_cannot_be_written_fails_before_any_work_on_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("folder")).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(d.join("pipe")).status().unwrap().success());
    let commands: [(&[&str], &[&str]); 4] = [
        (&["history"], &["--report-json", "--report-html"]),
        (&["reproduce"], &["--report-json", "--report-md", "--report-html", "--points"]),
        (&["score"], &["--report-json", "--report-html", "--gaps", "--points"]),
        (&["blis", "run", "--points", "points.json"], &["--report-json"]),
    ];
    for (command, flags) in commands {
        for flag in flags {
            for (path, kind) in [("folder", "a directory"), ("pipe", "a FIFO"), ("/dev/full", "a character device")] {
                let what = format!("{} {flag} {path}", command.join(" "));
                let out = xtask(d)
                    .args(command)
                    .args([flag, path])
                    .timeout(std::time::Duration::from_secs(60))
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
                assert!(stderr.contains(path) && stderr.contains(kind), "{what}: {stderr}");
                assert!(out.stdout.is_empty() && !stderr.contains("refused"), "{what}: {stderr}");
            }
        }
    }
}

#[test]
fn two_reports_sent_to_stdout_are_a_usage_error_naming_both_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Two documents on one stdout (CSV then HTML, JSON then Markdown) parse as neither.
    let commands: [(&[&str], &[&str]); 3] = [
        (&["history"], &["--report-json", "--report-html"]),
        (&["reproduce"], &["--report-json", "--report-md", "--report-html", "--points"]),
        (&["score"], &["--report-json", "--report-html", "--gaps", "--points"]),
    ];
    for (command, flags) in commands {
        for (i, first) in flags.iter().enumerate() {
            for second in &flags[i + 1..] {
                let what = format!("{} {first} - {second} -", command.join(" "));
                let out = xtask(d)
                    .args(command)
                    .args([first, "-", second, "-"])
                    .timeout(std::time::Duration::from_secs(60))
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(64), "{what}: {stderr}");
                assert!(
                    stderr.contains(&format!("{first} -")) && stderr.contains(&format!("{second} -")),
                    "{what}: {stderr}"
                );
                assert!(out.stdout.is_empty(), "{what}: {}", String::from_utf8_lossy(&out.stdout));
            }
        }
    }
}
