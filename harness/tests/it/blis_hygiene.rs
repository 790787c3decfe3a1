//! The BLIS arm against the double in both command-line dialects: detection, points a release
//! cannot model, the workload specs a real release reads or refuses, the recorded command line,
//! and process hygiene (a timeout takes the grandchildren, a stderr tail stays bounded).

use crate::support::blis as blis_support;

use blis_support::{point, with_mode, Checkout};
use harness::blis::{run_points, workload::workload_spec, FailureKind, PointOutcome, POINT_DIR};
use std::time::Duration;

fn one(opts: &harness::blis::RunOptions, p: harness::blis::PointSpec) -> PointOutcome {
    let report = run_points(std::slice::from_ref(&p), opts).expect("the run starts");
    report.outcomes.into_iter().next().unwrap()
}

#[test]
fn the_scenario_dialect_is_detected_from_the_help() {
    let checkout = Checkout::new();
    let o = one(&checkout.options(None), point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0));
    assert!(o.result.is_ok(), "{:?}", o.result);
    let run = o.run.unwrap();
    assert_eq!(run.dialect, "scenario");
    assert!(run.command.contains(&"--scenarios".to_string()), "{:?}", run.command);
}

#[test]
fn the_flag_dialect_is_detected_and_derives_the_deployment_from_the_scenario() {
    let checkout = Checkout::new();
    let o = one(&checkout.flag_options(None), point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0));
    assert!(o.result.is_ok(), "{:?}", o.result);
    let run = o.run.unwrap();
    assert_eq!(run.dialect, "flags");
    let args = run.command[1..].join(" ");
    assert!(
        args.starts_with("run --model acme/synthetic-model --hardware H100 --tp 2 --model-config-folder <point-dir>/model-config --max-num-seqs 256 --max-num-batched-tokens 8192 --block-size-in-tokens 16 --workload-spec <point-dir>/workload.yaml --seed 0 --metrics-path <point-dir>/metrics.json --timeout -1 --log error"),
        "{args}"
    );
    // fp8 weights go through the model config; the KV-cache dtype and prefix caching have no route.
    assert!(
        run.expressed.iter().any(|e| e.starts_with(
            "engine.quantization: fp8 as the model config's quantization_config (quant_method fp8: 1 bytes/param"
        )),
        "{:?}",
        run.expressed
    );
    assert!(!run.unexpressed.iter().any(|u| u.contains("quantization")), "{:?}", run.unexpressed);
    assert!(run.unexpressed.contains(&"engine.cache_dtype: fp8".to_string()), "{:?}", run.unexpressed);
    assert!(run.unexpressed.contains(&"engine.enable_prefix_caching: true".to_string()), "{:?}", run.unexpressed);
    let shipped = blis_support::SYNTHETIC_MODEL_CONFIG.as_bytes();
    let fields = harness::blis::dialect::model_config_fields(shipped).unwrap();
    let format = harness::blis::dialect::weight_format("fp8").unwrap();
    let written = harness::blis::dialect::quantized_model_config(&fields.raw, &format);
    assert!(written.contains("\"quant_method\": \"fp8\""), "{written}");
    assert_eq!(run.model_config_sha256.as_deref(), Some(sha256_hex(written.as_bytes()).as_str()));
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The synthetic scenario with `engine.quantization` set to `method` (or dropped), as `name`.
fn with_quantization(checkout: &Checkout, name: &str, method: Option<&str>) -> std::path::PathBuf {
    let line = method.map_or(String::new(), |m| format!("      quantization: {m}\n"));
    let text = blis_support::SCENARIO.replace("      quantization: fp8\n", &line);
    let path = checkout.scenario(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_quantization_the_release_cannot_read_is_listed_and_the_point_runs_at_the_shipped_precision() {
    let checkout = Checkout::new();
    let o = one(&checkout.flag_options(None), point(with_quantization(&checkout, "synthetic-mx", Some("mxfp4")), 2, 0));
    assert!(o.result.is_ok(), "{:?}", o.result);
    let run = o.run.unwrap();
    assert!(
        run.command.join(" ").contains("--model-config-folder model_configs/synthetic-model "),
        "{:?}",
        run.command
    );
    assert!(run.expressed.is_empty(), "{:?}", run.expressed);
    assert!(
        run.unexpressed.contains(
            &"engine.quantization: mxfp4 (no quantization_config this release reads; weights at bfloat16, 2 bytes/param)"
                .to_string()
        ),
        "{:?}",
        run.unexpressed
    );
    assert_eq!(
        run.model_config_sha256.as_deref(),
        Some(sha256_hex(blis_support::SYNTHETIC_MODEL_CONFIG.as_bytes()).as_str())
    );
    // No quantization stated: the shipped file, nothing listed about it.
    let o = one(&checkout.flag_options(None), point(with_quantization(&checkout, "synthetic-bf16", None), 2, 0));
    let run = o.run.unwrap();
    assert!(run.expressed.is_empty() && !run.unexpressed.iter().any(|u| u.contains("quantization")), "{run:?}");
}

#[test]
fn the_model_configs_bytes_are_part_of_the_key() {
    let checkout = Checkout::new();
    let opts = checkout.flag_options(None);
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let before = one(&opts, p.clone());
    let config = checkout.path("model_configs/synthetic-model/config.json");
    std::fs::write(&config, blis_support::SYNTHETIC_MODEL_CONFIG.replace("64", "128")).unwrap();
    let after = one(&opts, p);
    assert!(before.result.is_ok() && after.result.is_ok());
    assert_ne!(before.key, after.key, "a changed model config must miss the cache");
    assert_ne!(before.run.unwrap().model_config_sha256, after.run.unwrap().model_config_sha256);
}

#[test]
fn a_model_config_that_is_not_json_or_lacks_a_field_fails_the_point_naming_the_file() {
    for (text, expected) in [
        ("{not json", "not valid JSON"),
        ("{\"hidden_size\": 64, \"num_attention_heads\": 8, \"torch_dtype\": \"bfloat16\"}", "`num_hidden_layers`"),
        ("{\"hidden_size\": 64, \"num_attention_heads\": 8, \"num_hidden_layers\": 2}", "`torch_dtype`"),
    ] {
        let checkout = Checkout::new();
        let opts = checkout.flag_options(None);
        std::fs::write(checkout.path("model_configs/synthetic-model/config.json"), text).unwrap();
        let o = one(&opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0));
        let f = o.result.unwrap_err();
        assert_eq!(f.kind, FailureKind::Input, "{f:?}");
        assert!(f.reason.contains("model_configs/synthetic-model/config.json"), "{}", f.reason);
        assert!(f.reason.contains(expected), "{}", f.reason);
    }
}

#[test]
fn a_binary_speaking_neither_dialect_is_an_error_before_any_point() {
    let checkout = Checkout::new();
    let script = checkout.path("not-blis");
    std::fs::write(&script, "#!/bin/sh\necho 'usage: something else --seed'\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut opts = checkout.options(None);
    opts.binary = script;
    let err = run_points(&[point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)], &opts).unwrap_err();
    assert!(format!("{err}").contains("does not list --workload-spec"), "{err}");
}

#[test]
fn unknown_hardware_is_not_modelled_and_not_a_failure() {
    let checkout = Checkout::new();
    let b200 = blis_support::SCENARIO.replace("hardware: h100", "hardware: b200");
    std::fs::write(checkout.path("scenarios/synthetic-b200.yaml"), b200).unwrap();
    let opts = checkout.flag_options(None);
    let points =
        [point(checkout.scenario("synthetic-b200"), 1, 0), point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)];
    let report = run_points(&points, &opts).unwrap();
    let f = report.outcomes[0].result.as_ref().unwrap_err();
    assert_eq!(f.kind, FailureKind::NotModelled);
    assert!(
        f.reason.contains("not modelled by this release: hardware `b200` is not in hardware_config.json"),
        "{}",
        f.reason
    );
    assert!(report.outcomes[1].result.is_ok());
    assert_eq!((report.summary.not_modelled, report.summary.failed), (1, 0));
}

