//! Rendering the gate's verdicts: the one-screen summary a person reads (each reproduced or
//! mismatched figure on a line, the refusals grouped by the input they need), every figure on a
//! line (`--verbose`), the totals line, a markdown report fit for a CI step summary (a table per
//! document), and a stable JSON report. The reports always carry every figure.

use super::evaluate::{FigureResult, Need, RefusalKind, Status};
use super::manifest::ExpectedSource;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub mismatched: usize,
    pub refused: usize,
    /// Of `refused`: for an input that exists but was not given (what `--require-all` fails on).
    pub refused_missing_input: usize,
    /// Of `refused`: the inputs given cannot compute them (another input of the kind could).
    pub refused_given_input_cannot: usize,
    /// Of `refused`: no input of this tool can supply what they need.
    pub refused_permanently: usize,
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
            match r.refusal {
                Some(RefusalKind::MissingInput) => s.refused_missing_input += 1,
                Some(RefusalKind::GivenInputCannot) => s.refused_given_input_cannot += 1,
                Some(RefusalKind::Permanent) => s.refused_permanently += 1,
                None => {}
            }
        }
        s
    }

    pub fn line(&self) -> String {
        let mut why = Vec::new();
        if self.refused_given_input_cannot > 0 {
            why.push(format!("{} beyond what the inputs given can compute", self.refused_given_input_cannot));
        }
        if self.refused_permanently > 0 {
            why.push(format!("{} of them permanently: no input here can supply them", self.refused_permanently));
        }
        let why = if why.is_empty() { String::new() } else { format!(" ({})", why.join("; ")) };
        format!("{} reproduced, {} mismatched, {} refused{why}", self.reproduced, self.mismatched, self.refused)
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

/// What the figure's expected value is and where it comes from: `published 10.43
/// (PUBLISHED-FIGURES.md §3)` for a value upstream published, `expected 8.51 (computed here)`
/// for one nobody published.
pub fn expected(r: &FigureResult) -> String {
    match r.expected_source {
        ExpectedSource::ComputedHere => format!("expected {} (computed here)", r.published),
        ExpectedSource::Published if r.section.is_empty() || r.section == "-" => {
            format!("published {} ({})", r.published, r.document)
        }
        ExpectedSource::Published => format!("published {} ({} §{})", r.published, r.document, r.section),
    }
}

/// The source as a report's column spells it.
pub fn source_word(source: ExpectedSource) -> &'static str {
    match source {
        ExpectedSource::Published => "published",
        ExpectedSource::ComputedHere => "computed here",
    }
}

fn painted_line(r: &FigureResult, paint: Paint) -> String {
    let word = word(r.status, paint);
    let detail = if r.detail.is_empty() { String::new() } else { format!("; {}", r.detail) };
    match (r.status, &r.ours) {
        (Status::Ok | Status::Mismatch, Some(ours)) => {
            format!("{word}{}  ours {ours}, {}{detail}", r.id, expected(r))
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
    // Refusals an input would lift first, then the permanent ones under their own heading.
    let mut groups: Vec<Group> = Vec::new();
    for r in results {
        if r.status != Status::Refused {
            let _ = writeln!(out, "{}", painted_line(r, paint));
            continue;
        }
        // A task that refused by itself carries its reason, a whole sentence, in `detail` only.
        let sentence = r.need.is_none();
        let need = r.need.clone().unwrap_or_else(|| Need {
            what: r.detail.clone(),
            supplied_by: String::new(),
            permanent: r.refusal == Some(RefusalKind::Permanent),
        });
        let i = match groups.iter().position(|g| g.what == need.what) {
            Some(i) => i,
            None => {
                let (what, permanent) = (need.what.clone(), need.permanent);
                groups.push(Group { what, count: 0, supplied_by: Vec::new(), permanent, sentence });
                groups.len() - 1
            }
        };
        groups[i].count += 1;
        if !need.supplied_by.is_empty() && !groups[i].supplied_by.contains(&need.supplied_by) {
            groups[i].supplied_by.push(need.supplied_by);
        }
    }
    let (permanent, liftable): (Vec<&Group>, Vec<&Group>) = groups.iter().partition(|g| g.permanent);
    for g in &liftable {
        let _ = writeln!(out, "{}{}", word(Status::Refused, paint), g.text(true));
    }
    if !permanent.is_empty() {
        let total: usize = permanent.iter().map(|g| g.count).sum();
        let figures = if total == 1 { "figure" } else { "figures" };
        let _ = writeln!(
            out,
            "{}{total} {figures} permanently: no input of this tool can supply what they need (--require-all does not count them):",
            word(Status::Refused, paint)
        );
        for g in &permanent {
            let _ = writeln!(out, "{:9}  {}", "", g.text(false));
        }
    }
    if !groups.is_empty() {
        let _ = writeln!(out, "(`--verbose` lists every figure; --report-md/--report-json keep them all)");
    }
    let _ = writeln!(out, "{}", Summary::of(results).line());
    out
}

/// The refused figures that need one thing, for the brief output.
struct Group {
    what: String,
    count: usize,
    /// What the given inputs supply instead, once each.
    supplied_by: Vec<String>,
    permanent: bool,
    /// `what` is the task's own sentence, with its verb, not the name of an input.
    sentence: bool,
}

impl Group {
    /// `2 figures lack X: how`, or `1 lacks X: how` without the noun; a task's own sentence
    /// follows a colon, so no line reads `need X needs Y`.
    fn text(&self, noun: bool) -> String {
        let count = self.count;
        let how =
            if self.supplied_by.is_empty() { String::new() } else { format!(": {}", self.supplied_by.join("; ")) };
        let (figures, verb) = match count {
            1 => ("figure", "lacks"),
            _ => ("figures", "lack"),
        };
        let counted = if noun { format!("{count} {figures}") } else { count.to_string() };
        if self.sentence {
            format!("{counted}: {}{how}", self.what)
        } else {
            format!("{counted} {verb} {}{how}", self.what)
        }
    }
}

pub fn markdown(results: &[FigureResult]) -> String {
    let mut by_doc: BTreeMap<&str, Vec<&FigureResult>> = BTreeMap::new();
    for r in results {
        by_doc.entry(&r.document).or_default().push(r);
    }
    let mut out = String::from("# blis-repro: published figures\n\n");
    let _ = writeln!(out, "**{}**\n", Summary::of(results).line());
    if let Some(tool) = crate::version::get() {
        let _ = writeln!(out, "Written by cargo xtask {tool}.\n");
    }
    for (doc, rows) in by_doc {
        let _ = writeln!(out, "## {doc}\n");
        out.push_str(
            "| section | figure | status | expected | source | ours | detail |\n|---|---|---|---|---|---|---|\n",
        );
        for r in rows {
            let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} | {} | {} | {} |",
                cell(&r.section),
                r.id,
                status_word(r.status),
                cell(&r.published),
                source_word(r.expected_source),
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
    /// The build that wrote the report (`cargo xtask --version`); absent when rendered by a test.
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'static str>,
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
    let report = JsonReport {
        blis_points,
        figures: results,
        schema: 1,
        summary: Summary::of(results),
        tool: crate::version::get(),
    };
    let mut text = serde_json::to_string_pretty(&report).expect("the report always serialises");
    text.push('\n');
    text
}
