//! The fixture format's strict loader, the comparison, generation and the point derivation:
//! every refusal names the file, the point and the reason.

use harness::fixtures::{self, check, file, points};
use oracles::workload::{self, Params, WorkloadPoint};
use serde_json::{json, Value};

const C1: WorkloadPoint = WorkloadPoint { isl: 1024, osl: 1024, concurrency: 1 };
const C2_8K: WorkloadPoint = WorkloadPoint { isl: 8192, osl: 1024, concurrency: 2 };

fn small_fixture_json(seed: u32) -> Value {
    let fixture = check::generate(Params::inferencex(seed), &[C1, C2_8K]).unwrap();
    serde_json::from_str(&file::render(&fixture)).unwrap()
}

fn load_as(name: &str, doc: &Value) -> Result<file::Fixture, file::LoadError> {
    file::parse(&doc.to_string(), name, &format!("dir/{name}"))
}

fn refusal(name: &str, doc: &Value) -> String {
    load_as(name, doc).expect_err("the loader must refuse").to_string()
}

#[test]
fn rendered_fixture_loads_back_unchanged() {
    let fixture = check::generate(Params::inferencex(2), &[C1, C2_8K]).unwrap();
    let back = file::parse(&file::render(&fixture), "seed2.json", "seed2.json").unwrap();
    assert_eq!(back, fixture);
}

#[test]
fn length_above_the_bound_is_refused_naming_point_and_index() {
    let mut doc = small_fixture_json(0);
    doc["points"][0]["input_lens"][3] = json!(1025);
    let text = refusal("seed0.json", &doc);
    assert_eq!(
        text,
        "dir/seed0.json: point 1k1k-c1 (points[0]): input_lens[3] = 1025 is outside [819, 1024] (1 such lengths)"
    );
}

#[test]
fn length_below_int_of_len_times_ratio_is_refused() {
    let mut doc = small_fixture_json(0);
    doc["points"][1]["input_lens"][0] = json!(6552);
    assert!(refusal("seed0.json", &doc).contains("8k1k-c2 (points[1]): input_lens[0] = 6552 is outside [6553, 8192]"));
}

#[test]
fn vector_length_other_than_ten_times_concurrency_is_refused() {
    let mut doc = small_fixture_json(0);
    doc["points"][1]["output_lens"].as_array_mut().unwrap().pop();
    assert!(refusal("seed0.json", &doc)
        .contains("point 8k1k-c2 (points[1]): output_lens has 19 lengths, expected 20 (10 x concurrency 2)"));
}

#[test]
fn duplicate_point_is_refused() {
    let mut doc = small_fixture_json(0);
    let first = doc["points"][0].clone();
    doc["points"].as_array_mut().unwrap().push(first);
    assert!(refusal("seed0.json", &doc).contains("point 1k1k-c1 (points[2]): duplicate point, first at points[0]"));
}

#[test]
fn unknown_field_in_a_point_is_refused_naming_the_point() {
    let mut doc = small_fixture_json(0);
    doc["points"][1]["prefix_lens"] = json!([]);
    let text = refusal("seed0.json", &doc);
    assert!(
        text.starts_with(
            "dir/seed0.json: point 8k1k-c2 (points[1]): points[1].prefix_lens: unknown field `prefix_lens`"
        ),
        "{text}"
    );
}

#[test]
fn unknown_top_level_field_is_refused() {
    let mut doc = small_fixture_json(0);
    doc["vocab"] = json!(128000);
    assert!(refusal("seed0.json", &doc).contains("dir/seed0.json: vocab: unknown field `vocab`"));
}

#[test]
fn missing_field_is_refused() {
    let mut doc = small_fixture_json(0);
    doc["points"][0].as_object_mut().unwrap().remove("osl");
    let text = refusal("seed0.json", &doc);
    assert!(text.contains("point points[0]: points[0]: missing field `osl`"), "{text}");
    let mut doc = small_fixture_json(0);
    doc.as_object_mut().unwrap().remove("range_ratio");
    assert!(refusal("seed0.json", &doc).contains("missing field `range_ratio`"));
}

