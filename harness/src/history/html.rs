//! The history's HTML page (`cargo xtask history --report-html FILE`): self-contained like the
//! score report (no script, nothing fetched): per tier with values, a chart of each BLIS figure
//! across releases in version order, then a release x sweep grid of shape errors, shaded by
//! size, and the release-to-release verdicts. The same history gives the same bytes.

use super::{History, Row, Status};
use crate::blis::arm::Plan;
use crate::blis::baseline::Verdict;
use crate::chart::{arm_style, esc, Axis, Frame, Svg};
use crate::score::ErrorMetric;
use oracles::tiers::Tier;
use std::fmt::Write as _;

pub fn render(h: &History, plan: &Plan) -> String {
    let title = "BLIS across releases";
    let mut out = crate::chart::page_start(title);
    let _ = writeln!(
        out,
        "<p>The same {} planned points of {} sweeps for every release, form {}; latency model: {}.</p>",
        h.planned_points,
        h.planned_sweeps,
        esc(h.form.name()),
        esc(&h
            .pinned_latency_model
            .as_ref()
            .map_or("each release's default".to_string(), |m| format!("pinned to {m}")))
    );
    releases_table(&mut out, h);
    let with_values: Vec<&Row> = h.rows.iter().filter(|r| r.has_values()).collect();
    for tier in Tier::ORDER {
        let any = with_values.iter().any(|r| r.ran().unwrap().figure(tier, ErrorMetric::TpotMape).is_some());
        if !any {
            continue;
        }
        let _ = writeln!(out, "<h2>{}</h2>", esc(tier.title()));
        for m in ErrorMetric::ALL {
            out.push_str(&figure_chart(&with_values, tier, m));
        }
    }
    grid(&mut out, &with_values, plan);
    steps(&mut out, h);
    out.push_str(&crate::chart::page_end());
    out
}

fn releases_table(out: &mut String, h: &History) {
    out.push_str("<h2>Releases</h2>\n<table>\n<tr><th>release</th><th>latency model</th><th>points with a value</th><th>note</th></tr>\n");
    for row in &h.rows {
        let (model, values, note) = match &row.status {
            Status::Ran(r) => (
                r.latency_model.clone(),
                r.column.succeeded.to_string(),
                r.same_as.as_ref().map_or(String::new(), |t| format!("same binary and files as {t}: simulated once")),
            ),
            Status::Unusable(why) => ("-".into(), "-".into(), format!("not run: {why}")),
            Status::Rejected(why) => ("-".into(), "-".into(), format!("not a release: {why}")),
        };
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(&row.tag),
            esc(&model),
            esc(&values),
            esc(&note)
        );
    }
    out.push_str("</table>\n");
}

/// One figure of one tier across the releases with values: a line with a marker per release,
/// broken where a release has no value, and the numbers in a table below.
fn figure_chart(rows: &[&Row], tier: Tier, m: ErrorMetric) -> String {
    let values: Vec<Option<f64>> = rows.iter().map(|r| r.ran().unwrap().figure(tier, m)).collect();
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    let lo = present.iter().copied().fold(f64::INFINITY, f64::min).min(0.0);
    let hi = present.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let id = format!("history-{}-{}", tier.key().replace('_', "-"), m.key().replace('_', "-"));
    let title = format!("BLIS {} ({}) across releases", m.title(), tier.title());
    let desc = format!(
        "{} of BLIS per release, in version order: {}",
        m.title(),
        rows.iter()
            .zip(&values)
            .map(|(r, v)| format!("{} {}", r.tag, v.map_or("no value".into(), |v| format!("{v:.2}%"))))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let count = rows.len().max(1);
    let width = (120 + 56 * count).max(480) as f64;
    let mut svg = Svg::new(&id, width, 300.0, &title, &desc);
    let x = Axis {
        lo: -0.5,
        hi: count as f64 - 0.5,
        ticks: rows.iter().enumerate().map(|(i, r)| (i as f64, r.tag.clone())).collect(),
        log2: false,
    };
    let y = Axis::linear(lo, if hi.is_finite() { hi } else { 1.0 });
    let plot =
        svg.axes(Frame { x: 70.0, y: 30.0, w: width - 100.0, h: 210.0 }, &x, &y, &title, "release", "mean |e| (%)");
    let style = arm_style("blis");
    let mut run: Vec<(f64, f64)> = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match v {
            Some(v) => run.push((plot.cx(i as f64), plot.cy(*v))),
            None => {
                svg.polyline(&run, style, 2.0);
                run.clear();
            }
        }
    }
    svg.polyline(&run, style, 2.0);
    for (i, v) in values.iter().enumerate() {
        if let Some(v) = v {
            svg.marker((plot.cx(i as f64), plot.cy(*v)), style, false);
        }
    }
    let mut out = format!("<figure id=\"fig-{id}\">\n<figcaption>{}</figcaption>\n{}", esc(&title), svg.finish());
    out.push_str("<details><summary>numbers</summary><table><tr><th>release</th><th>value (%)</th></tr>\n");
    for (r, v) in rows.iter().zip(&values) {
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td class=\"num\">{}</td></tr>",
            esc(&r.tag),
            v.map_or("-".into(), |v| format!("{v:.2}"))
        );
    }
    out.push_str("</table></details>\n</figure>\n");
    out
}

