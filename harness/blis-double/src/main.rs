//! `blis-double`: a test-only stand-in for the `blis` binary.
//!
//! It speaks one of the two command-line dialects the harness detects from `blis run --help`
//! (`BLIS_DOUBLE_DIALECT=flags` for the flag dialect of inference-sim at f90a1e3a, else the
//! scenario dialect of the latency-kernel contract):
//!
//! ```text
//! blis-double run --scenario NAME --scenarios DIR --catalog DIR --registry DIR
//!     --workload-spec FILE --seed N --metrics-path FILE --timeout -1 --log error
//! blis-double run --model M --hardware GPU --tp N --model-config-folder DIR --max-num-seqs N
//!     --max-num-batched-tokens N --block-size-in-tokens N --workload-spec FILE --seed N
//!     --metrics-path FILE --timeout -1 --log error          (any order, as cobra parses)
//! ```
//!
//! The scenario dialect is pinned to the harness's order (exit 2 otherwise). In the flag
//! dialect, like the real binary, an unknown flag exits 1, the GPU must be a key of
//! `hardware_config.json` in the working directory, and the model folder must hold a
//! `config.json`. The workload spec is read the way the real reader reads it
//! (`sim/workload/spec.go` @ f90a1e3a): unknown fields refused, distribution types limited to
//! the real six, `concurrency` with `rate_fraction` refused. The double samples `empirical`
//! and `constant` lengths (a closed-loop client only); other real types are refused as not
//! modelled by the double. The metrics JSON has the real field names and units (`arrived_at`
//! in seconds, times in ms, requests sorted by arrival, no completion index).
//!
//! The model is not BLIS: it only has to be a pure function of its inputs in which the engine
//! settings and the lengths move the latencies, so the harness's plumbing, caching and
//! sensitivity rows can be tested without the real simulator.
//!
//! Failure modes for tests, chosen with environment variables:
//! - `BLIS_DOUBLE_MODE=exit1`: prints a few stderr lines and exits 1.
//! - `BLIS_DOUBLE_MODE=malformed`: writes a metrics file that is not JSON, exits 0.
//! - `BLIS_DOUBLE_MODE=incomplete`: one request left running (completed < injected), exits 0.
//! - `BLIS_DOUBLE_MODE=timed_out`: every request completes but `timed_out_requests` is 1.
//! - `BLIS_DOUBLE_MODE=no_metrics`: exits 0 without writing a metrics file.
//! - `BLIS_DOUBLE_MODE=hang`: sleeps forever (the harness's timeout must kill it).
//! - `BLIS_DOUBLE_MODE=grandchild`: starts `sleep 1000` (or `sleep $BLIS_DOUBLE_SLEEP`), then
//!   hangs (the timeout must kill both).
//! - `BLIS_DOUBLE_MODE=huge_stderr`: writes one 50 MB stderr line, exits 1.
//! - `BLIS_DOUBLE_MODE=fifo_metrics`: leaves a FIFO at the metrics path, exits 0.
//! - `BLIS_DOUBLE_MODE=devzero_metrics`: leaves a symlink to `/dev/zero` there, exits 0.
//! - `BLIS_DOUBLE_MODE=huge_metrics`: leaves a sparse file of `BLIS_DOUBLE_BYTES` there, exits 0.
//! - `BLIS_DOUBLE_MODE=background`: starts `sleep $BLIS_DOUBLE_SLEEP` in the background, then
//!   writes its metrics and exits 0 (the child's end must take the sleep too).
//! - `BLIS_DOUBLE_MODE=setsid`: the same with `setsid sleep ...` (a new session and group);
//!   `setsid_hang`: starts that, then hangs (the timeout must take it).
//! - `BLIS_DOUBLE_CWD_LOG=FILE`: appends the working directory to FILE (where the child ran).
//! - `BLIS_DOUBLE_ENV_LOG=FILE`: writes every variable of its environment to FILE.
//! - `BLIS_DOUBLE_ONLY=TEXT`: apply the mode only when the scenario (or model) contains TEXT.
//!
//! A knob for a release that models only some of the sweeps (issue 23):
//! - `BLIS_DOUBLE_NOT_MODELLED=GPU,GPU...` (case-insensitive): a point on one of these GPUs (the
//!   scenario's `cluster.hardware`, or `--hardware`) fails the way inference-sim at f90a1e3a
//!   fails on a GPU missing from its `hardware_config.json` (`cmd/root.go` logs
//!   `Failed to load hardware config: ...` through logrus.Fatalf, `sim/latency/config.go` says
//!   `GPU "X" not found in hardware config (available: [...])`): that line on stderr, exit 1.
//!
//! A knob for the baseline comparison (`--baseline-blis`, docs/baseline.md):
//! - `BLIS_DOUBLE_SLOWDOWN=F` (a finite number of at least 0, default 0): every step takes
//!   `1 + F x ln(concurrency)` times as long, so concurrency 1 is unchanged and the higher
//!   points of a sweep slow down: a candidate whose TPOT shape error grows at high concurrency.
//!
//! A knob for the gate's determinism check (`cargo xtask reproduce --determinism`):
//! - `BLIS_DOUBLE_NOISE=F` (a number in [0, 1], default 0): a nondeterministic simulator. The
//!   points whose workload file and seed hash (FNV-1a) below F of the 64-bit range get a
//!   different first inter-token latency on every run (the clock's nanoseconds and the process
//!   id), so their metrics files differ between two runs; the other points stay exact.

