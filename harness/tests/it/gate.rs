//! The release gate's own behaviour, on small manifests and a scripted renderer, so each rule
//! (tolerance, kinds, refusals, determinism, lock taint, hygiene) is shown to fail when it should.

use harness::gate::evaluate::{evaluate, GateOptions, Rendered, Renderer, Status};
use harness::gate::tasks::Context;
use harness::gate::{hygiene, report, Manifest};
use harness::inputs::{Flags, Inputs};
use harness::task::{TaskOutput, Value};
use std::cell::Cell;
use std::collections::BTreeMap;
use std::path::Path;

const MANIFEST: &str = r#"
tolerances:
  last-digit: {why: "published rounded"}
external_inputs:
  nvidia-parquet: {what: "NVIDIA's parquet tables", supplied_by: "no flag supplies it"}
figures:
  - {id: e/shape, what: "shape", document: PUBLISHED-FIGURES.md, section: "1", task: error-definition,
     key: shape, expect: {number: "10.05"}, tolerance: last-digit, snapshot: oracle__report}
  - {id: e/n, what: "n", document: PUBLISHED-FIGURES.md, section: "1", task: error-definition,
     key: n, expect: {count: 878}, snapshot: oracle__report}
  - {id: e/fails, what: "check", document: PUBLISHED-FIGURES.md, section: "1", task: error-definition,
     key: inclusive_differs, expect: {check: true}, snapshot: oracle__report}
  - {id: h/blis, what: "blis cell", document: PUBLISHED-FIGURES.md, section: "3", task: headline,
     key: all.blis.tpot_shape, needs: [blis], expect: {number: "9.64"}, tolerance: last-digit, snapshot: headline__all}
  - {id: c/guard, what: "guard", document: PUBLISHED-FIGURES.md, section: "6", needs: [nvidia-parquet],
     expect: {number: "0.795"}, tolerance: last-digit}
  - {id: h/scenarios, what: "reads the scenario tree", document: PUBLISHED-FIGURES.md, section: "3", task: headline,
     key: all.sweeps, expect: {count: 113}, snapshot: headline__all}
  - {id: l/verified, what: "lock", document: docs/upstream.md, section: "8", task: lock-verify,
     key: verified, expect: {check: true}, snapshot: lock__verify}
"#;

/// Answers each task from a table; with `flaky`, the second rendering of every task differs.
struct Scripted {
    outputs: BTreeMap<&'static str, TaskOutput>,
    flaky: bool,
    calls: Cell<usize>,
}

impl Scripted {
    fn new(outputs: BTreeMap<&'static str, TaskOutput>) -> Scripted {
        Scripted { outputs, flaky: false, calls: Cell::new(0) }
    }
}

impl Renderer for Scripted {
    fn render(&self, task: &str) -> anyhow::Result<String> {
        self.calls.set(self.calls.get() + 1);
        let mut out = self.outputs.get(task).cloned().unwrap_or_default();
        out.report = format!("report of {task}\nline two\n");
        if self.flaky && self.calls.get().is_multiple_of(2) {
            out.report = format!("report of {task}\nline 2\n");
        }
        Ok(Rendered::Output(out).to_json())
    }
}

fn output(values: &[(&str, Value)]) -> TaskOutput {
    TaskOutput {
        report: String::new(),
        values: values.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        ..TaskOutput::default()
    }
}

fn good_outputs() -> BTreeMap<&'static str, TaskOutput> {
    BTreeMap::from([
        (
            "error-definition",
            output(&[
                ("shape", Value::Number(10.0512)),
                ("n", Value::Count(878)),
                ("inclusive_differs", Value::Check(true)),
            ]),
        ),
        ("lock-verify", output(&[("verified", Value::Check(true)), ("catalog.ok", Value::Check(true))])),
        ("headline", output(&[("all.sweeps", Value::Count(113))])),
    ])
}

