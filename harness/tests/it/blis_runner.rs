//! The point runner against the test double: the happy path, each failure mode, and that
//! results depend on nothing but the points (not the workers, the cache or the shards).

use crate::support::blis as blis_support;

use blis_support::{point, sweeps, with_mode, Checkout};
use harness::blis::{self, cache, render_outcomes, CacheMode, FailureKind, RunOptions, Shard};
use harness::inputs::{Flags, InputKind, Inputs};
use harness::task::TaskError;
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn run(points: &[blis::PointSpec], opts: &RunOptions) -> blis::RunReport {
    blis::run_points(points, opts).expect("the run starts")
}

fn failure_of(report: &blis::RunReport, i: usize) -> &blis::PointFailure {
    report.outcomes[i].result.as_ref().expect_err("this point must fail")
}

#[test]
fn happy_path_yields_positive_latencies_for_every_point() {
    let checkout = Checkout::new();
    let points = sweeps(&checkout);
    let report = run(&points, &checkout.options(None));
    for (o, p) in report.outcomes.iter().zip(&points) {
        let m = o.result.as_ref().unwrap_or_else(|f| panic!("{}: {f:?}", o.label));
        assert!(m.tpot_ms > 0.0 && m.ttft_ms > 0.0, "{}: {m:?}", o.label);
        assert_eq!(m.completed, 12 * u64::from(p.concurrency));
        assert_eq!(m.ttft_samples, m.completed);
        assert_eq!(o.key.len(), 64);
    }
    assert_eq!(report.summary.ran, points.len());
    // Latency grows with load: the double is a closed loop over a shared engine.
    let tpot = |i: usize| report.outcomes[i].result.as_ref().unwrap().tpot_ms;
    assert!(tpot(3) > tpot(0), "c=8 {} vs c=1 {}", tpot(3), tpot(0));
}

#[test]
fn a_non_zero_exit_fails_the_point_with_its_stderr_tail() {
    let checkout = Checkout::new();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let report = run(&[p], &with_mode(checkout.options(None), "exit1", ""));
    let f = failure_of(&report, 0);
    assert_eq!(f.kind, FailureKind::Exit);
    assert!(f.stderr_tail.iter().any(|l| l.contains("simulated failure")), "{f:?}");
}

#[test]
fn malformed_metrics_json_fails_the_point() {
    let checkout = Checkout::new();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let report = run(&[p], &with_mode(checkout.options(None), "malformed", ""));
    let f = failure_of(&report, 0);
    assert_eq!(f.kind, FailureKind::Metrics);
    assert!(f.reason.contains("metrics JSON"), "{}", f.reason);
}

#[test]
fn a_missing_metrics_file_fails_the_point() {
    let checkout = Checkout::new();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let report = run(&[p], &with_mode(checkout.options(None), "no_metrics", ""));
    assert_eq!(failure_of(&report, 0).kind, FailureKind::Metrics);
}

#[test]
fn incomplete_requests_reject_the_point() {
    let checkout = Checkout::new();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let report = run(&[p], &with_mode(checkout.options(None), "incomplete", ""));
    let f = failure_of(&report, 0);
    assert_eq!(f.kind, FailureKind::Incomplete);
    assert!(f.reason.contains("still_running is 1"), "{}", f.reason);
}

#[test]
fn a_timed_out_request_rejects_the_point() {
    let checkout = Checkout::new();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let report = run(&[p], &with_mode(checkout.options(None), "timed_out", ""));
    assert!(failure_of(&report, 0).reason.contains("timed_out_requests is 1"));
}

#[test]
fn a_hanging_binary_is_killed_at_the_timeout() {
    let checkout = Checkout::new();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let mut opts = with_mode(checkout.options(None), "hang", "");
    opts.timeout = Duration::from_millis(500);
    let started = Instant::now();
    let report = run(&[p], &opts);
    assert_eq!(failure_of(&report, 0).kind, FailureKind::Timeout);
    // Not a speed assertion: a generous bound that only fails if the child was never killed.
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[test]
fn a_failing_point_does_not_stop_the_others() {
    let checkout = Checkout::new();
    let points = sweeps(&checkout);
    let report = run(&points, &with_mode(checkout.options(None), "exit1", "tp4"));
    for o in &report.outcomes {
        assert_eq!(o.result.is_ok(), o.label.contains("tp2"), "{}", o.label);
    }
    assert_eq!(report.summary.failed, 4);
}

#[test]
fn a_point_whose_vectors_do_not_match_its_concurrency_fails_alone() {
    let checkout = Checkout::new();
    let mut bad = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    bad.input_lens.pop();
    let good = point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0);
    let report = run(&[bad, good], &checkout.options(None));
    let f = failure_of(&report, 0);
    assert_eq!(f.kind, FailureKind::Input);
    assert!(f.reason.contains("input_lens has 19 lengths"), "{}", f.reason);
    assert!(report.outcomes[1].result.is_ok());
}

