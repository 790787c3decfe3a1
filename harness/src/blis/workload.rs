//! The `workload.yaml` of one point, in the form a real `blis` reads.
//!
//! The spec follows inference-sim's `sim/workload/spec.go` (`WorkloadSpec`, `ClientSpec`,
//! `DistSpec`; read with unknown fields refused) and the shape upstream's kernel-model harness
//! gives a benchmark point (`sim/kernelmodel/harness/workload.go` in the public repository):
//! one closed-loop client at concurrency N, `2N` warm-up plus `10N` measured requests, input and
//! output lengths drawn from an `empirical` PDF that is uniform over `[int(0.8 x len), len]`.
//! A concurrency client needs an `arrival.process` field to parse but never samples it
//! (spec.go validates the process only when `concurrency` is 0), so `poisson` is written.
//! `concurrency` and `rate_fraction` are mutually exclusive in the real reader; `rate_fraction`
//! is left out.
//!
//! The numpy per-request vectors of a point are not expressible in this form (the real spec
//! has no per-request list type): `trace_v2` states them as a TraceV2 replay instead.

use super::PointSpec;
use anyhow::{ensure, Context, Result};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct Spec {
    version: &'static str,
    seed: u64,
    category: &'static str,
    num_requests: u64,
    clients: [Client; 1],
}

#[derive(Serialize)]
struct Client {
    id: &'static str,
    concurrency: u32,
    arrival: Arrival,
    input_distribution: Dist,
    output_distribution: Dist,
    streaming: bool,
}

#[derive(Serialize)]
struct Arrival {
    process: &'static str,
}

#[derive(Serialize)]
struct Dist {
    #[serde(rename = "type")]
    kind: &'static str,
    /// Length (as the string key the Go reader parses with `%d`) to probability.
    params: BTreeMap<String, f64>,
}

/// The uniform PDF over `[int(0.8 x len), len]`, keys in numeric order.
pub fn uniform_pdf(len: u32) -> Vec<(u32, f64)> {
    let low = (f64::from(len) * 0.8) as u32;
    let p = 1.0 / f64::from(len - low + 1);
    (low..=len).map(|l| (l, p)).collect()
}

fn empirical(len: u32) -> Dist {
    Dist { kind: "empirical", params: uniform_pdf(len).into_iter().map(|(l, p)| (l.to_string(), p)).collect() }
}

/// Checks the point's vectors against its concurrency: `10N` measured lengths each, positive.
pub fn check_lengths(point: &PointSpec) -> Result<()> {
    let n = point.concurrency as usize;
    ensure!(point.concurrency > 0, "concurrency must be positive");
    ensure!(point.isl > 0 && point.osl > 0, "isl and osl must be positive");
    for (name, v) in [("input_lens", &point.input_lens), ("output_lens", &point.output_lens)] {
        ensure!(
            v.len() == 10 * n,
            "{name} has {} lengths; a closed loop at concurrency {n} measures 10 x {n} = {}",
            v.len(),
            10 * n
        );
        ensure!(v.iter().all(|&l| l > 0), "{name} holds a zero length");
    }
    Ok(())
}

/// Requests one point injects: `2N` warm-up and `10N` measured.
pub fn total_requests(concurrency: u32) -> u64 {
    12 * u64::from(concurrency)
}

/// The workload spec's text for one point.
pub fn workload_spec(point: &PointSpec) -> Result<String> {
    check_lengths(point)?;
    // The text is a function of these four values alone, and a history or a gate asks for one
    // point's text once per release and task: encoding it (two PDFs of up to 1,639 lengths) was
    // over half of a warm `history`'s time (docs/speed.md), so each text is encoded once.
    type Encoded = std::sync::Mutex<std::collections::HashMap<(u64, u32, u32, u32), String>>;
    static ENCODED: std::sync::OnceLock<Encoded> = std::sync::OnceLock::new();
    let id = (point.seed, point.concurrency, point.isl, point.osl);
    let encoded = ENCODED.get_or_init(Default::default);
    if let Some(text) = encoded.lock().unwrap_or_else(|e| e.into_inner()).get(&id) {
        return Ok(text.clone());
    }
    let text = encode(point)?;
    let mut map = encoded.lock().unwrap_or_else(|e| e.into_inner());
    // Bounded: a corpus has a few hundred distinct points; a caller with more starts afresh.
    if map.len() >= 4096 {
        map.clear();
    }
    map.insert(id, text.clone());
    Ok(text)
}

fn encode(point: &PointSpec) -> Result<String> {
    let spec = Spec {
        version: "v1",
        seed: point.seed,
        category: "language",
        num_requests: total_requests(point.concurrency),
        clients: [Client {
            id: "inferencex-closed-loop",
            concurrency: point.concurrency,
            arrival: Arrival { process: "poisson" },
            input_distribution: empirical(point.isl),
            output_distribution: empirical(point.osl),
            streaming: true,
        }],
    };
    serde_yaml::to_string(&spec).context("encoding the workload spec")
}

