//! `cargo xtask explain ID`: one gate figure opened on one screen: what it is, the expected
//! value and where it comes from, the tolerance and why, the task and the definition, the
//! inputs with their lock pins, our value with its n and interval, the sweeps that contribute
//! most to it (from the per-point table, `score::points`), and the snapshot that pins it.

use super::evaluate::{self, GateOptions, RefusalKind, Rendered, Renderer, Status};
use super::manifest::{Figure, Manifest};
use super::tasks::{self, Context};
use crate::inputs::InputKind;
use crate::score::{points, ErrorMetric};
use crate::task::{exit, TaskOutput, Value};
use oracles::tiers::Tier;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What `explain` found for an id.
pub enum Explained {
    /// One figure, and the exit code `reproduce --only ID --require-all` gives it.
    Figure { text: String, code: u8 },
    /// An id prefix: the ids under it.
    Group { text: String },
    /// No figure and no group: the nearest ids (a usage error).
    Unknown { nearest: Vec<String> },
}

/// The sweeps shown by contribution.
const TOP: usize = 10;

/// Where each task's figures are defined: the docs page and the `oracles` functions.
const DEFINITIONS: &[(&str, &str, &str)] = &[
    ("manifest", "docs/report.md", "harness::gate::consistency (no oracle: the manifest checks itself)"),
    ("generator-known-answers", "docs/fixtures.md", "oracles::numpy::RandomState::randint"),
    ("fixtures-check", "docs/fixtures.md", "oracles::workload::draw"),
    ("definition-known-answers", "docs/error-definitions.md", "oracles::accuracy"),
    ("lock-verify", "docs/lock.md", "oracles::hashing"),
    ("error-definition", "docs/error-definitions.md", "oracles::accuracy::arm_figures"),
    ("e2e-audit", "docs/error-definitions.md", "oracles::accuracy::shape_errors"),
    ("headline", "docs/scoring.md, docs/tiers.md", "oracles::scoring, oracles::tiers::sweep_tier"),
    ("headline-measured", "docs/scoring.md, docs/tiers.md", "oracles::scoring, oracles::tiers::sweep_tier"),
    ("blis-determinism", "docs/blis-figures.md", "oracles::scoring"),
    ("blis-releases", "docs/history.md, docs/blis-figures.md", "oracles::scoring"),
    ("sensitivity", "docs/blis-figures.md", "oracles::scoring"),
];

/// Renders each task once and hands the gate the same text twice: `explain` is not the gate's
/// determinism check, and the task's output is kept for the figure's n, interval and points.
struct Once<'a> {
    cx: &'a Context,
    rendered: RefCell<BTreeMap<String, String>>,
}

impl Renderer for Once<'_> {
    fn render(&self, task: &str) -> anyhow::Result<String> {
        if let Some(text) = self.rendered.borrow().get(task) {
            return Ok(text.clone());
        }
        let text = evaluate::InProcess(self.cx).render(task)?;
        self.rendered.borrow_mut().insert(task.to_string(), text.clone());
        Ok(text)
    }
}

