//! Typed read of the scenario files (`BLIS_SCENARIOS`, one YAML file per deployment, two YAML
//! documents each: `kind: Scenario` then `kind: Deployment`), and the set of keys the scenario
//! schema can express, derived from the files themselves.
//!
//! The scorer needs from a scenario: the model and hardware names (catalog checks, device
//! memory), the coefficient sets (registry checks), the colocated pool's parallelism (checked
//! against the corpus) and its engine fields. A file that does not load is not fatal to the
//! run: the sweeps that name it get the coverage gap "no loadable scenario" with the error.

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One scenario file, both documents.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The file name, e.g. `gpt-oss-120b-h200-fp4-vllm-tp1.yaml` (what the corpus names).
    pub file_name: String,
    pub header: ScenarioDoc,
    pub deployment: DeploymentDoc,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ScenarioDoc {
    pub kind: String,
    pub name: String,
    #[serde(default)]
    pub engine_version: Option<String>,
    /// A catalog model directory: `catalog/models/<model>/graph.yaml`.
    pub model: String,
    /// Registry coefficient sets: `registry/coefficients/<name>.yaml`.
    pub coefficients: Vec<String>,
    pub cluster: Cluster,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Cluster {
    /// A catalog hardware descriptor: `catalog/hardware/<hardware>.yaml`.
    pub hardware: String,
    pub nodes: u32,
    pub gpus_per_node: u32,
    /// A catalog network descriptor (`catalog/networks/<network>.yaml`), when named.
    #[serde(default)]
    pub network: Option<String>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DeploymentDoc {
    pub kind: String,
    pub name: String,
    pub pools: Vec<Pool>,
}

#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pool {
    pub role: String,
    pub nodes: u32,
    pub parallel: Parallel,
    /// Engine fields as written; which keys exist is itself data (see [`expressible_keys`]).
    pub engine: BTreeMap<String, serde_yaml::Value>,
}

#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Parallel {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    #[serde(default)]
    pub enable_expert_parallel: Option<bool>,
}

impl Scenario {
    /// The pool the corpus's aggregated serving runs on: the `colocated` one, else the first.
    pub fn serving_pool(&self) -> &Pool {
        self.deployment.pools.iter().find(|p| p.role == "colocated").unwrap_or(&self.deployment.pools[0])
    }
}

/// Reads one scenario file; the error names the file and the document.
pub fn load(path: &Path) -> Result<Scenario> {
    let text = crate::read::text(path)?;
    let file_name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    parse(&file_name, &text).with_context(|| crate::paths::display(path))
}

/// [`load`] on text in memory.
pub fn parse(file_name: &str, text: &str) -> Result<Scenario> {
    let docs = documents(text)?;
    if docs.len() != 2 {
        bail!("expected 2 YAML documents (Scenario, Deployment), found {}", docs.len());
    }
    let header: ScenarioDoc = typed(&docs[0]).context("document 1 (kind: Scenario)")?;
    let deployment: DeploymentDoc = typed(&docs[1]).context("document 2 (kind: Deployment)")?;
    if header.kind != "Scenario" || deployment.kind != "Deployment" {
        bail!("documents must be kind Scenario then Deployment, found {} then {}", header.kind, deployment.kind);
    }
    if deployment.pools.is_empty() {
        bail!("document 2: `pools` is empty");
    }
    Ok(Scenario { file_name: file_name.to_string(), header, deployment })
}

fn documents(text: &str) -> Result<Vec<serde_yaml::Value>> {
    serde_yaml::Deserializer::from_str(text)
        .enumerate()
        .map(|(i, doc)| serde_yaml::Value::deserialize(doc).with_context(|| format!("document {}", i + 1)))
        .collect()
}

fn typed<T: serde::de::DeserializeOwned>(doc: &serde_yaml::Value) -> Result<T> {
    serde_path_to_error::deserialize(doc.clone()).map_err(|err| {
        let path = err.path().to_string();
        anyhow::anyhow!("at `{path}`: {}", err.into_inner())
    })
}

/// Every key name that appears anywhere in the file (all documents, all depths).
pub fn field_names(text: &str) -> Result<BTreeSet<String>> {
    fn walk(v: &serde_yaml::Value, out: &mut BTreeSet<String>) {
        match v {
            serde_yaml::Value::Mapping(m) => {
                for (k, v) in m {
                    if let Some(k) = k.as_str() {
                        out.insert(k.to_string());
                    }
                    walk(v, out);
                }
            }
            serde_yaml::Value::Sequence(s) => s.iter().for_each(|v| walk(v, out)),
            serde_yaml::Value::Tagged(t) => walk(&t.value, out),
            _ => {}
        }
    }
    let mut out = BTreeSet::new();
    for doc in documents(text)? {
        walk(&doc, &mut out);
    }
    Ok(out)
}