#[test]
fn a_model_without_a_shipped_config_is_not_modelled() {
    let checkout = Checkout::new();
    let other = blis_support::SCENARIO.replace("model: synthetic-model", "model: other-model");
    std::fs::write(checkout.path("scenarios/other.yaml"), other).unwrap();
    let o = one(&checkout.flag_options(None), point(checkout.scenario("other"), 1, 0));
    let f = o.result.unwrap_err();
    assert_eq!(f.kind, FailureKind::NotModelled);
    assert!(f.reason.contains("no model config for `other-model`"), "{}", f.reason);
}

#[test]
fn the_recorded_command_re_run_by_hand_writes_the_same_metrics() {
    let checkout = Checkout::new();
    let opts = checkout.flag_options(None);
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let o = one(&opts, p.clone());
    let run = o.run.unwrap();
    let m = o.result.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let spec = workload_spec(&p).unwrap();
    use sha2::Digest;
    let spec_sha: String = sha2::Sha256::digest(spec.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(spec_sha, run.workload_sha256);
    for (name, text) in harness::blis::point_files(&p, &opts).unwrap() {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    assert!(dir.path().join("model-config/config.json").is_file(), "the fp8 point carries its model config");
    let args: Vec<String> =
        run.command[1..].iter().map(|a| a.replace(POINT_DIR, &dir.path().display().to_string())).collect();
    let status = std::process::Command::new(&run.command[0])
        .args(&args)
        .current_dir(&opts.blis_root)
        .env("BLIS_DOUBLE_DIALECT", "flags")
        .env_remove("BLIS_DOUBLE_MODE")
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(dir.path().join("metrics.json")).unwrap();
    let sha: String = sha2::Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(sha, m.metrics_sha256);
}

#[test]
fn the_double_reads_exactly_the_specs_a_real_release_reads() {
    let checkout = Checkout::new();
    let _ = checkout.flag_options(None);
    for (name, spec, accepted) in blis_support::spec_parity_cases() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("w.yaml"), spec).unwrap();
        let out = std::process::Command::new(blis_support::double())
            .args(["run", "--model", "synthetic-model", "--hardware", "H100", "--tp", "1", "--workload-spec"])
            .arg(dir.path().join("w.yaml"))
            .arg("--metrics-path")
            .arg(dir.path().join("m.json"))
            .args(["--seed", "0", "--timeout", "-1", "--log", "error"])
            .current_dir(checkout.dir.path())
            .env("BLIS_DOUBLE_DIALECT", "flags")
            .env_remove("BLIS_DOUBLE_MODE")
            .output()
            .unwrap();
        assert_eq!(out.status.success(), accepted, "{name}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

#[test]
fn a_valid_but_incomplete_metrics_file_fails_the_point() {
    let checkout = Checkout::new();
    let opts = with_mode(checkout.flag_options(None), "incomplete", "");
    let f = one(&opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0)).result.unwrap_err();
    assert_eq!(f.kind, FailureKind::Incomplete);
    assert!(f.reason.contains("still_running is 1"), "{}", f.reason);
}

/// Processes whose command line holds `needle`, by pid.
fn processes_with(needle: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmdline).split('\0').any(|a| a == needle) {
                found.push(pid);
            }
        }
    }
    found
}