/// Explains `id` of `manifest` with the inputs of `cx`.
pub fn explain(manifest: &Manifest, cx: &Context, id: &str) -> anyhow::Result<Explained> {
    let Some(figure) = manifest.figures.iter().find(|f| f.id == id) else {
        let under: Vec<&Figure> = manifest.figures.iter().filter(|f| evaluate::selects(manifest, id, &f.id)).collect();
        if under.is_empty() {
            return Ok(Explained::Unknown { nearest: super::ids::nearest_ids(manifest, id) });
        }
        let mut text = format!("{} figures under {id} (explain one by its id):\n", under.len());
        for f in under {
            let _ = writeln!(text, "  {:<48} {}", f.id, f.what);
        }
        return Ok(Explained::Group { text });
    };
    let renderer = Once { cx, rendered: RefCell::new(BTreeMap::new()) };
    let only = [figure.id.clone()];
    let (results, _, _) =
        evaluate::evaluate_with_points(manifest, cx, &renderer, &GateOptions { only: &only }, &mut |_, _, _| {});
    let result = results.into_iter().next().ok_or_else(|| anyhow::anyhow!("the gate gave no result for {id}"))?;
    let output: Option<TaskOutput> =
        figure.task.as_ref().and_then(|t| renderer.rendered.borrow().get(t).cloned()).and_then(|text| {
            match serde_json::from_str::<Rendered>(&text) {
                Ok(Rendered::Output(out)) => Some(out),
                _ => None,
            }
        });

    let mut text = String::new();
    let _ = writeln!(text, "{}  {}", figure.id, figure.what);
    let source = match figure.expected_source() {
        super::manifest::ExpectedSource::Published if figure.section.is_empty() || figure.section == "-" => {
            format!("published in {}", figure.document)
        }
        super::manifest::ExpectedSource::Published => format!("published in {} §{}", figure.document, figure.section),
        super::manifest::ExpectedSource::ComputedHere => {
            format!("computed here and committed to harness/figures.yaml; {}", figure.document)
        }
    };
    let _ = writeln!(text, "expected    {} ({source})", figure.expect.spelling());
    if figure.published_text() != figure.expect.spelling() {
        let _ = writeln!(text, "as written  {}", figure.published_text());
    }
    let _ = writeln!(text, "tolerance   {}", tolerance(manifest, figure));
    let task = figure.task.as_deref().unwrap_or("-");
    let _ = writeln!(text, "task        {task}, value {}", figure.key.as_deref().unwrap_or("-"));
    match DEFINITIONS.iter().find(|(t, _, _)| *t == task) {
        Some((_, page, oracle)) => {
            let _ = writeln!(text, "definition  {page}\n            {}", definition(oracle, figure.key.as_deref()));
        }
        None => text += "definition  none here: no task of this tool computes this figure\n",
    }
    text += &inputs_lines(manifest, cx, figure);
    let word = super::report::status_word(result.status).trim();
    match (&result.status, &result.ours) {
        (Status::Refused, _) | (_, None) => {
            let _ = writeln!(text, "computed    {word}: {}", result.detail);
        }
        (_, Some(ours)) => {
            let detail = if result.detail.is_empty() { String::new() } else { format!("; {}", result.detail) };
            let _ =
                writeln!(text, "computed    {ours}{}  {word}{detail}", spread(output.as_ref(), figure.key.as_deref()));
        }
    }
    if let (Some(out), Some(key), Status::Ok | Status::Mismatch) = (&output, figure.key.as_deref(), result.status) {
        text += &contributions(out, key);
    }
    let snapshot = figure.snapshot.as_deref().map_or("none".to_string(), |s| format!("snapshots/{s}.snap"));
    let _ = writeln!(text, "snapshot    {snapshot}");
    let code = match (result.status, result.refusal) {
        (Status::Ok, _) => exit::OK,
        (Status::Mismatch, _) => exit::FAILED,
        (Status::Refused, Some(RefusalKind::MissingInput)) => exit::REFUSED,
        (Status::Refused, _) => exit::OK,
    };
    Ok(Explained::Figure { text, code })
}

/// `last-digit: |ours - expected| <= 0.005; <the first sentence of why>`.
fn tolerance(manifest: &Manifest, figure: &Figure) -> String {
    let Some(name) = figure.tolerance.as_deref() else { return "exact (no tolerance named)".into() };
    let why = manifest.tolerances.get(name).map(|t| t.why.as_str()).unwrap_or("");
    // The first clause: the whole why is in the manifest, the screen holds one line of it.
    let first = why.split([';', '.']).next().unwrap_or(why).trim();
    match manifest.tolerance_of(figure) {
        Some(abs) => format!("{name}: |ours - expected| <= {abs}; {first}"),
        None => format!("{name}; {first}"),
    }
}

