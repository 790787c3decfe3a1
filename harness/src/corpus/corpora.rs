//! The measurement corpora (docs/upstream.md §5) loaded together: each file read strictly by
//! its reader, then joined on (scenario, label) and checked, so a record that joins nothing is
//! an error naming its file and entry. The scorer and the BLIS arm start from a [`Corpora`].

use crate::corpus::e2e::{E2eCorpus, Sweep};
use crate::corpus::inferencex::{Absolutes, EngineSettingsCorpus};
use crate::corpus::scenario::ScenarioSet;
use crate::inputs::{InputKind, Inputs};
use crate::task::TaskError;
use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

pub const E2E_FILE: &str = "aisimulate_e2e.json";
pub const ABSOLUTES_FILE: &str = "inferencex_absolutes.json";
pub const SETTINGS_FILE: &str = "inferencex_engine_settings.json";
pub const SCOREABLE_FILE: &str = "scoreable.json";

/// The measurement corpora the scorer reads (docs/upstream.md §5), joined and checked.
#[derive(Clone, Debug)]
pub struct Corpora {
    pub e2e: E2eCorpus,
    pub absolutes: Absolutes,
    pub settings: EngineSettingsCorpus,
    /// `scoreable.json`: BLIS's own sweep-report points (docs/scoring.md); read and checked,
    /// not part of the headline table.
    pub scoreable: Vec<ScoreableRow>,
}

/// One row of `scoreable.json`.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScoreableRow {
    pub scenario: String,
    pub report: String,
    pub series: String,
    pub label: String,
    pub concurrency: u32,
    pub itl_ms: Option<f64>,
    pub ttft_ms: Option<f64>,
    pub e2e_ms: Option<f64>,
    pub isl: Option<u32>,
    pub osl: Option<u32>,
    pub kv_pct: Option<f64>,
    pub hit_pct: Option<f64>,
    pub preempted: Option<f64>,
    pub running: Option<f64>,
    pub waiting: Option<f64>,
    pub in_tps: Option<f64>,
    pub out_tps: Option<f64>,
    pub accept_pct: Option<f64>,
    pub effconc: Option<f64>,
}

/// Reads `scoreable.json` strictly; the error names the file and the JSON path.
pub fn load_scoreable(path: &Path) -> Result<Vec<ScoreableRow>> {
    let text = crate::read::text(path)?;
    crate::corpus::strict::parse_json(&text).with_context(|| crate::paths::display(path))
}

impl Corpora {
    /// Reads the four corpora from `dir`. A missing file is an error naming it; a record of
    /// the InferenceX corpora that joins no sweep of the e2e corpus is an error naming the
    /// file and the entry.
    pub fn load(dir: &Path) -> Result<Corpora> {
        for name in [E2E_FILE, ABSOLUTES_FILE, SETTINGS_FILE, SCOREABLE_FILE] {
            if let Some(found) = crate::read::not_a_file(&dir.join(name)) {
                bail!(
                    "{} has no {name}: found {found} (the measurement corpora: --measurements / BLIS_MEASUREMENTS)",
                    crate::paths::display(dir)
                );
            }
        }
        let e2e = crate::corpus::e2e::load(&dir.join(E2E_FILE))?;
        if e2e.sweeps.is_empty() {
            bail!("{}: `sweeps` is empty", crate::paths::display(&dir.join(E2E_FILE)));
        }
        let absolutes = crate::corpus::inferencex::load_absolutes(&dir.join(ABSOLUTES_FILE))?;
        let settings = crate::corpus::inferencex::load_engine_settings(&dir.join(SETTINGS_FILE))?;
        let scoreable = load_scoreable(&dir.join(SCOREABLE_FILE))?;
        let corpora = Corpora { e2e, absolutes, settings, scoreable };
        corpora.check_joins(dir)?;
        Ok(corpora)
    }

    fn check_joins(&self, dir: &Path) -> Result<()> {
        let sweeps: BTreeMap<(&str, &str), &Sweep> =
            self.e2e.sweeps.iter().map(|s| ((s.scenario.as_str(), s.label.as_str()), s)).collect();
        for (i, r) in self.settings.settings.iter().enumerate() {
            let Some(sweep) = sweeps.get(&(r.scenario.as_str(), r.label.as_str())) else {
                bail!(
                    "{}: `settings[{i}]` ({} {}) is a record for a sweep that {} does not have",
                    crate::paths::display(&dir.join(SETTINGS_FILE)),
                    r.scenario,
                    r.label,
                    E2E_FILE
                );
            };
            for c in r.by_concurrency.0.keys() {
                if !sweep.points.iter().any(|p| p.concurrency == *c) {
                    bail!(
                        "{}: `settings[{i}].by_concurrency.\"{c}\"` ({} {}): the sweep has no point at concurrency {c}",
                        crate::paths::display(&dir.join(SETTINGS_FILE)),
                        r.scenario,
                        r.label
                    );
                }
            }
        }
        for (i, a) in self.absolutes.anchors.iter().enumerate() {
            if !sweeps.contains_key(&(a.scenario.as_str(), a.label.as_str())) {
                bail!(
                    "{}: `anchors[{i}]` ({} {}) is a record for a sweep that {} does not have",
                    crate::paths::display(&dir.join(ABSOLUTES_FILE)),
                    a.scenario,
                    a.label,
                    E2E_FILE
                );
            }
        }
        Ok(())
    }

    /// The release the corpora were cut from (`db-dump/...`).
    pub fn release(&self) -> String {
        self.e2e.snapshot.get("release_tag").and_then(|v| v.as_str()).unwrap_or(&self.absolutes.release_tag).to_string()
    }
}

/// Loads the corpora and the scenario tree the scorer needs, or refuses naming the flag.
pub fn load_inputs(inputs: &Inputs) -> Result<(Corpora, ScenarioSet), TaskError> {
    let measurements = inputs.require_dir(InputKind::Measurements, "the corpus scorer")?;
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, "the corpus scorer")?;
    let corpora = Corpora::load(measurements)?;
    let scenarios = crate::corpus::scenario::load_dir(scenarios_dir)?;
    Ok((corpora, scenarios))
}
