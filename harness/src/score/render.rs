//! The score report, in the order of the issue: header, headline tiers, TTFT excursions,
//! breakdowns over ALL, kernelscore-style TPOT tables, dropped sweeps. Deterministic text: no
//! paths, no times; every percentage with two decimals.

use super::{intervals, Aggregate, ErrorMetric, Scored, ScoredSweep};
use oracles::scoring;
use oracles::tiers::Tier;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The full report.
pub fn report(s: &Scored) -> String {
    [header(s), headline(s), paired(s), excursions(s), breakdowns(s), kernelscore(s), dropped(s)].join("\n")
}

pub fn header(s: &Scored) -> String {
    let config = match s.selection.config_tier {
        None => "all (measured and resolved)".to_string(),
        Some(c) => c.name().to_string(),
    };
    let arms: Vec<String> = s
        .arms
        .iter()
        .map(|(name, _, not_run)| match not_run {
            Some(why) => format!("{name} (not run: {why})"),
            None => name.clone(),
        })
        .collect();
    let mut out = String::new();
    let _ = writeln!(out, "# Corpus score: {} ({})", super::E2E_FILE, s.corpus_source);
    let _ = writeln!(out, "release {}; framework {}; config tier {config}", s.release, s.selection.framework);
    let _ = writeln!(out, "arms: {}", arms.join(", "));
    let _ = writeln!(out, "points with prefix caching (scored sweeps): {}", s.prefix_caching_points);
    let mut provenance = Vec::new();
    for field in oracles::tiers::TRACKED_SETTINGS {
        let counts: Vec<String> = s
            .provenance_counts
            .iter()
            .filter(|((f, _), _)| *f == field)
            .map(|((_, p), n)| format!("{p} {n}"))
            .collect();
        if !counts.is_empty() {
            provenance.push(format!("  {field}: {}", counts.join(", ")));
        }
    }
    if !provenance.is_empty() {
        let _ = writeln!(out, "setting provenance (points of the scored sweeps):\n{}", provenance.join("\n"));
    }
    if !s.inexpressible_keys.is_empty() {
        let keys: Vec<&str> = s.inexpressible_keys.iter().map(String::as_str).collect();
        let _ = writeln!(out, "run settings the scenario schema cannot express: {}", keys.join(", "));
    }
    out
}

/// What the bracket beside a mean |e| is.
pub fn interval_note(s: &Scored) -> String {
    format!(
        "[95% percentile bootstrap over sweeps: {} resamples, numpy MT19937 seed {}]",
        s.resamples,
        oracles::bootstrap::SEED
    )
}

fn cell(s: &Scored, agg: &Aggregate, arm: usize, m: ErrorMetric) -> String {
    if let Some(why) = &s.arms[arm].2 {
        return format!("not run: {why}");
    }
    agg.cell_text(arm, m).unwrap_or_else(|| "--".to_string())
}

/// Rows of cells, left-aligned, columns two spaces apart.
fn table(rows: &[Vec<String>]) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        (0..cols).map(|c| rows.iter().filter_map(|r| r.get(c)).map(|x| x.len()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row.iter().enumerate().map(|(i, x)| format!("{x:<w$}", w = widths[i])).collect();
        let _ = writeln!(out, "  {}", line.join("  ").trim_end());
    }
    out
}

fn arm_rows(s: &Scored, agg: &Aggregate, lead: &[String]) -> Vec<Vec<String>> {
    // The lead cells (group, counts) are printed on the group's first row only.
    (0..s.arms.len())
        .map(|i| {
            let mut row = if i == 0 { lead.to_vec() } else { vec![String::new(); lead.len()] };
            row.push(s.arms[i].0.clone());
            row.extend(ErrorMetric::ALL.iter().map(|&m| cell(s, agg, i, m)));
            row
        })
        .collect()
}

fn metric_header(lead: &[&str]) -> Vec<String> {
    let mut row: Vec<String> = lead.iter().map(|x| x.to_string()).collect();
    row.push("arm".into());
    row.extend(ErrorMetric::ALL.iter().map(|m| m.title().to_string()));
    row
}

pub fn headline(s: &Scored) -> String {
    let mut out = format!("## Headline: mean |e| in %, per tier (n is TPOT-shape n / mape n)\n{}\n", interval_note(s));
    for (tier, agg) in s.tiers() {
        let _ = writeln!(
            out,
            "\n{}: {} sweeps, n {} / {}, TTFT n {} / {}",
            tier.title(),
            agg.sweeps,
            agg.n[&ErrorMetric::TpotShape],
            agg.n[&ErrorMetric::TpotMape],
            agg.n[&ErrorMetric::TtftShape],
            agg.n[&ErrorMetric::TtftMape]
        );
        if agg.sweeps == 0 {
            out.push_str("  (no sweeps: every cell --)\n");
            continue;
        }
        let mut rows = vec![metric_header(&[])];
        rows.extend(arm_rows(s, &agg, &[]));
        out.push_str(&table(&rows));
    }
    out
}

