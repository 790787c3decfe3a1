//! `blis-double`: a test-only stand-in for the `blis` binary.
//!
//! It accepts exactly the command line the harness sends (REFERENCE.md section 7):
//!
//! ```text
//! blis-double run --scenario NAME --scenarios DIR --catalog DIR --registry DIR
//!     --workload-spec FILE --seed N --metrics-path FILE --timeout -1 --log error
//! ```
//!
//! in that order; anything else is a usage error (exit 2). It reads the scenario variant
//! (`DIR/NAME`, multi-document YAML, one pool) and the workload spec the harness writes, runs a
//! deterministic closed-loop model of the workload, and writes the metrics JSON. The model is
//! not BLIS: it only has to be a pure function of its inputs in which the four engine settings
//! and the lengths move the latencies, so the harness's plumbing, caching and sensitivity rows
//! can be tested without the real simulator.
//!
//! Failure modes for tests, chosen with environment variables:
//! - `BLIS_DOUBLE_MODE=exit1`: prints a few stderr lines and exits 1.
//! - `BLIS_DOUBLE_MODE=malformed`: writes a metrics file that is not JSON, exits 0.
//! - `BLIS_DOUBLE_MODE=incomplete`: one request left running (completed < injected), exits 0.
//! - `BLIS_DOUBLE_MODE=timed_out`: every request completes but `timed_out_requests` is 1.
//! - `BLIS_DOUBLE_MODE=no_metrics`: exits 0 without writing a metrics file.
//! - `BLIS_DOUBLE_MODE=hang`: sleeps forever (the harness's timeout must kill it).
//! - `BLIS_DOUBLE_ONLY=TEXT`: apply the mode only when the scenario name contains TEXT.

use serde_json::json;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: blis-double run --scenario NAME --scenarios DIR --catalog DIR \
--registry DIR --workload-spec FILE --seed N --metrics-path FILE --timeout -1 --log error";

struct Args {
    scenario: String,
    scenarios: PathBuf,
    catalog: PathBuf,
    registry: PathBuf,
    workload_spec: PathBuf,
    seed: u64,
    metrics_path: PathBuf,
}

/// The flags in the order the harness sends them; values that the harness always sends the
/// same way are pinned so a drifting command line is caught here.
fn parse_args(argv: &[String]) -> Result<Args, String> {
    const FLAGS: [&str; 9] = [
        "--scenario",
        "--scenarios",
        "--catalog",
        "--registry",
        "--workload-spec",
        "--seed",
        "--metrics-path",
        "--timeout",
        "--log",
    ];
    if argv.first().map(String::as_str) != Some("run") {
        return Err("the first argument must be `run`".into());
    }
    let rest = &argv[1..];
    if rest.len() != FLAGS.len() * 2 {
        return Err(format!("expected {} arguments after `run`, got {}", FLAGS.len() * 2, rest.len()));
    }
    let mut values = Vec::new();
    for (i, flag) in FLAGS.iter().enumerate() {
        if rest[2 * i] != *flag {
            return Err(format!("argument {} must be {flag}, got {:?}", 2 * i + 2, rest[2 * i]));
        }
        values.push(rest[2 * i + 1].clone());
    }
    if values[7] != "-1" {
        return Err(format!("--timeout must be -1, got {:?}", values[7]));
    }
    if values[8] != "error" {
        return Err(format!("--log must be error, got {:?}", values[8]));
    }
    let seed = values[5].parse::<u64>().map_err(|_| format!("--seed must be an integer, got {:?}", values[5]))?;
    Ok(Args {
        scenario: values[0].clone(),
        scenarios: values[1].clone().into(),
        catalog: values[2].clone().into(),
        registry: values[3].clone().into(),
        workload_spec: values[4].clone().into(),
        seed,
        metrics_path: values[6].clone().into(),
    })
}

struct Engine {
    max_num_seqs: usize,
    max_num_batched_tokens: u64,
    block_size: u64,
    enable_prefix_caching: bool,
    tp: u64,
}

struct Workload {
    concurrency: usize,
    warmup: usize,
    inputs: Vec<u64>,
    outputs: Vec<u64>,
}