fn refusal(binary: PathBuf) -> String {
    let checkout = Checkout::new();
    let mut opts = checkout.options(None);
    opts.binary = binary;
    match blis::run_points(&[], &opts) {
        Err(TaskError::Refused(r)) => {
            assert_eq!(r.kind, InputKind::Blis);
            r.to_string()
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_non_executable_binary_is_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("blis");
    std::fs::write(&file, "#!/bin/sh\n").unwrap();
    let text = refusal(file);
    assert!(text.contains("not executable") && text.contains("--blis"), "{text}");
}

#[test]
fn a_directory_missing_or_empty_binary_path_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    assert!(refusal(dir.path().to_path_buf()).contains("is a directory"));
    assert!(refusal(dir.path().join("nope")).contains("--blis"));
    assert!(refusal(PathBuf::new()).contains("empty"));
}

#[test]
fn results_do_not_depend_on_the_number_of_workers() {
    let checkout = Checkout::new();
    let points = sweeps(&checkout);
    let mut one = checkout.options(None);
    one.workers = 1;
    let mut four = checkout.options(None);
    four.workers = 4;
    assert_eq!(render_outcomes(&run(&points, &one).outcomes), render_outcomes(&run(&points, &four).outcomes));
}

#[test]
fn a_cached_rerun_serves_every_point_with_identical_results() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = sweeps(&checkout);
    let opts = checkout.options(Some(cache_dir.path()));
    let cold = run(&points, &opts);
    let warm = run(&points, &opts);
    assert_eq!(cold.summary.cached, 0);
    assert_eq!(warm.summary.cached, points.len());
    assert!(warm.outcomes.iter().all(|o| o.cached));
    let uncached = run(&points, &checkout.options(None));
    assert_eq!(render_outcomes(&warm.outcomes), render_outcomes(&cold.outcomes));
    assert_eq!(render_outcomes(&uncached.outcomes), render_outcomes(&cold.outcomes));
}

#[test]
fn failures_are_not_cached() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = vec![point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)];
    let failed = run(&points, &with_mode(checkout.options(Some(cache_dir.path())), "exit1", ""));
    assert!(failed.outcomes[0].result.is_err());
    let again = run(&points, &checkout.options(Some(cache_dir.path())));
    assert!(again.outcomes[0].result.is_ok() && !again.outcomes[0].cached, "{:?}", again.outcomes[0].result);
}

#[test]
fn a_corrupt_cache_entry_is_recomputed_not_trusted() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = vec![point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0)];
    let opts = checkout.options(Some(cache_dir.path()));
    let cold = run(&points, &opts);
    let entry = blis::Cache::new(cache_dir.path()).entry_path(&cold.outcomes[0].key);
    let text = std::fs::read_to_string(&entry).unwrap();
    // A plausible-looking lie: one request's ITL changed (a digit put in front), the
    // checksum left alone.
    let lie = text.replacen("\\\"itl_ms\\\":", "\\\"itl_ms\\\":1", 1);
    assert_ne!(lie, text);
    std::fs::write(&entry, lie).unwrap();
    let warm = run(&points, &opts);
    assert!(!warm.outcomes[0].cached);
    assert_eq!(warm.summary.recomputed_corrupt, 1);
    assert_eq!(warm.outcomes[0].result, cold.outcomes[0].result);
    // And the entry was rewritten whole: the same record, with this run's cost.
    let without_cost = |text: &str| {
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        assert!(v.as_object_mut().unwrap().remove("cost").is_some(), "no cost recorded: {text}");
        v
    };
    assert_eq!(without_cost(&std::fs::read_to_string(&entry).unwrap()), without_cost(&text));
    std::fs::write(&entry, "{ truncated").unwrap();
    assert_eq!(run(&points, &opts).summary.recomputed_corrupt, 1);
}

