//! Rendering the gate's verdicts: one line per figure, the summary line, a markdown report fit
//! for a CI step summary (a table per document), and a stable JSON report.

use super::evaluate::{FigureResult, Status};
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

pub fn line(r: &FigureResult) -> String {
    let word = status_word(r.status);
    let detail = if r.detail.is_empty() { String::new() } else { format!("; {}", r.detail) };
    match (r.status, &r.ours) {
        (Status::Ok, Some(ours)) => format!("{word:<9}{}  {ours} (published {}{detail})", r.id, r.published),
        (Status::Mismatch, Some(ours)) => {
            format!("{word:<9}{}  published {}, ours {ours}{detail}", r.id, r.published)
        }
        (_, _) => format!("{word:<9}{}  {}", r.id, r.detail),
    }
}

pub fn text(results: &[FigureResult]) -> String {
    let mut out = String::new();
    for r in results {
        let _ = writeln!(out, "{}", line(r));
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
