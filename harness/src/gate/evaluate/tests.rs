//! The gate's evaluation: which tasks run, how two renderings are compared, and the verdict each
//! figure gets. Expected values are the manifest's and the documented wording, never the code's output.

use super::*;

fn rendering(tpot: f64) -> String {
    let mut out = TaskOutput { report: "TPOT 9.64\n".into(), ..TaskOutput::default() };
    out.blis_points = vec![
        serde_json::json!({"key": "a".repeat(64), "label": "m c=1 seed=0", "result": {"ok": {"tpot_ms": 1.5}}}),
        serde_json::json!({"key": "b".repeat(64), "label": "m c=2 seed=0", "result": {"ok": {"tpot_ms": tpot}}}),
    ];
    serde_json::to_string(&Rendered::Output(out)).unwrap()
}

/// Noise below the report's rounding shows only in a point's record: the point is named.
#[test]
fn renderings_that_differ_only_in_a_point_record_name_the_point() {
    let why = first_difference(&rendering(2.0000001), &rendering(2.0000002));
    assert_eq!(
        why,
        "the point m c=2 seed=0 (key bbbbbbbbbbbb) differs between the renderings: /result/ok/tpot_ms: 2.0000001 vs 2.0000002"
    );
}

fn committed() -> Manifest {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    crate::gate::load_manifest(&root.join("figures.yaml")).unwrap()
}

#[test]
fn only_selects_a_figure_its_group_and_nothing_that_merely_shares_a_prefix() {
    let m = committed();
    let id = "inputs/lock-verify";
    assert!(selects(&m, id, id));
    assert!(selects(&m, "inputs/", id));
    assert!(selects(&m, "inputs", id), "the trailing / may be left out");
    assert!(!selects(&m, "inp", id));
    assert!(!selects(&m, "inputs/lock", id));
    // Where a figure has exactly the id, the bare word is that figure, not a group.
    let child = "gate/manifest-consistent/more";
    assert!(!selects(&m, "gate/manifest-consistent", child));
    assert!(selects(&m, "gate/manifest-consistent/", child));
}

#[test]
fn a_value_half_a_last_digit_away_matches_and_text_matches_up_to_spacing() {
    let mut m = committed();
    let mut f = m.figures.remove(0);
    f.expect = Expect::Number("10.05".into());
    f.tolerance = Some("last-digit".into());
    // 10.045 and 10.055 are half a unit of the last published place from 10.05: within it
    // (inclusive), although in binary 10.05 - 10.045 is a little more than 0.005.
    assert!(compare(&m, &f, &Value::Number(10.045)).1);
    assert!(compare(&m, &f, &Value::Number(10.055)).1);
    assert!(!compare(&m, &f, &Value::Number(10.044)).1);
    assert!(!compare(&m, &f, &Value::Number(10.056)).1);
    f.expect = Expect::Text("a  b\nc".into());
    assert!(compare(&m, &f, &Value::Text("a b c".into())).1);
    assert!(!compare(&m, &f, &Value::Text("a b d".into())).1);
}

#[test]
fn arrays_of_different_lengths_differ_at_the_array() {
    let (a, b) = (serde_json::json!({"x": [1, 2]}), serde_json::json!({"x": [1, 2, 3]}));
    assert_eq!(first_json_difference(&a, &b, String::new()).as_deref(), Some("/x: [1,2] vs [1,2,3]"));
    let (a, b) = (serde_json::json!({"x": [1, 2]}), serde_json::json!({"x": [1, 5]}));
    assert_eq!(first_json_difference(&a, &b, String::new()).as_deref(), Some("/x/1: 2 vs 5"));
}

/// Renders nothing real: records each call, and gives `error-definition` a point record
/// and `fixtures-check` a point table, so the evaluation's bookkeeping shows.
#[derive(Default)]
struct Recorder(std::cell::RefCell<Vec<String>>);

impl Renderer for Recorder {
    fn render(&self, task: &str) -> anyhow::Result<String> {
        self.0.borrow_mut().push(task.to_string());
        let mut out = TaskOutput::default();
        match task {
            "error-definition" => out.blis_points = vec![serde_json::json!({"label": "p"})],
            "fixtures-check" => out.points = vec![serde_json::json!({"seed": 0})],
            _ => {}
        }
        Ok(Rendered::Output(out).to_json())
    }
}