fn read_engine(path: &Path) -> Result<Engine, String> {
    use serde::Deserialize;
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let mut deployment = None;
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let value = serde_yaml::Value::deserialize(doc).map_err(|e| format!("{}: {e}", path.display()))?;
        if value.get("kind").and_then(|k| k.as_str()) == Some("Deployment") {
            deployment = Some(value);
        }
    }
    let deployment = deployment.ok_or_else(|| format!("{}: no Deployment document", path.display()))?;
    let pools = deployment.get("pools").and_then(|p| p.as_sequence()).ok_or("no pools")?;
    let [pool] = pools.as_slice() else { return Err(format!("{} pools, expected 1", pools.len())) };
    let engine = pool.get("engine").ok_or("pool has no engine")?;
    let uint = |key: &str| -> Result<u64, String> {
        engine.get(key).and_then(|v| v.as_u64()).ok_or(format!("engine.{key} missing or not an integer"))
    };
    let tp = pool.get("parallel").and_then(|p| p.get("tp")).and_then(|v| v.as_u64()).unwrap_or(1);
    let engine = Engine {
        max_num_seqs: uint("max_num_seqs")? as usize,
        max_num_batched_tokens: uint("max_num_batched_tokens")?,
        block_size: uint("block_size")?,
        enable_prefix_caching: engine
            .get("enable_prefix_caching")
            .and_then(|v| v.as_bool())
            .ok_or("engine.enable_prefix_caching missing or not a bool")?,
        tp: tp.max(1),
    };
    if engine.max_num_seqs == 0 || engine.max_num_batched_tokens == 0 || engine.block_size == 0 {
        return Err("max_num_seqs, max_num_batched_tokens and block_size must be positive".into());
    }
    Ok(engine)
}

fn read_workload(path: &Path) -> Result<Workload, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let spec: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let clients = spec.get("clients").and_then(|c| c.as_sequence()).ok_or("no clients")?;
    let [client] = clients.as_slice() else { return Err("expected exactly one client".into()) };
    let uint = |v: Option<&serde_yaml::Value>, what: &str| {
        v.and_then(|v| v.as_u64()).ok_or(format!("{what} missing or not an integer"))
    };
    let lengths = |key: &str| -> Result<Vec<u64>, String> {
        let dist = client.get(key).ok_or(format!("{key} missing"))?;
        if dist.get("type").and_then(|t| t.as_str()) != Some("sequence") {
            return Err(format!("{key}.type must be sequence"));
        }
        let values = dist.get("params").and_then(|p| p.get("values")).and_then(|v| v.as_sequence());
        values
            .ok_or(format!("{key}.params.values missing"))?
            .iter()
            .map(|v| uint(Some(v), key))
            .collect()
    };
    let workload = Workload {
        concurrency: uint(client.get("concurrency"), "concurrency")? as usize,
        warmup: uint(client.get("warmup_requests"), "warmup_requests")? as usize,
        inputs: lengths("input_distribution")?,
        outputs: lengths("output_distribution")?,
    };
    let total = uint(spec.get("num_requests"), "num_requests")? as usize;
    if workload.inputs.len() != total || workload.outputs.len() != total || workload.concurrency == 0 {
        return Err("num_requests, the length vectors and concurrency disagree".into());
    }
    Ok(workload)
}

struct Request {
    id: usize,
    arrival_ms: f64,
    prompt_left: u64,
    output_left: u64,
    context: u64,
    first_token_ms: Option<f64>,
}

struct Finished {
    id: usize,
    ttft_ms: f64,
    itl_ms: f64,
    e2e_ms: f64,
    completion_index: usize,
}

