//! The coverage-gap report (`--gaps FILE`, never stdout), in the format of
//! docs/upstream.md §6: a header line, one line per gap
//! `gap <scenario> <label> <sweep|c=N> [<owner>] <cause>[: detail]`, then a summary of points
//! per (cause, owner), largest first.
//!
//! Gaps are checked against the scenario tree and the catalog and registry. The team's copy
//! of those trees is partial (docs/upstream.md §8): a file it lacks that the published run
//! had is reported with owner `team-copy` and says so. Gaps never feed back into the tiers:
//! the tier of a sweep depends only on the corpora and the scenario schema's field names.

use super::Corpora;
use crate::corpus::e2e::Sweep;
use crate::corpus::scenario::ScenarioSet;
use oracles::tiers::{Provenance, TRACKED_SETTINGS};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// Files of the locked upstream trees that the team's partial copy lacks (docs/upstream.md
/// §8; blis-artifacts/PROVENANCE-yaml.md), relative to the catalog root.
pub const ABSENT_FROM_TEAM_COPY: [&str; 7] = [
    "hardware/h200.yaml",
    "models/deepseek-v3/graph.yaml",
    "models/gpt-oss-120b/graph.yaml",
    "models/llama-3.1-70b-instruct/graph.yaml",
    "models/minimax-m2.5/graph.yaml",
    "models/minimax-m3/graph.yaml",
    "models/qwen3.5-397b-a17b/graph.yaml",
];

/// Run settings the scenario carries by other means than an engine field: `model` is the
/// served model's path, and the scenario names the model itself.
const CARRIED_AS_IDENTITY: [&str; 1] = ["model"];

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Gap {
    pub scenario: String,
    pub label: String,
    /// `None` for the whole sweep, else the concurrency.
    pub concurrency: Option<u32>,
    pub owner: &'static str,
    pub cause: String,
    pub detail: Option<String>,
    /// Points the gap covers (the sweep's point count for a sweep gap, else 1).
    pub points: usize,
}

impl Gap {
    pub fn line(&self) -> String {
        let at = self.concurrency.map_or("sweep".to_string(), |c| format!("c={c}"));
        let detail = self.detail.as_ref().map_or(String::new(), |d| format!(": {d}"));
        format!("gap {} {} {} [{}] {}{}", self.scenario, self.label, at, self.owner, self.cause, detail)
    }
}

/// Every gap of every sweep of the corpus, in corpus order, sweep gaps before point gaps.
pub fn gaps(corpora: &Corpora, scenarios: &ScenarioSet, catalog: &Path, registry: &Path, framework: &str) -> Vec<Gap> {
    let expressible = crate::corpus::scenario::expressible_keys(scenarios);
    let records: BTreeMap<(&str, &str), _> =
        corpora.settings.settings.iter().map(|r| ((r.scenario.as_str(), r.label.as_str()), r)).collect();
    let mut out = Vec::new();
    for sweep in &corpora.e2e.sweeps {
        let n = sweep.points.len();
        let mut push = |owner: &'static str, cause: &str, detail: Option<String>| {
            out.push(Gap {
                scenario: sweep.scenario.clone(),
                label: sweep.label.clone(),
                concurrency: None,
                owner,
                cause: cause.to_string(),
                detail,
                points: n,
            })
        };
        if sweep.framework != framework {
            push("corpus", &format!("framework not {framework}"), Some(sweep.framework.clone()));
        }
        if sweep.serving != "aggregated" {
            push("corpus", "serving not aggregated", Some(sweep.serving.clone()));
        }
        if sweep.spec_method != "none" {
            push("corpus", "speculative method", Some(sweep.spec_method.clone()));
        }
        if let Err(why) = sweep.workload_lengths() {
            push("corpus", "workload not isl:osl", Some(why));
        }
        match scenarios.get(&sweep.scenario) {
            Err(why) => push("scenarios", "no loadable scenario", Some(why)),
            Ok(scenario) => {
                let h = &scenario.header;
                let mut files = vec![
                    (catalog, "catalog", format!("models/{}/graph.yaml", h.model), "model graph"),
                    (catalog, "catalog", format!("hardware/{}.yaml", h.cluster.hardware), "hardware"),
                ];
                if let Some(net) = &h.cluster.network {
                    files.push((catalog, "catalog", format!("networks/{net}.yaml"), "network"));
                }
                for c in &h.coefficients {
                    files.push((registry, "registry", format!("coefficients/{c}.yaml"), "coefficient set"));
                }
                for (root, tree, rel, what) in files {
                    if root.join(&rel).is_file() {
                        continue;
                    }
                    if tree == "catalog" && ABSENT_FROM_TEAM_COPY.contains(&rel.as_str()) {
                        push(
                            "team-copy",
                            &format!("missing {tree} file ({what})"),
                            Some(format!(
                                "{rel} (absent from the team's partial copy, docs/upstream.md §8; not a gap in the published run)"
                            )),
                        );
                    } else {
                        push(tree, &format!("missing {tree} file ({what})"), Some(rel));
                    }
                }
                let pool = scenario.serving_pool().parallel;
                let p = sweep.parallelism;
                for (name, ours, corpus) in [
                    ("tp", pool.tp, p.tp_size),
                    ("attention dp", pool.dp, p.attention_dp_size),
                    ("pp", pool.pp, p.pp_size),
                ] {
                    if ours != corpus {
                        push(
                            "scenarios",
                            "parallelism differs from the corpus",
                            Some(format!("{name} {ours} in the scenario, {corpus} in the corpus")),
                        );
                    }
                }
            }
        }
        if sweep.framework == framework && sweep.is_vllm() {
            point_gaps(
                sweep,
                records.get(&(sweep.scenario.as_str(), sweep.label.as_str())).copied(),
                &expressible,
                &mut out,
            );
        }
    }
    out
}

