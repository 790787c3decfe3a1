//! The history as markdown (the terminal's text, snapshot-stable: no paths, no times, no cache
//! counts) and as JSON.

use super::{GroupWhy, History, Row, Status, SweepStatus};
use crate::blis::arm::Plan;
use crate::blis::baseline::Verdict;
use crate::score::intervals;
use crate::score::ErrorMetric;
use oracles::tiers::Tier;
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write as _;

fn num(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2}"))
}

fn signed(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| if v == 0.0 { "0".into() } else { format!("{v:+.2}") })
}

/// `text` as one markdown table cell or list item: a `|` escaped, a line break or other control
/// character shown as its escape, so a folder name can never end a cell or start a row.
pub fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' => out.push_str("\\|"),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// [`md`] of each tag, joined by `, `.
fn md_tags(tags: &[String]) -> String {
    tags.iter().map(|t| md(t)).collect::<Vec<_>>().join(", ")
}

fn short(sha: &str) -> &str {
    &sha[..sha.len().min(12)]
}

/// The tiers some release has a sweep in (the others get one line).
fn tiers_with_sweeps(h: &History) -> Vec<Tier> {
    Tier::ORDER
        .iter()
        .copied()
        .filter(|&t| {
            h.rows
                .iter()
                .filter_map(Row::ran)
                .any(|r| r.counts(t).0 > 0 && r.figure(t, ErrorMetric::TpotMape).is_some())
        })
        .collect()
}

/// Short names for the planned sweeps (`S1`...), in plan order, for the grid.
pub fn sweep_names(plan: &Plan) -> Vec<(String, String)> {
    let mut sweeps: Vec<(String, String)> = Vec::new();
    for (k, _) in &plan.points {
        let s = (k.scenario.clone(), k.label.clone());
        if !sweeps.contains(&s) {
            sweeps.push(s);
        }
    }
    sweeps
}

pub fn markdown(h: &History, plan: &Plan) -> String {
    let mut out = String::from("# BLIS across releases\n\n");
    let pin = match &h.pinned_latency_model {
        Some(m) => format!("pinned with --latency-model {m} for every release that takes the flag"),
        None => "each release's default, read from its own `blis run --help`".into(),
    };
    let _ = writeln!(
        out,
        "- points: the same {} planned points of {} sweeps for every release, form {}\n- latency model: {pin}\n- releases: {} listed, {} ran ({} through their own binary), {} not run",
        h.planned_points,
        h.planned_sweeps,
        h.form.name(),
        h.rows.len(),
        h.rows.iter().filter(|r| r.ran().is_some()).count(),
        h.distinct_runs,
        h.rows.iter().filter(|r| r.ran().is_none()).count(),
    );
    out.push_str("\n## Releases, in version order\n\n");
    out.push_str(
        "| release | sha256 | latency model | sweeps modelled | not modelled | failed |\n|---|---|---|---|---|---|\n",
    );
    for row in &h.rows {
        match &row.status {
            Status::Ran(r) => {
                let sweeps = r.sweeps(plan);
                let count = |f: fn(&SweepStatus) -> bool| sweeps.iter().filter(|(_, s)| f(s)).count();
                let same = r.same_as.as_ref().map_or(String::new(), |t| format!(" (= {}, simulated once)", md(t)));
                let _ = writeln!(
                    out,
                    "| {} | {}{same} | {} | {} | {} | {} |",
                    md(&row.tag),
                    short(&r.sha256),
                    r.latency_model,
                    count(|s| *s == SweepStatus::Modelled),
                    count(|s| matches!(s, SweepStatus::NotModelled(_))),
                    count(|s| matches!(s, SweepStatus::Failed(_))),
                );
            }
            Status::Unusable(why) => {
                let _ = writeln!(out, "| {} | - | - | not run: {} | | |", md(&row.tag), md(why));
            }
            Status::Rejected(why) => {
                let _ = writeln!(out, "| {} | - | - | not a release: {} | | |", md(&row.tag), md(why));
            }
        }
    }
    for tier in Tier::ORDER {
        if !tiers_with_sweeps(h).contains(&tier) {
            let _ = writeln!(out, "\n## {}: no release has a value on a sweep of this tier", tier.title());
            continue;
        }
        let _ = writeln!(out, "\n## {}: BLIS mean |e| in %\n", tier.title());
        out.push_str("| release | sweeps | n (shape / mape) | TPOT shape | TPOT mape | TTFT shape | TTFT mape |\n|---|---|---|---|---|---|---|\n");
        for row in &h.rows {
            let Some(r) = row.ran().filter(|_| row.has_values()) else { continue };
            let (sweeps, n) = r.counts(tier);
            let _ = writeln!(
                out,
                "| {} | {sweeps} | {} / {} | {} | {} | {} | {} |",
                md(&row.tag),
                n[&ErrorMetric::TpotShape],
                n[&ErrorMetric::TpotMape],
                num(r.figure(tier, ErrorMetric::TpotShape)),
                num(r.figure(tier, ErrorMetric::TpotMape)),
                num(r.figure(tier, ErrorMetric::TtftShape)),
                num(r.figure(tier, ErrorMetric::TtftMape)),
            );
        }
    }
    groups(&mut out, h);
    steps(&mut out, h);
    firsts(&mut out, h);
    grid(&mut out, h, plan);
    reasons(&mut out, h, plan);
    out
}

