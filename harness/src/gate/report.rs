//! Rendering the gate's verdicts: the one-screen summary a person reads (each reproduced or
//! mismatched figure on a line, the refusals grouped by the input they need), every figure on a
//! line (`--verbose`), the totals line, a markdown report fit for a CI step summary (a table per
//! document), and a stable JSON report. The reports always carry every figure.

use super::evaluate::{FigureResult, Need, Status};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub mismatched: usize,
    pub refused: usize,
    pub reproduced: usize,
}

impl Summary {
    pub fn of(results: &[FigureResult]) -> Summary {
        let mut s = Summary::default();
        for r in results {
            match r.status {
                Status::Ok => s.reproduced += 1,
                Status::Mismatch => s.mismatched += 1,
                Status::Refused => s.refused += 1,
            }
        }
        s
    }

    pub fn line(&self) -> String {
        format!("{} reproduced, {} mismatched, {} refused", self.reproduced, self.mismatched, self.refused)
    }
}

pub fn status_word(status: Status) -> &'static str {
    match status {
        Status::Ok => "ok",
        Status::Mismatch => "MISMATCH",
        Status::Refused => "refused",
    }
}

/// Whether status words are coloured. Only the terminal ever gets colour: files, pipes and
/// `NO_COLOR` get plain text (the caller decides, see `harness::term`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Paint {
    #[default]
    Plain,
    Ansi,
}

/// The status word padded to its column, coloured when asked (green ok, red MISMATCH, yellow
/// refused); the padding is outside the colour so columns line up either way.
fn word(status: Status, paint: Paint) -> String {
    let plain = status_word(status);
    let pad = " ".repeat(9usize.saturating_sub(plain.len()));
    match paint {
        Paint::Plain => format!("{plain}{pad}"),
        Paint::Ansi => {
            let code = match status {
                Status::Ok => "32",
                Status::Mismatch => "1;31",
                Status::Refused => "33",
            };
            format!("\x1b[{code}m{plain}\x1b[0m{pad}")
        }
    }
}

pub fn line(r: &FigureResult) -> String {
    painted_line(r, Paint::Plain)
}

fn painted_line(r: &FigureResult, paint: Paint) -> String {
    let word = word(r.status, paint);
    let detail = if r.detail.is_empty() { String::new() } else { format!("; {}", r.detail) };
    match (r.status, &r.ours) {
        (Status::Ok, Some(ours)) => {
            format!("{word}{}  {ours} (published {}{detail})", r.id, r.published)
        }
        (Status::Mismatch, Some(ours)) => {
            format!("{word}{}  published {}, ours {ours}{detail}", r.id, r.published)
        }
        (_, _) => format!("{word}{}  {}", r.id, r.detail),
    }
}

/// Every figure on its own line, then the totals (`reproduce --verbose`).
pub fn text(results: &[FigureResult]) -> String {
    verbose(results, Paint::Plain)
}

pub fn verbose(results: &[FigureResult], paint: Paint) -> String {
    let mut out = String::new();
    for r in results {
        let _ = writeln!(out, "{}", painted_line(r, paint));
    }
    let _ = writeln!(out, "{}", Summary::of(results).line());
    out
}

/// What a person reads in one screen (`reproduce` without `--verbose`): each reproduced or
/// mismatched figure on its line, in manifest order; then one line per input the refused
/// figures need, with their count and what supplies it, in order of first appearance; then a
/// pointer to `--verbose` and the totals.
pub fn brief(results: &[FigureResult], paint: Paint) -> String {
    let mut out = String::new();
    // One line per need (`what`); what the given inputs supply instead, when it differs
    // between figures (each task's own count of sweeps), is listed on that line once each.
    let mut groups: Vec<(String, usize, Vec<String>)> = Vec::new();
    for r in results {
        if r.status != Status::Refused {
            let _ = writeln!(out, "{}", painted_line(r, paint));
            continue;
        }
        // A task that refused by itself carries its reason in `detail` only.
        let need = r.need.clone().unwrap_or_else(|| Need { what: r.detail.clone(), supplied_by: String::new() });
        let i = match groups.iter().position(|(what, _, _)| *what == need.what) {
            Some(i) => i,
            None => {
                groups.push((need.what.clone(), 0, Vec::new()));
                groups.len() - 1
            }
        };
        groups[i].1 += 1;
        if !need.supplied_by.is_empty() && !groups[i].2.contains(&need.supplied_by) {
            groups[i].2.push(need.supplied_by);
        }
    }
    for (what, count, bys) in &groups {
        let figures = if *count == 1 { "figure needs" } else { "figures need" };
        let how = if bys.is_empty() { String::new() } else { format!(": {}", bys.join("; ")) };
        let _ = writeln!(out, "{}{count} {figures} {what}{how}", word(Status::Refused, paint));
    }
    if !groups.is_empty() {
        let _ = writeln!(out, "(`--verbose` lists every figure; --report-md/--report-json keep them all)");
    }
    let _ = writeln!(out, "{}", Summary::of(results).line());
    out
}

pub fn markdown(results: &[FigureResult]) -> String {
    let mut by_doc: BTreeMap<&str, Vec<&FigureResult>> = BTreeMap::new();
    for r in results {
        by_doc.entry(&r.document).or_default().push(r);
    }
    let mut out = String::from("# blis-repro: published figures\n\n");
    let _ = writeln!(out, "**{}**\n", Summary::of(results).line());
    for (doc, rows) in by_doc {
        let _ = writeln!(out, "## {doc}\n");
        out.push_str("| section | figure | status | published | ours | detail |\n|---|---|---|---|---|---|\n");
        for r in rows {
            let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} | {} | {} |",
                cell(&r.section),
                r.id,
                status_word(r.status),
                cell(&r.published),
                cell(r.ours.as_deref().unwrap_or("")),
                cell(&r.detail)
            );
        }
        out.push('\n');
    }
    out
}

#[derive(Serialize)]
struct JsonReport<'a> {
    /// Per task that ran `blis`: every point's exact command line, workload SHA-256 and result.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    blis_points: &'a BTreeMap<String, Vec<serde_json::Value>>,
    figures: &'a [FigureResult],
    schema: u32,
    summary: Summary,
}

/// Stable and machine-readable: keys in a fixed (alphabetical) order, figures in manifest order.
pub fn json(results: &[FigureResult]) -> String {
    json_with_blis_points(results, &BTreeMap::new())
}

/// `json`, plus the point records of every task that ran `blis` (key `blis_points`).
pub fn json_with_blis_points(
    results: &[FigureResult],
    blis_points: &BTreeMap<String, Vec<serde_json::Value>>,
) -> String {
    let report = JsonReport { blis_points, figures: results, schema: 1, summary: Summary::of(results) };
    let mut text = serde_json::to_string_pretty(&report).expect("the report always serialises");
    text.push('\n');
    text
}
