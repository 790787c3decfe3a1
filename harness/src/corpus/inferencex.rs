//! Strict readers of the two InferenceX corpora (docs/upstream.md §5):
//! `inferencex_absolutes.json` (absolute TPOT/TTFT per concurrency, what a simulated arm's
//! MAPE is scored against) and `inferencex_engine_settings.json` (the settings each vLLM run
//! passed, per concurrency). Both join `aisimulate_e2e.json` on (scenario, label).
//!
//! Maps keyed by concurrency (`{"1": ..., "16": ...}`) become [`ConcurrencyMap`]s: a key that
//! is not a positive integer, or a key given twice (`"4"` and `"04"` included), is an error
//! naming the file, the JSON path of the map and the key. Every number is finite. An absolute
//! value <= 0 is read as it is and counts as absent ([`Anchor::tpot_us`]).

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

pub use super::strict::{ConcurrencyMap, Finite, UniqueMap};

// ---------------------------------------------------------------------------------------------
// inferencex_absolutes.json

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Absolutes {
    pub source: String,
    pub source_url: String,
    pub release_tag: String,
    pub metrics: String,
    pub validation: String,
    #[serde(default)]
    pub benchmark_type: Option<String>,
    /// Sweeps the extractor left out, with why (empty in the team's copy).
    #[serde(default)]
    pub omitted: Vec<serde_json::Value>,
    #[serde(default)]
    pub sweeps_matched: Option<u64>,
    #[serde(default)]
    pub sweeps_omitted: Option<u64>,
    pub anchors: Vec<Anchor>,
}

/// One sweep's absolute latencies, microseconds, per concurrency.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    pub scenario: String,
    pub label: String,
    pub framework: String,
    pub gpu: String,
    pub absolute_tpot_us: ConcurrencyMap<Finite>,
    pub absolute_ttft_us: ConcurrencyMap<Finite>,
    #[serde(default)]
    pub anchor_concurrency: Option<u32>,
    #[serde(default)]
    pub anchor_tpot_us: Option<Finite>,
    #[serde(default)]
    pub anchor_ttft_us: Option<Finite>,
    pub source_run_date: String,
    pub source_config_id: u64,
    pub relative_agreement: Finite,
}

impl Anchor {
    /// Measured mean TPOT at `concurrency` in microseconds; a value <= 0 counts as absent.
    pub fn tpot_us(&self, concurrency: u32) -> Option<f64> {
        self.absolute_tpot_us.get(concurrency).map(|v| v.0).filter(|v| *v > 0.0)
    }
    /// Measured mean TTFT at `concurrency` in microseconds; a value <= 0 counts as absent.
    pub fn ttft_us(&self, concurrency: u32) -> Option<f64> {
        self.absolute_ttft_us.get(concurrency).map(|v| v.0).filter(|v| *v > 0.0)
    }
}

pub fn load_absolutes(path: &Path) -> Result<Absolutes> {
    let text = read(path)?;
    let parsed: Absolutes = super::strict::parse_json(&text).with_context(|| crate::paths::display(path))?;
    check_unique_joins(parsed.anchors.iter().map(|a| (&a.scenario, &a.label)), "anchors")
        .with_context(|| crate::paths::display(path))?;
    Ok(parsed)
}

// ---------------------------------------------------------------------------------------------
// inferencex_engine_settings.json

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EngineSettingsCorpus {
    pub source: String,
    pub source_url: String,
    pub release_tag: String,
    pub run_selection: String,
    #[serde(default)]
    pub what: Option<String>,
    /// The number of records, as the file states it (checked against `settings`).
    #[serde(default)]
    pub sweeps: Option<u64>,
    /// Sweeps the extractor could not give a complete record for, with why.
    #[serde(default)]
    pub incomplete: Vec<Incomplete>,
    pub settings: Vec<SettingsRecord>,
}

#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Incomplete {
    pub scenario: String,
    pub label: String,
    pub reason: String,
}

/// The settings of one sweep's run, per concurrency.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SettingsRecord {
    pub scenario: String,
    pub label: String,
    pub framework: String,
    pub gpu: String,
    pub source_run_date: String,
    pub source_config_id: u64,
    pub by_concurrency: ConcurrencyMap<PointSettings>,
}