fn groups(out: &mut String, h: &History) {
    out.push_str("\n## Releases that behave as one\n\n");
    if h.groups.is_empty() {
        out.push_str("none: every release with values differs from every other on some point\n");
    }
    for g in &h.groups {
        let why = match &g.why {
            GroupWhy::ByteIdentical { sha256 } => {
                format!("byte-identical binaries (sha256 {}) and release files: simulated once", short(sha256))
            }
            GroupWhy::SameMetrics { binaries } => format!(
                "{}; every planned point gave the same TPOT, TTFT and request counts",
                match *binaries {
                    1 => "one binary with different release files",
                    n if n == g.tags.len() => "different binaries",
                    _ => "different binaries or release files",
                }
            ),
        };
        let _ = writeln!(out, "- {}: {why}", md_tags(&g.tags));
    }
}

fn steps(out: &mut String, h: &History) {
    let _ = writeln!(
        out,
        "\n## Release to release\n\nEach release against the one before it that has values, by the baseline rule \
         (docs/baseline.md): a held figure is worse when it rises by more than {} points and the 95% paired \
         interval ({} resamples over the sweeps both model) lies above zero; better symmetrically. Held: {}.\n",
        h.rule.margin,
        h.rule.resamples,
        h.rule.figures.join(", ")
    );
    for s in &h.steps {
        let (from, to) = (md(&h.rows[s.from].tag), md(&h.rows[s.to].tag));
        let latency = match &s.latency_change {
            Some((a, b)) => format!("; the latency model that ran changed: {a} -> {b}"),
            None => String::new(),
        };
        if s.identical {
            let files =
                if s.same_files { "" } else { " (the metrics files' bytes differ, in fields the arm does not read)" };
            let _ = writeln!(out, "- {from} -> {to}: identical on every planned point{files}{latency}");
            continue;
        }
        let moved: Vec<_> = s.comparison.figures.iter().filter(|f| f.verdict != Verdict::NotComputed).collect();
        let _ = writeln!(out, "- {from} -> {to}: the metrics differ{latency}");
        if let Some(line) = attribution_line(h, s) {
            let _ = writeln!(out, "  - {line}");
        }
        for f in moved {
            let interval = match &f.interval {
                Some(Ok(i)) => intervals::bracket(i),
                Some(Err(why)) => why.clone(),
                None => "-".into(),
            };
            let _ = writeln!(
                out,
                "  - {}: {} -> {} ({}, 95% {interval}): {}{}",
                f.key,
                num(f.baseline),
                num(f.candidate),
                signed(f.delta()),
                f.verdict.word(),
                if f.held { "" } else { " (not held)" }
            );
        }
    }
    if h.steps.is_empty() {
        out.push_str("- fewer than two releases have values: nothing to compare\n");
    }
}

