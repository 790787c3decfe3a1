//! The closed-loop model: a pure function of the engine, the lengths and the seed.

use crate::args::*;
use crate::workload::*;
use std::collections::VecDeque;

pub(crate) struct Request {
    pub(crate) id: usize,
    pub(crate) arrival_ms: f64,
    pub(crate) prompt_left: u64,
    pub(crate) output_left: u64,
    pub(crate) context: u64,
    pub(crate) first_token_ms: Option<f64>,
}

pub(crate) struct Finished {
    pub(crate) id: usize,
    pub(crate) ttft_ms: f64,
    pub(crate) itl_ms: f64,
    pub(crate) e2e_ms: f64,
    pub(crate) arrival_ms: f64,
}

/// A continuous-batching engine driven by a closed-loop client: N requests in flight, each
/// completion injects the next. Per step, decoding requests take one token each from the token
/// budget, then prefills take chunks of what is left; admission is capped by max_num_seqs. The
/// step time grows with prefill tokens, decodes and the KV read rounded up to whole blocks.
pub(crate) fn simulate(engine: &Engine, workload: &Workload, seed: u64) -> Result<Vec<Finished>, String> {
    let slowdown = 1.0 + slowdown()? * (workload.concurrency.max(1) as f64).ln();
    let total = workload.inputs.len();
    let mut jitter = xorshift(seed);
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
            let Some(mut request) = waiting.pop_front() else {
                break;
            };
            // Every prompt opens with the same first block (a chat template): with prefix
            // caching on, every request after the first reuses it.
            if engine.enable_prefix_caching {
                if prefix_cached && request.prompt_left > engine.block_size {
                    request.prompt_left -= engine.block_size;
                    request.context += engine.block_size;
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
        now += work / (engine.tp as f64).sqrt() * (1.0 + 0.01 * jitter()) * slowdown;
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
                    arrival_ms: request.arrival_ms,
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

/// `BLIS_DOUBLE_SLOWDOWN`: absent or empty is 0.
pub(crate) fn slowdown() -> Result<f64, String> {
    match std::env::var("BLIS_DOUBLE_SLOWDOWN") {
        Ok(text) if !text.is_empty() => match text.parse::<f64>() {
            Ok(f) if f.is_finite() && f >= 0.0 => Ok(f),
            _ => Err(format!("BLIS_DOUBLE_SLOWDOWN={text:?}: expected a finite number of at least 0")),
        },
        _ => Ok(0.0),
    }
}

/// `BLIS_DOUBLE_NOISE`: absent or empty is 0.
pub(crate) fn noise_fraction() -> Result<f64, String> {
    match std::env::var("BLIS_DOUBLE_NOISE") {
        Ok(text) if !text.is_empty() => match text.parse::<f64>() {
            Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
            _ => Err(format!("BLIS_DOUBLE_NOISE={text:?}: expected a number from 0 to 1")),
        },
        _ => Ok(0.0),
    }
}

/// Whether this point is one of the noisy fraction: FNV-1a over the workload file and seed.
pub(crate) fn is_noisy(args: &Args, fraction: f64) -> Result<bool, String> {
    if fraction <= 0.0 {
        return Ok(false);
    }
    let bytes = std::fs::read(&args.workload_spec).map_err(|e| format!("{}: {e}", args.workload_spec.display()))?;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes.iter().chain(args.seed.to_le_bytes().iter()) {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    Ok((h as f64) < fraction * (u64::MAX as f64) || fraction >= 1.0)
}

/// Something that differs from run to run.
pub(crate) fn jitter() -> f64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    1e-6 * f64::from(1 + (nanos ^ std::process::id()) % 997)
}
