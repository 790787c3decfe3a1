//! Evaluating the manifest: inputs are checked first (the lock), each needed task is rendered
//! twice by the `Renderer` (in separate processes, for the CLI) and must come out byte-identical,
//! then every figure is compared with its published value.

use super::manifest::{Expect, ExpectedSource, Figure, Manifest};
use super::tasks::{self, Context};
use crate::inputs::{InputKind, Inputs, Refusal};
use crate::task::{TaskError, TaskOutput, Value, GIVEN_INPUT_CANNOT, REFUSED_BY, REFUSED_KIND, REFUSED_WHAT};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A task's outcome as it crosses a process boundary.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rendered {
    Output(TaskOutput),
    Refused(String),
    Failed(String),
}

impl Rendered {
    pub fn of(result: crate::task::TaskResult) -> Rendered {
        match result {
            Ok(out) => Rendered::Output(out),
            Err(TaskError::Refused(r)) => Rendered::Refused(r.to_string()),
            Err(TaskError::Failed(e)) => Rendered::Failed(format!("{e:#}")),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a rendered task always serialises")
    }
}

/// Computes one task and returns its rendering as JSON text.
pub trait Renderer {
    fn render(&self, task: &str) -> anyhow::Result<String>;
}

/// Renders in this process: for tests, and for the child side of the CLI.
pub struct InProcess<'a>(pub &'a Context);

impl Renderer for InProcess<'_> {
    fn render(&self, task: &str) -> anyhow::Result<String> {
        let def = tasks::find(task).ok_or_else(|| anyhow::anyhow!("unknown task `{task}`"))?;
        Ok(Rendered::of((def.run)(self.0)).to_json())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    Mismatch,
    Refused,
}

/// What a refused figure lacks and how a user supplies it: the terminal summary groups refusals
/// by it, one line per input. Not part of the JSON report, whose `detail` already says it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Need {
    pub what: String,
    pub supplied_by: String,
    /// No input of this tool can supply it (an external input of the manifest).
    pub permanent: bool,
}

/// Why a figure was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RefusalKind {
    /// An input that exists was not given: giving it lifts the refusal.
    MissingInput,
    /// The inputs were given, but cannot compute this figure (a release that models only
    /// some of the sweeps it was published over); another input of the same kind could.
    GivenInputCannot,
    /// No input of this tool can supply what it needs (the manifest's external inputs).
    Permanent,
}

#[derive(Clone, Debug, Serialize)]
pub struct FigureResult {
    pub detail: String,
    pub document: String,
    /// Whether `published` was published upstream or computed here.
    pub expected_source: ExpectedSource,
    pub id: String,
    pub ours: Option<String>,
    /// Why a refused figure was refused (absent for the others); `--require-all` counts only
    /// `missing_input`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refusal: Option<RefusalKind>,
    pub published: String,
    pub section: String,
    pub status: Status,
    pub what: String,
    /// For a refusal: the input it needs (see `Need`).
    #[serde(skip)]
    pub need: Option<Need>,
}

pub struct GateOptions<'a> {
    /// Figure ids (or id prefixes ending in `/`) to evaluate; empty means all.
    pub only: &'a [String],
}

/// The lock task, whose verdict taints every figure that reads a locked input.
pub const LOCK_TASK: &str = "lock-verify";

/// The manifest's consistency task, whose digit check needs PUBLISHED-FIGURES.md.
pub const MANIFEST_TASK: &str = "manifest";