/// The arm pairs a reader of the headline compares, by key: BLIS against each published arm,
/// then the two published arms.
pub const PAIRS: [(&str, &str); 3] = [("blis", "aisimulate"), ("blis", "aic"), ("aisimulate", "aic")];

/// Paired differences per tier: `A - B` of mean |e| over the same sweeps, its paired-bootstrap
/// interval, and whether that interval excludes zero. Pairs with an arm not run are listed once.
pub fn paired(s: &Scored) -> String {
    let mut out = format!(
        "## Paired differences: mean |e| of A minus B in points over the same sweeps, 95% paired bootstrap over sweeps ({} resamples, seed {})\n",
        s.resamples,
        oracles::bootstrap::SEED
    );
    let index = |key: &str| s.arms.iter().position(|(_, k, _)| k == key);
    let pairs: Vec<(usize, usize)> = PAIRS.iter().filter_map(|(a, b)| Some((index(a)?, index(b)?))).collect();
    for &(a, b) in &pairs {
        for i in [a, b] {
            if let Some(why) = &s.arms[i].2 {
                let _ = writeln!(out, "  {} - {}: {} not run ({why})", s.arms[a].0, s.arms[b].0, s.arms[i].0);
            }
        }
    }
    let run: Vec<(usize, usize)> =
        pairs.into_iter().filter(|&(a, b)| s.arms[a].2.is_none() && s.arms[b].2.is_none()).collect();
    for tier in Tier::ORDER {
        let sweeps: Vec<&ScoredSweep> = s.in_tier(tier).collect();
        let _ = writeln!(out, "\n{}: {} sweeps", tier.title(), sweeps.len());
        if sweeps.is_empty() {
            out.push_str("  (no sweeps)\n");
            continue;
        }
        let mut rows = Vec::new();
        for &(a, b) in &run {
            for m in ErrorMetric::ALL {
                let pair = format!("{} - {}", s.arms[a].0, s.arms[b].0);
                let (diff, ci, line) = match intervals::paired(&sweeps, a, b, m, s.resamples) {
                    None => ("--".to_string(), String::new(), "no comparison".to_string()),
                    Some(Err(why)) => ("--".to_string(), String::new(), why),
                    Some(Ok(p)) => (
                        intervals::signed(p.diff),
                        p.ci.as_ref().map_or_else(|why| format!("[{why}]"), intervals::bracket),
                        intervals::zero_line(&p.ci).to_string(),
                    ),
                };
                rows.push(vec![pair, m.title().to_string(), diff, ci, line]);
            }
        }
        out.push_str(&table(&rows));
    }
    out
}

pub fn excursions(s: &Scored) -> String {
    let mut out = format!(
        "## TTFT excursions: {} point(s) excluded from TTFT shape and TTFT mape for every arm (TPOT keeps them)\n",
        s.excursions.len()
    );
    for e in &s.excursions {
        let _ = writeln!(
            out,
            "  {} {} c={}: measured TTFT relative {:.6} > 10 x max({:.6}, {:.6})",
            e.scenario, e.label, e.concurrency, e.measured_ttft_rel, e.neighbours.0, e.neighbours.1
        );
    }
    out
}

/// Chip family by substring, as upstream groups it.
pub fn chip_family(gpu: &str) -> &'static str {
    let g = gpu.to_ascii_lowercase();
    for family in ["h100", "h200", "b200", "b300"] {
        if g.contains(family) {
            return family;
        }
    }
    "other"
}

fn grouped(s: &Scored, key: impl Fn(&ScoredSweep) -> String) -> BTreeMap<String, Vec<&ScoredSweep>> {
    let mut groups: BTreeMap<String, Vec<&ScoredSweep>> = BTreeMap::new();
    for sweep in s.in_tier(Tier::All) {
        groups.entry(key(sweep)).or_default().push(sweep);
    }
    groups
}

pub fn breakdowns(s: &Scored) -> String {
    let mut out = format!("## Breakdowns over ALL: mean |e| in %\n{}\n", interval_note(s));
    type GroupKey = fn(&ScoredSweep) -> String;
    let by: [(&str, GroupKey); 3] = [
        ("chip family", |w| chip_family(&w.gpu).to_string()),
        ("model", |w| w.model.clone()),
        ("framework", |w| w.framework.clone()),
    ];
    for (title, key) in by {
        let _ = writeln!(out, "\nby {title}");
        let mut rows = vec![metric_header(&[title, "sweeps", "n"])];
        for (group, sweeps) in grouped(s, key) {
            let agg = s.aggregate(sweeps.into_iter());
            let n = format!("{} / {}", agg.n[&ErrorMetric::TpotShape], agg.n[&ErrorMetric::TpotMape]);
            rows.extend(arm_rows(s, &agg, &[group, agg.sweeps.to_string(), n]));
        }
        out.push_str(&table(&rows));
    }
    out
}

