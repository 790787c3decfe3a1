//! The HTML report (`--report-html FILE` of `cargo xtask reproduce` and `cargo xtask score`):
//! one self-contained page, with no script and nothing fetched (styles inline, charts as
//! inline SVG, system fonts), so it opens from an artifact download or a file URL.
//!
//! What it shows: the gate's figure table (as the markdown report has it, with the tolerance,
//! each figure linked to the chart it comes from); per arm, the signed TPOT shape error by chip
//! family and by concurrency; per scored sweep, relative TPOT and TTFT against concurrency on a
//! log-2 axis, measured and every arm the scorer scored, the anchor marked, TTFT excursions
//! drawn hollow and labelled, and each arm's shape error in the legend. Every chart has a
//! title, a description and a table of its numbers.
//!
//! The same inputs give the same bytes: no time, no path, ids derived from the data.

pub mod browser;
pub mod views;

use crate::chart::{arm_style, esc, Axis, Frame, Style, Svg, MEASURED};
use crate::gate::{report::status_word, FigureResult, Manifest, Status};
use crate::score::{Arm, Corpora, ErrorMetric, Scored};
use oracles::tiers::Tier;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use views::{ArmView, SweepView};

/// The scorer's results the charts are drawn from.
pub struct Scoring<'a> {
    pub scored: &'a Scored,
    pub corpora: &'a Corpora,
    /// The arms as scored (a BLIS arm among them when it ran).
    pub arms: &'a [Arm],
}

/// The gate's verdicts and the manifest they were judged against (for the tolerances).
pub struct Figures<'a> {
    pub results: &'a [FigureResult],
    pub manifest: &'a Manifest,
}

/// Everything one page shows; either part may be absent, with the reason shown instead.
pub struct Page<'a> {
    pub heading: &'a str,
    pub figures: Option<Figures<'a>>,
    /// The scoring, or why there is none (the input it needs and how to supply it).
    pub scoring: Result<Scoring<'a>, String>,
    /// Lines printed under the heading (e.g. BLIS points without a value).
    pub notes: Vec<String>,
}

/// The whole page.
pub fn render(page: &Page) -> String {
    let mut out = crate::chart::page_start(page.heading);
    let (sweeps, arms, not_run) = match &page.scoring {
        Ok(s) => {
            let (arms, not_run) = views::arm_views(s.scored);
            (views::sweep_views(s.scored, s.corpora, s.arms), arms, not_run)
        }
        Err(_) => (Vec::new(), Vec::new(), Vec::new()),
    };
    if let Ok(s) = &page.scoring {
        let sel = &s.scored.selection;
        let config = sel.config_tier.map_or("measured and resolved".to_string(), |c| c.name().to_string());
        let _ = writeln!(
            out,
            "<p>Corpus release {}; framework {}; config tier {}; {} scored sweeps, {} dropped.</p>",
            esc(&s.scored.release),
            esc(&sel.framework),
            esc(&config),
            s.scored.sweeps.len(),
            s.scored.dropped.len()
        );
    }
    for (name, why) in &not_run {
        let _ = writeln!(out, "<p class=\"note\">{} not run: {}.</p>", esc(name), esc(why));
    }
    for note in &page.notes {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", esc(note));
    }
    out.push_str(&contents(page.figures.is_some(), &arms, &sweeps));

    // The anchors that exist, so a figure links only to a chart on this page.
    let mut anchors: BTreeSet<String> = arms.iter().map(|a| a.id.clone()).collect();
    anchors.extend(tiers_present(&sweeps).into_iter().map(tier_id));
    let cells = match &page.scoring {
        Ok(s) => cell_sections(s.scored, &sweeps),
        Err(_) => Vec::new(),
    };
    anchors.extend(cells.iter().map(|(id, _)| id.clone()));
    if let Some(f) = &page.figures {
        out.push_str("<h2 id=\"figures\">Figures of the gate</h2>\n");
        out.push_str(&figure_table(f, &anchors));
    }
    out.push_str("<h2 id=\"arms\">Arms: signed TPOT shape error over ALL</h2>\n");
    match &page.scoring {
        Err(why) => {
            let _ = writeln!(out, "<p class=\"note\">No charts: {}.</p>", esc(why));
        }
        Ok(s) => {
            out.push_str(
                "<p>e &gt; 0: the arm's curve rises faster than the measured one. Each arm: the spread per chip family (box p25 to p75, whiskers p10 to p90, bar at the median, dot at the mean) and the per-concurrency bias (mean, with p10 to p90).</p>\n",
            );
            for arm in &arms {
                out.push_str(&arm_section(arm));
            }
            out.push_str("<h2 id=\"cells\">Headline cells by contribution</h2>\n");
            out.push_str(
                "<p>Each cell of the headline, its sweeps ranked by what they add to the cell's mean |e|: a sweep's share is the sum of its |e| over the cell's n, so the shares add up to the cell. Each sweep links to its chart; every point is a row of <code>--points</code> (docs/points.md).</p>\n",
            );
            for (_, section) in &cells {
                out.push_str(section);
            }
            out.push_str("<h2 id=\"sweeps\">Sweeps</h2>\n");
            out.push_str(
                "<p>Each sweep: TPOT and TTFT relative to the lowest concurrency (the anchor, where every curve is 1), on a log-2 concurrency axis. The legend gives each arm's mean |e| of the sweep's shape errors. Hollow points are TTFT excursions, excluded from TTFT metrics for every arm. When an arm reaches more than 10 times the measured maximum, the panel's scale stops there, its higher points sit on the top edge, and the panel says so.</p>\n",
            );
            out.push_str(&sweep_sections(s.scored, &sweeps));
        }
    }
    out.push_str(&crate::chart::page_end());
    out
}