#[test]
fn a_timeout_kills_the_grandchildren_too() {
    let checkout = Checkout::new();
    let mut opts = with_mode(checkout.options(None), "grandchild", "");
    // A sleep length no other process on the machine is using.
    let secs = format!("1000.{}{}", std::process::id(), std::time::UNIX_EPOCH.elapsed().unwrap().subsec_nanos());
    opts.child_env.push(("BLIS_DOUBLE_SLEEP".into(), secs.clone()));
    opts.timeout = Duration::from_secs(2);
    let f = one(&opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)).result.unwrap_err();
    assert_eq!(f.kind, FailureKind::Timeout);
    std::thread::sleep(Duration::from_millis(200));
    let orphans = processes_with(&secs);
    for pid in &orphans {
        let _ = std::process::Command::new("kill").arg("-9").arg(pid.to_string()).status();
    }
    assert!(orphans.is_empty(), "orphaned `sleep {secs}`: {orphans:?}");
}

#[test]
fn a_50_mb_stderr_line_leaves_a_bounded_tail() {
    let checkout = Checkout::new();
    let opts = with_mode(checkout.options(None), "huge_stderr", "");
    let f = one(&opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)).result.unwrap_err();
    assert_eq!(f.kind, FailureKind::Exit);
    assert_eq!(f.stderr_tail.len(), 2, "{:?}", f.stderr_tail.iter().map(|l| l.len()).collect::<Vec<_>>());
    assert!(f.stderr_tail.iter().all(|l| l.len() <= 400));
    assert!(
        f.stderr_tail[0].ends_with(&format!("[... {} more bytes]", 50 * (1 << 20) - 300)),
        "{}",
        &f.stderr_tail[0][290..]
    );
    assert_eq!(f.stderr_tail[1], "blis-double: the last line");
}