fn tpot_shape_errors<'a>(s: &Scored, arm: usize, sweeps: impl Iterator<Item = &'a ScoredSweep>) -> Vec<(u32, f64)> {
    if s.arms[arm].2.is_some() {
        return Vec::new();
    }
    sweeps.filter_map(|w| w.errors[arm].as_ref()).flat_map(|e| e.tpot_shape.iter().copied()).collect()
}

fn stats_row(lead: Vec<String>, errors: &[f64]) -> Vec<String> {
    let mut row = lead;
    match scoring::signed_stats(errors) {
        None => {
            row.extend(["0".to_string(), "--".into(), "--".into(), "--".into(), "--".into(), "--".into(), "--".into()])
        }
        Some(st) => row.extend([
            st.n.to_string(),
            format!("{:.2}", st.mean),
            format!("{:.2}", st.median),
            format!("{:.2}", st.mean_abs),
            format!("{:.2}", st.share_over_zero_pct),
            format!("{:.2}", st.p10),
            format!("{:.2}", st.p90),
        ]),
    }
    row
}

fn stats_header(lead: &[&str]) -> Vec<String> {
    let mut row: Vec<String> = lead.iter().map(|x| x.to_string()).collect();
    row.extend(["n", "mean", "median", "mean |e|", "% over 0", "p10", "p90"].map(String::from));
    row
}

/// TPOT shape, signed, as kernelscore prints it: overall, monotone subset, per chip, log
/// space, by concurrency; over ALL.
pub fn kernelscore(s: &Scored) -> String {
    let mut out = String::from("## kernelscore: TPOT shape over ALL, signed % (e > 0: the arm's curve rises faster)\n");
    let not_run: Vec<String> =
        s.arms.iter().filter_map(|(name, _, why)| why.as_ref().map(|w| format!("{name}: not run: {w}"))).collect();
    for line in &not_run {
        let _ = writeln!(out, "  {line}");
    }
    let run: Vec<usize> = (0..s.arms.len()).filter(|&i| s.arms[i].2.is_none()).collect();
    let values = |arm: usize, pred: &dyn Fn(&ScoredSweep) -> bool| -> Vec<f64> {
        tpot_shape_errors(s, arm, s.in_tier(Tier::All).filter(|w| pred(w))).into_iter().map(|x| x.1).collect()
    };

    let _ = writeln!(out, "\nsigned statistics");
    let mut rows = vec![stats_header(&["arm", "subset"])];
    for &i in &run {
        rows.push(stats_row(vec![s.arms[i].0.clone(), "all".into()], &values(i, &|_| true)));
        rows.push(stats_row(vec![s.arms[i].0.clone(), "monotone".into()], &values(i, &|w| w.monotone)));
    }
    out.push_str(&table(&rows));

    let _ = writeln!(out, "\nper chip family");
    let mut rows = vec![stats_header(&["arm", "chip"])];
    for &i in &run {
        for chip in ["h100", "h200", "b200", "b300", "other"] {
            let v = values(i, &|w| chip_family(&w.gpu) == chip);
            if !v.is_empty() {
                rows.push(stats_row(vec![s.arms[i].0.clone(), chip.into()], &v));
            }
        }
    }
    out.push_str(&table(&rows));

    let _ = writeln!(out, "\nlog space: x = ln(1 + e/100), e <= -100 dropped; bias = 100 (exp(mean x) - 1)");
    let mut rows = vec![["arm", "n", "dropped", "mean x", "sd x", "bias %"].map(String::from).to_vec()];
    for &i in &run {
        let mut row = vec![s.arms[i].0.clone()];
        match scoring::log_stats(&values(i, &|_| true)) {
            None => row.push("0".into()),
            Some(l) => row.extend([
                l.n.to_string(),
                l.dropped.to_string(),
                format!("{:.4}", l.mean),
                l.sd.map_or("--".into(), |sd| format!("{sd:.4}")),
                format!("{:.2}", l.bias_pct),
            ]),
        }
        rows.push(row);
    }
    out.push_str(&table(&rows));

    let _ = writeln!(out, "\nby concurrency");
    let mut rows = vec![stats_header(&["arm", "c"])];
    for &i in &run {
        let mut by_c: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for (c, e) in tpot_shape_errors(s, i, s.in_tier(Tier::All)) {
            by_c.entry(c).or_default().push(e);
        }
        for (c, v) in by_c {
            rows.push(stats_row(vec![s.arms[i].0.clone(), c.to_string()], &v));
        }
    }
    out.push_str(&table(&rows));
    out
}

pub fn dropped(s: &Scored) -> String {
    let mut out =
        format!("## Dropped sweeps: {} (a sweep is scored whole or not at all, for every arm)\n", s.dropped.len());
    for d in &s.dropped {
        let _ = writeln!(out, "  {} {}: {}", d.scenario, d.label, d.reason);
    }
    out
}

#[cfg(test)]
mod tests;
