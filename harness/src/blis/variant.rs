//! The scenario variant of one point: the committed scenario file with only the four engine
//! fields replaced by the point's resolved settings (docs/upstream.md §7; upstream IS
//! `sim/kernelmodel/harness/blisrun.go`, `writeScenarioVariant`).
//!
//! Scenario files are multi-document YAML (a Scenario and a Deployment). The file is parsed
//! into `serde_yaml::Value`s and re-emitted document by document, so comments and formatting
//! are not carried over but every value is; `tests/blis_variant.rs` proves that only the four
//! fields differ, compared as parsed values. A field the file does not state (prefix caching,
//! in every committed scenario) is added, so the variant states the point's value rather than
//! leaving it to the binary's default.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use serde_yaml::{Mapping, Value};

/// The four engine settings a point controls, per rank (never multiplied by dp).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct EngineSettings {
    pub max_num_seqs: u32,
    pub max_num_batched_tokens: u32,
    pub block_size: u32,
    pub enable_prefix_caching: bool,
}

/// The names of the fields a variant may change, in the scenario schema's spelling: the
/// scorer's tracked settings, by definition the same four.
pub const ENGINE_FIELDS: [&str; 4] = oracles::tiers::TRACKED_SETTINGS;

/// Parses every document of a scenario file.
pub fn parse_documents(text: &str) -> Result<Vec<Value>> {
    serde_yaml::Deserializer::from_str(text)
        .map(|doc| Value::deserialize(doc).context("parsing a YAML document"))
        .collect()
}

/// The one pool's `engine` mapping of the Deployment document. More than one pool is refused:
/// the corpus scores aggregated serving and the resolved settings describe one engine.
fn engine_mut(docs: &mut [Value]) -> Result<&mut Mapping> {
    let deployment = docs
        .iter_mut()
        .find(|d| d.get("kind").and_then(Value::as_str) == Some("Deployment"))
        .context("no document with `kind: Deployment`")?;
    let pools =
        deployment.get_mut("pools").and_then(Value::as_sequence_mut).context("Deployment has no `pools` list")?;
    if pools.len() != 1 {
        bail!("Deployment states {} pools; a point describes one aggregated pool", pools.len());
    }
    let pool = pools[0].as_mapping_mut().context("pools[0] is not a mapping")?;
    let engine = pool.entry(Value::from("engine")).or_insert_with(|| Value::Mapping(Mapping::new()));
    engine.as_mapping_mut().context("pools[0].engine is not a mapping")
}

/// The scenario's own values of the four fields (`None` where it does not state one).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatedSettings {
    pub max_num_seqs: Option<u32>,
    pub max_num_batched_tokens: Option<u32>,
    pub block_size: Option<u32>,
    pub enable_prefix_caching: Option<bool>,
}

pub fn stated_settings(text: &str) -> Result<StatedSettings> {
    let mut docs = parse_documents(text)?;
    let engine = engine_mut(&mut docs)?;
    let uint = |key: &str| -> Result<Option<u32>> {
        match engine.get(key) {
            None => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .with_context(|| format!("pools[0].engine.{key}: expected a non-negative integer, got {v:?}")),
        }
    };
    Ok(StatedSettings {
        max_num_seqs: uint("max_num_seqs")?,
        max_num_batched_tokens: uint("max_num_batched_tokens")?,
        block_size: uint("block_size")?,
        enable_prefix_caching: match engine.get("enable_prefix_caching") {
            None => None,
            Some(v) => Some(
                v.as_bool()
                    .with_context(|| format!("pools[0].engine.enable_prefix_caching: expected a bool, got {v:?}"))?,
            ),
        },
    })
}

/// The variant's text: every document re-emitted, the four fields set to `settings`.
pub fn scenario_variant(text: &str, settings: &EngineSettings) -> Result<String> {
    let mut docs = parse_documents(text)?;
    let engine = engine_mut(&mut docs)?;
    engine.insert("max_num_seqs".into(), settings.max_num_seqs.into());
    engine.insert("max_num_batched_tokens".into(), settings.max_num_batched_tokens.into());
    engine.insert("block_size".into(), settings.block_size.into());
    engine.insert("enable_prefix_caching".into(), settings.enable_prefix_caching.into());
    let mut out = String::new();
    for (i, doc) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&serde_yaml::to_string(doc).context("encoding the scenario variant")?);
    }
    Ok(out)
}