#[test]
fn seed_not_matching_the_file_name_is_refused() {
    let doc = small_fixture_json(0);
    assert_eq!(refusal("seed1.json", &doc), "dir/seed1.json: seed is 0 but the file name says 1");
    assert!(refusal("seed01.json", &doc).contains("file name \"seed01.json\" is not seed<N>.json"));
    assert!(refusal("fixture.json", &doc).contains("is not seed<N>.json"));
}

#[test]
fn another_format_and_broken_json_are_refused() {
    let mut doc = small_fixture_json(0);
    doc["format"] = json!("upstream/v0");
    assert!(refusal("seed0.json", &doc).contains("format is \"upstream/v0\""));
    let err = file::parse("{\"seed\": 0,", "seed0.json", "dir/seed0.json").unwrap_err().to_string();
    assert!(err.starts_with("dir/seed0.json: not JSON: EOF while parsing"), "{err}");
}

#[test]
fn every_problem_of_a_file_is_reported_at_once() {
    let mut doc = small_fixture_json(0);
    doc["points"][0]["input_lens"][0] = json!(5);
    doc["points"][1]["output_lens"].as_array_mut().unwrap().push(json!(900));
    let err = load_as("seed0.json", &doc).unwrap_err();
    assert_eq!(err.problems.len(), 2, "{err}");
}

#[test]
fn a_difference_names_seed_point_index_and_both_values() {
    let expected = check::generate(Params::inferencex(0), &[C1, C2_8K]).unwrap();
    let mut found = expected.clone();
    found.points[1].output_lens[7] += 1;
    let (want, have) = (expected.points[1].output_lens[7], found.points[1].output_lens[7]);
    let diffs = check::compare(&expected, &found);
    assert_eq!(diffs.len(), 1);
    assert_eq!(
        diffs[0].to_string(),
        format!(
            "seed 0, point 8k1k-c2: output_lens[7]: file has {have}, numpy's draw is {want} (1 of 20 lengths differ)"
        )
    );
}

#[test]
fn a_point_set_other_than_the_list_is_a_difference() {
    let expected = check::generate(Params::inferencex(0), &[C1, C2_8K]).unwrap();
    let found = check::generate(Params::inferencex(0), &[C1]).unwrap();
    let diffs = check::compare(&expected, &found);
    assert!(diffs[0].to_string().contains("missing [8k1k-c2]"), "{}", diffs[0]);
}

#[test]
fn generate_then_check_matches_and_a_tampered_file_does_not() {
    let dir = tempfile::tempdir().unwrap();
    let written = check::generate_files(dir.path(), &[0, 3], &[C1, C2_8K]).unwrap();
    assert_eq!(written.len(), 2);
    let names: Vec<_> = {
        let mut n: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        n.sort();
        n
    };
    assert_eq!(names, ["seed0.json", "seed3.json"], "no temp file is left behind");
    let ok = check::check_seed(dir.path(), 3, &[C1, C2_8K]).unwrap();
    assert!(ok.ok() && ok.summary().starts_with("seed3: 2 points match"), "{}", ok.summary());

    let path = dir.path().join("seed3.json");
    let fixture = file::load(&path).unwrap();
    let mut tampered = fixture.clone();
    let v = &mut tampered.points[0].input_lens[9];
    *v = if *v == 1024 { 1023 } else { *v + 1 };
    std::fs::write(&path, file::render(&tampered)).unwrap();
    let before = std::fs::read(&path).unwrap();
    let bad = check::check_seed(dir.path(), 3, &[C1, C2_8K]).unwrap();
    assert!(!bad.ok());
    assert!(bad.differences[0].to_string().starts_with("seed 3, point 1k1k-c1: input_lens[9]: file has"));
    assert_eq!(std::fs::read(&path).unwrap(), before, "check never writes");
}