#[test]
fn a_changed_binary_or_engine_setting_misses_the_cache() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let opts = checkout.options(Some(cache_dir.path()));
    run(std::slice::from_ref(&p), &opts);
    let mut other = p.clone();
    other.engine.block_size = 32;
    assert_eq!(run(&[other], &opts).summary.cached, 0);
    // The same program with one byte appended is a different binary.
    let bin_dir = tempfile::tempdir().unwrap();
    let copy = bin_dir.path().join("blis");
    let mut bytes = std::fs::read(&opts.binary).unwrap();
    bytes.push(0);
    std::fs::write(&copy, bytes).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&copy, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let mut rebuilt = opts.clone();
    rebuilt.binary = copy;
    let report = run(&[p], &rebuilt);
    assert_eq!(report.summary.cached, 0);
    assert!(report.outcomes[0].result.is_ok());
}

#[test]
fn merged_shard_caches_give_the_unsharded_table_byte_for_byte() {
    let checkout = Checkout::new();
    let points = sweeps(&checkout);
    let unsharded = render_outcomes(&run(&points, &checkout.options(None)).outcomes);
    let shard_dirs: Vec<tempfile::TempDir> = (0..3).map(|_| tempfile::tempdir().unwrap()).collect();
    let mut ran = 0;
    for (i, dir) in shard_dirs.iter().enumerate() {
        let mut opts = checkout.options(Some(dir.path()));
        opts.shard = Some(Shard { index: i as u32 + 1, count: 3 });
        let report = run(&points, &opts);
        ran += report.summary.ran;
        assert_eq!(report.summary.ran + report.summary.other_shard, points.len());
    }
    assert_eq!(ran, points.len(), "every point runs in exactly one shard");
    let merged = tempfile::tempdir().unwrap();
    let sources: Vec<PathBuf> = shard_dirs.iter().map(|d| d.path().to_path_buf()).collect();
    let stats = cache::merge(&sources, merged.path()).unwrap();
    assert_eq!(stats.copied, points.len());
    let mut offline = checkout.options(None);
    offline.cache = CacheMode::ReadOnly(merged.path().to_path_buf());
    let from_cache = run(&points, &offline);
    assert_eq!(from_cache.summary.cached, points.len());
    assert_eq!(render_outcomes(&from_cache.outcomes), unsharded);
}

#[test]
fn each_shard_runs_the_points_the_balanced_plan_gives_it() {
    let checkout = Checkout::new();
    // Unequal points: concurrencies 1 to 16 in two scenarios, two seeds (the same cost twice).
    let mut points = Vec::new();
    for name in ["synthetic-h100-vllm-tp2", "synthetic-h100-vllm-tp4"] {
        for c in [1, 2, 3, 4, 6, 8, 12, 16] {
            for seed in 0..2 {
                points.push(point(checkout.scenario(name), c, seed));
            }
        }
    }
    let opts = checkout.options(None);
    let keyed: Vec<(String, u64)> =
        blis::planned_keys(&points, &opts).unwrap().into_iter().map(Option::unwrap).collect();
    let n = 3;
    let plan = blis::shard::Plan::new(&keyed, n);
    let dir = tempfile::tempdir().unwrap();
    let mut ran_by: Vec<Vec<String>> = Vec::new();
    for i in 1..=n {
        let mut opts = checkout.options(Some(&dir.path().join(i.to_string())));
        opts.shard = Some(Shard { index: i, count: n });
        let report = run(&points, &opts);
        ran_by.push(report.outcomes.iter().filter(|o| o.result.is_ok()).map(|o| o.key.clone()).collect());
    }
    for (key, _) in &keyed {
        let owners: Vec<usize> = (0..n as usize).filter(|&s| ran_by[s].contains(key)).collect();
        assert_eq!(owners, vec![plan.shard_of(key).unwrap() as usize], "{key}");
    }
    // Longest first: the fullest shard is within the largest point of the ideal.
    let total: u128 = plan.loads().iter().sum();
    let largest = keyed.iter().map(|(_, c)| u128::from(*c)).max().unwrap();
    assert!(plan.loads().iter().all(|&l| l * u128::from(n) <= total + largest * u128::from(n)), "{:?}", plan.loads());
}