/// A continuous-batching engine driven by a closed-loop client: N requests in flight, each
/// completion injects the next. Per step, decoding requests take one token each from the token
/// budget, then prefills take chunks of what is left; admission is capped by max_num_seqs. The
/// step time grows with prefill tokens, decodes and the KV read rounded up to whole blocks.
fn simulate(engine: &Engine, workload: &Workload, seed: u64) -> Result<Vec<Finished>, String> {
    let total = workload.inputs.len();
    let mut rng = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut jitter = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut now = 0.0f64;
    let mut next = 0usize;
    let mut waiting: VecDeque<Request> = VecDeque::new();
    let mut running: Vec<Request> = Vec::new();
    let mut finished = Vec::with_capacity(total);
    let mut prefix_cached = false;
    let inject = |id: usize, at: f64| Request {
        id,
        arrival_ms: at,
        prompt_left: workload.inputs[id],
        output_left: workload.outputs[id],
        context: 0,
        first_token_ms: None,
    };
    while next < total.min(workload.concurrency) {
        waiting.push_back(inject(next, 0.0));
        next += 1;
    }
    while finished.len() < total {
        while running.len() < engine.max_num_seqs {
            let Some(mut request) = waiting.pop_front() else { break };
            // Warm-up copies of request 0 (ids below `warmup`, and the measured request 0
            // right after them) share their whole prompt: with prefix caching on, every copy
            // after the first reuses its full blocks.
            if engine.enable_prefix_caching && request.id <= workload.warmup {
                if prefix_cached {
                    // Whole blocks only, and at least one token is always computed.
                    let blocks = request.prompt_left / engine.block_size * engine.block_size;
                    let cached = blocks.min(request.prompt_left.saturating_sub(1));
                    request.prompt_left -= cached;
                    request.context += cached;
                }
                prefix_cached = true;
            }
            running.push(request);
        }
        let mut budget = engine.max_num_batched_tokens;
        let (mut decodes, mut prefill_tokens, mut kv_read) = (0u64, 0u64, 0u64);
        let mut emitted = vec![false; running.len()];
        for (i, request) in running.iter_mut().enumerate() {
            if budget == 0 {
                break;
            }
            if request.prompt_left == 0 {
                budget -= 1;
                decodes += 1;
                kv_read += request.context.div_ceil(engine.block_size) * engine.block_size;
                request.context += 1;
                emitted[i] = true;
            }
        }
        for (i, request) in running.iter_mut().enumerate() {
            if budget == 0 {
                break;
            }
            if request.prompt_left > 0 {
                let chunk = request.prompt_left.min(budget);
                budget -= chunk;
                prefill_tokens += chunk;
                request.prompt_left -= chunk;
                request.context += chunk;
                emitted[i] = request.prompt_left == 0;
            }
        }
        if decodes == 0 && prefill_tokens == 0 {
            return Err("the engine cannot make progress".into());
        }
        let work = 4.0 + 0.035 * decodes as f64 + 0.0021 * prefill_tokens as f64 + 0.000_04 * kv_read as f64;
        now += work / (engine.tp as f64).sqrt() * (1.0 + 0.01 * jitter());
        let mut still = Vec::with_capacity(running.len());
        for (request, emitted) in running.drain(..).zip(emitted) {
            let mut request = request;
            if emitted {
                request.first_token_ms.get_or_insert(now);
                request.output_left = request.output_left.saturating_sub(1);
            }
            if emitted && request.output_left == 0 {
                let ttft = request.first_token_ms.unwrap_or(now) - request.arrival_ms;
                let e2e = now - request.arrival_ms;
                let out = workload.outputs[request.id];
                let itl = if out > 1 { (e2e - ttft) / (out - 1) as f64 } else { 0.0 };
                finished.push(Finished {
                    id: request.id,
                    ttft_ms: ttft,
                    itl_ms: itl,
                    e2e_ms: e2e,
                    completion_index: finished.len(),
                });
                if next < total {
                    waiting.push_back(inject(next, now));
                    next += 1;
                }
            } else {
                still.push(request);
            }
        }
        running = still;
    }
    Ok(finished)
}

fn run(args: &Args, mode: &str) -> Result<(), String> {
    for (flag, dir) in [("--scenarios", &args.scenarios), ("--catalog", &args.catalog), ("--registry", &args.registry)] {
        if !dir.is_dir() {
            return Err(format!("{flag} {}: not a directory", dir.display()));
        }
    }
    let engine = read_engine(&args.scenarios.join(&args.scenario))?;
    let workload = read_workload(&args.workload_spec)?;
    match mode {
        "exit1" => {
            eprintln!("blis-double: loading scenario {}", args.scenario);
            eprintln!("blis-double: simulated failure (BLIS_DOUBLE_MODE=exit1)");
            std::process::exit(1);
        }
        "hang" => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        "malformed" => {
            return std::fs::write(&args.metrics_path, "{\"completed_requests\": 3,")
                .map_err(|e| e.to_string());
        }
        "no_metrics" => return Ok(()),
        _ => {}
    }
    let mut finished = simulate(&engine, &workload, args.seed)?;
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
    // Requests in injection order, not completion order: the harness must sort by index.
    finished.sort_by_key(|f| f.id);
    let requests: Vec<_> = finished
        .iter()
        .map(|f| {
            json!({
                "id": f.id,
                "ttft_ms": f.ttft_ms,
                "itl_ms": f.itl_ms,
                "e2e_ms": f.e2e_ms,
                "completion_index": f.completion_index,
            })
        })
        .collect();
    let metrics = json!({
        "completed_requests": finished.len(),
        "injected_requests": injected,
        "still_queued": 0,
        "still_running": still_running,
        "timed_out_requests": timed_out,
        "dropped_unservable": 0,
        "length_capped_requests": 0,
        "ttft_mean_ms": ttft_mean,
        "requests": requests,
    });
    let text = serde_json::to_string_pretty(&metrics).map_err(|e| e.to_string())?;
    std::fs::write(&args.metrics_path, text).map_err(|e| format!("writing {}: {e}", args.metrics_path.display()))
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = match parse_args(&argv) {
        Ok(args) => args,
        Err(why) => {
            eprintln!("blis-double: {why}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let only = std::env::var("BLIS_DOUBLE_ONLY").unwrap_or_default();
    let mode = match std::env::var("BLIS_DOUBLE_MODE") {
        Ok(mode) if args.scenario.contains(&only) => mode,
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
