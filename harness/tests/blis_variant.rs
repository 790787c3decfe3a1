//! The scenario variant changes only the four engine fields, compared as parsed YAML values:
//! on the synthetic scenario always, and on every file of the scenario tree (`--scenarios`
//! default `testdata/scenarios`, or `BLIS_SCENARIOS`) when there is one. Also the workload
//! spec's warm-up layout.

mod support;
use support::blis as blis_support;

use harness::blis::variant::{parse_documents, scenario_variant, stated_settings, EngineSettings, ENGINE_FIELDS};
use harness::blis::workload::workload_spec;
use harness::inputs::{Flags, Inputs, Origin};
use libtest_mimic::{Arguments, Failed, Trial};
use serde_yaml::Value;

/// Settings no committed scenario states, so every field really changes.
const ODD: EngineSettings =
    EngineSettings { max_num_seqs: 7, max_num_batched_tokens: 1013, block_size: 48, enable_prefix_caching: false };

fn without_engine_fields(mut docs: Vec<Value>) -> Vec<Value> {
    for doc in &mut docs {
        if let Some(pools) = doc.get_mut("pools").and_then(Value::as_sequence_mut) {
            for pool in pools {
                if let Some(engine) = pool.get_mut("engine").and_then(Value::as_mapping_mut) {
                    for field in ENGINE_FIELDS {
                        engine.remove(field);
                    }
                }
            }
        }
    }
    docs
}

fn check_variant(text: &str) -> Result<(), Failed> {
    let variant = scenario_variant(text, &ODD).map_err(|e| format!("{e:#}"))?;
    let before = parse_documents(text).map_err(|e| format!("{e:#}"))?;
    let after = parse_documents(&variant).map_err(|e| format!("{e:#}"))?;
    if before.len() != after.len() {
        return Err(format!("{} documents became {}", before.len(), after.len()).into());
    }
    if without_engine_fields(before) != without_engine_fields(after) {
        return Err(format!("something besides the four fields changed:\n{variant}").into());
    }
    let stated = stated_settings(&variant).map_err(|e| format!("{e:#}"))?;
    let expected = (Some(7), Some(1013), Some(48), Some(false));
    let got = (stated.max_num_seqs, stated.max_num_batched_tokens, stated.block_size, stated.enable_prefix_caching);
    if got != expected {
        return Err(format!("variant states {got:?}, expected {expected:?}").into());
    }
    Ok(())
}

fn synthetic_trials() -> Vec<Trial> {
    vec![
        Trial::test("variant/synthetic", || check_variant(blis_support::SCENARIO)),
        Trial::test("variant/detects_a_change_elsewhere", || {
            // The comparison itself must be able to fail: a changed max_model_len is caught.
            let text = blis_support::SCENARIO.replace("max_model_len: 4096", "max_model_len: 4097");
            let a = without_engine_fields(parse_documents(blis_support::SCENARIO).unwrap());
            let b = without_engine_fields(parse_documents(&text).unwrap());
            if a == b {
                return Err("a change to max_model_len went unnoticed".into());
            }
            Ok(())
        }),
        Trial::test("variant/refuses_two_pools", || {
            let two = blis_support::SCENARIO.to_string()
                + "  - role: colocated\n    nodes: 1\n    engine:\n      max_num_seqs: 1\n";
            match scenario_variant(&two, &ODD) {
                Err(e) if format!("{e:#}").contains("2 pools") => Ok(()),
                other => Err(format!("expected a refusal of two pools, got {other:?}").into()),
            }
        }),
        Trial::test("workload/closed_loop_uniform_empirical_12n", || {
            let point = blis_support::point("s.yaml".into(), 3, 0);
            let text = workload_spec(&point).map_err(|e| format!("{e:#}"))?;
            let spec: Value = serde_yaml::from_str(&text).map_err(|e| e.to_string())?;
            let client = &spec["clients"][0];
            let pdf = client["input_distribution"]["params"].as_mapping().unwrap();
            let low = (f64::from(point.isl) * 0.8) as u32;
            let keys: Vec<u32> = pdf.keys().map(|k| k.as_str().unwrap().parse().unwrap()).collect();
            let checks = [
                (spec["num_requests"].as_u64() == Some(36), "num_requests 36 (2N + 10N)"),
                (client["concurrency"].as_u64() == Some(3), "concurrency 3"),
                (client["input_distribution"]["type"].as_str() == Some("empirical"), "type empirical"),
                (keys.iter().min() == Some(&low) && keys.iter().max() == Some(&point.isl), "keys int(0.8 len)..=len"),
                (keys.len() == (point.isl - low + 1) as usize, "every length once"),
                (client.get("rate_fraction").is_none(), "no rate_fraction beside concurrency"),
                (client["streaming"].as_bool() == Some(true), "streaming"),
            ];
            match checks.iter().find(|(ok, _)| !ok) {
                Some((_, what)) => Err(format!("expected {what}:\n{text}").into()),
                None => Ok(()),
            }
        }),
    ]
}

fn scenario_tree_trials() -> Vec<Trial> {
    let inputs = Inputs::from_process(&Flags::default());
    let Some(tree) = inputs.scenarios.clone() else { return vec![] };
    if !tree.path.is_dir() {
        if tree.origin == Origin::Vendored {
            return vec![Trial::test("variant/scenarios (needs testdata/scenarios or BLIS_SCENARIOS)", || Ok(()))
                .with_ignored_flag(true)];
        }
        // An override that points nowhere fails loudly.
        let label = tree.source_label();
        return vec![Trial::test("variant/scenarios", move || Err(format!("{label} is not a directory").into()))];
    }
    let mut files: Vec<_> = std::fs::read_dir(&tree.path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let name = format!("variant/scenarios/{}", path.file_name().unwrap().to_string_lossy());
            Trial::test(name, move || check_variant(&std::fs::read_to_string(&path).map_err(|e| e.to_string())?))
        })
        .collect()
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = synthetic_trials();
    trials.extend(scenario_tree_trials());
    libtest_mimic::run(&args, trials).exit();
}