#[test]
fn a_run_records_what_each_point_cost_in_its_entry_and_a_hit_reports_it() {
    let checkout = Checkout::new();
    let points = [point(checkout.scenario("synthetic-h100-vllm-tp2"), 4, 0)];
    let dir = tempfile::tempdir().unwrap();
    let opts = checkout.options(Some(dir.path()));
    // The first run computes and stores; the second is served from the entry.
    let (fresh, hit) = (run(&points, &opts), run(&points, &opts));
    let cost = fresh.outcomes[0].cost.expect("a run records its cost");
    assert!(cost.wall_s > 0.0 && cost.wall_s <= fresh.outcomes[0].elapsed.as_secs_f64(), "{cost:?}");
    assert!(cost.cpu_s.is_some(), "{cost:?}");
    let cache::Lookup::Hit(record) = blis::Cache::new(dir.path()).get(&fresh.outcomes[0].key) else { panic!("stored") };
    assert_eq!(record.cost, Some(cost));
    assert!(hit.outcomes[0].cached);
    assert_eq!(hit.outcomes[0].cost, Some(cost));
    // Never in what the gate renders.
    assert_eq!(blis::point_records(&fresh.outcomes), blis::point_records(&hit.outcomes));
}

#[test]
fn merging_conflicting_entries_for_one_key_is_an_error() {
    let checkout = Checkout::new();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0);
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let report = run(std::slice::from_ref(&p), &checkout.options(Some(a.path())));
    let key = &report.outcomes[0].key;
    let cache::Lookup::Hit(mut other) = blis::Cache::new(a.path()).get(key) else { panic!("stored") };
    other.file.requests[0].itl_ms += 1.0;
    blis::Cache::new(b.path()).put(key, &other.file, &other.metrics_sha256).unwrap();
    let into = tempfile::tempdir().unwrap();
    let err = cache::merge(&[a.path().to_path_buf(), b.path().to_path_buf()], into.path()).unwrap_err();
    assert!(err.to_string().contains("conflicting entries"), "{err}");
    assert!(blis::Cache::new(into.path()).entries().unwrap().is_empty(), "nothing written on conflict");
}

#[test]
fn a_read_only_cache_miss_fails_the_point_without_running_it() {
    let checkout = Checkout::new();
    let empty = tempfile::tempdir().unwrap();
    let mut opts = checkout.options(None);
    opts.cache = CacheMode::ReadOnly(empty.path().to_path_buf());
    let report = run(&[point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)], &opts);
    assert_eq!(failure_of(&report, 0).kind, FailureKind::NotCached);
    assert_eq!(report.summary.ran, 0);
}

#[test]
fn the_determinism_figure_passes_with_the_double_and_is_refused_without_a_binary() {
    let checkout = Checkout::new();
    let flags = Flags {
        blis: Some(blis_support::double()),
        scenarios: Some(checkout.path("scenarios")),
        catalog: Some(checkout.path("catalog")),
        registry: Some(checkout.path("registry")),
        ..Flags::default()
    };
    let out = blis::task_determinism(&Inputs::resolve(&flags, |_| None)).expect("the figure runs");
    assert_eq!(out.values["bit_identical"], harness::task::Value::Check(true));
    harness::assert_figure_snapshot!("blis__determinism", out.report);
    let without = Flags { blis: None, ..flags };
    match blis::task_determinism(&Inputs::resolve(&without, |_| None)) {
        Err(TaskError::Refused(r)) => assert!(r.to_string().contains("BLIS_BIN")),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// `summarize` with the warm-up cut at 3N completions where the form cuts 2N.
fn summarize_3n(file: &blis::metrics::MetricsFile, warmup: usize, expected: u64) -> anyhow::Result<blis::PointMetrics> {
    blis::metrics::summarize(file, warmup / 2 * 3, expected)
}

#[test]
fn a_changed_summarizer_moves_the_figures_on_a_warm_cache() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = sweeps(&checkout);
    let opts = checkout.options(Some(cache_dir.path()));
    let cold = run(&points, &opts);
    let mut changed = opts.clone();
    changed.summarize = summarize_3n;
    let warm = run(&points, &changed);
    assert_eq!(warm.summary.cached, points.len(), "served from the cache");
    let moved = warm.outcomes.iter().zip(&cold.outcomes).filter(|(w, c)| w.result != c.result).count();
    assert!(moved > 0, "a 3N warm-up cut moved no figure");
    // Exactly what a fresh run with that summarizer computes.
    let mut fresh = changed.clone();
    fresh.cache = CacheMode::Off;
    assert_eq!(render_outcomes(&warm.outcomes), render_outcomes(&run(&points, &fresh).outcomes));
}

#[test]
fn an_old_format_entry_is_recomputed_and_counted_never_an_error() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = vec![point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0)];
    let opts = checkout.options(Some(cache_dir.path()));
    let cold = run(&points, &opts);
    let key = &cold.outcomes[0].key;
    let entry = blis::Cache::new(cache_dir.path()).entry_path(key);
    // A format-1 entry (the summary, not the record) under the same key.
    let old = format!(
        "{{\"format\": \"blis-repro-point-cache/1\", \"key\": \"{key}\", \"metrics\": \"{{}}\", \"checksum\": \"00\"}}\n"
    );
    std::fs::write(&entry, old).unwrap();
    let stats = cache::stats(cache_dir.path()).unwrap();
    assert_eq!((stats.entries, stats.old_format, stats.corrupt.len()), (1, 1, 0));
    let warm = run(&points, &opts);
    assert!(!warm.outcomes[0].cached);
    assert_eq!((warm.summary.recomputed_old_format, warm.summary.recomputed_corrupt), (1, 0));
    assert_eq!(warm.outcomes[0].result, cold.outcomes[0].result);
    assert!(run(&points, &opts).outcomes[0].cached, "rewritten in the current format");
}