/// `cell-all-aic-ttft-shape`: the anchor of a headline cell's ranked sweeps.
fn cell_id(t: Tier, arm: &str, m: ErrorMetric) -> String {
    format!("cell-{}-{arm}-{}", t.key().replace('_', "-"), m.key().replace('_', "-"))
}

/// One section per headline cell with a value (tier x arm run x metric): its sweeps ranked by
/// contribution (`score::points`), each linked to its chart; with the anchor of each.
fn cell_sections(scored: &Scored, sweeps: &[SweepView]) -> Vec<(String, String)> {
    let chart: BTreeMap<(&str, &str), &str> =
        sweeps.iter().map(|v| ((v.scenario.as_str(), v.label.as_str()), v.id.as_str())).collect();
    let mut out = Vec::new();
    for tier in Tier::ORDER {
        for (i, (name, key, not_run)) in scored.arms.iter().enumerate() {
            if not_run.is_some() {
                continue;
            }
            for m in ErrorMetric::ALL {
                let ranked = crate::score::points::scored_contributions(scored, tier, i, m);
                if ranked.is_empty() {
                    continue;
                }
                let id = cell_id(tier, key, m);
                let n: usize = ranked.iter().map(|c| c.n).sum();
                let mean: f64 = ranked.iter().map(|c| c.share).sum();
                let mut section = format!(
                    "<section id=\"{id}\">\n<h3>{} {} {}: {} over {n} comparisons, {} sweeps</h3>\n<ol>\n",
                    esc(tier.title()),
                    esc(name),
                    esc(m.title()),
                    pct(mean),
                    ranked.len()
                );
                for c in &ranked {
                    let sweep = format!("{} {}", c.scenario, c.label);
                    let sweep = match chart.get(&(c.scenario.as_str(), c.label.as_str())) {
                        Some(anchor) => format!("<a href=\"#{anchor}\">{}</a>", esc(&sweep)),
                        None => esc(&sweep),
                    };
                    let _ = writeln!(
                        section,
                        "<li>{} {sweep}: n {}, mean |e| {}, worst c={} {:+.2}%</li>",
                        pct(c.share),
                        c.n,
                        pct(c.sum_abs / c.n as f64),
                        c.worst.0,
                        c.worst.1
                    );
                }
                section.push_str("</ol>\n</section>\n");
                out.push((id, section));
            }
        }
    }
    out
}

fn tier_id(t: Tier) -> String {
    format!("tier-{}", t.key().replace('_', "-"))
}

fn tiers_present(sweeps: &[SweepView]) -> Vec<Tier> {
    Tier::ORDER.into_iter().filter(|t| sweeps.iter().any(|s| s.tier == *t)).collect()
}

fn group_id(s: &SweepView) -> String {
    format!("group-{}-{}", views::slug(&s.model), views::slug(&s.gpu))
}