/// What pinning the earlier release's latency model on the later one showed.
fn attribution_line(h: &History, s: &super::Step) -> Option<String> {
    let a = s.attribution.as_ref()?;
    let (from, to) = (md(&h.rows[s.from].tag), md(&h.rows[s.to].tag));
    if let Some(why) = &a.not_made {
        return Some(format!(
            "whether the change of the default latency model alone moved these figures could not be told: {}",
            md(why)
        ));
    }
    Some(match &a.comparison {
        None => format!(
            "{to} with --latency-model {} pinned gives {from}'s metrics on every planned point: the change of the default latency model alone moved these figures",
            a.pinned
        ),
        Some(c) => {
            let moved: Vec<String> = c
                .figures
                .iter()
                .filter(|f| f.verdict != Verdict::NotComputed && f.delta() != Some(0.0))
                .map(|f| format!("{} {} -> {} ({})", f.key, num(f.baseline), num(f.candidate), signed(f.delta())))
                .collect();
            format!(
                "{to} with --latency-model {} pinned still differs from {from} ({}): the latency model itself changed, not only the default",
                a.pinned,
                if moved.is_empty() { "on some point".to_string() } else { moved.join("; ") }
            )
        }
    })
}

fn firsts(out: &mut String, h: &History) {
    let _ = writeln!(
        out,
        "\n## First release at which each held figure moved beyond the margin ({} points)\n",
        h.rule.margin
    );
    for figure in &h.rule.figures {
        let computed = h
            .steps
            .iter()
            .any(|s| s.comparison.figures.iter().any(|f| &f.key == figure && f.verdict != Verdict::NotComputed));
        if !computed {
            let _ = writeln!(out, "- {figure}: not computed (no two releases have a value on a sweep of its tier)");
            continue;
        }
        for verdict in [Verdict::Worse, Verdict::Better] {
            let word = if verdict == Verdict::Worse { "worse" } else { "better" };
            match h.firsts.iter().find(|f| &f.figure == figure && f.verdict == verdict) {
                None => {
                    let _ = writeln!(out, "- {figure}: never {word} over {} steps", h.steps.len());
                }
                Some(first) => {
                    let step = &h.steps[first.step];
                    let f =
                        step.comparison.figures.iter().find(|f| &f.key == figure).expect("the first names a figure");
                    let cause = match (&step.latency_change, &step.attribution) {
                        (Some(_), Some(a)) if a.not_made.is_some() => format!(
                            " (the default latency model changed; the attribution could not be made: the re-run with {} pinned gave no value)",
                            a.pinned
                        ),
                        (Some(_), Some(a)) if a.same_as_earlier => format!(
                            " (a change of the default latency model alone: with {} pinned the two agree on every point)",
                            a.pinned
                        ),
                        (Some(_), Some(a)) => format!(
                            " (the default latency model changed, and with {} pinned the releases still differ: the model changed too)",
                            a.pinned
                        ),
                        (Some((a, b)), None) => format!(" (the latency model that ran changed: {a} -> {b})"),
                        (None, _) => " (the same latency model ran: the simulator or its files changed)".into(),
                    };
                    let _ = writeln!(
                        out,
                        "- {figure}: first {word} at {} (from {}): {} -> {} ({}){cause}",
                        md(&h.rows[step.to].tag),
                        md(&h.rows[step.from].tag),
                        num(f.baseline),
                        num(f.candidate),
                        signed(f.delta())
                    );
                    let moved: Vec<String> = step
                        .comparison
                        .moved_most(f)
                        .iter()
                        .map(|(s, d)| format!("{} {} {}", s.scenario, s.label, signed(Some(*d))))
                        .collect();
                    if !moved.is_empty() {
                        let _ = writeln!(out, "  - moved most: {}", moved.join("; "));
                    }
                }
            }
        }
    }
}