pub fn evaluate(
    manifest: &Manifest,
    cx: &Context,
    renderer: &dyn Renderer,
    options: &GateOptions,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> Vec<FigureResult> {
    evaluate_with_points(manifest, cx, renderer, options, progress).0
}

/// Per task that ran `blis`: its point records (`TaskOutput::blis_points`), for the JSON report.
pub type BlisPoints = BTreeMap<String, Vec<serde_json::Value>>;

/// Per task that scored points: its per-point table (`TaskOutput::points`, `--points`).
pub type PointTables = BTreeMap<String, Vec<serde_json::Value>>;

/// `evaluate`, also returning each `blis` task's point records and each task's point table.
pub fn evaluate_with_points(
    manifest: &Manifest,
    cx: &Context,
    renderer: &dyn Renderer,
    options: &GateOptions,
    progress: &mut dyn FnMut(usize, usize, &str),
) -> (Vec<FigureResult>, BlisPoints, PointTables) {
    let selected: Vec<&Figure> = manifest
        .figures
        .iter()
        .filter(|f| options.only.is_empty() || options.only.iter().any(|o| selects(manifest, o, &f.id)))
        .collect();

    // Which tasks must run: those of selected figures whose inputs are all there, plus the
    // lock whenever anything reads a locked input.
    let mut wanted: Vec<&str> = Vec::new();
    for f in &selected {
        if let Some(task) = f.task.as_deref() {
            if missing_input(manifest, f, &cx.inputs).is_none() && !wanted.contains(&task) {
                wanted.push(task);
            }
        }
    }
    let reads_locked = wanted.iter().any(|t| tasks::find(t).is_some_and(|d| !d.needs.is_empty()));
    if reads_locked && !wanted.contains(&LOCK_TASK) && trees_present(&cx.inputs) {
        wanted.insert(0, LOCK_TASK);
    }

    let mut outcomes: BTreeMap<&str, Result<Rendered, String>> = BTreeMap::new();
    for (i, task) in wanted.iter().enumerate() {
        progress(i, wanted.len(), task);
        outcomes.insert(task, render_twice(renderer, task));
    }
    progress(wanted.len(), wanted.len(), "");

    let taint = Taint::from_lock(outcomes.get(LOCK_TASK));
    let mut points = BlisPoints::new();
    let mut tables = PointTables::new();
    for (task, outcome) in &outcomes {
        if let Ok(Rendered::Output(out)) = outcome {
            if !out.blis_points.is_empty() {
                points.insert(task.to_string(), out.blis_points.clone());
            }
            if !out.points.is_empty() {
                tables.insert(task.to_string(), out.points.clone());
            }
        }
    }
    let results = selected
        .into_iter()
        .map(|f| {
            let mut r = judge(manifest, f, cx, &outcomes, &taint);
            // Only a refusal has a reason to be refused.
            if r.status != Status::Refused {
                r.refusal = None;
            }
            r
        })
        .collect();
    (results, points, tables)
}

/// Whether `--only <only>` selects the figure `id`: the figure of that id, or a group, every
/// figure below `only/`; the trailing `/` may be left out where no figure has exactly that id.
pub fn selects(manifest: &Manifest, only: &str, id: &str) -> bool {
    id == only
        || id.strip_prefix(only).is_some_and(|below| {
            only.ends_with('/') || (below.starts_with('/') && !manifest.figures.iter().any(|f| f.id == only))
        })
}

fn trees_present(inputs: &Inputs) -> bool {
    [InputKind::Catalog, InputKind::Registry, InputKind::Scenarios].into_iter().all(|k| inputs.present(k))
}

/// Renders a task twice; the two renderings must be byte-identical.
fn render_twice(renderer: &dyn Renderer, task: &str) -> Result<Rendered, String> {
    let first = renderer.render(task).map_err(|e| format!("{e:#}"))?;
    let second = renderer.render(task).map_err(|e| format!("{e:#}"))?;
    if first != second {
        return Err(format!("not deterministic: two renderings differ; {}", first_difference(&first, &second)));
    }
    serde_json::from_str(&first).map_err(|e| format!("unreadable rendering of `{task}`: {e}"))
}

/// Where two renderings part: line by line, including inside the report text; else the point
/// whose record differs (a simulator's noise the report's rounding hid), named by its label
/// and key; else the first field of the rendering's JSON that differs.
pub fn first_difference(a: &str, b: &str) -> String {
    let expand = |s: &str| -> Vec<String> {
        match serde_json::from_str::<Rendered>(s) {
            Ok(Rendered::Output(out)) => {
                let mut lines: Vec<String> = out.report.lines().map(str::to_string).collect();
                lines.extend(out.values.iter().map(|(k, v)| format!("value {k} = {v:?}")));
                lines
            }
            _ => s.lines().map(str::to_string).collect(),
        }
    };
    let (lines_a, lines_b) = (expand(a), expand(b));
    for i in 0..lines_a.len().max(lines_b.len()) {
        let (x, y) = (lines_a.get(i), lines_b.get(i));
        if x != y {
            let show = |l: Option<&String>| l.map_or("<end>".to_string(), |s| format!("{s:?}"));
            return format!("first differing line {}: {} vs {}", i + 1, show(x), show(y));
        }
    }
    let (Ok(a), Ok(b)) = (serde_json::from_str::<serde_json::Value>(a), serde_json::from_str::<serde_json::Value>(b))
    else {
        return "the renderings differ, and one is not JSON".to_string();
    };
    let no_points = serde_json::Value::Array(Vec::new());
    let points = |v: &serde_json::Value| v.pointer("/output/blis_points").unwrap_or(&no_points).clone();
    let (pa, pb) = (points(&a), points(&b));
    if let (Some(pa), Some(pb)) = (pa.as_array(), pb.as_array()) {
        if let Some((p, q)) = pa.iter().zip(pb).find(|(p, q)| p != q) {
            let label = p.get("label").and_then(|l| l.as_str()).unwrap_or("?");
            let key = p.get("key").and_then(|k| k.as_str()).unwrap_or_default();
            let field = first_json_difference(p, q, String::new()).unwrap_or_default();
            return format!(
                "the point {label} (key {}) differs between the renderings: {field}",
                &key[..key.len().min(12)]
            );
        }
        if pa.len() != pb.len() {
            return format!("the renderings hold {} and {} point records", pa.len(), pb.len());
        }
    }
    match first_json_difference(&a, &b, String::new()) {
        Some(field) => format!("first differing field {field}"),
        None => "the renderings differ only in the layout of their JSON".to_string(),
    }
}

/// The first leaf at which `a` and `b` differ, as `path: a vs b` (each value cut to 120
/// characters), `None` when they are equal.
fn first_json_difference(a: &serde_json::Value, b: &serde_json::Value, path: String) -> Option<String> {
    use serde_json::Value as J;
    if a == b {
        return None;
    }
    match (a, b) {
        (J::Object(x), J::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            keys.into_iter().find_map(|k| {
                let missing = J::String("<absent>".into());
                first_json_difference(x.get(k).unwrap_or(&missing), y.get(k).unwrap_or(&missing), format!("{path}/{k}"))
            })
        }
        (J::Array(x), J::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_json_difference(p, q, format!("{path}/{i}")))
        }
        _ => {
            let cut = |v: &J| v.to_string().chars().take(120).collect::<String>();
            Some(format!("{}: {} vs {}", if path.is_empty() { "/" } else { &path }, cut(a), cut(b)))
        }
    }
}

