//! The accuracy audits on the team's real corpora: run when BLIS_MEASUREMENTS is set (and fail
//! when a file is missing there), reported as ignored otherwise. The reports themselves are
//! pinned by the figures suite (harness/tests/figures.rs).

mod support;

use harness::corpus::aisimulate;
use harness::oracle_report;
use harness::task::{TaskError, TaskOutput, Value};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::Path;
use support::{corpus_file, count, number};

fn task(result: Result<TaskOutput, TaskError>) -> Result<TaskOutput, Failed> {
    result.map_err(|e| Failed::from(e.to_string()))
}

/// The reader accepts the real snapshot and its counts are the published ones
/// (PUBLISHED-FIGURES.md section 1: 1,137 rows, 1,135 successful points; PROVENANCE: 258
/// topologies).
fn summary_reads_with_published_counts(dir: &Path) -> Result<(), Failed> {
    let summary = aisimulate::load(&corpus_file(dir, aisimulate::FILE)?)?;
    assert_eq!(summary.totals.rows, 1137);
    assert_eq!(summary.totals.aisimulate.points, 1135);
    assert_eq!(summary.topologies().len(), 258);
    Ok(())
}

/// Tolerance: 0.005, half a unit in the last place of the published 10.05.
fn summary_reproduces_tpot_shape_and_rejects_anchor_inclusive(dir: &Path) -> Result<(), Failed> {
    let output = task(oracle_report::error_definition_of_file(&corpus_file(dir, aisimulate::FILE)?))?;
    let own = number(&output, "aisimulate.tpot.shape_anchor_excluded")?;
    assert!((own - 10.05).abs() <= 0.005, "{own}");
    assert_eq!(count(&output, "aisimulate.tpot.shape_anchor_excluded.n")?, 878);
    let inclusive = number(&output, "aisimulate.tpot.shape_anchor_included")?;
    assert!((inclusive - 10.05).abs() > 0.005, "{inclusive}");
    assert_eq!(output.values.get("gate.passed"), Some(&Value::Check(true)));
    // The published value is read from the file, not typed in here.
    assert_eq!(number(&output, "published.aisimulate.tpot.shape")?, 10.05);
    assert_eq!(count(&output, "published.rows")?, 1137);
    Ok(())
}

/// The kernel page's 8.2 / 4.1 / 432 come out of the anchor-INCLUSIVE definition only
/// (tolerance: half a unit of the printed digit), and the vLLM sweeps give the headline 10.43
/// on 460 under the anchor-exclusive one.
fn e2e_page_definition_is_anchor_inclusive(dir: &Path) -> Result<(), Failed> {
    let output = task(oracle_report::e2e_audit_of_file(&corpus_file(dir, oracle_report::E2E_FILE)?))?;
    assert_eq!(count(&output, "sweeps")?, 204);
    assert_eq!(count(&output, "points")?, 1066);
    assert_eq!(count(&output, "non_anchor_points")?, 862);
    assert_eq!(output.values.get("page_definition"), Some(&Value::Text("shape_anchor_included".into())));
    assert!((number(&output, "aisimulate.page_definition.mean")? - 8.2).abs() <= 0.05);
    let own = number(&output, "all.aisimulate.tpot.shape_anchor_excluded.mean")?;
    assert!((own - 8.2).abs() > 0.05, "{own}: the publisher's definition must not give the page's figure");
    assert!((number(&output, "vllm.aisimulate.tpot.shape_anchor_excluded.mean")? - 10.43).abs() <= 0.005);
    assert_eq!(count(&output, "vllm.aisimulate.tpot.shape_anchor_excluded.n")?, 460);
    Ok(())
}

/// A trial that needs the measurements folder.
type CorpusTrial = fn(&Path) -> Result<(), Failed>;

fn main() {
    let args = Arguments::from_args();
    // The two reports are pinned by the figures suite (harness/tests/figures.rs).
    let trials: [(&str, CorpusTrial); 4] = [
        ("corpus/aisimulate_summary/reads_with_published_counts", summary_reads_with_published_counts),
        (
            "corpus/aisimulate_summary/reproduces_tpot_shape_and_rejects_anchor_inclusive",
            summary_reproduces_tpot_shape_and_rejects_anchor_inclusive,
        ),
        ("corpus/aisimulate_e2e/page_definition_is_anchor_inclusive", e2e_page_definition_is_anchor_inclusive),
        ("corpus/aisimulate_e2e/no_file_left_unread", |dir| corpus_file(dir, oracle_report::E2E_FILE).map(|_| ())),
    ];
    let trials = trials
        .into_iter()
        .map(|(name, run)| {
            Trial::ignorable_test(name, move || {
                support::requires(support::missing_corpora(), || run(&support::measurements().unwrap()))
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