/// The committed manifest over stand-in inputs: the vendored defaults hidden, and each of
/// `given` an empty folder (present, as far as refusals go).
fn run(given: &[InputKind], only: &[&str]) -> (Vec<FigureResult>, BlisPoints, PointTables, Vec<String>, String) {
    let dir = tempfile::tempdir().unwrap();
    let cx = stand_in(dir.path(), given);
    let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
    let recorder = Recorder::default();
    let mut progress = String::new();
    let mut seen = |i: usize, n: usize, task: &str| progress.push_str(&format!("{i}/{n} {task};"));
    let (results, points, tables) =
        evaluate_with_points(&committed(), &cx, &recorder, &GateOptions { only: &only }, &mut seen);
    (results, points, tables, recorder.0.into_inner(), progress)
}

#[test]
fn each_task_a_selected_figure_can_run_renders_twice_and_the_lock_first_when_trees_are_read() {
    let trees = [InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];
    let all = [&trees[..], &[InputKind::Measurements]].concat();
    let only = ["error-definition/snapshot-rows", "fixtures/check-seed0", "headline/strict/sweeps"];
    let (results, points, tables, calls, progress) = run(&all, &only);
    // headline also needs the corpora's trees, given here, and the corpora: given too (empty).
    assert_eq!(
        calls,
        ["lock-verify", "lock-verify", "error-definition", "error-definition", "fixtures-check", "fixtures-check"]
            .into_iter()
            .chain(["headline"; 2])
            .collect::<Vec<_>>()
    );
    assert_eq!(progress, "0/4 lock-verify;1/4 error-definition;2/4 fixtures-check;3/4 headline;4/4 ;");
    assert_eq!(results.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), only);
    assert_eq!(points.keys().collect::<Vec<_>>(), ["error-definition"]);
    assert_eq!(tables.keys().collect::<Vec<_>>(), ["fixtures-check"]);

    // Without the corpora, headline is refused before it runs and says it lacks an input;
    // error-definition is refused too, and what is left reads no locked input: no lock.
    let (results, _, _, calls, _) = run(&trees, &only);
    assert_eq!(calls, ["fixtures-check", "fixtures-check"]);
    let status = |id: &str| {
        let r = results.iter().find(|r| r.id == id).unwrap();
        (r.status, r.refusal)
    };
    assert_eq!(status("headline/strict/sweeps"), (Status::Refused, Some(RefusalKind::MissingInput)));
    assert_eq!(status("error-definition/snapshot-rows"), (Status::Refused, Some(RefusalKind::MissingInput)));
    assert!(results.iter().all(|r| r.status == Status::Refused || r.refusal.is_none()));

    // A task that reads a locked input, but no trees to verify: the lock is not run.
    let (_, _, _, calls, _) = run(&[InputKind::Measurements], &only[..1]);
    assert_eq!(calls, ["error-definition", "error-definition"]);
}

#[test]
fn renderings_that_differ_name_the_first_line_the_point_count_or_the_field_that_does() {
    let with = |report: &str, points: usize, table: i64| {
        let mut out = TaskOutput { report: report.into(), ..TaskOutput::default() };
        out.blis_points = (0..points).map(|i| serde_json::json!({"key": "k", "label": i})).collect();
        out.points = vec![serde_json::json!({"x": table})];
        serde_json::to_string(&Rendered::Output(out)).unwrap()
    };
    let base = with("a\nb\n", 2, 1);
    assert_eq!(first_difference(&base, &with("a\nc\n", 2, 1)), r#"first differing line 2: "b" vs "c""#);
    assert_eq!(first_difference(&base, &with("a\n", 2, 1)), r#"first differing line 2: "b" vs <end>"#);
    assert_eq!(first_difference(&base, &with("a\nb\n", 3, 1)), "the renderings hold 2 and 3 point records");
    assert_eq!(first_difference(&base, &with("a\nb\n", 2, 5)), "first differing field /output/points/0/x: 1 vs 5");
    let pretty = serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&base).unwrap()).unwrap();
    assert_eq!(first_difference(&base, &pretty), "the renderings differ only in the layout of their JSON");
    assert_eq!(first_difference("x\n", "x"), "the renderings differ, and one is not JSON");
}

#[test]
fn in_process_rendering_runs_the_named_task_and_refuses_an_unknown_one() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cx = Context {
        inputs: Inputs::resolve(&Default::default(), |_| None),
        manifest: root.join("figures.yaml"),
        lock: root.join("no.lock"),
    };
    let text = InProcess(&cx).render("generator-known-answers").unwrap();
    let Rendered::Output(out) = serde_json::from_str(&text).unwrap() else { panic!("{text}") };
    assert_eq!(out.values["generator.known_answers.match"], Value::Check(true));
    let err = InProcess(&cx).render("no-such-task").unwrap_err().to_string();
    assert_eq!(err, "unknown task `no-such-task`");
}

