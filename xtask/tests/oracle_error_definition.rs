//! `cargo xtask oracle error-definition` from the outside: refusals, bad input, and (when
//! BLIS_MEASUREMENTS is set) the real snapshot and a copy of it with one published total
//! changed. Corpus trials are reported as ignored when the variable is not set, and fail when
//! it is set but a file is missing.

use assert_cmd::Command;
use libtest_mimic::{Arguments, Failed, Trial};
use predicates::prelude::*;
use std::path::{Path, PathBuf};

mod support;

/// The command under test, started outside the workspace with no BLIS_* variable leaking in.
fn error_definition() -> Command {
    let mut cmd = support::xtask_without_corpora(&std::env::temp_dir());
    cmd.args(["oracle", "error-definition"]);
    cmd
}

fn measurements() -> Option<PathBuf> {
    std::env::var_os("BLIS_MEASUREMENTS").filter(|v| !v.is_empty()).map(PathBuf::from)
}

fn corpus_file(dir: &Path, name: &str) -> Result<PathBuf, Failed> {
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(format!("BLIS_MEASUREMENTS is set but {} is missing", path.display()).into())
    }
}

/// A copy of the real summary with one JSON value replaced.
fn edited_summary(dir: &Path, pointer: &str, value: serde_json::Value) -> Result<tempfile::NamedTempFile, Failed> {
    let text = std::fs::read_to_string(corpus_file(dir, "aisimulate_summary.json")?)?;
    let mut doc: serde_json::Value = serde_json::from_str(&text)?;
    *doc.pointer_mut(pointer).ok_or(format!("{pointer} not in the summary"))? = value;
    let file = tempfile::NamedTempFile::new()?;
    std::fs::write(file.path(), serde_json::to_string(&doc)?)?;
    Ok(file)
}

fn refuses_without_any_corpus() -> Result<(), Failed> {
    error_definition().assert().code(2).stdout("").stderr(
        predicate::str::contains("aisimulate_summary.json")
            .and(predicate::str::contains("--measurements"))
            .and(predicate::str::contains("BLIS_MEASUREMENTS"))
            .and(predicate::function(|s: &str| s.lines().count() == 1)),
    );
    Ok(())
}

/// A folder that was given but lacks the file is bad input (exit 1, as `score` says of the
/// same folder), not a refusal: exit 2 is only for a corpus nobody supplied.
fn fails_on_a_folder_without_the_summary() -> Result<(), Failed> {
    let empty = tempfile::tempdir()?;
    error_definition().arg("--measurements").arg(empty.path()).assert().code(1).stderr(
        predicate::str::contains("aisimulate_summary.json is missing from --measurements")
            .and(predicate::str::contains("found nothing")),
    );
    Ok(())
}

fn reads_the_folder_from_the_variable() -> Result<(), Failed> {
    let empty = tempfile::tempdir()?;
    error_definition()
        .env("BLIS_MEASUREMENTS", empty.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is missing from BLIS_MEASUREMENTS="));
    Ok(())
}

/// What stands where the summary should be is said, not "not found".
fn says_what_stands_where_the_summary_should_be() -> Result<(), Failed> {
    let dir = tempfile::tempdir()?;
    let summary = dir.path().join("aisimulate_summary.json");
    std::fs::create_dir(&summary)?;
    error_definition()
        .arg("--measurements")
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("aisimulate_summary.json").and(predicate::str::contains("found a directory")));
    std::fs::remove_dir(&summary)?;
    std::os::unix::fs::symlink("aisimulate_summary.json", &summary)?;
    error_definition()
        .arg("--measurements")
        .arg(dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("found a symlink loop"));
    Ok(())
}

fn non_utf8_summary_names_the_byte_offset() -> Result<(), Failed> {
    let file = tempfile::NamedTempFile::new()?;
    std::fs::write(file.path(), b"{\"models\": \"caf\xe9\"}")?;
    error_definition()
        .arg("--summary")
        .arg(file.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("not UTF-8").and(predicate::str::contains("byte offset 15")));
    Ok(())
}