/// What the lock verification says about the inputs every other figure reads: per input, why
/// it cannot be trusted (keys `<section>.ok` of harness::lock's task output).
#[derive(Default)]
struct Taint {
    failed: BTreeMap<InputKind, String>,
}

impl Taint {
    fn from_lock(lock: Option<&Result<Rendered, String>>) -> Taint {
        let trees = [InputKind::Catalog, InputKind::Registry, InputKind::Scenarios];
        let mut taint = Taint::default();
        match lock {
            None | Some(Ok(Rendered::Refused(_))) => {}
            Some(Err(e)) | Some(Ok(Rendered::Failed(e))) => {
                for kind in trees {
                    taint.failed.insert(kind, format!("the lock could not be verified: {e}"));
                }
            }
            Some(Ok(Rendered::Output(out))) => {
                for kind in trees.into_iter().chain([InputKind::Measurements]) {
                    let name = kind.name();
                    if out.values.get(&format!("{name}.ok")) == Some(&Value::Check(false)) {
                        let why = if kind == InputKind::Measurements {
                            "the corpora differ from the ones pinned in lockfiles/upstream.lock (see inputs/lock-verify): a different corpus, not a regression".to_string()
                        } else {
                            format!("the {name} tree does not match lockfiles/upstream.lock (see inputs/lock-verify)")
                        };
                        taint.failed.insert(kind, why);
                    }
                }
            }
        }
        taint
    }
}

/// The first input a figure needs that nobody supplied: the refusal text and the input.
fn missing_input(manifest: &Manifest, f: &Figure, inputs: &Inputs) -> Option<(String, Need)> {
    let task_needs = f.task.as_deref().and_then(tasks::find).map_or(&[][..], |d| d.needs);
    let mut needs: Vec<&str> = task_needs.iter().map(|k| k.name()).collect();
    needs.extend(f.needs.iter().map(String::as_str));
    for need in needs {
        if let Some(kind) = crate::inputs::InputKind::from_name(need) {
            if !inputs.present(kind) {
                let detail = match inputs.get(kind) {
                    Some(i) => format!("{} not found", i.source_label()),
                    None => "not supplied".to_string(),
                };
                let need = Need { what: kind.describe().to_string(), supplied_by: kind.remedy(), permanent: false };
                return Some((Refusal::new(kind, "this figure", detail).to_string(), need));
            }
        } else if let Some(ext) = manifest.external_inputs.get(need) {
            let text = format!("this figure needs {}: {}", ext.what, ext.supplied_by);
            let need = Need { what: ext.what.clone(), supplied_by: ext.supplied_by.clone(), permanent: true };
            return Some((text, need));
        }
    }
    None
}