#[test]
fn a_stored_record_the_summarizer_refuses_is_recomputed_not_served() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = vec![point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0)];
    let opts = checkout.options(Some(cache_dir.path()));
    let cold = run(&points, &opts);
    let key = &cold.outcomes[0].key;
    // A checksummed entry whose record says nothing completed: no run of ours stores that.
    let empty = blis::metrics::parse(
        r#"{"completed_requests": 0, "injected_requests": 24, "still_queued": 0, "still_running": 0,
            "timed_out_requests": 0, "dropped_unservable": 0, "length_capped_requests": 0}"#,
    )
    .unwrap();
    let c = blis::Cache::new(cache_dir.path());
    c.put(key, &empty, "00").unwrap();
    let warm = run(&points, &opts);
    assert!(!warm.outcomes[0].cached);
    assert_eq!(warm.summary.recomputed_corrupt, 1);
    assert_eq!(warm.outcomes[0].result, cold.outcomes[0].result);
}

#[test]
fn every_tree_of_the_scenario_dialect_is_in_the_key() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = vec![point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)];
    let opts = checkout.options(Some(cache_dir.path()));
    let first = run(&points, &opts);
    let names: Vec<&str> = first.outcomes[0].key_files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["catalog tree", "registry tree"]);
    for (tree, file) in [("catalog", "gpu.yaml"), ("registry", "model.yaml")] {
        std::fs::write(checkout.path(tree).join(file), "changed: true\n").unwrap();
        let after = run(&points, &opts);
        assert_eq!(after.summary.cached, 0, "a changed {tree} tree must miss");
        assert_ne!(after.outcomes[0].key, first.outcomes[0].key);
    }
    assert_eq!(run(&points, &opts).summary.cached, 1);
}

#[test]
fn every_release_file_and_the_whole_model_config_folder_are_in_the_key() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = vec![point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)];
    let opts = checkout.flag_options(Some(cache_dir.path()));
    let first = run(&points, &opts);
    let names: Vec<&str> = first.outcomes[0].key_files.iter().map(|f| f.name.as_str()).collect();
    // The synthetic scenario is fp8: the point writes its own model config, keyed too.
    assert_eq!(
        names,
        [
            "defaults.yaml",
            "hardware_config.json",
            "model_configs",
            "<point-dir>/model-config/config.json (written per point)"
        ]
    );
    let root = checkout.dir.path();
    let edits: [(&str, &str); 3] = [
        ("hardware_config.json", r#"{"H100": {"MemoryGiB": 81.0}, "L40S": {"MemoryGiB": 48.0}}"#),
        ("defaults.yaml", "defaults:\n  acme/synthetic-model:\n    GPU: H100\n    TP: 2\n"),
        ("model_configs/synthetic-model/tokenizer_config.json", "{}"),
    ];
    let mut keys = vec![first.outcomes[0].key.clone()];
    for (file, text) in edits {
        std::fs::write(root.join(file), text).unwrap();
        let after = run(&points, &opts);
        assert_eq!(after.summary.cached, 0, "a changed {file} must miss");
        assert!(!keys.contains(&after.outcomes[0].key));
        keys.push(after.outcomes[0].key.clone());
    }
}