fn malformed_summary_fails_naming_the_path() -> Result<(), Failed> {
    let file = tempfile::NamedTempFile::new()?;
    std::fs::write(file.path(), r#"{"models": [{"rows": NaN}]}"#)?;
    error_definition()
        .arg("--summary")
        .arg(file.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("models[0].rows: NaN or infinite number"));
    Ok(())
}

fn summary_and_measurements_flags_conflict() -> Result<(), Failed> {
    error_definition().args(["--summary", "a.json", "--measurements", "dir"]).assert().code(64);
    Ok(())
}

fn real_snapshot_reproduces_the_published_tpot_shape(dir: &Path) -> Result<(), Failed> {
    let summary = corpus_file(dir, "aisimulate_summary.json")?;
    error_definition().arg("--summary").arg(summary).assert().code(0).stdout(
        predicate::str::is_match(
            r"(?m)^aisimulate tpot shape_anchor_excluded +10\.05  n=878 +published +10\.05  reproduces",
        )?
        .and(predicate::str::is_match(r"(?m)^aisimulate tpot shape_anchor_included .* does not reproduce")?)
        .and(predicate::str::contains("result: PASS")),
    );
    Ok(())
}

fn changed_published_total_exits_nonzero(dir: &Path) -> Result<(), Failed> {
    let copy = edited_summary(dir, "/totals/aisimulate/tpot_shape_error_pct", serde_json::json!(10.15))?;
    error_definition()
        .arg("--summary")
        .arg(copy.path())
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("FAILED aisimulate tpot shape_anchor_excluded (10.0470) is within 0.005 of the published totals.aisimulate.tpot_shape_error_pct 10.15")
                .and(predicate::str::contains("result: FAIL")),
        );
    Ok(())
}

fn broken_row_sum_exits_nonzero_naming_the_path(dir: &Path) -> Result<(), Failed> {
    let copy = edited_summary(dir, "/models/3/workloads/0/gpus/1/rows", serde_json::json!(0))?;
    error_definition().arg("--summary").arg(copy.path()).assert().code(1).stderr(predicate::str::contains(
        "models[3].workloads[0].gpus[1].rows: is 0 but the rows of its topologies add up to",
    ));
    Ok(())
}

fn measurements_folder_runs_both_audits(dir: &Path) -> Result<(), Failed> {
    corpus_file(dir, "aisimulate_e2e.json")?;
    error_definition().arg("--measurements").arg(dir).assert().code(0).stdout(
        predicate::str::contains("error-definition audit: aisimulate_summary.json")
            .and(predicate::str::contains("e2e shape audit: aisimulate_e2e.json"))
            .and(predicate::str::contains("FLAG definition mismatch")),
    );
    Ok(())
}

/// A trial that needs the measurements folder.
type CorpusTrial = fn(&Path) -> Result<(), Failed>;

fn main() {
    let args = Arguments::from_args();
    let mut trials = vec![
        Trial::test("error_definition/refuses_without_any_corpus", refuses_without_any_corpus),
        Trial::test("error_definition/fails_on_a_folder_without_the_summary", fails_on_a_folder_without_the_summary),
        Trial::test(
            "error_definition/says_what_stands_where_the_summary_should_be",
            says_what_stands_where_the_summary_should_be,
        ),
        Trial::test("error_definition/non_utf8_summary_names_the_byte_offset", non_utf8_summary_names_the_byte_offset),
        Trial::test("error_definition/reads_the_folder_from_the_variable", reads_the_folder_from_the_variable),
        Trial::test(
            "error_definition/malformed_summary_fails_naming_the_path",
            malformed_summary_fails_naming_the_path,
        ),
        Trial::test(
            "error_definition/summary_and_measurements_flags_conflict",
            summary_and_measurements_flags_conflict,
        ),
    ];
    let corpus: [(&str, CorpusTrial); 4] = [
        ("real_snapshot_reproduces_the_published_tpot_shape", real_snapshot_reproduces_the_published_tpot_shape),
        ("changed_published_total_exits_nonzero", changed_published_total_exits_nonzero),
        ("broken_row_sum_exits_nonzero_naming_the_path", broken_row_sum_exits_nonzero_naming_the_path),
        ("measurements_folder_runs_both_audits", measurements_folder_runs_both_audits),
    ];
    let dir = measurements();
    if dir.is_none() {
        eprintln!("note: corpus trials are ignored: they need BLIS_MEASUREMENTS (the measurement corpora folder)");
    }
    for (name, run) in corpus {
        let name = format!("error_definition/corpus/{name}");
        trials.push(match dir.clone() {
            Some(dir) => Trial::test(name, move || run(&dir)),
            None => Trial::test(name, || Ok(())).with_ignored_flag(true),
        });
    }
    libtest_mimic::run(&args, trials).exit();
}