#[test]
fn no_only_selects_every_figure_of_the_manifest() {
    let (results, _, _, _, _) = run(&[], &[]);
    assert_eq!(results.len(), committed().figures.len());
    assert!(results.len() > 100);
}

/// A figure of the committed manifest's document, computed by `task` as `key`.
fn figure(task: Option<&str>, key: Option<&str>, expect: Expect) -> Figure {
    Figure {
        id: "t/x".into(),
        what: "a figure".into(),
        document: "PUBLISHED-FIGURES.md".into(),
        section: "3".into(),
        task: task.map(str::to_string),
        key: key.map(str::to_string),
        needs: vec![],
        expect,
        tolerance: None,
        published_text: None,
        snapshot: None,
        note: None,
    }
}

/// Inputs with the vendored defaults hidden and each of `given` an empty folder in `dir`.
fn stand_in(dir: &std::path::Path, given: &[InputKind]) -> Context {
    let folder = |kind: InputKind| {
        given.contains(&kind).then(|| {
            let p = dir.join(kind.name());
            std::fs::create_dir_all(&p).unwrap();
            p
        })
    };
    let flags = crate::inputs::Flags {
        measurements: folder(InputKind::Measurements),
        catalog: folder(InputKind::Catalog),
        registry: folder(InputKind::Registry),
        scenarios: folder(InputKind::Scenarios),
        ..Default::default()
    };
    let inputs = Inputs::resolve(&flags, |v| (v == crate::inputs::IGNORE_VENDORED).then(|| "1".to_string()));
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    Context { inputs, manifest: root.join("figures.yaml"), lock: dir.join("no.lock") }
}

fn output(values: &[(&str, Value)]) -> Result<Rendered, String> {
    let mut out = TaskOutput::default();
    out.values = values.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
    Ok(Rendered::Output(out))
}

/// `f` judged with every input given and `task`'s outcome `outcome`.
fn judged_with(f: &Figure, task: &str, outcome: Option<Result<Rendered, String>>, taint: &Taint) -> FigureResult {
    let dir = tempfile::tempdir().unwrap();
    let all = [InputKind::Measurements, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];
    let cx = stand_in(dir.path(), &all);
    let outcomes: BTreeMap<&str, Result<Rendered, String>> = outcome.into_iter().map(|o| (task, o)).collect();
    judge(&committed(), f, &cx, &outcomes, taint)
}

fn judged(f: &Figure, outcome: Result<Rendered, String>) -> FigureResult {
    judged_with(f, f.task.as_deref().unwrap(), Some(outcome), &Taint::default())
}

fn verdict(r: &FigureResult) -> (Status, Option<&str>, &str) {
    (r.status, r.ours.as_deref(), r.detail.as_str())
}

#[test]
fn a_value_equal_to_the_expected_one_is_ok_and_any_other_a_mismatch_with_the_tasks_reason() {
    let f = figure(Some("fixtures-check"), Some("n"), Expect::Count(3));
    assert_eq!(verdict(&judged(&f, output(&[("n", Value::Count(3))]))), (Status::Ok, Some("3"), ""));
    let why = ("n.why", Value::Text("two seeds differ".into()));
    assert_eq!(verdict(&judged(&f, output(&[("n", Value::Count(3)), why.clone()]))), (Status::Ok, Some("3"), ""));
    let r = judged(&f, output(&[("n", Value::Count(4)), why]));
    assert_eq!(verdict(&r), (Status::Mismatch, Some("4"), "two seeds differ"));
    assert_eq!((r.published.as_str(), r.id.as_str(), r.expected_source), ("3", "t/x", ExpectedSource::Published));
}

#[test]
fn the_tolerance_applied_and_the_manifests_note_follow_the_verdict_on_its_line() {
    let mut f = figure(Some("fixtures-check"), Some("v"), Expect::Number("10.05".into()));
    f.tolerance = Some("last-digit".into());
    f.note = Some("flagged definition".into());
    let r = judged(&f, output(&[("v", Value::Number(10.0512))]));
    assert_eq!(verdict(&r), (Status::Ok, Some("10.05"), "tolerance ±0.005; flagged definition"));
    let r = judged(&f, output(&[("v", Value::Number(10.06))]));
    assert_eq!(verdict(&r), (Status::Mismatch, Some("10.06"), "tolerance ±0.005; flagged definition"));
}