mod args;
mod model;
mod workload;

use args::*;
use model::*;
use serde_json::json;
use std::process::ExitCode;
use workload::*;

fn run(args: &Args, mode: &str) -> Result<(), String> {
    let engine = match &args.source {
        Source::Scenario { name, dir, catalog, registry } => {
            for (flag, dir) in [("--scenarios", dir), ("--catalog", catalog), ("--registry", registry)] {
                if !dir.is_dir() {
                    return Err(format!("{flag} {}: not a directory", dir.display()));
                }
            }
            if let Some(fatal) = not_modelled(&scenario_hardware(&dir.join(name))) {
                eprintln!("{fatal}");
                std::process::exit(1);
            }
            read_engine(&dir.join(name))?
        }
        Source::Flags { engine, hardware, .. } => {
            if let Some(fatal) = not_modelled(hardware) {
                eprintln!("{fatal}");
                std::process::exit(1);
            }
            Engine { ..*engine }
        }
    };
    let workload = read_workload(&args.workload_spec, args.seed)?;
    if let Ok(log) = std::env::var("BLIS_DOUBLE_CWD_LOG") {
        use std::io::Write;
        let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&log).map_err(|e| e.to_string())?;
        writeln!(f, "{}", cwd.display()).map_err(|e| e.to_string())?;
    }
    if let Ok(log) = std::env::var("BLIS_DOUBLE_ENV_LOG") {
        let names: Vec<String> = std::env::vars_os().map(|(k, _)| k.to_string_lossy().into_owned()).collect();
        std::fs::write(&log, names.join("\n")).map_err(|e| e.to_string())?;
    }
    let sleep_secs = || std::env::var("BLIS_DOUBLE_SLEEP").unwrap_or_else(|_| "1000".into());
    match mode {
        "fifo_metrics" => {
            let ok =
                std::process::Command::new("mkfifo").arg(&args.metrics_path).status().map_err(|e| e.to_string())?;
            return if ok.success() { Ok(()) } else { Err("mkfifo failed".into()) };
        }
        "devzero_metrics" => {
            return std::os::unix::fs::symlink("/dev/zero", &args.metrics_path).map_err(|e| e.to_string());
        }
        "huge_metrics" => {
            let bytes: u64 = std::env::var("BLIS_DOUBLE_BYTES").ok().and_then(|b| b.parse().ok()).unwrap_or(1 << 30);
            let f = std::fs::File::create(&args.metrics_path).map_err(|e| e.to_string())?;
            return f.set_len(bytes).map_err(|e| e.to_string());
        }
        "background" => {
            std::process::Command::new("sleep").arg(sleep_secs()).spawn().map_err(|e| e.to_string())?;
        }
        "setsid" | "setsid_hang" => {
            std::process::Command::new("setsid").arg("sleep").arg(sleep_secs()).spawn().map_err(|e| e.to_string())?;
            // Let it detach before this process goes on (and, for `setsid`, exits).
            std::thread::sleep(std::time::Duration::from_millis(50));
            if mode == "setsid_hang" {
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(3600));
                }
            }
        }
        _ => {}
    }
    match mode {
        "exit1" => {
            eprintln!("blis-double: loading {}", args.name());
            eprintln!("blis-double: simulated failure (BLIS_DOUBLE_MODE=exit1)");
            std::process::exit(1);
        }
        "hang" => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        "grandchild" => {
            // A grandchild in the same process group; the harness's timeout must take it too.
            let secs = std::env::var("BLIS_DOUBLE_SLEEP").unwrap_or_else(|_| "1000".into());
            std::process::Command::new("sleep").arg(secs).spawn().map_err(|e| e.to_string())?;
            loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            }
        }
        "huge_stderr" => {
            use std::io::Write;
            let chunk = vec![b'z'; 1 << 20];
            let mut err = std::io::stderr().lock();
            for _ in 0..50 {
                let _ = err.write_all(&chunk);
            }
            let _ = err.write_all(b"\nblis-double: the last line\n");
            std::process::exit(1);
        }
        "malformed" => {
            return std::fs::write(&args.metrics_path, "{\"completed_requests\": 3,").map_err(|e| e.to_string());
        }
        "no_metrics" => return Ok(()),
        _ => {}
    }
    let mut finished = simulate(&engine, &workload, args.seed)?;
    if is_noisy(args, noise_fraction()?)? {
        if let Some(first) = finished.first_mut() {
            first.itl_ms += jitter();
        }
    }
    let injected = workload.inputs.len();
    let (mut still_running, mut timed_out) = (0, 0);
    match mode {
        "incomplete" => {
            finished.pop();
            still_running = 1;
        }
        "timed_out" => timed_out = 1,
        _ => {}
    }
    let ttft_mean = finished.iter().map(|f| f.ttft_ms).sum::<f64>() / finished.len().max(1) as f64;
    // Whole microsecond ticks, as the real simulator keeps time.
    let us = |ms: f64| (ms * 1e3).round();
    // Sorted by arrival, as the real file is; completion order must be derived from times.
    finished.sort_by(|a, b| us(a.arrival_ms).total_cmp(&us(b.arrival_ms)).then(a.id.cmp(&b.id)));
    let requests: Vec<_> = finished
        .iter()
        .map(|f| {
            let arrival = us(f.arrival_ms);
            json!({
                "arrived_at": arrival / 1e6,
                "requestID": format!("request_{}", f.id),
                "num_prefill_tokens": workload.inputs[f.id],
                "num_decode_tokens": workload.outputs[f.id],
                "ttft_ms": us(f.ttft_ms) / 1e3,
                "itl_ms": f.itl_ms,
                "e2e_ms": (us(f.arrival_ms + f.e2e_ms) - arrival) / 1e3,
                "scheduling_delay_ms": 0.0,
                "round_index": 0,
            })
        })
        .collect();
    let metrics = json!({
        "instance_id": "cluster",
        "completed_requests": finished.len(),
        "still_queued": 0,
        "still_running": still_running,
        "injected_requests": injected,
        "ttft_mean_ms": ttft_mean,
        "preemption_count": 0,
        "dropped_unservable": 0,
        "length_capped_requests": 0,
        "timed_out_requests": timed_out,
        "requests": requests,
    });
    let text = serde_json::to_string_pretty(&metrics).map_err(|e| e.to_string())?;
    std::fs::write(&args.metrics_path, text).map_err(|e| format!("writing {}: {e}", args.metrics_path.display()))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let flags = std::env::var("BLIS_DOUBLE_DIALECT").is_ok_and(|d| d == "flags");
    if argv.len() == 2 && argv[0] == "run" && (argv[1] == "--help" || argv[1] == "-h") {
        print!("{}", if flags { flags_help() } else { SCENARIO_HELP.to_string() });
        return ExitCode::SUCCESS;
    }
    // cobra's answer to a subcommand the binary lacks (every release: `replay` before v0.7).
    if let Some(sub) = argv.first().filter(|a| *a != "run" && !a.starts_with('-')) {
        eprintln!("Error: unknown command {sub:?} for \"blis\"\nRun 'blis --help' for usage.");
        return ExitCode::from(1);
    }
    let args = if flags {
        match parse_flag_args(&argv) {
            Ok(args) => args,
            Err(why) => {
                eprintln!("{why}");
                return ExitCode::from(1);
            }
        }
    } else {
        match parse_scenario_args(&argv) {
            Ok(args) => args,
            Err(why) => {
                eprintln!("blis-double: {why}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    };
    let only = std::env::var("BLIS_DOUBLE_ONLY").unwrap_or_default();
    let mode = match std::env::var("BLIS_DOUBLE_MODE") {
        Ok(mode) if args.name().contains(&only) => mode,
        _ => String::new(),
    };
    match run(&args, &mode) {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("blis-double: {why}");
            ExitCode::from(1)
        }
    }
}