/// The oracle functions, narrowed to the metric for a headline cell.
fn definition(oracle: &str, key: Option<&str>) -> String {
    let Some((_, m)) = key.and_then(cell) else { return oracle.to_string() };
    let errors = match m {
        ErrorMetric::TpotShape | ErrorMetric::TtftShape => "oracles::scoring::shape_errors",
        ErrorMetric::TpotMape | ErrorMetric::TtftMape => "oracles::scoring::level_errors",
    };
    let interval = if key.is_some_and(|k| k.ends_with(".ci_low") || k.ends_with(".ci_high")) {
        ", oracles::bootstrap::interval"
    } else {
        ""
    };
    format!("{errors}, then oracles::scoring::mean_abs{interval}; tiers: oracles::tiers::sweep_tier")
}

/// `(tier, metric)` when `key` is a headline cell `<tier>.<arm>.<metric>[.ci_low|.ci_high]`.
fn cell(key: &str) -> Option<(Tier, ErrorMetric)> {
    let parts: Vec<&str> = key.split('.').collect();
    let (first, third) = (*parts.first()?, *parts.get(2)?);
    let tier = Tier::ORDER.into_iter().find(|t| t.key() == first)?;
    let metric = ErrorMetric::ALL.into_iter().find(|m| m.key() == third)?;
    Some((tier, metric))
}

/// The inputs the figure reads and their pins in the lock; an external input (no flag of this
/// tool supplies it) with what it is and who could supply it.
fn inputs_lines(manifest: &Manifest, cx: &Context, figure: &Figure) -> String {
    let mut kinds: Vec<InputKind> =
        figure.task.as_deref().and_then(tasks::find).map(|d| d.needs.to_vec()).unwrap_or_default();
    kinds.extend(figure.needs.iter().filter_map(|n| InputKind::from_name(n)));
    let external: Vec<String> = figure
        .needs
        .iter()
        .filter_map(|n| manifest.external_inputs.get(n).map(|e| format!("{n}: {}: {}", e.what, e.supplied_by)))
        .collect();
    if kinds.is_empty() && external.is_empty() {
        return "inputs      none beyond this repository\n".into();
    }
    let lock = crate::lock::load(&cx.lock).ok();
    let mut out = String::new();
    for (i, e) in external.iter().enumerate() {
        let lead = if i == 0 { "inputs " } else { "       " };
        let _ = writeln!(out, "{lead}     {e}");
    }
    let kinds_lead = external.is_empty();
    for (i, kind) in kinds.iter().enumerate() {
        let lead = if i == 0 && kinds_lead { "inputs " } else { "       " };
        let given = if cx.inputs.present(*kind) { "given" } else { "NOT GIVEN" };
        let pin = match (kind, &lock) {
            (InputKind::Blis, _) => match cx.inputs.get(InputKind::Blis) {
                Some(b) => crate::blis::binary::digest(&b.path)
                    .map_or_else(|e| format!("unreadable: {e}"), |d| format!("sha256 {}", &d[..12])),
                None => "no lock row: pass --blis PATH".into(),
            },
            (InputKind::Releases, _) => "each release checked against lockfiles/blis-releases.lock".into(),
            (_, Some(lock)) => {
                let u = lock.get(*kind);
                let files = headline_files(figure.task.as_deref(), *kind);
                let hashes = if files.is_empty() {
                    let manifest = oracles::hashing::sha256(u.manifest_text().as_bytes()).to_hex();
                    format!(" {} files, manifest sha256 {}", u.files.len(), &manifest[..12])
                } else {
                    let of = |f: &str| {
                        u.files
                            .iter()
                            .find(|e| e.path == f)
                            .map_or("not locked".to_string(), |e| e.digest.to_hex()[..12].to_string())
                    };
                    // One file a line: the screen is narrow.
                    let pad = " ".repeat(35);
                    let lines: Vec<String> = files.iter().map(|f| format!("\n{pad}{f} {}", of(f))).collect();
                    lines.concat()
                };
                format!("{}@{}:{hashes}", u.repo_basename(), u.short_commit())
            }
            (_, None) => "the lock is unreadable".into(),
        };
        let _ = writeln!(out, "{lead}     {:<13}{given:<10}{pin}", kind.name());
    }
    out
}