#[test]
fn values_are_printed_to_the_published_places_and_compared_within_the_tolerance_or_exactly() {
    let m = committed();
    let mut f = figure(None, None, Expect::Number("432".into()));
    assert_eq!(compare(&m, &f, &Value::Number(431.6)), ("432".into(), false, Some("tolerance ±0".into())));
    assert!(compare(&m, &f, &Value::Number(432.0)).1);
    f.tolerance = Some("last-digit".into());
    assert_eq!(compare(&m, &f, &Value::Number(431.6)), ("432".into(), true, Some("tolerance ±0.5".into())));
    f.expect = Expect::Number("8.2".into());
    assert_eq!(compare(&m, &f, &Value::Number(8.24)).0, "8.2");
    f.expect = Expect::Check(true);
    assert_eq!(compare(&m, &f, &Value::Check(true)), ("true".into(), true, None));
    assert_eq!(compare(&m, &f, &Value::Check(false)), ("false".into(), false, None));
    f.expect = Expect::Count(3);
    assert_eq!(compare(&m, &f, &Value::Count(2)), ("2".into(), false, None));
    let wrong_kind = Some("the task's value is not of the kind the manifest expects".to_string());
    assert_eq!(compare(&m, &f, &Value::Number(3.0)), ("Number(3.0)".into(), false, wrong_kind));
}

#[test]
fn a_figure_whose_input_nobody_supplied_is_refused_naming_it_and_how_to_supply_it() {
    let dir = tempfile::tempdir().unwrap();
    let cx = stand_in(dir.path(), &[]);
    let f = figure(Some("error-definition"), Some("k"), Expect::Check(true));
    let r = judge(&committed(), &f, &cx, &BTreeMap::new(), &Taint::default());
    assert_eq!((r.status, r.refusal), (Status::Refused, Some(RefusalKind::MissingInput)));
    assert!(
        r.detail.starts_with("this figure needs the measurement corpora (not supplied): pass --measurements DIR"),
        "{}",
        r.detail
    );
    let need = r.need.unwrap();
    assert_eq!((need.what.as_str(), need.permanent), ("the measurement corpora", false));
    assert!(need.supplied_by.starts_with("pass --measurements DIR or set BLIS_MEASUREMENTS"), "{}", need.supplied_by);

    // Given but not there: the refusal says where it was looked for.
    let gone = dir.path().join("gone");
    let flags = crate::inputs::Flags { measurements: Some(gone.clone()), ..Default::default() };
    let cx = Context { inputs: Inputs::resolve(&flags, |_| None), ..cx };
    let r = judge(&committed(), &f, &cx, &BTreeMap::new(), &Taint::default());
    let detail = format!("this figure needs the measurement corpora (--measurements {} not found): ", gone.display());
    assert!(r.detail.starts_with(&detail), "{}", r.detail);
}

#[test]
fn a_figure_needing_what_no_flag_supplies_or_without_a_task_is_refused_for_good() {
    let m = committed();
    let ext = &m.external_inputs["earlier-corpus"];
    let mut f = figure(Some("fixtures-check"), Some("k"), Expect::Check(true));
    f.needs = vec!["earlier-corpus".into()];
    let r = judged(&f, output(&[("k", Value::Check(true))]));
    assert_eq!((r.status, r.refusal), (Status::Refused, Some(RefusalKind::Permanent)));
    assert_eq!(r.detail, format!("this figure needs {}: {}", ext.what, ext.supplied_by));
    assert_eq!(r.need, Some(Need { what: ext.what.clone(), supplied_by: ext.supplied_by.clone(), permanent: true }));
    for f in [figure(None, Some("k"), Expect::Check(true)), figure(Some("fixtures-check"), None, Expect::Check(true))] {
        let r = judged_with(&f, "fixtures-check", None, &Taint::default());
        assert_eq!(
            (r.status, r.refusal, r.detail.as_str()),
            (Status::Refused, Some(RefusalKind::Permanent), "no task computes this figure")
        );
    }
}