fn contents(figures: bool, arms: &[ArmView], sweeps: &[SweepView]) -> String {
    let mut out = String::from("<nav id=\"contents\" aria-label=\"Contents\">\n<h2>Contents</h2>\n<ol>\n");
    if figures {
        out.push_str("<li><a href=\"#figures\">Figures of the gate</a></li>\n");
    }
    out.push_str("<li><a href=\"#arms\">Arms</a><ol>\n");
    for a in arms {
        let _ = writeln!(out, "<li><a href=\"#{}\">{}</a></li>", a.id, esc(&a.name));
    }
    out.push_str("</ol></li>\n");
    if !sweeps.is_empty() {
        out.push_str("<li><a href=\"#cells\">Headline cells by contribution</a></li>\n");
        let _ = writeln!(out, "<li><a href=\"#sweeps\">Sweeps ({})</a><ol>", sweeps.len());
        for tier in tiers_present(sweeps) {
            let in_tier: Vec<&SweepView> = sweeps.iter().filter(|s| s.tier == tier).collect();
            let _ =
                writeln!(out, "<li><a href=\"#{}\">{} ({})</a><ol>", tier_id(tier), esc(tier.title()), in_tier.len());
            let mut groups: Vec<(String, String, Vec<&SweepView>)> = Vec::new();
            for s in in_tier {
                match groups.last_mut() {
                    Some((g, _, v)) if *g == group_id(s) => v.push(s),
                    _ => groups.push((group_id(s), format!("{} on {}", s.model, s.gpu), vec![s])),
                }
            }
            for (gid, title, members) in groups {
                let _ = write!(out, "<li><a href=\"#{}-{gid}\">{}</a>:", tier_id(tier), esc(&title));
                for s in members {
                    let _ = write!(
                        out,
                        " <a href=\"#{}\">{}</a>",
                        s.id,
                        esc(&format!("{} {} {}", s.precision, s.parallelism, s.label))
                    );
                }
                out.push_str("</li>\n");
            }
            out.push_str("</ol></li>\n");
        }
        out.push_str("</ol></li>\n");
    }
    out.push_str("</ol>\n</nav>\n");
    out
}

/// Where a headline figure comes from: a cell's ranked sweeps when the id names a cell
/// (`headline/<tier>/<arm>/<metric>`, its interval's ends too), else its arm's section when the
/// id names an arm, else the section of its tier. Other figures (the error-definition audit
/// covers every framework, the measured config tier is another selection) have no chart here.
fn figure_anchor(id: &str, anchors: &BTreeSet<String>) -> Option<String> {
    let parts: Vec<&str> = id.split('/').collect();
    if parts.first() != Some(&"headline") {
        return None;
    }
    if let [_, tier, arm, metric, ..] = parts[..] {
        let cell = format!("cell-{tier}-{arm}-{metric}");
        if anchors.contains(&cell) {
            return Some(cell);
        }
    }
    let arm = parts.iter().skip(2).find(|p| ["blis", "aisimulate", "aic"].contains(p)).map(|k| format!("arm-{k}"));
    let tier = parts.get(1).map(|t| format!("tier-{t}"));
    arm.into_iter().chain(tier).find(|a| anchors.contains(a))
}

fn tolerance_text(manifest: &Manifest, id: &str) -> String {
    let Some(f) = manifest.figures.iter().find(|f| f.id == id) else { return String::new() };
    match &f.tolerance {
        None => match &f.expect {
            crate::gate::manifest::Expect::Count(_) => "exact count".into(),
            crate::gate::manifest::Expect::Check(_) => "must hold".into(),
            _ => String::new(),
        },
        Some(name) => match manifest.tolerances.get(name).and_then(|t| t.abs) {
            Some(abs) => format!("{name} (±{abs})"),
            // Computed-here values are held to their last committed digit the same way.
            None => {
                let digit = match f.expected_source() {
                    crate::gate::manifest::ExpectedSource::Published => "published",
                    crate::gate::manifest::ExpectedSource::ComputedHere => "committed",
                };
                format!("{name} (half a unit in the last {digit} digit)")
            }
        },
    }
}