/// Every field name the arm's workload spec writes (mapping keys at any depth, the lengths of
/// a distribution's `params` excepted), from the spec itself rather than a list kept by hand:
/// what a release's reader must know (`dialect::workload_spec_gap`).
pub fn spec_fields() -> Vec<String> {
    let n = 1;
    let point = PointSpec {
        scenario_file: Default::default(),
        engine: super::EngineSettings {
            max_num_seqs: 1,
            max_num_batched_tokens: 1,
            block_size: 1,
            enable_prefix_caching: false,
        },
        isl: 10,
        osl: 10,
        concurrency: n,
        seed: 0,
        input_lens: vec![10; 10],
        output_lens: vec![10; 10],
        form: LengthForm::Uniform,
    };
    let text = workload_spec(&point).expect("a valid point always encodes");
    let value: serde_yaml::Value = serde_yaml::from_str(&text).expect("the encoded spec parses");
    fn walk(v: &serde_yaml::Value, out: &mut std::collections::BTreeSet<String>) {
        match v {
            serde_yaml::Value::Mapping(m) => {
                for (k, v) in m {
                    let Some(k) = k.as_str() else { continue };
                    out.insert(k.to_string());
                    if k != "params" {
                        walk(v, out);
                    }
                }
            }
            serde_yaml::Value::Sequence(s) => s.iter().for_each(|v| walk(v, out)),
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(&value, &mut out);
    out.into_iter().collect()
}

/// How a point states its lengths to the simulator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LengthForm {
    /// The workload spec's uniform empirical PDF (`blis run --workload-spec`): the default.
    #[default]
    Uniform,
    /// The point's numpy vectors, request by request, as a TraceV2 replay (`blis replay`):
    /// `2N` copies of request 0 then the `10N` vectors, the first `2N` completions cut.
    Vectors,
    /// The reproduction manual's protocol: the InferenceX main phase, the `10N` vectors alone,
    /// replayed (`blis replay`), every completion counted (InferenceX runs its warm-up as a
    /// separate phase and excludes it from the metrics). A points file may spell it as `--form`
    /// and every report do, `manual-replay`.
    #[serde(alias = "manual-replay")]
    ManualReplay,
}

impl LengthForm {
    pub const ALL: [LengthForm; 3] = [LengthForm::ManualReplay, LengthForm::Uniform, LengthForm::Vectors];

    /// The name `--form` takes and every report prints.
    pub fn name(self) -> &'static str {
        match self {
            LengthForm::Uniform => "uniform",
            LengthForm::Vectors => "vectors",
            LengthForm::ManualReplay => "manual-replay",
        }
    }

    pub fn parse(text: &str) -> Option<LengthForm> {
        LengthForm::ALL.into_iter().find(|f| f.name() == text)
    }

    /// One line for a report: what the form sends the simulator and what it scores.
    pub fn describe(self) -> &'static str {
        match self {
            LengthForm::Uniform => "uniform: upstream's earlier harness, a workload spec of 12N requests with lengths drawn by the simulator at --seed from the uniform PDF over [0.8 x len, len], the first 2N completions cut",
            LengthForm::Vectors => "vectors: the seed's numpy vectors replayed (blis replay), 2N copies of request 0 then the 10N vectors, the first 2N completions cut",
            LengthForm::ManualReplay => "manual-replay: the reproduction manual's protocol, the InferenceX main phase (the seed's 10N numpy vectors) replayed (blis replay), every completion counted",
        }
    }

    /// Whether the lengths go through TraceV2 replay.
    pub fn replayed(self) -> bool {
        !matches!(self, LengthForm::Uniform)
    }

    /// Requests the simulator is given at concurrency `n`.
    pub fn requests(self, n: u32) -> u64 {
        match self {
            LengthForm::ManualReplay => 10 * u64::from(n),
            _ => total_requests(n),
        }
    }

    /// Completions cut before TPOT is averaged (the warm-up the form injects).
    pub fn warmup(self, n: u32) -> usize {
        match self {
            LengthForm::ManualReplay => 0,
            _ => 2 * n as usize,
        }
    }
}

/// The TraceV2 columns a release at f90a1e3a reads, in its order (`traceV2Columns`,
/// `sim/workload/tracev2.go`).
const TRACE_COLUMNS: [&str; 27] = [
    "request_id",
    "client_id",
    "tenant_id",
    "slo_class",
    "session_id",
    "round_index",
    "prefix_group",
    "prefix_length",
    "streaming",
    "input_tokens",
    "output_tokens",
    "text_tokens",
    "image_tokens",
    "audio_tokens",
    "video_tokens",
    "reason_ratio",
    "model",
    "deadline_us",
    "server_input_tokens",
    "arrival_time_us",
    "send_time_us",
    "first_chunk_time_us",
    "last_chunk_time_us",
    "num_chunks",
    "status",
    "error_message",
    "finish_reason",
];

/// The one line a report carries when the vectors go through TraceV2 replay.
pub const TRACE_CAVEAT: &str = "the numpy vectors are replayed as N closed-loop sessions (TraceV2, blis replay --session-mode closed-loop), request i in session i mod N: the benchmark's N slots take the next request in order instead; and a replayed follow-up round always gets a 300 s deadline (sim/workload/session.go), so a point with longer requests times out and its sweep is dropped";