#[test]
fn a_variable_that_reaches_the_child_is_in_the_key() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    let points = vec![point(checkout.scenario("synthetic-h100-vllm-tp2"), 4, 0)];
    let opts = checkout.options(Some(cache_dir.path()));
    let plain = run(&points, &opts);
    let mut slow = opts.clone();
    slow.child_env.push(("BLIS_DOUBLE_SLOWDOWN".into(), "1".into()));
    let slowed = run(&points, &slow);
    assert_eq!(slowed.summary.cached, 0);
    assert_ne!(slowed.outcomes[0].result, plain.outcomes[0].result, "the knob changes the answer");
}

#[test]
fn a_cache_that_cannot_store_keeps_every_computed_point() {
    let checkout = Checkout::new();
    let cache_dir = tempfile::tempdir().unwrap();
    // A file at every shard folder's name: no entry can be written (root ignores permissions).
    for i in 0..=255u8 {
        std::fs::write(cache_dir.path().join(format!("{i:02x}")), "").unwrap();
    }
    let points = sweeps(&checkout);
    let report = run(&points, &checkout.options(Some(cache_dir.path())));
    assert_eq!(report.summary.failed, 0, "{}", render_outcomes(&report.outcomes));
    assert_eq!(report.summary.ran, points.len());
    assert_eq!(report.summary.not_stored, points.len());
    let uncached = run(&points, &checkout.options(None));
    assert_eq!(render_outcomes(&report.outcomes), render_outcomes(&uncached.outcomes));
}

#[test]
fn cache_stats_and_merge_refuse_a_folder_that_is_not_there_and_count_a_directory_entry_as_corrupt() {
    let missing = PathBuf::from("/nonexistent/blis-cache-typo");
    assert!(cache::stats(&missing).unwrap_err().to_string().contains("not a cache directory"));
    let into = tempfile::tempdir().unwrap();
    assert!(cache::merge(&[missing], into.path()).unwrap_err().to_string().contains("not a cache directory"));
    let dir = tempfile::tempdir().unwrap();
    let key = "ab".repeat(32);
    std::fs::create_dir_all(dir.path().join("ab").join(format!("{key}.json"))).unwrap();
    let stats = cache::stats(dir.path()).unwrap();
    assert_eq!((stats.entries, stats.corrupt.len()), (1, 1));
}

#[test]
fn the_baseline_runs_sealed_from_its_own_root_with_its_own_files_in_its_key() {
    let (a, b) = (Checkout::new(), Checkout::new());
    let candidate = a.flag_options(None);
    let _ = b.flag_options(None);
    // The baseline's release has its own hardware_config.json; its binary lies in its root.
    std::fs::write(b.dir.path().join("hardware_config.json"), r#"{"H100": {"MemoryGiB": 94.0}}"#).unwrap();
    let baseline_bin = b.dir.path().join("blis");
    std::fs::copy(blis_support::double(), &baseline_bin).unwrap();
    let log = tempfile::tempdir().unwrap();
    let mut candidate = candidate;
    candidate.child_env.push(("BLIS_DOUBLE_CWD_LOG".into(), log.path().join("cwd").display().to_string()));
    let baseline = candidate.for_binary(baseline_bin);
    let p = point(a.scenario("synthetic-h100-vllm-tp2"), 1, 0);
    let mut seen = Vec::new();
    for (opts, root) in [(&candidate, a.dir.path()), (&baseline, b.dir.path())] {
        let o = run(std::slice::from_ref(&p), opts).outcomes.remove(0);
        assert!(o.result.is_ok(), "{:?}", o.result);
        let root = std::fs::canonicalize(root).unwrap();
        assert_eq!(std::fs::canonicalize(&o.cwd).unwrap(), root);
        // The child ran in the seal of this root: a private copy of its release files, gone
        // once the run ended.
        let cwd = std::fs::read_to_string(log.path().join("cwd")).unwrap();
        let ran_in = PathBuf::from(cwd.lines().last().unwrap());
        assert!(ran_in.display().to_string().contains("blis-seal-") && ran_in.ends_with("root"), "{ran_in:?}");
        assert!(!ran_in.exists(), "the seal is removed after the run");
        let hw = o.key_files.iter().find(|f| f.name == "hardware_config.json").unwrap();
        assert_eq!(std::fs::canonicalize(&hw.source).unwrap(), root.join("hardware_config.json"));
        seen.push((o.key, hw.sha256.clone()));
    }
    assert_ne!(seen[0].1, seen[1].1, "each release's own hardware_config.json");
    assert_ne!(seen[0].0, seen[1].0);
}