#[test]
fn per_request_vectors_without_a_replay_route_are_not_modelled() {
    let checkout = Checkout::new();
    for opts in [checkout.options(None), checkout.flag_options(None)] {
        let p = harness::blis::PointSpec {
            form: harness::blis::workload::LengthForm::Vectors,
            ..point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)
        };
        let f = one(&opts, p).result.unwrap_err();
        assert_eq!(f.kind, FailureKind::NotModelled);
        assert!(f.reason.contains("need TraceV2 replay"), "{}", f.reason);
    }
}

/// A unique sleep length: no other process on the machine has it on its command line.
fn unique_secs() -> String {
    format!("1000.{}{}", std::process::id(), std::time::UNIX_EPOCH.elapsed().unwrap().subsec_nanos())
}

/// Kills what a test found (so a failing test leaves nothing) and says whether it found any.
fn leftovers(secs: &str) -> Vec<i32> {
    std::thread::sleep(Duration::from_millis(200));
    let found = processes_with(secs);
    for pid in &found {
        let _ = std::process::Command::new("kill").arg("-9").arg(pid.to_string()).status();
    }
    found
}

#[test]
fn background_children_of_a_binary_that_exits_normally_are_killed() {
    let checkout = Checkout::new();
    let mut opts = with_mode(checkout.options(None), "background", "");
    let secs = unique_secs();
    opts.child_env.push(("BLIS_DOUBLE_SLEEP".into(), secs.clone()));
    let o = one(&opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0));
    assert!(o.result.is_ok(), "{:?}", o.result);
    let orphans = leftovers(&secs);
    assert!(orphans.is_empty(), "orphaned `sleep {secs}`: {orphans:?}");
}

#[test]
fn a_setsid_child_is_killed_after_a_normal_exit_and_after_a_timeout() {
    let checkout = Checkout::new();
    for (mode, timeout) in [("setsid", 60), ("setsid_hang", 2)] {
        let mut opts = with_mode(checkout.options(None), mode, "");
        let secs = unique_secs();
        opts.child_env.push(("BLIS_DOUBLE_SLEEP".into(), secs.clone()));
        opts.timeout = Duration::from_secs(timeout);
        let o = one(&opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0));
        assert_eq!(o.result.is_ok(), mode == "setsid", "{mode}: {:?}", o.result);
        let orphans = leftovers(&secs);
        assert!(orphans.is_empty(), "{mode}: the setsid `sleep {secs}` survived: {orphans:?}");
    }
}

