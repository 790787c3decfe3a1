//! The gate's `blis-releases` task: the history over the locked builds given, each one's
//! BLIS figures as the values of the manifest's `release_figures`.

use super::releases::{self, Listing, Version};
use super::{plan, render, run, Settings};
use crate::blis::baseline::BaselineRule;
use crate::blis::{arm, binary, RunOptions};
use crate::score::{self, ErrorMetric};
use crate::task::TaskError;
use oracles::tiers::Tier;
use std::collections::BTreeMap;

/// The gate task whose values `release_figures` of the manifest are.
pub const RELEASES_TASK: &str = "blis-releases";

/// What the `blis-releases` task takes from the manifest; the gate, which reads the manifest,
/// hands it in.
#[derive(Clone, Debug)]
pub struct ReleaseFigures {
    pub rule: BaselineRule,
    /// Per release the manifest has figures for, the value keys of those figures.
    pub keys: BTreeMap<String, Vec<String>>,
}

/// The gate's `blis-releases` task: the history over the releases the inputs supply, every
/// release's BLIS figures as values (`<tag>.<tier>.blis.<metric>`, `<tag>.<tier>.n_shape`,
/// `n_mape`, `n_ttft_shape`, `n_ttft_mape`, `<tag>.modelled_sweeps`, `<tag>.failed_points`) for
/// the manifest's `release_figures`, the report pinning the whole history. The releases are the
/// folder `--releases` names, and the one `--blis` names when it is a build
/// `lockfiles/blis-releases.lock` records (every tag of that build not in the folder). Only
/// releases whose binary has the locked SHA-256 give values: another build of a tag is named and
/// gives none; a locked release not given is refused value by value.
pub fn task_releases(inputs: &crate::inputs::Inputs, figures: &ReleaseFigures) -> crate::task::TaskResult {
    use crate::inputs::InputKind;
    let needed_for = "the history of the tagged releases";
    let locked = binary::locked_builds()?;
    let listing = given_releases(inputs, &locked, needed_for)?;
    let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?.to_path_buf();
    let registry = inputs.require_dir(InputKind::Registry, needed_for)?.to_path_buf();
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, needed_for)?.to_path_buf();
    let (corpora, scenarios) = crate::score::load_inputs(inputs)?;
    let resolved = crate::score::resolve::resolve(&corpora, &scenarios, Some(&catalog), &score::Selection::vllm(None));
    let template_binary = listing.releases.first().map(|r| r.binary.clone()).unwrap_or_default();
    let mut template = RunOptions::new(template_binary, catalog, registry);
    template.progress = crate::blis::ProgressMode::Silent;
    template.form = Some(arm::RELEASE_FORM);
    // A line as each release finishes: the gate forwards it, so a run over a folder of releases
    // (an hour cold) says how far it is rather than nothing (its points run silently).
    let started = std::time::Instant::now();
    let on_release = |tag: &str, col: &arm::Column, same_as: Option<&str>| {
        eprintln!("{}", super::release_line("blis: release ", tag, col, same_as, started.elapsed()));
    };
    let settings = Settings {
        resolved: &resolved,
        plan: plan(&resolved, &scenarios_dir, arm::RELEASE_FORM),
        template,
        rule: figures.rule.clone(),
        latency_model: None,
        on_release: &on_release,
    };
    let h = run(&listing, &settings)?;
    let figure_keys = |tag: &str| figures.keys.get(tag).cloned().unwrap_or_default();
    let mut out = crate::task::TaskOutput::default();
    let mut unlocked = Vec::new();
    for row in &h.rows {
        let Some(r) = row.ran().filter(|_| row.has_values()) else { continue };
        match locked.get(&row.tag) {
            Some(sha) if *sha == r.sha256 => {}
            Some(sha) => {
                let why = format!("{}: sha256 {} is not the locked build ({sha}): no figures", row.tag, r.sha256);
                for key in figure_keys(&row.tag) {
                    out.text(format!("{key}.why"), why.clone());
                }
                unlocked.push(why);
                continue;
            }
            None => {
                unlocked.push(format!("{}: not in lockfiles/blis-releases.lock: no figures", row.tag));
                continue;
            }
        }
        out.count(format!("{}.modelled_sweeps", row.tag), r.column.modelled_sweeps as u64);
        out.count(format!("{}.failed_points", row.tag), r.column.failed as u64);
        for tier in Tier::ORDER {
            let (_, n) = r.counts(tier);
            for m in ErrorMetric::ALL {
                if let Some(v) = r.figure(tier, m) {
                    out.number(format!("{}.{}.blis.{}", row.tag, tier.key(), m.key()), v);
                }
                out.count(format!("{}.{}.{}", row.tag, tier.key(), m.count_key()), n[&m] as u64);
            }
        }
    }
    // A release of the manifest that was not given: each of its figures refused, on one line of
    // the gate.
    let given: Vec<&str> = listing.releases.iter().map(|r| r.tag.as_str()).collect();
    let mut refused = Vec::new();
    for (tag, keys) in &figures.keys {
        if !given.contains(&tag.as_str()) {
            refused.extend(keys.iter().map(|k| (k.clone(), format!("{tag} is not among the releases given"))));
        }
    }
    for (key, why) in refused {
        out.text(format!("{key}.refused"), why);
    }
    // Every figure of a given release that got no value says why, in every report and in
    // `explain`: the gate shows `<key>.why` beside "produced no value".
    for row in &h.rows {
        let why = no_value_reason(row);
        for key in figure_keys(&row.tag) {
            let stated = [key.clone(), format!("{key}.refused"), format!("{key}.why")];
            if !stated.iter().any(|k| out.values.contains_key(k)) {
                out.text(format!("{key}.why"), why.clone());
            }
        }
    }
    out.refusal_line(
        "the locked build of each release (--releases DIR / BLIS_RELEASES with one folder per tag, or --blis PATH for one)",
        &match given.as_slice() {
            [] => "no release given".to_string(),
            tags => format!("given: {}", tags.join(", ")),
        },
    );
    out.count("releases_with_values", h.rows.iter().filter(|r| r.has_values()).count() as u64);
    out.count("distinct_runs", h.distinct_runs as u64);
    let mut report = render::markdown(&h, &settings.plan);
    for line in &unlocked {
        report += &format!("\nnot a locked build: {line}");
    }
    out.report = report;
    Ok(out)
}