#[test]
fn a_listed_point_asking_for_billions_of_lengths_is_a_difference_not_a_draw() {
    let dir = tempfile::tempdir().unwrap();
    check::generate_files(dir.path(), &[3], &[C1]).unwrap();
    let huge = WorkloadPoint { concurrency: u32::MAX, ..C2_8K };
    let result = check::check_seed(dir.path(), 3, &[C1, huge]).unwrap();
    assert_eq!(result.differences.len(), 1, "{:?}", result.differences);
    assert!(result.differences[0].detail.contains("missing [8k1k-c4294967295]"), "{}", result.differences[0]);
    // Generating it is an error naming the point, not an abort.
    let err = check::generate(Params::inferencex(3), &[C1, huge]).unwrap_err();
    assert_eq!(
        format!("{err:#}"),
        "seed 3, point 8k1k-c4294967295: 42949672950 lengths per vector, more than the 10000000 a fixture holds"
    );
}

#[test]
fn same_lengths_in_another_layout_are_flagged_not_canonical() {
    let dir = tempfile::tempdir().unwrap();
    check::generate_files(dir.path(), &[1], &[C1]).unwrap();
    let path = dir.path().join("seed1.json");
    let pretty: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_string_pretty(&pretty).unwrap()).unwrap();
    let result = check::check_seed(dir.path(), 1, &[C1]).unwrap();
    assert!(result.differences.is_empty() && result.not_canonical && !result.ok());
}

#[test]
fn the_byte_comparison_accepts_exactly_the_rendered_regeneration() {
    // Points whose lengths take 1 to 5 digits, and 7 to 8 with a mask over 2^16 entries (the
    // text of the last two is rendered value by value, not from a per-mask table).
    let points = [
        WorkloadPoint { isl: 1, osl: 9, concurrency: 1 },
        WorkloadPoint { isl: 120, osl: 12_000, concurrency: 3 },
        C1,
        C2_8K,
        WorkloadPoint { isl: 10_000, osl: 99_999, concurrency: 2 },
        WorkloadPoint { isl: 30_000_000, osl: 2_000_000, concurrency: 1 },
    ];
    for ratio in [0.8, 0.05, 1.0] {
        let params = Params { seed: 4, range_ratio: ratio, requests_per_concurrency: 7 };
        let text = file::render(&check::generate(params, &points).unwrap());
        let bytes = text.as_bytes();
        assert!(check::is_canonical_regeneration(bytes, params, &points), "ratio {ratio}");
        // Every single-byte change, a missing and an extra byte are refused.
        for at in 0..bytes.len() {
            let mut changed = bytes.to_vec();
            changed[at] = if changed[at] == b'7' { b'8' } else { b'7' };
            assert!(!check::is_canonical_regeneration(&changed, params, &points), "byte {at} changed");
        }
        assert!(!check::is_canonical_regeneration(&bytes[..bytes.len() - 1], params, &points));
        assert!(!check::is_canonical_regeneration(&[bytes, b" "].concat(), params, &points));
        assert!(!check::is_canonical_regeneration(bytes, params, &points[..5]), "another point list");
    }
    // Outside the fast path's preconditions the answer is false, so the full check decides.
    let params = Params::inferencex(0);
    let dup = [C1, C1];
    let text = file::render(&check::generate(params, &dup).unwrap());
    assert!(!check::is_canonical_regeneration(text.as_bytes(), params, &dup), "duplicates go to the loader");
    assert!(!check::is_canonical_regeneration(b"", params, &[]));
    // A point asking for 43 billion lengths is refused by the file's size, not drawn.
    let huge = WorkloadPoint { concurrency: u32::MAX, ..C1 };
    assert!(!check::is_canonical_regeneration(text.as_bytes(), params, &[huge]));
}

#[test]
fn generate_is_the_draw_point_by_point_with_or_without_shared_runs() {
    // Ratio -3 makes the 2^31 lengths' spans wider than 2^32: 64-bit draws, drawn on their own;
    // the other points come from the shared runs.
    let points = [
        C1,
        WorkloadPoint { isl: 1 << 31, osl: 1024, concurrency: 2 },
        C2_8K,
        WorkloadPoint { isl: 7, osl: 1 << 31, concurrency: 1 },
    ];
    for params in [Params::inferencex(3), Params { seed: 3, range_ratio: -3.0, requests_per_concurrency: 4 }] {
        let fixture = check::generate(params, &points).unwrap();
        for fp in &fixture.points {
            let lengths = workload::draw(&params, &fp.point).unwrap();
            assert_eq!((&fp.input_lens, &fp.output_lens), (&lengths.input, &lengths.output), "{}", fp.point);
        }
    }
}