#[test]
fn a_grandchild_in_a_process_group_of_its_own_is_killed_after_a_normal_exit() {
    let checkout = Checkout::new();
    // A release that starts a `sleep` in a process group of its own (`setpgid`, same session)
    // and, once it has left the point's group, runs the double: the point ends before the
    // first /proc look (250 ms), and the `sleep` is reparented to the harness.
    let bin = checkout.dir.path().join("blis");
    let script = format!(
        "#!/bin/sh\npython3 -c 'import os, sys; os.setpgid(0, 0); os.execvp(\"sleep\", [\"sleep\", sys.argv[1]])' \
         \"$BLIS_DOUBLE_SLEEP\" &\nsleep 0.15\nexec {} \"$@\"\n",
        crate::support::blis::double().display()
    );
    std::fs::write(&bin, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    for round in 0..5 {
        let mut opts = checkout.options(None);
        opts.binary = bin.clone();
        let secs = unique_secs();
        opts.child_env.push(("BLIS_DOUBLE_SLEEP".into(), secs.clone()));
        opts.child_env.push(("PATH".into(), "/usr/bin:/bin".into()));
        let o = one(&opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0));
        assert!(o.result.is_ok(), "{:?}", o.result);
        let orphans = leftovers(&secs);
        assert!(orphans.is_empty(), "round {round}: the setpgid `sleep {secs}` survived: {orphans:?}");
    }
}

/// Runs one point on a thread and waits at most `limit` for it: a hang fails the test rather
/// than holding it forever.
fn within(limit: Duration, opts: harness::blis::RunOptions, p: harness::blis::PointSpec) -> PointOutcome {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(one(&opts, p));
    });
    rx.recv_timeout(limit).unwrap_or_else(|_| panic!("the point did not end within {limit:?}"))
}

#[test]
fn a_fifo_a_device_or_an_oversized_file_at_the_metrics_path_fails_the_point_quickly() {
    let checkout = Checkout::new();
    let bytes = (harness::blis::MAX_METRICS_BYTES + 1).to_string();
    for (mode, says) in [
        ("fifo_metrics", "a FIFO, not a regular file"),
        ("devzero_metrics", "a symlink, not a regular file"),
        ("huge_metrics", "more than the 67108864 allowed"),
    ] {
        let mut opts = with_mode(checkout.options(None), mode, "");
        opts.child_env.push(("BLIS_DOUBLE_BYTES".into(), bytes.clone()));
        // The point's own timeout does not apply once the child has exited.
        opts.timeout = Duration::from_secs(600);
        let o = within(Duration::from_secs(60), opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0));
        let f = o.result.unwrap_err();
        assert_eq!(f.kind, FailureKind::Metrics, "{mode}");
        assert!(f.reason.contains(says), "{mode}: {}", f.reason);
    }
}

#[test]
fn the_child_sees_only_its_stated_environment() {
    let checkout = Checkout::new();
    let log = checkout.path("env.log");
    let mut opts = checkout.options(None);
    opts.child_env.push(("BLIS_DOUBLE_ENV_LOG".into(), log.display().to_string()));
    let o = one(&opts, point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0));
    assert!(o.result.is_ok(), "{:?}", o.result);
    let mut names: Vec<String> = std::fs::read_to_string(&log).unwrap().lines().map(str::to_string).collect();
    names.sort();
    let mut expected: Vec<String> = opts.child_environment().into_iter().map(|(k, _)| k).collect();
    expected.sort();
    // This process has PATH and HOME (cargo sets more): none of it reaches the child.
    assert!(std::env::var_os("PATH").is_some());
    assert_eq!(names, expected);
}

#[test]
fn a_binary_replaced_during_the_run_changes_nothing_that_run_runs() {
    let checkout = Checkout::new();
    let script = checkout.path("blis");
    // Its first run breaks the file at the path it was started from: a rebuild mid-run.
    let text = format!(
        "#!/bin/sh\nprintf '#!/bin/sh\\nexit 3\\n' > '{}'\nexec '{}' \"$@\"\n",
        script.display(),
        blis_support::double().display()
    );
    std::fs::write(&script, &text).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut opts = checkout.options(None);
    opts.binary = script.clone();
    opts.workers = 1;
    let points: Vec<_> = [1, 2, 4].iter().map(|c| point(checkout.scenario("synthetic-h100-vllm-tp2"), *c, 0)).collect();
    let report = run_points(&points, &opts).unwrap();
    for o in &report.outcomes {
        assert!(o.result.is_ok(), "{}: {:?}", o.label, o.result);
    }
    assert_ne!(std::fs::read_to_string(&script).unwrap(), text, "the script did replace itself");
}