/// The corpus files a headline task reads (their lock hashes are shown one by one).
fn headline_files(task: Option<&str>, kind: InputKind) -> Vec<&'static str> {
    match (task, kind) {
        (Some("headline" | "headline-measured"), InputKind::Measurements) => {
            vec![crate::score::E2E_FILE, crate::score::ABSOLUTES_FILE, crate::score::SETTINGS_FILE]
        }
        _ => Vec::new(),
    }
}

/// ` [low, high], n 456 comparisons over 113 sweeps` for a headline cell.
fn spread(out: Option<&TaskOutput>, key: Option<&str>) -> String {
    let (Some(out), Some(key)) = (out, key) else { return String::new() };
    let Some((tier, m)) = cell(key) else { return String::new() };
    let number = |k: String| match out.values.get(&k) {
        Some(Value::Number(v)) => Some(*v),
        _ => None,
    };
    let count = |k: String| match out.values.get(&k) {
        Some(Value::Count(v)) => Some(*v),
        _ => None,
    };
    let mut s = String::new();
    let base = key.trim_end_matches(".ci_low").trim_end_matches(".ci_high");
    if let (Some(low), Some(high)) = (number(format!("{base}.ci_low")), number(format!("{base}.ci_high"))) {
        let _ = write!(s, " [{}, {}]", crate::score::intervals::pct(low), crate::score::intervals::pct(high));
    }
    if let (Some(n), Some(sweeps)) =
        (count(format!("{}.{}", tier.key(), m.count_key())), count(format!("{}.sweeps", tier.key())))
    {
        let _ = write!(s, ", n {n} comparisons over {sweeps} sweeps");
    }
    s
}

/// The sweeps contributing most to a headline cell's mean, from the task's per-point rows.
fn contributions(out: &TaskOutput, key: &str) -> String {
    let Some((tier, m)) = cell(key) else { return String::new() };
    let Some(arm) = key.split('.').nth(1) else { return String::new() };
    let rows = match points::from_values(&out.points) {
        Ok(rows) => rows,
        Err(e) => return format!("contributions: the task's point rows are unreadable: {e:#}\n"),
    };
    let ranked = points::contributions(&rows, tier, arm, m);
    if ranked.is_empty() {
        return String::new();
    }
    let mean: f64 = ranked.iter().map(|c| c.share).sum();
    let mut text = format!(
        "top {} of {} sweeps by contribution to the mean {} (share: the sweep's sum |e| / n; every row: --points):\n",
        TOP.min(ranked.len()),
        ranked.len(),
        crate::score::intervals::pct(mean)
    );
    for c in ranked.iter().take(TOP) {
        let _ = writeln!(
            text,
            "  {:>6}  {} {}  n {}, mean |e| {}, worst c={} {:+.2}%",
            crate::score::intervals::pct(c.share),
            c.scenario,
            c.label,
            c.n,
            crate::score::intervals::pct(c.sum_abs / c.n as f64),
            c.worst.0,
            c.worst.1
        );
    }
    text
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_task_has_its_definition() {
        for task in super::tasks::names() {
            assert!(super::DEFINITIONS.iter().any(|(t, _, _)| *t == task), "{task} has no row in DEFINITIONS");
        }
    }

    #[test]
    fn a_headline_cell_key_names_its_tier_and_metric() {
        use super::{cell, ErrorMetric, Tier};
        assert_eq!(cell("all.aic.ttft_shape.ci_low"), Some((Tier::All, ErrorMetric::TtftShape)));
        assert_eq!(
            cell("measured_or_resolved.blis.tpot_mape"),
            Some((Tier::MeasuredOrResolved, ErrorMetric::TpotMape))
        );
        assert_eq!(cell("all.n_shape"), None);
        assert_eq!(cell("ttft_excursions"), None);
    }
}
