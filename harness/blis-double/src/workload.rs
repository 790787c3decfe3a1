//! The engine settings and the workload spec, read as the real readers read them.

use std::path::Path;

#[derive(Clone, Copy)]
pub(crate) struct Engine {
    pub(crate) max_num_seqs: usize,
    pub(crate) max_num_batched_tokens: u64,
    pub(crate) block_size: u64,
    pub(crate) enable_prefix_caching: bool,
    pub(crate) tp: u64,
}

pub(crate) struct Workload {
    pub(crate) concurrency: usize,
    pub(crate) inputs: Vec<u64>,
    pub(crate) outputs: Vec<u64>,
}

/// The scenario's `cluster.hardware` (empty when it states none).
pub(crate) fn scenario_hardware(path: &Path) -> String {
    use serde::Deserialize;
    let Ok(text) = std::fs::read_to_string(path) else { return String::new() };
    for doc in serde_yaml::Deserializer::from_str(&text) {
        let Ok(value) = serde_yaml::Value::deserialize(doc) else { return String::new() };
        if value.get("kind").and_then(|k| k.as_str()) == Some("Scenario") {
            let hw = value.get("cluster").and_then(|c| c.get("hardware")).and_then(|h| h.as_str());
            return hw.unwrap_or_default().to_string();
        }
    }
    String::new()
}

/// `BLIS_DOUBLE_NOT_MODELLED`: the real release's fatal line for a GPU it has no entry for.
pub(crate) fn not_modelled(hardware: &str) -> Option<String> {
    let list = std::env::var("BLIS_DOUBLE_NOT_MODELLED").unwrap_or_default();
    let listed: Vec<&str> = list.split(',').map(str::trim).filter(|g| !g.is_empty()).collect();
    listed.iter().any(|g| g.eq_ignore_ascii_case(hardware)).then(|| {
        format!(
            "level=fatal msg=\"Failed to load hardware config: GPU {hardware:?} not found in hardware config (available: every GPU but [{}])\"",
            listed.join(" ")
        )
    })
}

pub(crate) fn read_engine(path: &Path) -> Result<Engine, String> {
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
    let [pool] = pools.as_slice() else {
        return Err(format!("{} pools, expected 1", pools.len()));
    };
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

// The YAML keys of inference-sim's `WorkloadSpec`, `ClientSpec`, `ArrivalSpec` and `DistSpec`
// (`sim/workload/spec.go` @ f90a1e3a); the real reader refuses any other.
pub(crate) const SPEC_KEYS: [&str; 11] = [
    "version",
    "seed",
    "category",
    "clients",
    "cohorts",
    "aggregate_rate",
    "horizon",
    "num_requests",
    "servegen_data",
    "inference_perf",
    "goodput_slo_targets",
];
pub(crate) const CLIENT_KEYS: [&str; 21] = [
    "id",
    "tenant_id",
    "slo_class",
    "model",
    "adapter",
    "rate_fraction",
    "concurrency",
    "think_time_us",
    "arrival",
    "input_distribution",
    "output_distribution",
    "prefix_group",
    "prefix_length",
    "streaming",
    "network",
    "lifecycle",
    "multimodal",
    "reasoning",
    "timeout",
    "slo_target_us",
    "closed_loop",
];
pub(crate) const ARRIVAL_KEYS: [&str; 4] = ["process", "cv", "shape", "scale"];
pub(crate) const DIST_KEYS: [&str; 3] = ["type", "params", "file"];
pub(crate) const DIST_TYPES: [&str; 6] =
    ["gaussian", "exponential", "pareto_lognormal", "lognormal", "constant", "empirical"];

/// The spec fields as the real binary's type data spells them (Go struct tags): the harness
/// reads which fields a release's reader knows from these bytes (`dialect::workload_spec_gap`),
/// so the double carries them as the real binary does, and its reader checks against them.
pub(crate) const GO_TAGS: &str = concat!(
    r#"yaml:"version" yaml:"seed" yaml:"category" yaml:"clients" yaml:"cohorts,omitempty" "#,
    r#"yaml:"aggregate_rate" yaml:"horizon,omitempty" yaml:"num_requests,omitempty" "#,
    r#"yaml:"servegen_data,omitempty" yaml:"inference_perf,omitempty" yaml:"goodput_slo_targets,omitempty" "#,
    r#"yaml:"id" yaml:"tenant_id" yaml:"slo_class" yaml:"model" yaml:"adapter" yaml:"rate_fraction" "#,
    r#"yaml:"concurrency,omitempty" yaml:"think_time_us,omitempty" yaml:"arrival" yaml:"input_distribution" "#,
    r#"yaml:"output_distribution" yaml:"prefix_group,omitempty" yaml:"prefix_length,omitempty" "#,
    r#"yaml:"streaming" yaml:"network,omitempty" yaml:"lifecycle,omitempty" yaml:"multimodal,omitempty" "#,
    r#"yaml:"reasoning,omitempty" yaml:"timeout,omitempty" yaml:"slo_target_us,omitempty" "#,
    r#"yaml:"closed_loop,omitempty" yaml:"process" yaml:"cv,omitempty" yaml:"shape,omitempty" "#,
    r#"yaml:"scale,omitempty" yaml:"type" yaml:"params,omitempty" yaml:"file,omitempty""#
);

pub(crate) fn only_known(value: &serde_yaml::Value, keys: &[&str], at: &str) -> Result<(), String> {
    let map = value.as_mapping().ok_or(format!("{at}: expected a mapping"))?;
    for k in map.keys() {
        let k = k.as_str().unwrap_or("?");
        let tagged = [format!("yaml:\"{k}\""), format!("yaml:\"{k},")].iter().any(|t| GO_TAGS.contains(t.as_str()));
        if !keys.contains(&k) || !tagged {
            return Err(format!("{at}: field {k} not found in type"));
        }
    }
    Ok(())
}

/// A length sampler over the spec's distribution: the empirical PDF as an inverse CDF, or a
/// constant. Other real types are valid specs the double does not model.
pub(crate) enum Sampler {
    Constant(u64),
    Empirical(Vec<(u64, f64)>),
}

impl Sampler {
    pub(crate) fn parse(dist: &serde_yaml::Value, at: &str) -> Result<Sampler, String> {
        only_known(dist, &DIST_KEYS, at)?;
        let kind = dist.get("type").and_then(|t| t.as_str()).unwrap_or("");
        if !DIST_TYPES.contains(&kind) {
            return Err(format!(
                "{at}: unknown distribution type {kind:?}; valid: gaussian, exponential, pareto_lognormal, empirical, constant, lognormal"
            ));
        }
        let params: Vec<(String, f64)> = match dist.get("params") {
            None => Vec::new(),
            Some(p) => p
                .as_mapping()
                .ok_or(format!("{at}.params: expected a mapping"))?
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        serde_yaml::Value::String(s) => s.clone(),
                        serde_yaml::Value::Number(n) => n.to_string(),
                        _ => return Err(format!("{at}.params: a key is not a string")),
                    };
                    let v = v.as_f64().ok_or(format!("{at}.params.{key}: not a number"))?;
                    Ok((key, v))
                })
                .collect::<Result<_, String>>()?,
        };
        match kind {
            "constant" => {
                let v = params
                    .iter()
                    .find(|(k, _)| k == "value")
                    .map(|(_, v)| *v)
                    .ok_or(format!("{at}: constant needs params.value"))?;
                Ok(Sampler::Constant(v.max(1.0) as u64))
            }
            "empirical" => {
                let mut pdf = Vec::new();
                for (k, p) in params {
                    let len: u64 =
                        k.trim().parse().map_err(|_| format!("{at}: empirical PDF key {k:?} is not an integer"))?;
                    pdf.push((len, p));
                }
                if pdf.is_empty() {
                    return Err(format!("{at}: empirical distribution requires a file path or inline params"));
                }
                pdf.sort_by_key(|(l, _)| *l);
                let total: f64 = pdf.iter().map(|(_, p)| p).sum();
                let mut acc = 0.0;
                Ok(Sampler::Empirical(
                    pdf.into_iter()
                        .map(|(l, p)| {
                            acc += p / total;
                            (l, acc)
                        })
                        .collect(),
                ))
            }
            other => {
                Err(format!("blis-double: {at}: the double samples only empirical and constant lengths, not {other}"))
            }
        }
    }

    pub(crate) fn sample(&self, u: f64) -> u64 {
        match self {
            Sampler::Constant(v) => *v,
            Sampler::Empirical(cdf) => cdf.iter().find(|(_, c)| u <= *c).or(cdf.last()).map_or(1, |(l, _)| (*l).max(1)),
        }
    }
}