/// The double's pre-v0.7 flag dialect (`BLIS_DOUBLE_RELEASE=early`): the arm writes the metrics
/// file under `--results-path`, passes no `--timeout`, and a pinned latency model is an input
/// error naming the flag the release lacks; the f90a1e3a-like dialect takes the pin, keyed.
#[test]
fn each_release_gets_the_flags_its_help_lists() {
    let checkout = Checkout::new();
    let p = point(checkout.scenario("synthetic-h100-vllm-tp2"), 2, 0);
    let mut early = checkout.flag_options(None);
    early.child_env.push(("BLIS_DOUBLE_RELEASE".into(), "early".into()));
    let o = one(&early, p.clone());
    o.result.as_ref().unwrap();
    let command = &o.run.as_ref().unwrap().command;
    assert!(command.iter().any(|a| a == "--results-path"), "{command:?}");
    assert!(!command.iter().any(|a| a == "--timeout" || a == "--metrics-path"), "{command:?}");
    early.latency_model = Some("roofline".into());
    let f = one(&early, p.clone()).result.unwrap_err();
    assert_eq!(f.kind, FailureKind::Input);
    assert!(f.reason.contains("lists no --latency-model"), "{}", f.reason);

    let mut now = checkout.flag_options(None);
    let unpinned = one(&now, p.clone());
    let command = &unpinned.run.as_ref().unwrap().command;
    assert!(command.windows(2).any(|w| w == ["--timeout", "-1"]), "{command:?}");
    assert!(!command.iter().any(|a| a == "--latency-model"), "{command:?}");
    now.latency_model = Some("roofline".into());
    let pinned = one(&now, p.clone());
    pinned.result.as_ref().unwrap();
    let command = &pinned.run.as_ref().unwrap().command;
    assert!(command.windows(2).any(|w| w == ["--latency-model", "roofline"]), "{command:?}");
    assert_ne!(pinned.key, unpinned.key);
    now.latency_model = Some("blackbox".into());
    let f = one(&now, p).result.unwrap_err();
    assert_eq!(f.kind, FailureKind::Input);
    assert!(f.reason.contains("offers only trained-physics, roofline"), "{}", f.reason);
}

/// A point run through `blis replay` that fails is said as `blis replay exited`, not as a
/// failed `blis run` (a release whose replay lists the TraceV2 flags, then exits 3).
#[test]
fn a_failed_replay_is_said_as_a_failed_replay() {
    let checkout = Checkout::new();
    let mut opts = checkout.flag_options(None);
    let script = checkout.dir.path().join("blis-with-replay");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ \"$1\" = replay ]; then\n  if [ \"$2\" = --help ]; then\n    echo '  --trace-header string  --trace-data string  --session-mode string  --horizon int  --metrics-path string  --seed int'\n    exit 0\n  fi\n  echo 'replay: boom' >&2\n  exit 3\nfi\nexec '{}' \"$@\"\n",
            blis_support::double().display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    opts.binary = script;
    let p = harness::blis::PointSpec {
        form: harness::blis::workload::LengthForm::Vectors,
        ..point(checkout.scenario("synthetic-h100-vllm-tp2"), 1, 0)
    };
    let f = one(&opts, p).result.unwrap_err();
    assert_eq!(f.kind, FailureKind::Exit, "{}", f.reason);
    assert_eq!(f.reason, "blis replay exited with exit status: 3");
    assert_eq!(f.stderr_tail, ["replay: boom"]);
}