#[test]
fn the_committed_fixtures_pass_the_byte_comparison_and_the_full_load_alike() {
    let dir = fixtures::default_dir();
    let pts = points::load(&dir.join(points::FILE_NAME)).unwrap().points();
    for seed in fixtures::SEEDS {
        let path = dir.join(file::file_name(seed));
        let bytes = std::fs::read(&path).unwrap();
        assert!(check::is_canonical_regeneration(&bytes, Params::inferencex(seed), &pts), "seed {seed}");
        let full = check::check_seed_by_loading(&path, seed, &pts).unwrap();
        assert!(full.ok(), "{}", full.summary());
    }
}

const E2E: &str = r#"{"source": "x", "sweeps": [
  {"workload": "1024:1024", "framework": "vllm", "label": "a", "points": [{"concurrency": 4, "status": "ok"}, {"concurrency": 1}]},
  {"workload": "1024:1024", "framework": "trt", "points": [{"concurrency": 4}]},
  {"workload": "1024:8192", "framework": "trt", "points": [{"concurrency": 256}]}
]}"#;

#[test]
fn derivation_is_distinct_points_over_every_sweep_and_framework() {
    let d = points::derive_from_text(E2E, "e2e.json").unwrap();
    assert_eq!(d.sweeps, 3);
    let got: Vec<(String, Vec<String>)> =
        d.list.points.iter().map(|p| (p.point().label(), p.frameworks.clone())).collect();
    assert_eq!(
        got,
        [
            ("1k1k-c1".to_string(), vec!["vllm".to_string()]),
            ("1k1k-c4".to_string(), vec!["trt".to_string(), "vllm".to_string()]),
            ("1k8k-c256".to_string(), vec!["trt".to_string()]),
        ]
    );
    assert_eq!(d.list.count_for("vllm"), 2);
}

#[test]
fn derivation_errors_name_the_path() {
    let bad_type = E2E.replace(r#""concurrency": 1}"#, r#""concurrency": "one"}"#);
    let err = points::derive_from_text(&bad_type, "e2e.json").unwrap_err().to_string();
    assert!(err.starts_with("e2e.json: sweeps[0].points[1].concurrency: invalid type"), "{err}");
    let bad_workload = E2E.replace("1024:8192", "1k8k");
    let err = points::derive_from_text(&bad_workload, "e2e.json").unwrap_err().to_string();
    assert!(err.starts_with("e2e.json: sweeps[2].workload: \"1k8k\" is not"), "{err}");
    let missing = E2E.replace(r#""framework": "trt", "points""#, r#""points""#);
    let err = points::derive_from_text(&missing, "e2e.json").unwrap_err().to_string();
    assert!(err.contains("sweeps[1]") && err.contains("missing field `framework`"), "{err}");
    let err = points::derive(std::path::Path::new("/nonexistent")).unwrap_err();
    assert!(format!("{err:#}").contains("aisimulate_e2e.json"));
}

#[test]
fn point_list_round_trips_and_refuses_disorder() {
    let d = points::derive_from_text(E2E, "e2e.json").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(points::FILE_NAME);
    std::fs::write(&path, points::render(&d.list)).unwrap();
    assert_eq!(points::load(&path).unwrap(), d.list);
    let mut reversed = d.list.clone();
    reversed.points.reverse();
    std::fs::write(&path, points::render(&reversed)).unwrap();
    assert!(points::load(&path).unwrap_err().to_string().contains("is not after"));
    assert!(points::differences(&d.list, &reversed).is_empty(), "same set");
    let mut fewer = d.list.clone();
    fewer.points.pop();
    assert_eq!(points::differences(&fewer, &d.list), ["point 1k8k-c256 is derived but not committed"]);
}

#[test]
fn release_gate_fixture_check_values_match() {
    let out = fixtures::task_check().unwrap();
    assert_eq!(out.values["fixtures.match"], harness::task::Value::Check(true));
    assert_eq!(out.values["fixtures.seed0.points_matched"], harness::task::Value::Count(29));
    // The rendering is pinned by the figures suite (harness/tests/figures.rs).
}