#[test]
fn a_task_that_refused_failed_or_did_not_run_says_so_on_the_figure() {
    let f = figure(Some("fixtures-check"), Some("k"), Expect::Check(true));
    let r = judged(&f, Ok(Rendered::Refused("needs x".into())));
    assert_eq!((r.status, r.refusal, r.detail.as_str()), (Status::Refused, Some(RefusalKind::MissingInput), "needs x"));
    for outcome in [Ok(Rendered::Failed("boom".into())), Err("boom".to_string())] {
        let r = judged(&f, outcome);
        assert_eq!(verdict(&r), (Status::Mismatch, None, "task `fixtures-check` failed: boom"));
    }
    let r = judged_with(&f, "fixtures-check", None, &Taint::default());
    assert_eq!(verdict(&r), (Status::Mismatch, None, "task `fixtures-check` did not run"));
}

#[test]
fn a_value_the_task_did_not_produce_is_a_mismatch_with_its_reason_when_it_gave_one() {
    let f = figure(Some("fixtures-check"), Some("k"), Expect::Check(true));
    let r = judged(&f, output(&[]));
    assert_eq!(verdict(&r), (Status::Mismatch, None, "task `fixtures-check` produced no value `k`"));
    let r = judged(&f, output(&[("k.why", Value::Text("no sweep".into()))]));
    assert_eq!(verdict(&r), (Status::Mismatch, None, "task `fixtures-check` produced no value `k`: no sweep"));
}

#[test]
fn a_value_the_task_refused_itself_is_refused_with_what_it_needs_and_whether_giving_more_helps() {
    let f = figure(Some("fixtures-check"), Some("k"), Expect::Check(true));
    let refused = ("k.refused", Value::Text("this release cannot".into()));
    let what = (REFUSED_WHAT, Value::Text("a later release".into()));
    let by = (REFUSED_BY, Value::Text("--releases DIR".into()));
    let cannot = (REFUSED_KIND, Value::Text(GIVEN_INPUT_CANNOT.into()));
    let r = judged(&f, output(&[refused.clone(), what.clone(), by.clone(), cannot]));
    assert_eq!(
        (r.status, r.refusal, r.detail.as_str()),
        (Status::Refused, Some(RefusalKind::GivenInputCannot), "this release cannot")
    );
    let need = Need { what: "a later release".into(), supplied_by: "--releases DIR".into(), permanent: false };
    assert_eq!(r.need, Some(need.clone()));
    let r = judged(&f, output(&[refused.clone(), what, by, (REFUSED_KIND, Value::Text("other".into()))]));
    assert_eq!((r.refusal, r.need), (Some(RefusalKind::MissingInput), Some(need)));
    let r = judged(&f, output(&[refused]));
    assert_eq!((r.status, r.need), (Status::Refused, None));
}

/// A figure `k` expected true, judged with the task's outcome `k = true` under `taint`.
fn judged_true(task: &str, taint: &Taint) -> FigureResult {
    let f = figure(Some(task), Some("k"), Expect::Check(true));
    judged_with(&f, task, Some(output(&[("k", Value::Check(true))])), taint)
}

#[test]
fn a_tree_that_failed_the_lock_makes_every_figure_reading_it_not_reproducible_but_not_the_locks_own() {
    let taint = Taint { failed: [(InputKind::Registry, "registry off".to_string())].into() };
    let r = judged_true("headline", &taint);
    assert_eq!(verdict(&r), (Status::Mismatch, None, "not reproducible: registry off"));
    let r = judged_true(LOCK_TASK, &taint);
    assert_eq!(verdict(&r), (Status::Ok, Some("true"), ""));
    // A task that reads no tree is not touched by a tree's failure.
    let r = judged_true("error-definition", &taint);
    assert_eq!(verdict(&r), (Status::Ok, Some("true"), ""));
}

#[test]
fn corpora_that_differ_from_the_lock_are_noted_on_the_figures_reading_them_which_are_still_judged() {
    let taint = Taint { failed: [(InputKind::Measurements, "other corpora".to_string())].into() };
    let r = judged_true("error-definition", &taint);
    assert_eq!(verdict(&r), (Status::Ok, Some("true"), "other corpora"));
    let r = judged_true("fixtures-check", &taint);
    assert_eq!(verdict(&r), (Status::Ok, Some("true"), ""));
}