/// The releases given: the folder's (`--releases`), then every tag of the `--blis` build when
/// the lock records it and the folder does not hold that tag. Refused when neither gives one.
fn given_releases(
    inputs: &crate::inputs::Inputs,
    locked: &BTreeMap<String, String>,
    needed_for: &str,
) -> Result<Listing, TaskError> {
    use crate::inputs::{InputKind, Refusal};
    let mut listing = match inputs.get(InputKind::Releases) {
        Some(_) => {
            releases::from_dir(inputs.require_dir(InputKind::Releases, needed_for)?).map_err(TaskError::Failed)?
        }
        None => Listing::default(),
    };
    let folder_given = inputs.get(InputKind::Releases).is_some();
    let refuse = |detail: String| TaskError::Refused(Refusal::new(InputKind::Releases, needed_for, detail));
    if inputs.get(InputKind::Blis).is_none() {
        return if folder_given {
            Ok(listing)
        } else {
            Err(refuse("not supplied, nor a --blis that is a locked release build".into()))
        };
    }
    let binary = binary::require(inputs, needed_for)?;
    let sha256 = binary::digest(&binary)?;
    let builds: Vec<releases::Release> = locked
        .iter()
        .filter(|(tag, sha)| **sha == sha256 && !listing.releases.iter().any(|r| &r.tag == *tag))
        .map(|(tag, _)| releases::Release { tag: tag.clone(), version: Version::parse(tag), binary: binary.clone() })
        .collect();
    if builds.is_empty() && !folder_given {
        return Err(refuse(format!(
            "not supplied, and --blis {} (sha256 {sha256}) is none of the builds lockfiles/blis-releases.lock records",
            binary.display()
        )));
    }
    listing.releases.extend(builds);
    releases::sort(&mut listing.releases);
    Ok(listing)
}

/// Why a release's figure has no value: the release could not run, no point of it gave a
/// value (the failures, counted), or its points with values fall in no sweep the figure scores.
fn no_value_reason(row: &super::Row) -> String {
    match &row.status {
        super::Status::Rejected(why) => format!("{}: not a release: {why}", row.tag),
        super::Status::Unusable(why) => {
            format!("{}: {why} (a path {}/... is in the folder of the {} binary given)", row.tag, row.tag, row.tag)
        }
        super::Status::Ran(r) if r.column.succeeded == 0 => format!(
            "{}: none of its {} planned points gave a value{}",
            row.tag,
            r.column.outcomes.len(),
            super::why_no_value(&r.column)
        ),
        super::Status::Ran(r) => format!(
            "{}: {} of its {} planned points gave a value, none in a sweep this figure scores",
            row.tag,
            r.column.succeeded,
            r.column.outcomes.len()
        ),
    }
}