/// The gate's verdicts, one table per document, in manifest order.
pub fn figure_table(figures: &Figures, anchors: &BTreeSet<String>) -> String {
    let summary = crate::gate::report::Summary::of(figures.results);
    let mut out = format!("<p><strong>{}</strong></p>\n", esc(&summary.line()));
    let mut by_doc: BTreeMap<&str, Vec<&FigureResult>> = BTreeMap::new();
    for r in figures.results {
        by_doc.entry(&r.document).or_default().push(r);
    }
    for (doc, rows) in by_doc {
        let _ = writeln!(out, "<h3>{}</h3>", esc(doc));
        out.push_str("<table>\n<thead><tr><th scope=\"col\">figure</th><th scope=\"col\">section</th><th scope=\"col\">status</th><th scope=\"col\">expected</th><th scope=\"col\">source</th><th scope=\"col\">ours</th><th scope=\"col\">tolerance</th><th scope=\"col\">detail</th></tr></thead>\n<tbody>\n");
        for r in rows {
            let class = match r.status {
                Status::Ok => "ok",
                Status::Mismatch => "mismatch",
                Status::Refused => "refused",
            };
            let figure = match figure_anchor(&r.id, anchors) {
                Some(a) => format!("<a href=\"#{a}\"><code>{}</code></a>", esc(&r.id)),
                None => format!("<code>{}</code>", esc(&r.id)),
            };
            let _ = writeln!(
                out,
                "<tr id=\"fig-{}\"><td>{figure}</td><td>{}</td><td class=\"{class}\">{}</td><td class=\"num\">{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
                views::slug(&r.id),
                esc(&r.section),
                status_word(r.status),
                esc(&r.published),
                crate::gate::report::source_word(r.expected_source),
                esc(r.ours.as_deref().unwrap_or("")),
                esc(&tolerance_text(figures.manifest, &r.id)),
                esc(&r.detail)
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    out
}

fn pct(v: f64) -> String {
    format!("{v:.2}")
}

fn arm_section(arm: &ArmView) -> String {
    let style = arm_style(&arm.key);
    let mut out = format!("<section id=\"{}\">\n<h3>{}</h3>\n", arm.id, esc(&arm.name));
    out.push_str(&format!("<figure>\n{}", chip_box_chart(arm, style)));
    out.push_str(&format!("<figcaption>{}: signed TPOT shape error per chip family</figcaption>\n", esc(&arm.name)));
    out.push_str("<details><summary>Numbers</summary>\n<table><thead><tr><th scope=\"col\">chip</th><th scope=\"col\">n</th><th scope=\"col\">p10</th><th scope=\"col\">p25</th><th scope=\"col\">median</th><th scope=\"col\">p75</th><th scope=\"col\">p90</th><th scope=\"col\">mean</th></tr></thead><tbody>\n");
    for (chip, s) in &arm.by_chip {
        let _ = writeln!(
            out,
            "<tr><td>{chip}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            s.n, pct(s.p10), pct(s.p25), pct(s.median), pct(s.p75), pct(s.p90), pct(s.mean)
        );
    }
    out.push_str("</tbody></table>\n</details>\n</figure>\n");
    out.push_str(&format!("<figure>\n{}", bias_chart(arm, style)));
    out.push_str(&format!(
        "<figcaption>{}: per-concurrency bias of the TPOT shape error</figcaption>\n",
        esc(&arm.name)
    ));
    out.push_str("<details><summary>Numbers</summary>\n<table><thead><tr><th scope=\"col\">concurrency</th><th scope=\"col\">n</th><th scope=\"col\">mean</th><th scope=\"col\">median</th><th scope=\"col\">p10</th><th scope=\"col\">p90</th></tr></thead><tbody>\n");
    for (c, s) in &arm.by_concurrency {
        let _ = writeln!(
            out,
            "<tr><td class=\"num\">{c}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            s.n, pct(s.mean), pct(s.median), pct(s.p10), pct(s.p90)
        );
    }
    out.push_str("</tbody></table>\n</details>\n</figure>\n</section>\n");
    out
}

/// Horizontal boxes, one per chip family, on a signed-error axis.
pub fn chip_box_chart(arm: &ArmView, style: Style) -> String {
    let rows = arm.by_chip.len().max(1) as f64;
    let f = Frame { x: 130.0, y: 36.0, w: 560.0, h: 34.0 * rows };
    let lo = arm.by_chip.iter().map(|(_, s)| s.p10).fold(0.0, f64::min);
    let hi = arm.by_chip.iter().map(|(_, s)| s.p90).fold(0.0, f64::max);
    let x = Axis::linear(lo, hi);
    let desc: Vec<String> = arm
        .by_chip
        .iter()
        .map(|(c, s)| {
            format!(
                "{c}: n {}, p10 {}, median {}, p90 {}, mean {}",
                s.n,
                pct(s.p10),
                pct(s.median),
                pct(s.p90),
                pct(s.mean)
            )
        })
        .collect();
    let title = format!("{}: signed TPOT shape error (%) per chip family, over ALL", arm.name);
    let mut svg = Svg::new(&format!("{}-chips", arm.id), 740.0, f.y + f.h + 50.0, &title, &desc.join("; "));
    let y = Axis { lo: 0.0, hi: rows, ticks: Vec::new(), log2: false };
    let plot = svg.axes(f, &x, &y, &title, "signed TPOT shape error, %", "");
    svg.line((plot.cx(0.0), f.y), (plot.cx(0.0), f.y + f.h), "#555555", " stroke-dasharray=\"3 3\"");
    for (i, (chip, s)) in arm.by_chip.iter().enumerate() {
        let cy = f.y + 34.0 * i as f64 + 17.0;
        svg.text(f.x - 8.0, cy + 4.0, "end", "", &format!("{chip} (n {})", s.n));
        svg.line((plot.cx(s.p10), cy), (plot.cx(s.p90), cy), style.color, " stroke-width=\"1.5\"");
        for w in [s.p10, s.p90] {
            svg.line((plot.cx(w), cy - 6.0), (plot.cx(w), cy + 6.0), style.color, " stroke-width=\"1.5\"");
        }
        let extra =
            format!(" fill=\"{}\" fill-opacity=\"0.25\" stroke=\"{}\" stroke-width=\"1.5\"", style.color, style.color);
        svg.rect(plot.cx(s.p25), cy - 10.0, (plot.cx(s.p75) - plot.cx(s.p25)).max(1.0), 20.0, &extra);
        svg.line((plot.cx(s.median), cy - 10.0), (plot.cx(s.median), cy + 10.0), "#000000", " stroke-width=\"2.5\"");
        svg.marker((plot.cx(s.mean), cy), style, false);
    }
    svg.finish()
}

/// Mean signed TPOT shape error per concurrency, with p10 to p90 whiskers.
pub fn bias_chart(arm: &ArmView, style: Style) -> String {
    let f = Frame { x: 80.0, y: 36.0, w: 600.0, h: 220.0 };
    let cs: Vec<u32> = arm.by_concurrency.iter().map(|x| x.0).collect();
    let lo = arm.by_concurrency.iter().map(|(_, s)| s.p10).fold(0.0, f64::min);
    let hi = arm.by_concurrency.iter().map(|(_, s)| s.p90).fold(0.0, f64::max);
    let desc: Vec<String> = arm
        .by_concurrency
        .iter()
        .map(|(c, s)| format!("c={c}: n {}, mean {}, p10 {}, p90 {}", s.n, pct(s.mean), pct(s.p10), pct(s.p90)))
        .collect();
    let title = format!("{}: per-concurrency bias of the TPOT shape error (%), over ALL", arm.name);
    let mut svg = Svg::new(&format!("{}-bias", arm.id), 740.0, f.y + f.h + 50.0, &title, &desc.join("; "));
    let x = Axis::log2(&cs);
    let y = Axis::linear(lo, hi);
    let plot = svg.axes(f, &x, &y, &title, "concurrency (log 2)", "signed error, %");
    svg.line((f.x, plot.cy(0.0)), (f.x + f.w, plot.cy(0.0)), "#555555", " stroke-dasharray=\"3 3\"");
    for (c, s) in &arm.by_concurrency {
        let cx = plot.cx(*c as f64);
        svg.line((cx, plot.cy(s.p10)), (cx, plot.cy(s.p90)), style.color, " stroke-width=\"1.5\"");
        for w in [s.p10, s.p90] {
            svg.line((cx - 5.0, plot.cy(w)), (cx + 5.0, plot.cy(w)), style.color, " stroke-width=\"1.5\"");
        }
    }
    let pts: Vec<(f64, f64)> = arm.by_concurrency.iter().map(|(c, s)| (plot.cx(*c as f64), plot.cy(s.mean))).collect();
    svg.polyline(&pts, style, 2.0);
    for p in &pts {
        svg.marker(*p, style, false);
    }
    svg.finish()
}

fn sweep_sections(scored: &Scored, sweeps: &[SweepView]) -> String {
    let mut out = String::new();
    for tier in tiers_present(sweeps) {
        let in_tier: Vec<&SweepView> = sweeps.iter().filter(|s| s.tier == tier).collect();
        let _ = writeln!(
            out,
            "<section id=\"{}\">\n<h3>{}: {} sweeps</h3>",
            tier_id(tier),
            esc(tier.title()),
            in_tier.len()
        );
        out.push_str(&tier_table(scored, tier));
        let mut group = String::new();
        for s in in_tier {
            if group_id(s) != group {
                group = group_id(s);
                let _ = writeln!(out, "<h4 id=\"{}-{group}\">{} on {}</h4>", tier_id(tier), esc(&s.model), esc(&s.gpu));
            }
            out.push_str(&sweep_figure(s));
        }
        out.push_str("</section>\n");
    }
    out
}

/// The tier's headline row, as published: every sweep in the tier (cumulative, so ALL is all
/// 113), while the charts under it are the sweeps whose tightest tier this is.
fn tier_table(scored: &Scored, tier: Tier) -> String {
    let agg = scored.aggregate(scored.in_tier(tier));
    let mut out = format!(
        "<table><caption>Headline mean |e| in % over all {} sweeps in {} (this tier and tighter ones, as the published table counts them)</caption><thead><tr><th scope=\"col\">arm</th>",
        agg.sweeps,
        esc(tier.title())
    );
    for m in ErrorMetric::ALL {
        let _ = write!(out, "<th scope=\"col\">{} (n {})</th>", m.title(), agg.n[&m]);
    }
    out.push_str("</tr></thead><tbody>\n");
    for (i, (name, _, why)) in scored.arms.iter().enumerate() {
        let _ = write!(out, "<tr><th scope=\"row\">{}</th>", esc(name));
        for m in ErrorMetric::ALL {
            let cell = match (why, agg.cell_text(i, m)) {
                (Some(_), _) => "not run".to_string(),
                (None, Some(v)) => esc(&v),
                (None, None) => "--".to_string(),
            };
            let _ = write!(out, "<td class=\"num\">{cell}</td>");
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
    out
}

fn sweep_figure(s: &SweepView) -> String {
    let mut out = format!("<figure id=\"{}\">\n", s.id);
    let _ = writeln!(
        out,
        "<figcaption><a href=\"#{}\">{}</a> <span class=\"note\">({})</span></figcaption>",
        s.id,
        esc(&s.title()),
        esc(&s.scenario)
    );
    out.push_str(&sweep_chart(s));
    out.push_str(&sweep_numbers(s));
    out.push_str("</figure>\n");
    out
}

/// The text alternative: every plotted number.
fn sweep_numbers(s: &SweepView) -> String {
    let mut out = String::from("<details><summary>Numbers</summary>\n<table><thead><tr><th scope=\"col\">concurrency</th><th scope=\"col\">measured TPOT</th>");
    for a in &s.arms {
        let _ = write!(out, "<th scope=\"col\">{} TPOT</th>", esc(&a.name));
    }
    out.push_str("<th scope=\"col\">measured TTFT</th>");
    for a in &s.arms {
        let _ = write!(out, "<th scope=\"col\">{} TTFT</th>", esc(&a.name));
    }
    out.push_str("<th scope=\"col\">note</th></tr></thead><tbody>\n");
    for (i, c) in s.concurrency.iter().enumerate() {
        let _ = write!(out, "<tr><td class=\"num\">{c}</td><td class=\"num\">{}</td>", rel(s.measured_tpot[i]));
        for a in &s.arms {
            let _ = write!(out, "<td class=\"num\">{}</td>", rel(a.tpot[i]));
        }
        let _ = write!(out, "<td class=\"num\">{}</td>", rel(s.measured_ttft[i]));
        for a in &s.arms {
            let _ = write!(out, "<td class=\"num\">{}</td>", rel(a.ttft[i]));
        }
        let note = match (i, s.excluded[i]) {
            (0, _) => "anchor",
            (_, true) => "TTFT excursion: excluded from TTFT metrics",
            _ => "",
        };
        let _ = writeln!(out, "<td>{note}</td></tr>");
    }
    out.push_str("</tbody></table>\n</details>\n");
    out
}

fn rel(v: f64) -> String {
    if v.is_finite() {
        format!("{v:.3}")
    } else {
        "--".into()
    }
}

fn shape_text(v: Option<f64>) -> String {
    v.map_or("--".into(), |x| format!("{x:.2}%"))
}

/// One sweep: the TPOT panel and the TTFT panel side by side, and the legend under them.
pub fn sweep_chart(s: &SweepView) -> String {
    let legend_rows = 1 + s.arms.len() + 1;
    let height = 330.0 + 20.0 * legend_rows as f64;
    let mut desc = vec![format!(
        "Concurrency {}. Relative TPOT, measured: {}",
        join_u32(&s.concurrency),
        join_rel(&s.measured_tpot)
    )];
    for a in &s.arms {
        desc.push(format!("{} TPOT: {} (mean |e| {})", a.name, join_rel(&a.tpot), shape_text(a.tpot_shape)));
    }
    desc.push(format!("Relative TTFT, measured: {}", join_rel(&s.measured_ttft)));
    for a in &s.arms {
        desc.push(format!("{} TTFT: {} (mean |e| {})", a.name, join_rel(&a.ttft), shape_text(a.ttft_shape)));
    }
    let excluded: Vec<String> =
        s.concurrency.iter().zip(&s.excluded).filter(|(_, e)| **e).map(|(c, _)| c.to_string()).collect();
    if !excluded.is_empty() {
        desc.push(format!("TTFT excursion excluded at concurrency {}", excluded.join(", ")));
    }
    let title = format!("{}: relative TPOT and TTFT against concurrency", s.title());
    let mut svg = Svg::new(&format!("{}-chart", s.id), 980.0, height, &title, &(desc.join(". ") + "."));
    let none = vec![false; s.concurrency.len()];
    let tpot_arms: Vec<(Style, &[f64])> = s.arms.iter().map(|a| (arm_style(&a.key), a.tpot.as_slice())).collect();
    let ttft_arms: Vec<(Style, &[f64])> = s.arms.iter().map(|a| (arm_style(&a.key), a.ttft.as_slice())).collect();
    panel(
        &mut svg,
        Frame { x: 80.0, y: 40.0, w: 380.0, h: 230.0 },
        "TPOT relative to the anchor",
        &s.concurrency,
        &s.measured_tpot,
        &tpot_arms,
        &none,
    );
    panel(
        &mut svg,
        Frame { x: 570.0, y: 40.0, w: 380.0, h: 230.0 },
        "TTFT relative to the anchor",
        &s.concurrency,
        &s.measured_ttft,
        &ttft_arms,
        &s.excluded,
    );
    let mut y = 330.0;
    svg.legend_row(80.0, y, MEASURED, 2.5, &format!("measured ({})", MEASURED.described));
    for a in &s.arms {
        y += 20.0;
        let style = arm_style(&a.key);
        svg.legend_row(
            80.0,
            y,
            style,
            2.0,
            &format!(
                "{} ({}): shape mean |e| TPOT {}, TTFT {}",
                a.name,
                style.described,
                shape_text(a.tpot_shape),
                shape_text(a.ttft_shape)
            ),
        );
    }
    y += 20.0;
    let mut key = format!("dotted vertical line: the anchor, c={}", s.concurrency.first().copied().unwrap_or(0));
    if s.excluded.contains(&true) {
        key.push_str("; hollow point: a TTFT excursion, excluded from the TTFT metrics of every arm");
    }
    svg.text(80.0, y + 4.0, "start", " fill=\"#444444\"", &key);
    svg.finish()
}

fn join_u32(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

fn join_rel(v: &[f64]) -> String {
    v.iter().map(|x| rel(*x)).collect::<Vec<_>>().join(", ")
}

/// How far above the measured maximum a panel's scale reaches before it is clipped.
const CLIP_FACTOR: f64 = 10.0;

/// One metric's panel: measured and arm curves, the anchor, excluded points hollow (and
/// pinned to the top edge, labelled with their value, when they are off the scale).
#[allow(clippy::too_many_arguments)]
fn panel(
    svg: &mut Svg,
    f: Frame,
    title: &str,
    conc: &[u32],
    measured: &[f64],
    arms: &[(Style, &[f64])],
    excluded: &[bool],
) {
    let kept = |i: usize| !excluded[i];
    let hi = (0..conc.len())
        .filter(|&i| kept(i))
        .flat_map(|i| std::iter::once(measured[i]).chain(arms.iter().map(move |a| a.1[i])))
        .filter(|v| v.is_finite())
        .fold(1.0, f64::max);
    // An arm off by orders of magnitude would flatten every other curve onto the axis: the
    // scale stops at CLIP_FACTOR x the measured maximum, and points above it sit on the top
    // edge, said on the chart.
    let measured_hi =
        (0..conc.len()).filter(|&i| kept(i)).map(|i| measured[i]).filter(|v| v.is_finite()).fold(1.0, f64::max);
    let clip = CLIP_FACTOR * measured_hi;
    let clipped = hi > clip;
    let hi = if clipped { clip } else { hi };
    let x = Axis::log2(conc);
    let y = Axis::linear(0.0, hi * 1.05);
    let plot = svg.axes(f, &x, &y, title, "concurrency (log 2)", "relative to the anchor");
    let ax = plot.cx(conc[0] as f64);
    svg.line((ax, f.y), (ax, f.y + f.h), "#777777", " stroke-dasharray=\"2 3\"");
    svg.text(ax + 4.0, f.y + 12.0, "start", " fill=\"#444444\"", "anchor");
    let curve = |values: &[f64]| -> Vec<(f64, f64)> {
        (0..conc.len())
            .filter(|&i| kept(i) && values[i].is_finite())
            .map(|i| (plot.cx(conc[i] as f64), plot.cy(values[i].min(y.hi))))
            .collect()
    };
    if clipped {
        svg.text(
            f.x + f.w - 4.0,
            f.y + 12.0,
            "end",
            " fill=\"#444444\"",
            &format!("scale clipped at {}: higher points on the top edge", rel(clip)),
        );
    }
    for (style, values) in arms {
        let pts = curve(values);
        svg.polyline(&pts, *style, 2.0);
        for p in pts {
            svg.marker(p, *style, false);
        }
    }
    let pts = curve(measured);
    svg.polyline(&pts, MEASURED, 2.5);
    for p in pts {
        svg.marker(p, MEASURED, false);
    }
    // Labels stack downwards, one line per excluded point, so two never overlap.
    for (k, i) in (0..conc.len()).filter(|&i| !kept(i)).enumerate() {
        let cx = plot.cx(conc[i] as f64);
        let v = measured[i];
        let (cy, label) = if v > y.hi {
            (plot.top() + 6.0, format!("excluded: {} (off scale)", rel(v)))
        } else {
            (plot.cy(v), format!("excluded: {}", rel(v)))
        };
        svg.marker((cx, cy), MEASURED, true);
        let anchor = if cx > f.x + f.w * 0.6 { "end" } else { "start" };
        let dx = if anchor == "end" { -8.0 } else { 8.0 };
        svg.text(cx + dx, cy + 14.0 + 14.0 * k as f64, anchor, " fill=\"#444444\"", &format!("c={}: {label}", conc[i]));
    }
}

/// The page for `cargo xtask score --report-html`: the scored sweeps and arms.
pub fn for_score(scored: &Scored, corpora: &Corpora, arms: &[Arm], notes: Vec<String>) -> String {
    render(&Page {
        heading: "blis-repro: corpus score",
        figures: None,
        scoring: Ok(Scoring { scored, corpora, arms }),
        notes,
    })
}

/// The page for `cargo xtask reproduce --report-html`: the gate's figure table and, when the
/// corpora are there, the charts of the headline selection (vLLM, both config tiers), with the
/// BLIS arm when a binary is given (run as the gate's headline task runs it, so its points come
/// from the same cache). Without the corpora the page says which input the charts need.
pub fn for_gate(inputs: &crate::inputs::Inputs, manifest: &Manifest, results: &[FigureResult]) -> String {
    for_gate_with_baseline(inputs, manifest, results, None)
}

/// `for_gate`, and with `--baseline-blis` the comparison's table instead of a fresh BLIS
/// column: both the candidate's and the baseline's curves on every chart.
pub fn for_gate_with_baseline(
    inputs: &crate::inputs::Inputs,
    manifest: &Manifest,
    results: &[FigureResult],
    baseline: Option<&crate::blis::baseline::Comparison>,
) -> String {
    let figures = Some(Figures { results, manifest });
    let heading = "blis-repro: published figures";
    let (corpora, scenarios) = match crate::score::load_inputs(inputs) {
        Ok(loaded) => loaded,
        Err(e) => {
            let why = format!("the sweep and arm charts need the scorer's inputs: {e}");
            return render(&Page { heading, figures, scoring: Err(why), notes: Vec::new() });
        }
    };
    if let Some(cmp) = baseline {
        let notes = vec![format!(
            "BLIS: the candidate ({}) and the baseline ({}) are drawn on every chart, over the sweeps both can model",
            cmp.candidate.name, cmp.baseline.name
        )];
        let scoring = Ok(Scoring { scored: &cmp.scored, corpora: &corpora, arms: &cmp.arms });
        return render(&Page { heading, figures, scoring, notes });
    }
    let selection = crate::score::Selection::vllm(None);
    let catalog = inputs.get(crate::inputs::InputKind::Catalog).map(|c| c.path.as_path());
    // Resolved once: the BLIS column runs these points and the scorer scores them.
    let resolved = crate::score::resolve::resolve(&corpora, &scenarios, catalog, &selection);
    let mut notes = Vec::new();
    let blis = match inputs.get(crate::inputs::InputKind::Blis) {
        None => None,
        Some(_) => match blis_column(inputs, &resolved.sweeps) {
            Ok(column) => {
                notes.extend(column.notes.into_iter().map(|m| format!("BLIS: no value: {m}")));
                notes.extend(column.sweep_notes.into_iter().map(|m| format!("BLIS: {m}")));
                Some(column.arm)
            }
            Err(e) => Some(Arm::not_run("BLIS", "blis", crate::score::ArmKind::Simulated, &format!("{e}"))),
        },
    };
    let arms = crate::score::headline_arms(&corpora.e2e, blis);
    let scored = crate::score::score_resolved(&resolved, &arms);
    render(&Page { heading, figures, scoring: Ok(Scoring { scored: &scored, corpora: &corpora, arms: &arms }), notes })
}

fn blis_column(
    inputs: &crate::inputs::Inputs,
    resolved: &[crate::score::resolve::ResolvedSweep],
) -> Result<crate::blis::arm::Column, crate::task::TaskError> {
    use crate::inputs::InputKind;
    let needed_for = "drawing the BLIS charts";
    let opts = crate::blis::RunOptions::quiet_from_inputs(inputs, needed_for)?;
    let scenarios_dir = inputs.require_dir(InputKind::Scenarios, needed_for)?;
    crate::blis::arm::column(resolved, scenarios_dir, &opts)
}

#[cfg(test)]
mod tests;