/// What one run passed on its command line and what the engine resolved. A key absent from
/// `passed` was not passed; it is never filled in.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PointSettings {
    pub passed: UniqueMap<serde_json::Value>,
    pub resolved: UniqueMap<serde_json::Value>,
}

/// A tracked setting's value as the run passed it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingValue {
    Int(u64),
    Bool(bool),
}

impl fmt::Display for SettingValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingValue::Int(v) => write!(f, "{v}"),
            SettingValue::Bool(v) => write!(f, "{v}"),
        }
    }
}

impl PointSettings {
    /// The keys the run passed.
    pub fn passed_keys(&self) -> impl Iterator<Item = &String> {
        self.passed.0.keys()
    }

    /// A tracked setting's passed value (checked at load: positive integer or boolean).
    pub fn passed_setting(&self, field: &str) -> Option<SettingValue> {
        self.passed.0.get(field).and_then(setting_value)
    }
}

fn setting_value(v: &serde_json::Value) -> Option<SettingValue> {
    match v {
        serde_json::Value::Bool(b) => Some(SettingValue::Bool(*b)),
        serde_json::Value::Number(n) => n.as_u64().filter(|x| *x > 0).map(SettingValue::Int),
        _ => None,
    }
}

pub fn load_engine_settings(path: &Path) -> Result<EngineSettingsCorpus> {
    let text = read(path)?;
    let parsed: EngineSettingsCorpus = super::strict::parse_json(&text).with_context(|| crate::paths::display(path))?;
    check_settings(&parsed).with_context(|| crate::paths::display(path))?;
    Ok(parsed)
}

/// The checks a derived struct cannot express: tracked settings have the right type, joins
/// are unique, the stated count matches.
fn check_settings(s: &EngineSettingsCorpus) -> Result<()> {
    for (i, record) in s.settings.iter().enumerate() {
        for (c, point) in record.by_concurrency.iter() {
            for field in oracles::tiers::TRACKED_SETTINGS {
                let Some(v) = point.passed.0.get(field) else { continue };
                let ok = match field {
                    "enable_prefix_caching" => v.is_boolean(),
                    _ => v.as_u64().is_some_and(|x| x > 0),
                };
                if !ok {
                    bail!(
                        "at `settings[{i}].by_concurrency.\"{c}\".passed.{field}` ({} {}): \
                         expected {}, found {v}",
                        record.scenario,
                        record.label,
                        if field == "enable_prefix_caching" { "a boolean" } else { "a positive integer" }
                    );
                }
            }
        }
    }
    check_unique_joins(s.settings.iter().map(|r| (&r.scenario, &r.label)), "settings")?;
    if let Some(n) = s.sweeps {
        if n != s.settings.len() as u64 {
            bail!("`sweeps` says {n} records, `settings` has {}", s.settings.len());
        }
    }
    Ok(())
}

fn check_unique_joins<'a>(keys: impl Iterator<Item = (&'a String, &'a String)>, what: &str) -> Result<()> {
    let mut seen = BTreeMap::new();
    for (i, (scenario, label)) in keys.enumerate() {
        if let Some(first) = seen.insert((scenario.clone(), label.clone()), i) {
            bail!("`{what}[{i}]` repeats ({scenario}, {label}) of `{what}[{first}]`");
        }
    }
    Ok(())
}