#[test]
fn the_lock_taints_the_trees_it_could_not_verify_and_each_section_it_found_off() {
    assert!(Taint::from_lock(None).failed.is_empty());
    assert!(Taint::from_lock(Some(&Ok(Rendered::Refused("no trees".into())))).failed.is_empty());
    let trees = [InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];
    for lock in [Err("boom".to_string()), Ok(Rendered::Failed("boom".into()))] {
        let taint = Taint::from_lock(Some(&lock));
        assert_eq!(taint.failed.keys().copied().collect::<Vec<_>>(), trees);
        assert!(taint.failed.values().all(|why| why == "the lock could not be verified: boom"), "{:?}", taint.failed);
    }
    let out = output(&[
        ("catalog.ok", Value::Check(false)),
        ("registry.ok", Value::Check(true)),
        ("measurements.ok", Value::Check(false)),
    ]);
    let taint = Taint::from_lock(Some(&out));
    assert_eq!(taint.failed.keys().copied().collect::<Vec<_>>(), [InputKind::Measurements, InputKind::Catalog]);
    assert_eq!(
        taint.failed[&InputKind::Catalog],
        "the catalog tree does not match lockfiles/upstream.lock (see inputs/lock-verify)"
    );
    assert!(taint.failed[&InputKind::Measurements].starts_with("the corpora differ from the ones pinned"));
}

#[test]
fn a_tasks_result_crosses_the_process_boundary_as_output_refusal_or_the_whole_error_chain() {
    let out = TaskOutput { report: "r".into(), ..TaskOutput::default() };
    assert_eq!(Rendered::of(Ok(out.clone())), Rendered::Output(out));
    let refusal = crate::inputs::Refusal::new(InputKind::Blis, "this task", "not supplied".into());
    let text = refusal.to_string();
    assert_eq!(Rendered::of(Err(TaskError::Refused(refusal))), Rendered::Refused(text));
    let failed = anyhow::anyhow!("inner").context("outer");
    assert_eq!(Rendered::of(Err(TaskError::Failed(failed))), Rendered::Failed("outer: inner".into()));
}

/// Gives the `n`th rendering from `texts` (the last once they run out), or fails.
struct Scripted(std::cell::RefCell<Vec<anyhow::Result<String>>>);

impl Renderer for Scripted {
    fn render(&self, _: &str) -> anyhow::Result<String> {
        let mut texts = self.0.borrow_mut();
        if texts.len() > 1 {
            texts.remove(0)
        } else {
            texts[0].as_ref().map(String::clone).map_err(|e| anyhow::anyhow!("{e}"))
        }
    }
}

#[test]
fn a_task_must_render_the_same_twice_and_as_readable_json() {
    let ok = Rendered::Output(TaskOutput::default()).to_json();
    let twice = |texts: Vec<anyhow::Result<String>>| render_twice(&Scripted(texts.into()), "t");
    assert_eq!(twice(vec![Ok(ok.clone())]), Ok(Rendered::Output(TaskOutput::default())));
    let other = Rendered::Output(TaskOutput { report: "x\n".into(), ..TaskOutput::default() }).to_json();
    assert_eq!(
        twice(vec![Ok(ok.clone()), Ok(other)]),
        Err(r#"not deterministic: two renderings differ; first differing line 1: <end> vs "x""#.into())
    );
    assert_eq!(twice(vec![Err(anyhow::anyhow!("child died"))]), Err("child died".into()));
    assert_eq!(twice(vec![Ok(ok), Err(anyhow::anyhow!("second died"))]), Err("second died".into()));
    let unreadable = twice(vec![Ok("not json".into())]).unwrap_err();
    assert!(unreadable.starts_with("unreadable rendering of `t`: "), "{unreadable}");
}

#[test]
fn the_lock_runs_only_when_all_three_trees_are_there() {
    let only = ["error-definition/snapshot-rows"];
    let (_, _, _, calls, _) = run(&[InputKind::Measurements, InputKind::Catalog, InputKind::Registry], &only);
    assert_eq!(calls, ["error-definition", "error-definition"]);
}

#[test]
fn evaluate_gives_every_selected_figure_as_the_fuller_call_does() {
    let dir = tempfile::tempdir().unwrap();
    let cx = stand_in(dir.path(), &[]);
    let only = vec!["fixtures/".to_string()];
    let ids = |results: Vec<FigureResult>| results.into_iter().map(|r| r.id).collect::<Vec<_>>();
    let manifest = committed();
    let expected: Vec<String> =
        manifest.figures.iter().filter(|f| f.id.starts_with("fixtures/")).map(|f| f.id.clone()).collect();
    assert!(!expected.is_empty());
    let results = evaluate(&manifest, &cx, &Recorder::default(), &GateOptions { only: &only }, &mut |_, _, _| {});
    assert_eq!(ids(results), expected);
}