pub(crate) fn read_workload(path: &Path, seed: u64) -> Result<Workload, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    let spec: serde_yaml::Value = serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    only_known(&spec, &SPEC_KEYS, "workload spec")?;
    let clients = spec.get("clients").and_then(|c| c.as_sequence()).ok_or("no clients")?;
    for (i, c) in clients.iter().enumerate() {
        let at = format!("client[{i}]");
        only_known(c, &CLIENT_KEYS, &at)?;
        let concurrency = c.get("concurrency").and_then(|v| v.as_u64()).unwrap_or(0);
        let rate = c.get("rate_fraction").and_then(|v| v.as_f64()).unwrap_or(0.0);
        if concurrency > 0 && rate > 0.0 {
            return Err(format!("invalid workload spec: {at}: concurrency and rate_fraction are mutually exclusive"));
        }
        if let Some(a) = c.get("arrival") {
            only_known(a, &ARRIVAL_KEYS, &format!("{at}.arrival"))?;
        }
    }
    let [client] = clients.as_slice() else {
        return Err("blis-double: models exactly one client".into());
    };
    let concurrency = client.get("concurrency").and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    if concurrency == 0 {
        return Err("blis-double: models a closed-loop (concurrency) client only".into());
    }
    let input = Sampler::parse(
        client.get("input_distribution").ok_or("input_distribution missing")?,
        "client[0].input_distribution",
    )?;
    let output = Sampler::parse(
        client.get("output_distribution").ok_or("output_distribution missing")?,
        "client[0].output_distribution",
    )?;
    let total =
        spec.get("num_requests").and_then(|v| v.as_u64()).filter(|n| *n > 0).ok_or("blis-double: needs num_requests")?
            as usize;
    let spec_seed = spec.get("seed").and_then(|v| v.as_u64()).unwrap_or(0);
    let mut rng = xorshift(seed ^ spec_seed.rotate_left(17) ^ 0x5DEE_CE66);
    let (mut inputs, mut outputs) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for _ in 0..total {
        inputs.push(input.sample(rng()));
        outputs.push(output.sample(rng()));
    }
    Ok(Workload { concurrency, inputs, outputs })
}

/// Uniform draws in [0, 1).
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}