/// Release x sweep, the shape errors, each cell shaded by its value against the grid's largest.
fn grid(out: &mut String, rows: &[&Row], plan: &Plan) {
    let sweeps = super::render::sweep_names(plan);
    let modelled: Vec<&(String, String)> = sweeps
        .iter()
        .filter(|s| rows.iter().any(|r| r.ran().unwrap().per_sweep(ErrorMetric::TpotMape).contains_key(*s)))
        .collect();
    if modelled.is_empty() {
        return;
    }
    for m in [ErrorMetric::TpotShape, ErrorMetric::TtftShape] {
        let per: Vec<_> = rows.iter().map(|r| r.ran().unwrap().per_sweep(m)).collect();
        let max = per.iter().flat_map(|p| p.values().copied()).fold(0.0f64, f64::max).max(1e-9);
        let _ = writeln!(out, "<h2>Per sweep: BLIS {} error (mean |e|, %)</h2>\n<table>", esc(m.title()));
        out.push_str("<tr><th>release</th>");
        for (i, _) in modelled.iter().enumerate() {
            let _ = write!(out, "<th>S{}</th>", i + 1);
        }
        out.push_str("</tr>\n");
        for (row, values) in rows.iter().zip(&per) {
            let _ = write!(out, "<tr><td>{}</td>", esc(&row.tag));
            for s in &modelled {
                match values.get(*s) {
                    Some(v) => {
                        // Lightness from 98% (zero) to 60% (the largest): orange deepens with the error.
                        let light = 98.0 - 38.0 * (v / max);
                        let _ =
                            write!(out, "<td class=\"num\" style=\"background:hsl(30,90%,{light:.0}%)\">{v:.2}</td>");
                    }
                    None => out.push_str("<td class=\"num\">-</td>"),
                }
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n<ul>\n");
        for (i, (scenario, label)) in modelled.iter().enumerate() {
            let _ = writeln!(out, "<li>S{}: {} {}</li>", i + 1, esc(scenario), esc(label));
        }
        out.push_str("</ul>\n");
    }
}

fn steps(out: &mut String, h: &History) {
    out.push_str("<h2>Release to release</h2>\n<ul>\n");
    for s in &h.steps {
        let (from, to) = (&h.rows[s.from].tag, &h.rows[s.to].tag);
        let latency = s.latency_change.as_ref().map_or(String::new(), |(a, b)| format!("; latency model {a} → {b}"));
        if s.identical {
            let _ = writeln!(
                out,
                "<li>{} → {}: identical on every planned point{}</li>",
                esc(from),
                esc(to),
                esc(&latency)
            );
            continue;
        }
        let moved: Vec<String> = s
            .comparison
            .figures
            .iter()
            .filter(|f| matches!(f.verdict, Verdict::Worse | Verdict::Better))
            .map(|f| format!("{} {}", f.key, f.verdict.word()))
            .collect();
        let said = if moved.is_empty() { "no change detected beyond the margin".into() } else { moved.join(", ") };
        let _ = writeln!(out, "<li>{} → {}: {}{}</li>", esc(from), esc(to), esc(&said), esc(&latency));
    }
    out.push_str("</ul>\n");
}