fn read(path: &Path) -> Result<String> {
    crate::read::text(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn absolutes(tpot: &str) -> String {
        format!(
            r#"{{"source": "s", "source_url": "u", "release_tag": "r", "metrics": "m",
               "validation": "v", "anchors": [{{"scenario": "x.yaml", "label": "1k1k",
               "framework": "vllm", "gpu": "h100", "absolute_tpot_us": {tpot},
               "absolute_ttft_us": {{"1": 100.0}}, "source_run_date": "d",
               "source_config_id": 1, "relative_agreement": 0.0}}]}}"#
        )
    }

    fn parse_abs(text: &str) -> Result<Absolutes> {
        super::super::strict::parse_json(text)
    }

    #[test]
    fn concurrency_keys_become_numbers() {
        let a = parse_abs(&absolutes(r#"{"1": 5.0, "16": 9.0, "2": 0.0}"#)).unwrap();
        let keys: Vec<u32> = a.anchors[0].absolute_tpot_us.0.keys().copied().collect();
        assert_eq!(keys, [1, 2, 16]);
        assert_eq!(a.anchors[0].tpot_us(16), Some(9.0));
        assert_eq!(a.anchors[0].tpot_us(2), None, "a value <= 0 counts as absent");
        assert_eq!(a.anchors[0].tpot_us(4), None);
    }

    #[test]
    fn concurrency_key_not_a_number_names_path_and_key() {
        let e = format!("{:#}", parse_abs(&absolutes(r#"{"1": 5.0, "eight": 9.0}"#)).unwrap_err());
        assert!(e.contains("anchors[0].absolute_tpot_us") && e.contains("\"eight\""), "{e}");
        let e = format!("{:#}", parse_abs(&absolutes(r#"{"-2": 5.0}"#)).unwrap_err());
        assert!(e.contains("not a positive integer"), "{e}");
    }

    #[test]
    fn duplicate_concurrency_key_is_an_error() {
        let e = format!("{:#}", parse_abs(&absolutes(r#"{"4": 5.0, "04": 9.0}"#)).unwrap_err());
        assert!(e.contains("duplicate concurrency key \"04\""), "{e}");
        let e = format!("{:#}", parse_abs(&absolutes(r#"{"4": 5.0, "4": 9.0}"#)).unwrap_err());
        assert!(e.contains("duplicate concurrency key"), "{e}");
    }

    fn settings(passed: &str) -> String {
        format!(
            r#"{{"source": "s", "source_url": "u", "release_tag": "r", "run_selection": "x",
               "sweeps": 1, "settings": [{{"scenario": "x.yaml", "label": "1k1k",
               "framework": "vllm", "gpu": "h100", "source_run_date": "d", "source_config_id": 1,
               "by_concurrency": {{"1": {{"passed": {passed}, "resolved": {{}}}}}}}}]}}"#
        )
    }

    fn parse_settings(text: &str) -> Result<EngineSettingsCorpus> {
        let s: EngineSettingsCorpus = super::super::strict::parse_json(text)?;
        check_settings(&s)?;
        Ok(s)
    }

    #[test]
    fn passed_settings_read_typed() {
        let s = parse_settings(&settings(r#"{"max_num_seqs": 256, "enable_prefix_caching": false, "model": "/m"}"#))
            .unwrap();
        let p = s.settings[0].by_concurrency.get(1).unwrap();
        assert_eq!(p.passed_setting("max_num_seqs"), Some(SettingValue::Int(256)));
        assert_eq!(p.passed_setting("enable_prefix_caching"), Some(SettingValue::Bool(false)));
        assert_eq!(p.passed_setting("block_size"), None);
    }

    #[test]
    fn bad_tracked_setting_names_record_and_field() {
        let e = format!("{:#}", parse_settings(&settings(r#"{"max_num_seqs": -1}"#)).unwrap_err());
        assert!(e.contains("settings[0].by_concurrency.\"1\".passed.max_num_seqs"), "{e}");
        let e = format!("{:#}", parse_settings(&settings(r#"{"enable_prefix_caching": 1}"#)).unwrap_err());
        assert!(e.contains("expected a boolean"), "{e}");
    }

    #[test]
    fn duplicate_passed_key_is_an_error() {
        let e = format!("{:#}", parse_settings(&settings(r#"{"max_num_seqs": 8, "max_num_seqs": 16}"#)).unwrap_err());
        assert!(e.contains("settings[0].by_concurrency.1.passed") && e.contains("duplicate key"), "{e}");
    }

    #[test]
    fn repeated_join_key_is_an_error() {
        let one = settings("{}");
        let v: serde_json::Value = serde_json::from_str(&one).unwrap();
        let mut v2 = v.clone();
        let rec = v["settings"][0].clone();
        v2["settings"] = serde_json::json!([rec.clone(), rec]);
        v2["sweeps"] = serde_json::json!(2);
        let e = format!("{:#}", parse_settings(&v2.to_string()).unwrap_err());
        assert!(e.contains("settings[1]") && e.contains("settings[0]"), "{e}");
    }
}