/// Inputs whose corpora and trees exist (empty temp folders), and no `blis`.
fn inputs_with_dirs(dir: &Path) -> Inputs {
    for sub in ["m", "c", "r", "s"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    Inputs::resolve(
        &Flags {
            measurements: Some(dir.join("m")),
            catalog: Some(dir.join("c")),
            registry: Some(dir.join("r")),
            scenarios: Some(dir.join("s")),
            blis: None,
            releases: None,
        },
        |_| None,
    )
}

fn run(manifest_text: &str, renderer: &Scripted) -> Vec<harness::gate::FigureResult> {
    run_only(manifest_text, renderer, &[])
}

/// `run` with any renderer, evaluating only the figures `only` selects.
fn run_only(manifest_text: &str, renderer: &dyn Renderer, only: &[String]) -> Vec<harness::gate::FigureResult> {
    let dir = tempfile::tempdir().unwrap();
    let manifest = Manifest::parse(manifest_text, Path::new("test.yaml"), &harness::gate::tasks::names()).unwrap();
    let cx = Context {
        inputs: inputs_with_dirs(dir.path()),
        manifest: "test.yaml".into(),
        lock: harness::lock::default_lock_path(),
    };
    evaluate(&manifest, &cx, renderer, &GateOptions { only }, &mut |_, _, _| {})
}

fn status_of(results: &[harness::gate::FigureResult], id: &str) -> (Status, String) {
    let r = results.iter().find(|r| r.id == id).unwrap();
    (r.status, report::line(r))
}

#[test]
fn values_within_tolerance_reproduce_and_missing_inputs_are_refused_with_their_flag() {
    let results = run(MANIFEST, &Scripted::new(good_outputs()));
    assert_eq!(status_of(&results, "e/shape").0, Status::Ok);
    assert_eq!(status_of(&results, "e/n").0, Status::Ok);
    assert_eq!(status_of(&results, "e/fails").0, Status::Ok);
    let (status, line) = status_of(&results, "h/blis");
    assert_eq!(status, Status::Refused);
    assert!(line.contains("--blis") && line.contains("BLIS_BIN"), "{line}");
    let (status, line) = status_of(&results, "c/guard");
    assert_eq!(status, Status::Refused);
    assert!(line.contains("NVIDIA's parquet tables"), "{line}");
    assert_eq!(
        report::Summary::of(&results).line(),
        "5 reproduced, 0 mismatched, 2 refused (1 of them permanently: no input here can supply them)"
    );
}

#[test]
fn one_edited_digit_of_a_published_value_is_a_mismatch_naming_the_figure() {
    let edited = MANIFEST.replace(r#"number: "10.05""#, r#"number: "10.06""#);
    let results = run(&edited, &Scripted::new(good_outputs()));
    let (status, line) = status_of(&results, "e/shape");
    assert_eq!(status, Status::Mismatch);
    assert!(line.starts_with("MISMATCH e/shape  ours 10.05, published 10.06 (PUBLISHED-FIGURES.md §1)"), "{line}");
}

#[test]
fn a_value_outside_half_the_last_digit_is_a_mismatch() {
    let mut outputs = good_outputs();
    outputs.get_mut("error-definition").unwrap().values.insert("shape".into(), Value::Number(10.0551));
    let results = run(MANIFEST, &Scripted::new(outputs));
    assert_eq!(status_of(&results, "e/shape").0, Status::Mismatch);
}

#[test]
fn a_wrong_count_or_a_failed_check_is_a_mismatch() {
    let mut outputs = good_outputs();
    let values = &mut outputs.get_mut("error-definition").unwrap().values;
    values.insert("n".into(), Value::Count(877));
    values.insert("inclusive_differs".into(), Value::Check(false));
    values.insert("inclusive_differs.why".into(), Value::Text("inclusive gave 10.05".into()));
    let results = run(MANIFEST, &Scripted::new(outputs));
    assert_eq!(status_of(&results, "e/n").0, Status::Mismatch);
    let (status, line) = status_of(&results, "e/fails");
    assert_eq!(status, Status::Mismatch);
    assert!(line.contains("inclusive gave 10.05"), "the task's reason is shown: {line}");
}

#[test]
fn two_renderings_that_differ_fail_showing_the_first_differing_line() {
    let renderer = Scripted { flaky: true, ..Scripted::new(good_outputs()) };
    let results = run(MANIFEST, &renderer);
    let (status, line) = status_of(&results, "e/shape");
    assert_eq!(status, Status::Mismatch);
    assert!(
        line.contains("not deterministic") && line.contains("first differing line 2: \"line two\" vs \"line 2\""),
        "{line}"
    );
}

#[test]
fn a_failed_lock_makes_every_figure_reading_the_trees_not_reproducible() {
    let mut outputs = good_outputs();
    outputs.insert("lock-verify", output(&[("verified", Value::Check(false)), ("scenarios.ok", Value::Check(false))]));
    let results = run(MANIFEST, &Scripted::new(outputs));
    assert_eq!(status_of(&results, "l/verified").0, Status::Mismatch);
    let (status, line) = status_of(&results, "h/scenarios");
    assert_eq!(status, Status::Mismatch);
    assert!(line.contains("not reproducible: the scenarios tree does not match"), "{line}");
    // Figures whose tasks read only the corpora are still judged on their own values.
    assert_eq!(status_of(&results, "e/shape").0, Status::Ok);
}

#[test]
fn a_corpus_that_differs_from_its_pin_is_said_on_every_figure_that_read_it() {
    let mut outputs = good_outputs();
    outputs.insert(
        "lock-verify",
        output(&[
            ("verified", Value::Check(false)),
            ("scenarios.ok", Value::Check(true)),
            ("measurements.ok", Value::Check(false)),
        ]),
    );
    let results = run(MANIFEST, &Scripted::new(outputs));
    let (_, line) = status_of(&results, "e/shape");
    assert!(line.contains("differ from the ones pinned") && line.contains("not a regression"), "{line}");
}

#[test]
fn the_manifest_refuses_inconsistencies_all_at_once() {
    let bad = MANIFEST
        .replace("id: e/n,", "id: e/shape,")
        .replace("task: headline,", "task: no-such-task,")
        .replace("tolerance: last-digit}", "tolerance: nope}");
    let err =
        format!("{:#}", Manifest::parse(&bad, Path::new("bad.yaml"), &harness::gate::tasks::names()).unwrap_err());
    for expected in ["duplicate id", "unknown task `no-such-task`", "unknown tolerance `nope`"] {
        assert!(err.contains(expected), "missing `{expected}` in:\n{err}");
    }
}

#[test]
fn a_baseline_rule_with_a_bad_margin_or_figure_is_refused_naming_it() {
    for (rule, expected) in [
        ("{margin: -0.5, figures: [all.tpot_shape], why: w}", "margin -0.5 must be a finite number of at least 0"),
        ("{margin: .nan, figures: [all.tpot_shape], why: w}", "margin NaN must be a finite number"),
        ("{margin: .inf, figures: [all.tpot_shape], why: w}", "margin inf must be a finite number"),
        ("{margin: 0.5, figures: [all.tpot_shapes], why: w}", "unknown figure `all.tpot_shapes`"),
        ("{margin: 0.5, figures: [], why: w}", "`figures` names no figure"),
        ("{margin: 0.5, figures: [all.tpot_shape], why: ' '}", "`why` must say why"),
    ] {
        let text = format!("{MANIFEST}baseline_rule: {rule}\n");
        let err = format!(
            "{:#}",
            Manifest::parse(&text, Path::new("rule.yaml"), &harness::gate::tasks::names()).unwrap_err()
        );
        assert!(err.contains("rule.yaml") && err.contains("baseline_rule") && err.contains(expected), "{err}");
    }
}

#[test]
fn the_committed_baseline_rule_holds_the_shape_figures_with_a_reason() {
    let manifest = harness::gate::load_manifest(&harness::gate::manifest_path()).unwrap();
    let rule = manifest.baseline_rule.expect("harness/figures.yaml states baseline_rule");
    assert!(rule.margin.is_finite() && rule.margin >= 0.0 && !rule.why.trim().is_empty());
    assert!(rule.figures.iter().any(|f| f == "all.tpot_shape"), "{:?}", rule.figures);
}

#[test]
fn the_committed_manifest_is_consistent() {
    let manifest = harness::gate::load_manifest(&harness::gate::manifest_path()).unwrap();
    assert!(manifest.figures.len() > 100, "every published figure is listed");
}

#[test]
fn published_digits_are_checked_against_their_section() {
    let manifest = Manifest::parse(MANIFEST, Path::new("test.yaml"), &harness::gate::tasks::names()).unwrap();
    let doc = "## 1. Error\n10.05% on 878 comparisons, true\n## 3. Headline\n9.64 in 113 sweeps\n## 6. Guard\n0.795\n";
    assert_eq!(hygiene::published_digits(&manifest, "PUBLISHED-FIGURES.md", doc), Vec::<String>::new());
    let moved = doc.replace("9.64", "9.65");
    assert_eq!(
        hygiene::published_digits(&manifest, "PUBLISHED-FIGURES.md", &moved),
        vec!["figure `h/blis`: `9.64` does not stand in PUBLISHED-FIGURES.md section 3"]
    );
}

#[test]
fn an_unreferenced_snapshot_is_an_orphan() {
    let manifest = Manifest::parse(MANIFEST, Path::new("test.yaml"), &harness::gate::tasks::names()).unwrap();
    let present = ["oracle__report", "headline__all", "lock__verify", "stale__thing", "pinned__by_a_test"]
        .map(String::from)
        .into_iter()
        .collect();
    let sources = r#"assert_figure_snapshot!("pinned__by_a_test", text)"#;
    assert_eq!(
        hygiene::orphaned_snapshots(&manifest, &present, sources),
        vec!["snapshots/stale__thing.snap is referenced by no figure and no test: delete it or pin it"]
    );
    let only_one = ["oracle__report".to_string()].into_iter().collect();
    assert_eq!(hygiene::missing_snapshots(&manifest, &only_one).len(), 2);
}

#[test]
fn the_brief_output_lists_what_ran_and_groups_refusals_by_the_input_they_need() {
    let results = run(MANIFEST, &Scripted::new(good_outputs()));
    let text = report::brief(&results, report::Paint::Plain);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.contains(&"ok       e/shape  ours 10.05, published 10.05 (PUBLISHED-FIGURES.md §1); tolerance ±0.005"),
        "{text}"
    );
    assert!(lines.contains(&"refused  1 figure lacks a `blis` binary: pass --blis PATH or set BLIS_BIN"), "{text}");
    // The permanent refusal comes after the ones an input would lift, under its own heading.
    let permanent = lines.iter().position(|l| l.starts_with("refused  1 figure permanently: ")).expect(&text);
    assert_eq!(lines[permanent + 1], "           1 lacks NVIDIA's parquet tables: no flag supplies it", "{text}");
    assert!(lines.iter().position(|l| l.contains("`blis` binary")).unwrap() < permanent, "{text}");
    assert!(!text.contains("h/blis"), "a refused figure is counted, not listed: {text}");
    assert_eq!(
        lines.last(),
        Some(&"5 reproduced, 0 mismatched, 2 refused (1 of them permanently: no input here can supply them)")
    );
    assert!(!text.contains('\x1b'), "plain text has no escapes");
}

/// A task that refuses by itself gives a whole sentence: the brief line quotes it after a colon
/// instead of reading "figures lack <a sentence with its own verb>".
#[test]
fn a_task_that_refuses_by_itself_is_quoted_not_conjugated() {
    struct Refusing;
    impl Renderer for Refusing {
        fn render(&self, task: &str) -> anyhow::Result<String> {
            Ok(match task {
                "headline" => Rendered::Refused("the tagged releases' figures need a folder of releases".into()),
                _ => Rendered::Output(output(&[])),
            }
            .to_json())
        }
    }
    let results = run_only(MANIFEST, &Refusing, &["h/scenarios".into()]);
    let text = report::brief(&results, report::Paint::Plain);
    assert_eq!(text.lines().next(), Some("refused  1 figure: the tagged releases' figures need a folder of releases"));
    assert_eq!(report::Summary::of(&results).refused_missing_input, 1, "{text}");
}

/// Issue 32: a value nobody published is never called published, in any report.
#[test]
fn a_value_computed_here_is_expected_not_published_in_every_report() {
    let computed = MANIFEST.replace(
        "{id: e/n, what: \"n\", document: PUBLISHED-FIGURES.md, section: \"1\"",
        "{id: e/n, what: \"n\", document: \"intervals (new, computed here)\", section: \"-\"",
    );
    assert_ne!(computed, MANIFEST);
    let results = run(&computed, &Scripted::new(good_outputs()));
    let (_, line) = status_of(&results, "e/n");
    assert_eq!(line, "ok       e/n  ours 878, expected 878 (computed here)");
    let (_, line) = status_of(&results, "e/fails");
    assert_eq!(line, "ok       e/fails  ours true, published true (PUBLISHED-FIGURES.md §1)");
    let json: serde_json::Value = serde_json::from_str(&report::json(&results)).unwrap();
    let source = |id: &str| {
        let figures = json["figures"].as_array().unwrap();
        figures.iter().find(|f| f["id"] == id).unwrap()["expected_source"].clone()
    };
    assert_eq!(source("e/n"), "computed_here");
    assert_eq!(source("e/shape"), "published");
    assert_eq!(json["summary"]["refused_permanently"], 1);
    assert_eq!(json["summary"]["refused_missing_input"], 1);
    let refusal = |id: &str| {
        let figures = json["figures"].as_array().unwrap();
        figures.iter().find(|f| f["id"] == id).unwrap().get("refusal").cloned()
    };
    assert_eq!(refusal("c/guard"), Some("permanent".into()));
    assert_eq!(refusal("h/blis"), Some("missing_input".into()));
    assert_eq!(refusal("e/n"), None, "only a refused figure has a refusal");
    let md = report::markdown(&results);
    assert!(md.contains("| - | `e/n` | ok | 878 | computed here | 878 |"), "{md}");
    assert!(md.contains("| 1 | `e/shape` | ok | 10.05 | published | 10.05 |"), "{md}");
}

#[test]
fn colour_marks_each_status_word_and_keeps_the_columns() {
    let edited = MANIFEST.replace(r#"number: "10.05""#, r#"number: "10.06""#);
    let results = run(&edited, &Scripted::new(good_outputs()));
    let text = report::verbose(&results, report::Paint::Ansi);
    assert!(text.contains("\x1b[1;31mMISMATCH\x1b[0m e/shape  ours 10.05, published 10.06"), "{text}");
    assert!(text.contains("\x1b[32mok\x1b[0m       e/n  ours 878"), "{text}");
    assert!(text.contains("\x1b[33mrefused\x1b[0m  h/blis  "), "{text}");
    let plain = report::verbose(&results, report::Paint::Plain);
    assert_eq!(plain, report::text(&results));
    assert_eq!(plain.lines().count(), results.len() + 1);
}

/// Issue 23: a value a task refuses itself (`<key>.refused`) is refused, not a mismatch, and
/// such refusals from several tasks sharing one need are one brief line listing each task's
/// own count; a value missing without a stated reason is still a mismatch.
#[test]
fn values_a_task_refuses_for_a_stated_reason_are_refused_on_one_line() {
    const PARTIAL: &str = r#"
tolerances:
  last-digit: {why: "published rounded"}
external_inputs: {}
figures:
  - {id: h/blis, what: "blis cell", document: PUBLISHED-FIGURES.md, section: "3", task: headline,
     key: all.blis.tpot_shape, expect: {number: "9.64"}, tolerance: last-digit, snapshot: headline__all}
  - {id: m/blis, what: "blis cell", document: PUBLISHED-FIGURES.md, section: "3", task: headline-measured,
     key: all.blis.tpot_shape, expect: {number: "11.38"}, tolerance: last-digit, snapshot: headline__all}
  - {id: m/gone, what: "a cell", document: PUBLISHED-FIGURES.md, section: "3", task: headline-measured,
     key: all.aic.tpot_shape, expect: {number: "12.00"}, tolerance: last-digit, snapshot: headline__all}
"#;
    let refusing = |by: &str| {
        output(&[
            ("all.blis.tpot_shape.refused", Value::Text(format!("published over more; it models {by}"))),
            ("refused.what", Value::Text("a blis that models every sweep; R models only".into())),
            ("refused.by", Value::Text(by.into())),
            ("refused.kind", Value::Text("given-input-cannot".into())),
        ])
    };
    let outputs = BTreeMap::from([("headline", refusing("9 of 113")), ("headline-measured", refusing("2 of 68"))]);
    let results = run(PARTIAL, &Scripted::new(outputs));
    let (status, line) = status_of(&results, "h/blis");
    assert_eq!(status, Status::Refused, "{line}");
    assert!(line.contains("published over more; it models 9 of 113"), "{line}");
    assert_eq!(status_of(&results, "m/blis").0, Status::Refused);
    assert_eq!(status_of(&results, "m/gone").0, Status::Mismatch, "no stated reason: still a mismatch");
    let text = report::brief(&results, report::Paint::Plain);
    assert!(
        text.lines()
            .any(|l| l == "refused  2 figures lack a blis that models every sweep; R models only: 9 of 113; 2 of 68"),
        "{text}"
    );
    // The binary was given and cannot compute them: --require-all does not count them.
    let summary = report::Summary::of(&results);
    assert_eq!((summary.refused, summary.refused_given_input_cannot, summary.refused_missing_input), (2, 2, 0));
    assert!(summary.line().ends_with("2 refused (2 beyond what the inputs given can compute)"), "{}", summary.line());
}

const RELEASE_ROWS: &str = r#"
tolerances:
  computed-here: {why: "computed here, two decimals"}
external_inputs: {}
figures: []
release_figures:
  task: blis-releases
  snapshot: blis_releases__two
  tolerance: computed-here
  published_text: "computed here"
  releases:
    - tag: v1.2.0
      all: {tpot_shape: "8.38", n_shape: 32}
    - tag: v1.10.0
      strict: {ttft_mape: "1.00"}
      all: {tpot_shape: "9.00", tpot_mape: "1.50", ttft_shape: "2.00", ttft_mape: "3.00", n_shape: 1, n_mape: 2, n_ttft_shape: 3, n_ttft_mape: 4}
"#;

/// `release_figures` rows become ordinary figures, in row order, with the ids, keys, kinds and
/// tolerance the hand-written `blis-release/f90a1e3a/...` figures have; a figure left out of a
/// row is no figure.
#[test]
fn release_rows_expand_into_figures_in_row_order() {
    let manifest = Manifest::parse(RELEASE_ROWS, Path::new("rows.yaml"), &harness::gate::tasks::names()).unwrap();
    let ids: Vec<&str> = manifest.figures.iter().map(|f| f.id.as_str()).collect();
    assert_eq!(ids.len(), 2 + 1 + 8, "{ids:?}");
    assert_eq!(
        ids[..3],
        [
            "blis-release/v1.2.0/all/tpot-shape",
            "blis-release/v1.2.0/all/n-shape",
            "blis-release/v1.10.0/strict/ttft-mape"
        ]
    );
    let f = manifest.figures.iter().find(|f| f.id == "blis-release/v1.10.0/all/ttft-n-mape").unwrap();
    assert_eq!(
        (f.key.as_deref(), &f.expect),
        (Some("v1.10.0.all.n_ttft_mape"), &harness::gate::manifest::Expect::Count(4))
    );
    assert_eq!(f.tolerance, None, "counts are exact");
    let f = manifest.figures.iter().find(|f| f.id == "blis-release/v1.2.0/all/tpot-shape").unwrap();
    assert_eq!(f.key.as_deref(), Some("v1.2.0.all.blis.tpot_shape"));
    assert_eq!((f.task.as_deref(), f.snapshot.as_deref()), (Some("blis-releases"), Some("blis_releases__two")));
    assert_eq!(manifest.tolerance_of(f), Some(0.005));
}

/// A row that names no tier, an unknown figure name, a duplicate release and an unknown
/// tolerance are each refused, naming them.
#[test]
fn bad_release_rows_are_refused_naming_them() {
    let parse = |text: &str| {
        format!("{:#}", Manifest::parse(text, Path::new("rows.yaml"), &harness::gate::tasks::names()).unwrap_err())
    };
    let empty = RELEASE_ROWS
        .replace("    - tag: v1.2.0\n      all: {tpot_shape: \"8.38\", n_shape: 32}\n", "    - tag: v1.2.0\n");
    assert!(parse(&empty).contains("release `v1.2.0` names no tier"), "{}", parse(&empty));
    let unknown = RELEASE_ROWS.replace("n_shape: 32}", "n_shpe: 32}");
    assert!(parse(&unknown).contains("n_shpe"), "{}", parse(&unknown));
    let twice = RELEASE_ROWS.replace("tag: v1.10.0", "tag: v1.2.0");
    assert!(parse(&twice).contains("figure `blis-release/v1.2.0/all/tpot-shape`: duplicate id"), "{}", parse(&twice));
    let tolerance = RELEASE_ROWS.replace("tolerance: computed-here", "tolerance: nowhere");
    assert!(parse(&tolerance).contains("unknown tolerance `nowhere`"), "{}", parse(&tolerance));
}

/// A value a task does not give but explains (`<key>.why`, e.g. a release folder holding
/// another build than the locked one) is a mismatch whose line says why.
#[test]
fn a_missing_value_with_a_stated_why_is_a_mismatch_saying_it() {
    let outputs = BTreeMap::from([(
        "blis-releases",
        output(&[("v1.2.0.all.blis.tpot_shape.why", Value::Text("v1.2.0: sha256 abc is not the locked build".into()))]),
    )]);
    let results = run(RELEASE_ROWS, &Scripted::new(outputs));
    let (status, line) = status_of(&results, "blis-release/v1.2.0/all/tpot-shape");
    assert_eq!(status, Status::Mismatch, "{line}");
    assert!(
        line.contains("produced no value `v1.2.0.all.blis.tpot_shape`: v1.2.0: sha256 abc is not the locked build"),
        "{line}"
    );
}