/// The TraceV2 header and data of one point: `2N` warm-up copies of request 0 (none in the
/// `ManualReplay` form), then the `10N` measured lengths, in order; request i is round `i div N` of session `i mod N`, so the replay
/// keeps N requests in flight and each completion starts its session's next round. Times are
/// zero: closed-loop replay derives the follow-ups from completions (think time 0), and the
/// header's `warm_up_requests` is 0 because the harness cuts the warm-up itself.
pub fn trace_v2(point: &PointSpec) -> Result<(String, String)> {
    check_lengths(point)?;
    let n = point.concurrency as usize;
    let warmup = if point.form == LengthForm::ManualReplay { 0 } else { 2 * n };
    let lengths = |v: &[u32]| -> Vec<u32> { std::iter::repeat_n(v[0], warmup).chain(v.iter().copied()).collect() };
    let (inputs, outputs) = (lengths(&point.input_lens), lengths(&point.output_lens));
    let header = "trace_version: 3\ntime_unit: microseconds\nmode: generated\nwarm_up_requests: 0\n".to_string();
    let mut data = TRACE_COLUMNS.join(",") + "\n";
    for (i, (input, output)) in inputs.iter().zip(&outputs).enumerate() {
        let (session, round) = (i % n, i / n);
        // request_id, client_id, tenant_id, slo_class, session_id, round_index, prefix_group,
        // prefix_length, streaming, input_tokens, output_tokens, text/image/audio/video tokens,
        // reason_ratio, model, deadline_us, server_input_tokens, four times, num_chunks,
        // status, error_message, finish_reason.
        data += &format!(
            "{i},inferencex-closed-loop,,,slot_{session},{round},,0,true,{input},{output},0,0,0,0,0,,0,0,0,0,0,0,0,ok,,\n"
        );
    }
    Ok((header, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(form: LengthForm) -> PointSpec {
        PointSpec {
            scenario_file: "s.yaml".into(),
            engine: crate::blis::EngineSettings {
                max_num_seqs: 8,
                max_num_batched_tokens: 64,
                block_size: 16,
                enable_prefix_caching: false,
            },
            isl: 10,
            osl: 10,
            concurrency: 2,
            seed: 0,
            input_lens: (1..=20).collect(),
            output_lens: (1..=20).collect(),
            form,
        }
    }

    /// The spec's text is encoded once per (seed, concurrency, isl, osl): nothing else of the
    /// point may change it, and a change of any of the four must.
    #[test]
    fn the_workload_text_is_a_function_of_seed_concurrency_and_lengths_alone() {
        let base = point(LengthForm::Uniform);
        let mut other = point(LengthForm::Vectors);
        other.scenario_file = "another.yaml".into();
        other.engine.max_num_seqs = 9;
        other.input_lens.reverse();
        other.output_lens = vec![7; 20];
        assert_eq!(encode(&base).unwrap(), encode(&other).unwrap());
        assert_eq!(workload_spec(&other).unwrap(), encode(&base).unwrap());
        let changed: [fn(&mut PointSpec); 4] = [
            |p| p.seed += 1,
            |p| p.isl += 1,
            |p| p.osl += 1,
            |p| {
                p.concurrency += 1;
                p.input_lens = vec![5; 30];
                p.output_lens = vec![5; 30];
            },
        ];
        for change in changed {
            let mut p = point(LengthForm::Uniform);
            change(&mut p);
            assert_ne!(workload_spec(&p).unwrap(), workload_spec(&base).unwrap());
            assert_eq!(workload_spec(&p).unwrap(), encode(&p).unwrap());
        }
    }

    #[test]
    fn a_points_file_may_spell_a_form_as_the_flag_and_the_reports_do() {
        for form in LengthForm::ALL {
            let read: LengthForm = serde_json::from_str(&format!("{:?}", form.name())).unwrap();
            assert_eq!(read, form);
        }
        assert_eq!(serde_json::from_str::<LengthForm>("\"manual_replay\"").unwrap(), LengthForm::ManualReplay);
    }

    #[test]
    fn the_manual_replay_trace_is_the_main_phase_alone() {
        let (_, manual) = trace_v2(&point(LengthForm::ManualReplay)).unwrap();
        let (_, vectors) = trace_v2(&point(LengthForm::Vectors)).unwrap();
        // Header line, then one row per request: 10N in the manual's form, 12N with the copies.
        assert_eq!(manual.lines().count() - 1, 20);
        assert_eq!(vectors.lines().count() - 1, 24);
        let inputs = |data: &str| -> Vec<String> {
            data.lines().skip(1).map(|l| l.split(',').nth(9).unwrap().to_string()).collect()
        };
        assert_eq!(inputs(&manual), (1..=20).map(|i| i.to_string()).collect::<Vec<_>>());
        assert_eq!(inputs(&vectors)[..4], ["1", "1", "1", "1"]);
        assert_eq!(LengthForm::ManualReplay.requests(2), 20);
        assert_eq!(LengthForm::Vectors.requests(2), 24);
        for form in LengthForm::ALL {
            assert_eq!(LengthForm::parse(form.name()), Some(form));
        }
    }
}