fn point_gaps(
    sweep: &Sweep,
    record: Option<&crate::corpus::inferencex::SettingsRecord>,
    expressible: &BTreeSet<String>,
    out: &mut Vec<Gap>,
) {
    let mut points: Vec<u32> = sweep.points.iter().map(|p| p.concurrency).collect();
    points.sort_unstable();
    for c in points {
        let mut push = |owner: &'static str, cause: String| {
            out.push(Gap {
                scenario: sweep.scenario.clone(),
                label: sweep.label.clone(),
                concurrency: Some(c),
                owner,
                cause,
                detail: None,
                points: 1,
            })
        };
        let passed = record.and_then(|r| r.by_concurrency.get(c));
        for field in TRACKED_SETTINGS {
            let p = oracles::tiers::provenance(true, passed.map(|p| p.passed.0.contains_key(field)));
            if p != Provenance::Measured {
                push("inferencex", format!("measured setting absent: {field} ({p} value used)"));
            }
        }
        let Some(passed) = passed else { continue };
        for key in passed.passed_keys() {
            if !expressible.contains(key) {
                push("blis-schemas", format!("run setting blis-schemas cannot express: {key}"));
            } else if !TRACKED_SETTINGS.contains(&key.as_str()) && !CARRIED_AS_IDENTITY.contains(&key.as_str()) {
                push("runner", format!("run setting not carried into the simulation: {key}"));
            }
        }
    }
}

/// The whole report: header, gap lines, summary.
pub fn render(corpora: &Corpora, gaps: &[Gap], framework: &str) -> String {
    let points: usize = corpora.e2e.sweeps.iter().map(|s| s.points.len()).sum();
    let mut out = format!(
        "coverage gaps of {} (release {}, {} sweeps, {} points), framework {framework}, checked against the scenarios, catalog and registry\n",
        super::E2E_FILE,
        corpora.release(),
        corpora.e2e.sweeps.len(),
        points
    );
    for g in gaps {
        let _ = writeln!(out, "{}", g.line());
    }
    let mut summary: BTreeMap<(String, &str), usize> = BTreeMap::new();
    for g in gaps {
        *summary.entry((g.cause.clone(), g.owner)).or_default() += g.points;
    }
    let mut rows: Vec<_> = summary.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let _ = writeln!(out, "\nsummary: points per (cause, owner), largest first");
    let _ = writeln!(out, "{:>6}  {:<12}  cause", "points", "owner");
    for ((cause, owner), n) in rows {
        let _ = writeln!(out, "{n:>6}  {owner:<12}  {cause}");
    }
    out
}