fn grid(out: &mut String, h: &History, plan: &Plan) {
    let sweeps = sweep_names(plan);
    let with_values: Vec<&Row> = h.rows.iter().filter(|r| r.has_values()).collect();
    if with_values.is_empty() {
        return;
    }
    let modelled: Vec<usize> = (0..sweeps.len())
        .filter(|&i| {
            with_values.iter().any(|r| r.ran().unwrap().per_sweep(ErrorMetric::TpotMape).contains_key(&sweeps[i]))
        })
        .collect();
    out.push_str("\n## Per sweep (the sweeps some release has values for)\n\n");
    for (k, &i) in modelled.iter().enumerate() {
        let _ = writeln!(out, "- S{}: {} {}", k + 1, sweeps[i].0, sweeps[i].1);
    }
    for m in [ErrorMetric::TpotShape, ErrorMetric::TtftShape] {
        let _ = writeln!(out, "\n{} error per sweep (mean |e|, %; - no value)\n", m.title());
        let head: Vec<String> = (1..=modelled.len()).map(|k| format!("S{k}")).collect();
        let _ = writeln!(out, "| release | {} |\n|---|{}", head.join(" | "), "---|".repeat(head.len()));
        for row in &with_values {
            let per = row.ran().unwrap().per_sweep(m);
            let cells: Vec<String> = modelled.iter().map(|i| num(per.get(&sweeps[*i]).copied())).collect();
            let _ = writeln!(out, "| {} | {} |", md(&row.tag), cells.join(" | "));
        }
    }
}

/// The reasons sweeps were not modelled or failed, releases with the same reasons together.
fn reasons(out: &mut String, h: &History, plan: &Plan) {
    let mut by_reasons: Vec<(BTreeMap<String, usize>, Vec<String>)> = Vec::new();
    for row in &h.rows {
        let Some(r) = row.ran() else { continue };
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        for (_, s) in r.sweeps(plan) {
            match s {
                SweepStatus::NotModelled(why) => {
                    let why = why.strip_prefix("not modelled by this release: ").unwrap_or(&why);
                    *reasons.entry(format!("not modelled: {why}")).or_default() += 1
                }
                SweepStatus::Failed(why) => *reasons.entry(format!("failed: {why}")).or_default() += 1,
                SweepStatus::Modelled => {}
            }
        }
        match by_reasons.iter_mut().find(|(r, _)| *r == reasons) {
            Some((_, tags)) => tags.push(row.tag.clone()),
            None => by_reasons.push((reasons, vec![row.tag.clone()])),
        }
    }
    out.push_str("\n## Sweeps without a value, by reason\n");
    for (reasons, tags) in by_reasons {
        let _ = writeln!(out, "\n{}:", md_tags(&tags));
        if reasons.is_empty() {
            out.push_str("- every planned sweep has a value\n");
        }
        for (why, n) in reasons {
            let _ = writeln!(out, "- {n} sweep{}: {}", if n == 1 { "" } else { "s" }, md(&why));
        }
    }
}