fn judge(
    manifest: &Manifest,
    f: &Figure,
    cx: &Context,
    outcomes: &BTreeMap<&str, Result<Rendered, String>>,
    taint: &Taint,
) -> FigureResult {
    let mut result = FigureResult {
        detail: String::new(),
        document: f.document.clone(),
        expected_source: f.expected_source(),
        id: f.id.clone(),
        ours: None,
        published: f.expect.spelling(),
        refusal: Some(RefusalKind::MissingInput),
        section: f.section.clone(),
        status: Status::Refused,
        what: f.what.clone(),
        need: None,
    };
    if let Some((refusal, need)) = missing_input(manifest, f, &cx.inputs) {
        result.detail = refusal;
        if need.permanent {
            result.refusal = Some(RefusalKind::Permanent);
        }
        result.need = Some(need);
        return result;
    }
    let (Some(task), Some(key)) = (f.task.as_deref(), f.key.as_deref()) else {
        result.detail = "no task computes this figure".into();
        result.refusal = Some(RefusalKind::Permanent);
        return result;
    };
    let needs = tasks::find(task).map_or(&[][..], |d| d.needs);
    result.status = Status::Mismatch;
    if task != LOCK_TASK {
        let untrusted_tree = needs.iter().filter(|k| **k != InputKind::Measurements).find_map(|k| taint.failed.get(k));
        if let Some(why) = untrusted_tree {
            result.detail = format!("not reproducible: {why}");
            return result;
        }
    }
    let output = match outcomes.get(task) {
        Some(Ok(Rendered::Output(out))) => out,
        Some(Ok(Rendered::Refused(r))) => {
            result.status = Status::Refused;
            result.detail = r.clone();
            return result;
        }
        Some(Ok(Rendered::Failed(e))) | Some(Err(e)) => {
            result.detail = format!("task `{task}` failed: {e}");
            return result;
        }
        None => {
            result.detail = format!("task `{task}` did not run");
            return result;
        }
    };
    let Some(value) = output.values.get(key) else {
        // A task may refuse one value for a stated reason (`<key>.refused`), grouped under
        // `refused.what` / `refused.by` (e.g. published BLIS figures a release cannot produce).
        if let Some(Value::Text(why)) = output.values.get(&format!("{key}.refused")) {
            let text = |k: &str| match output.values.get(k) {
                Some(Value::Text(t)) => t.clone(),
                _ => String::new(),
            };
            result.status = Status::Refused;
            result.detail = why.clone();
            if text(REFUSED_KIND) == GIVEN_INPUT_CANNOT {
                result.refusal = Some(RefusalKind::GivenInputCannot);
            }
            result.need = Some(Need { what: text(REFUSED_WHAT), supplied_by: text(REFUSED_BY), permanent: false })
                .filter(|n| !n.what.is_empty());
            return result;
        }
        result.detail = match output.values.get(&format!("{key}.why")) {
            Some(Value::Text(why)) => format!("task `{task}` produced no value `{key}`: {why}"),
            _ => format!("task `{task}` produced no value `{key}`"),
        };
        return result;
    };
    let (ours, matches, tolerance_note) = compare(manifest, f, value);
    result.ours = Some(ours);
    result.status = if matches { Status::Ok } else { Status::Mismatch };
    let mut notes: Vec<String> = tolerance_note.into_iter().collect();
    if needs.contains(&InputKind::Measurements) {
        if let Some(why) = taint.failed.get(&InputKind::Measurements) {
            notes.push(why.clone());
        }
    }
    // A task may say why a value is off under `<key>.why`.
    if !matches {
        if let Some(Value::Text(why)) = output.values.get(&format!("{key}.why")) {
            notes.push(why.clone());
        }
    }
    // The rendering must read the same on every machine, so whether the published digits
    // could be checked here is said on the figure's line, not in the task's output.
    if task == MANIFEST_TASK {
        notes.extend(super::hygiene::digits_unchecked());
    }
    // The manifest's note (e.g. a flagged definition) stands whatever the verdict.
    if let Some(note) = &f.note {
        notes.push(note.clone());
    }
    result.detail = notes.join("; ");
    result
}

/// (our value as text, whether it matches, the tolerance applied).
fn compare(manifest: &Manifest, f: &Figure, value: &Value) -> (String, bool, Option<String>) {
    match (&f.expect, value) {
        (Expect::Number(published), Value::Number(ours)) => {
            let decimals = published.split_once('.').map_or(0, |(_, d)| d.len());
            let tolerance = manifest.tolerance_of(f).unwrap_or(0.0);
            let wanted: f64 = published.parse().unwrap_or(f64::NAN);
            let ok = (ours - wanted).abs() <= tolerance + 1e-12;
            (format!("{ours:.decimals$}"), ok, Some(format!("tolerance ±{tolerance}")))
        }
        (Expect::Count(published), Value::Count(ours)) => (ours.to_string(), ours == published, None),
        (Expect::Check(published), Value::Check(ours)) => (ours.to_string(), ours == published, None),
        (Expect::Text(published), Value::Text(ours)) => {
            let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
            (ours.clone(), norm(ours) == norm(published), None)
        }
        (_, other) => {
            (format!("{other:?}"), false, Some("the task's value is not of the kind the manifest expects".into()))
        }
    }
}

#[cfg(test)]
mod tests;