/// All scenario files of a directory: the ones that load, the ones that do not (with why), and
/// the union of their field names.
#[derive(Clone, Debug, Default)]
pub struct ScenarioSet {
    pub loaded: BTreeMap<String, Scenario>,
    pub unloadable: BTreeMap<String, String>,
    pub field_names: BTreeSet<String>,
}

impl ScenarioSet {
    /// The scenario by file name, or why there is none.
    pub fn get(&self, file_name: &str) -> Result<&Scenario, String> {
        if let Some(s) = self.loaded.get(file_name) {
            return Ok(s);
        }
        Err(self
            .unloadable
            .get(file_name)
            .cloned()
            .unwrap_or_else(|| format!("no file {file_name} in the scenario tree")))
    }
}

/// Reads every `*.yaml` of `dir` (not recursive). Only an unreadable directory is an error.
pub fn load_dir(dir: &Path) -> Result<ScenarioSet> {
    let mut set = ScenarioSet::default();
    let entries = std::fs::read_dir(dir).with_context(|| format!("listing {}", crate::paths::display(dir)))?;
    let mut paths: Vec<_> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    paths.sort();
    // An empty tree would silently drop every sweep it should score (a tier disappears).
    if paths.is_empty() {
        bail!("{}: holds no scenario file (*.yaml)", crate::paths::display(dir));
    }
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = match crate::read::text(&path) {
            Ok(t) => t,
            Err(e) => {
                set.unloadable.insert(name, format!("{e:#}"));
                continue;
            }
        };
        match parse(&name, &text) {
            Ok(s) => {
                if let Ok(names) = field_names(&text) {
                    set.field_names.extend(names);
                }
                set.loaded.insert(name, s);
            }
            Err(e) => {
                set.unloadable.insert(name, format!("{e:#}"));
            }
        }
    }
    Ok(set)
}

/// The run-setting keys the scenario schema can express: every field name the scenario files
/// use, plus the tracked settings, which the BLIS runner writes into a point's scenario
/// (docs/upstream.md §7) whether or not the committed file spells them.
pub fn expressible_keys(set: &ScenarioSet) -> BTreeSet<String> {
    let mut keys = set.field_names.clone();
    keys.extend(oracles::tiers::TRACKED_SETTINGS.iter().map(|s| s.to_string()));
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) const GOOD: &str = "\
kind: Scenario
name: m-h100-fp8-vllm-tp2
engine_version: \"0.29.0\"
model: m
coefficients: [cost-model-primitives]
cluster:
  hardware: h100
  nodes: 1
  gpus_per_node: 8
---
kind: Deployment
name: m-h100-fp8-vllm-tp2
pools:
  - role: colocated
    nodes: 1
    parallel:
      tp: 2
      pp: 1
      dp: 1
      enable_expert_parallel: false
    engine:
      block_size: 16
      max_num_seqs: 256
      max_model_len: 32768
";

    #[test]
    fn reads_both_documents() {
        let s = parse("m.yaml", GOOD).unwrap();
        assert_eq!(s.header.cluster.hardware, "h100");
        assert_eq!(s.serving_pool().parallel.tp, 2);
        assert!(s.serving_pool().engine.contains_key("max_model_len"));
    }

    #[test]
    fn single_document_is_an_error() {
        let one = GOOD.split("---").next().unwrap();
        let e = format!("{:#}", parse("m.yaml", one).unwrap_err());
        assert!(e.contains("expected 2 YAML documents"), "{e}");
    }

    #[test]
    fn bad_field_names_its_document_and_path() {
        let bad = GOOD.replace("tp: 2", "tp: two");
        let e = format!("{:#}", parse("m.yaml", &bad).unwrap_err());
        assert!(e.contains("document 2") && e.contains("pools[0].parallel.tp"), "{e}");
    }

    #[test]
    fn field_names_cover_every_depth() {
        let names = field_names(GOOD).unwrap();
        for k in ["model", "max_model_len", "enable_expert_parallel", "gpus_per_node"] {
            assert!(names.contains(k), "{k}");
        }
        assert!(!names.contains("max_cudagraph_capture_size"));
    }

    #[test]
    fn directory_keeps_unloadable_files_as_reasons() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("good.yaml"), GOOD).unwrap();
        std::fs::write(dir.path().join("bad.yaml"), "kind: Scenario\n").unwrap();
        let set = load_dir(dir.path()).unwrap();
        assert!(set.get("good.yaml").is_ok());
        assert!(set.get("bad.yaml").unwrap_err().contains("expected 2 YAML documents"));
        assert!(set.get("none.yaml").unwrap_err().contains("no file none.yaml"));
        let keys = expressible_keys(&set);
        assert!(keys.contains("enable_prefix_caching") && keys.contains("gpus_per_node"));
    }
}