pub fn json(h: &History, plan: &Plan) -> serde_json::Value {
    let sweeps = sweep_names(plan);
    let rows: Vec<serde_json::Value> = h
        .rows
        .iter()
        .map(|row| match &row.status {
            Status::Rejected(why) => json!({"tag": row.tag, "status": "not a release", "reason": why}),
            Status::Unusable(why) => json!({"tag": row.tag, "version": row.version.as_ref().map(|v| v.to_string()), "status": "not run", "reason": why}),
            Status::Ran(r) => {
                let tiers: serde_json::Map<String, serde_json::Value> = Tier::ORDER
                    .iter()
                    .map(|&t| {
                        let (n_sweeps, n) = r.counts(t);
                        let mut figures = serde_json::Map::new();
                        for m in ErrorMetric::ALL {
                            figures.insert(m.key().into(), json!(r.figure(t, m)));
                        }
                        let n: serde_json::Map<String, serde_json::Value> =
                            n.iter().map(|(m, c)| (m.key().to_string(), json!(c))).collect();
                        (t.key().to_string(), json!({"sweeps": n_sweeps, "n": n, "blis": figures}))
                    })
                    .collect();
                let per_sweep: Vec<serde_json::Value> = r
                    .sweeps(plan)
                    .into_iter()
                    .map(|((scenario, label), s)| {
                        let (status, reason) = match s {
                            SweepStatus::Modelled => ("modelled", None),
                            SweepStatus::NotModelled(w) => ("not modelled", Some(w)),
                            SweepStatus::Failed(w) => ("failed", Some(w)),
                        };
                        let key = (scenario.clone(), label.clone());
                        let shape: serde_json::Map<String, serde_json::Value> = ErrorMetric::ALL
                            .iter()
                            .map(|m| (m.key().to_string(), json!(r.per_sweep(*m).get(&key))))
                            .collect();
                        json!({"scenario": scenario, "label": label, "status": status, "reason": reason, "blis": shape})
                    })
                    .collect();
                json!({
                    "tag": row.tag,
                    "version": row.version.as_ref().map(|v| v.to_string()),
                    "status": "ran",
                    "sha256": r.sha256,
                    "latency_model": r.latency_model,
                    "same_as": r.same_as,
                    "points_with_value": r.column.succeeded,
                    "points_failed": r.column.failed,
                    "tiers": tiers,
                    "sweeps": per_sweep,
                })
            }
        })
        .collect();
    let steps: Vec<serde_json::Value> = h
        .steps
        .iter()
        .map(|s| {
            json!({
                "from": h.rows[s.from].tag,
                "to": h.rows[s.to].tag,
                "identical": s.identical,
                "same_metrics_files": s.same_files,
                "latency_model_change": s.latency_change.as_ref().map(|(a, b)| json!({"from": a, "to": b})),
                "attribution": s.attribution.as_ref().map(|a| json!({
                    "pinned": a.pinned,
                    "same_as_earlier": a.same_as_earlier,
                    "not_made": a.not_made,
                    "comparison": a.comparison.as_ref().map(|c| c.json()),
                })),
                "comparison": s.comparison.json(),
            })
        })
        .collect();
    let firsts: Vec<serde_json::Value> = h
        .firsts
        .iter()
        .map(|f| {
            let step = &h.steps[f.step];
            json!({
                "figure": f.figure,
                "direction": if f.verdict == Verdict::Worse { "worse" } else { "better" },
                "release": h.rows[step.to].tag,
                "from": h.rows[step.from].tag,
                "latency_model_changed": step.latency_change.is_some(),
            })
        })
        .collect();
    json!({
        "history": {
            "form": h.form.name(),
            "pinned_latency_model": h.pinned_latency_model,
            "planned_points": h.planned_points,
            "planned_sweeps": h.planned_sweeps,
            "sweeps": sweeps.iter().map(|(s, l)| json!({"scenario": s, "label": l})).collect::<Vec<_>>(),
            "distinct_runs": h.distinct_runs,
            "rule": {"margin": h.rule.margin, "figures": h.rule.figures, "resamples": h.rule.resamples},
            "releases": rows,
            "groups": h.groups.iter().map(|g| json!({
                "releases": g.tags,
                "why": match &g.why { GroupWhy::ByteIdentical { sha256 } => json!({"byte_identical": sha256}), GroupWhy::SameMetrics { .. } => json!("same metrics on every point") },
            })).collect::<Vec<_>>(),
            "steps": steps,
            "first_changes": firsts,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blis::baseline::BaselineRule;

    /// A folder name holding a line break or a `|` stays inside its cell: no fake row, no
    /// extra cell.
    #[test]
    fn a_line_break_or_a_bar_in_a_folder_name_never_starts_a_table_row() {
        let tag = "v9.9.9\n| v0.0.1 | fake | row |";
        let h = History {
            rows: vec![
                Row { tag: tag.into(), version: None, status: Status::Rejected("not a version".into()) },
                Row {
                    tag: "v1|x".into(),
                    version: None,
                    status: Status::Unusable("crashed\n| with | a | row |".into()),
                },
            ],
            steps: Vec::new(),
            groups: Vec::new(),
            firsts: Vec::new(),
            rule: BaselineRule { margin: 0.5, figures: Vec::new(), resamples: 1000, why: String::new() },
            form: Default::default(),
            pinned_latency_model: None,
            planned_points: 0,
            planned_sweeps: 0,
            distinct_runs: 0,
        };
        let text = markdown(&h, &Plan::default());
        for line in text.lines() {
            assert!(!line.starts_with("| v0.0.1") && !line.starts_with("| with"), "a fake row: {line:?}\n{text}");
        }
        assert!(
            text.contains("| v9.9.9\\n\\| v0.0.1 \\| fake \\| row \\| | - | - | not a release: not a version | | |"),
            "{text}"
        );
        assert!(text.contains("| v1\\|x | - | - | not run: crashed\\n\\| with \\| a \\| row \\| | | |"), "{text}");
    }
}
