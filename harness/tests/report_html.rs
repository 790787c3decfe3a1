//! The HTML report in a real browser and on the team's corpora.
//!
//! `browser/...` trials load pages in headless chromium through the DevTools protocol
//! (`harness::report_html::browser`). They are ignored with the reason when no chromium is on
//! PATH, and fail under CI=true (.ci/run installs Debian's `chromium`). Two of them prove the
//! checker can fail: a page with an external image and a page logging a console error.
//!
//! `corpus/...` trials need BLIS_MEASUREMENTS and the vendored scenario tree: ignored with the
//! reason without them, failing under CI=true.

use harness::gate::{self, evaluate::InProcess, tasks::Context, GateOptions};
use harness::inputs::{Flags, Inputs};
use harness::report_html::{self, browser};
use harness::score::{self, Selection};
use libtest_mimic::{Arguments, Completion, Failed, Trial};
use std::path::PathBuf;
use std::time::Duration;

mod support;
use support::on_ci;

/// Runs `test` with the chromium on PATH, or says why it cannot.
fn with_chromium(test: fn(PathBuf) -> Result<(), Failed>) -> Result<Completion, Failed> {
    match browser::find_chromium() {
        Some(chromium) => test(chromium).map(|()| Completion::Completed),
        None if on_ci() => Err("CI=true but no chromium on PATH; install it with `apt-get install -y chromium`".into()),
        None => Ok(Completion::ignored_with("needs chromium on PATH (Debian: apt-get install -y chromium)")),
    }
}

fn with_corpora(test: fn() -> Result<(), Failed>) -> Result<Completion, Failed> {
    support::requires(support::missing_corpora_and_scenarios(), test)
}

/// The page `cargo xtask reproduce --report-html` writes, with whatever inputs this process has
/// but the folder of releases: with it the gate would run every release's history (half an hour
/// cold; `history_releases.rs` pins the task), and the page renders refused figures all the same.
fn gate_page() -> Result<String, Failed> {
    let mut inputs = Inputs::from_process(&Flags::default());
    inputs.releases = None;
    let cx = Context { inputs, manifest: gate::manifest_path(), lock: harness::lock::default_lock_path() };
    let manifest = harness::gate::load_manifest(&cx.manifest).map_err(|e| format!("{e:#}"))?;
    let results = gate::evaluate(&manifest, &cx, &InProcess(&cx), &GateOptions { only: &[] }, &mut |_, _, _| {});
    Ok(report_html::for_gate(&cx.inputs, &manifest, &results))
}

fn load(chromium: &std::path::Path, html: &str) -> Result<browser::PageLoad, Failed> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let page = dir.path().join("report.html");
    std::fs::write(&page, html).map_err(|e| e.to_string())?;
    browser::load(chromium, &page, Duration::from_millis(500)).map_err(|e| format!("{e:#}").into())
}

fn report_loads_with_no_network_request_and_no_console_error(chromium: PathBuf) -> Result<(), Failed> {
    let html = gate_page()?;
    let load = load(&chromium, &html)?;
    match load.problems() {
        None => Ok(()),
        Some(p) => Err(p.into()),
    }
}

fn checker_catches_an_external_image_request(chromium: PathBuf) -> Result<(), Failed> {
    let html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>t</title></head>\
        <body><img src=\"http://example.invalid/pixel.png\" alt=\"x\"></body></html>";
    let load = load(&chromium, html)?;
    if !load.loaded {
        return Err(format!("the page did not load: {load:?}").into());
    }
    if !load.requests.iter().any(|r| r == "http://example.invalid/pixel.png") {
        return Err(format!("the external image went unseen: {load:?}").into());
    }
    Ok(())
}

fn checker_catches_a_console_error(chromium: PathBuf) -> Result<(), Failed> {
    let html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>t</title></head>\
        <body><script>console.error('deliberately broken'); undefinedFunction();</script></body></html>";
    let load = load(&chromium, html)?;
    let said = |needle: &str| load.errors.iter().any(|e| e.contains(needle));
    if !said("deliberately broken") || !said("undefinedFunction") {
        return Err(format!("console error or exception went unseen: {load:?}").into());
    }
    if !load.requests.is_empty() {
        return Err(format!("no request expected: {load:?}").into());
    }
    Ok(())
}

fn checker_passes_a_clean_page(chromium: PathBuf) -> Result<(), Failed> {
    let html = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>t</title></head>\
        <body><svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\"><title>x</title><rect width=\"5\" height=\"5\"/></svg></body></html>";
    match load(&chromium, html)?.problems() {
        None => Ok(()),
        Some(p) => Err(p.into()),
    }
}

fn one_chart_per_scored_sweep_plus_two_per_arm() -> Result<(), Failed> {
    let inputs = Inputs::from_process(&Flags::default());
    let (corpora, scenarios) = score::load_inputs(&inputs).map_err(|e| e.to_string())?;
    let arms = score::headline_arms(&corpora.e2e, None);
    let scored = score::score(&corpora, &scenarios, &arms, &Selection::vllm(None));
    let html = report_html::for_score(&scored, &corpora, &arms, Vec::new());
    let sweeps = html.matches("<figure id=\"sweep-").count();
    let charts = html.matches("<svg ").count();
    let arms_run = scored.arms.iter().filter(|a| a.2.is_none()).count();
    // The published vLLM selection scores 113 sweeps (PUBLISHED-FIGURES.md section 3).
    if (sweeps, scored.sweeps.len(), arms_run) != (113, 113, 2) || charts != sweeps + 2 * arms_run {
        return Err(format!(
            "{sweeps} sweep figures for {} scored sweeps, {charts} charts, {arms_run} arms run",
            scored.sweeps.len()
        )
        .into());
    }
    if html.matches("<title id=").count() != charts || html.matches("<desc id=").count() != charts {
        return Err("a chart lacks its title or description".into());
    }
    Ok(())
}

fn the_gate_page_is_byte_identical_twice() -> Result<(), Failed> {
    let (a, b) = (gate_page()?, gate_page()?);
    if a != b {
        let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
        return Err(format!("the two pages differ from byte {at}").into());
    }
    if !a.contains("<figure id=\"sweep-") {
        return Err("the gate page has no sweep chart with the corpora present".into());
    }
    Ok(())
}

/// In the browser, on the gate page: a headline cell's figure links to its ranked sweeps, the
/// first of which links to that sweep's chart (issue 31: from a figure down to its sweeps).
fn a_headline_cell_leads_to_its_sweeps_and_their_charts(chromium: PathBuf) -> Result<(), Failed> {
    if let Some(why) = support::missing_corpora_and_scenarios() {
        return Err(format!("this trial {why}").into());
    }
    let html = gate_page()?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let page = dir.path().join("report.html");
    std::fs::write(&page, &html).map_err(|e| e.to_string())?;
    let follow = r#"(() => {
        const figure = document.querySelector('tr#fig-headline-all-aic-ttft-shape a');
        if (!figure) return 'no link on the figure';
        figure.click();
        const cell = document.querySelector(':target');
        if (!cell) return 'the figure link leads nowhere';
        const first = cell.querySelector('ol li a');
        if (!first) return cell.id + ': no sweep link';
        first.click();
        const sweep = document.querySelector(':target');
        return [cell.id, cell.querySelectorAll('ol li').length, sweep ? sweep.tagName + '#' + sweep.id : 'nowhere'].join(' ');
    })()"#;
    let (load, values) = browser::load_evaluating(&chromium, &page, Duration::from_millis(200), &[follow])
        .map_err(|e| format!("{e:#}"))?;
    if let Some(p) = load.problems() {
        return Err(p.into());
    }
    let got = values.first().and_then(|v| v.as_str()).unwrap_or("").to_string();
    let want = "cell-all-aic-ttft-shape 113 FIGURE#sweep-minimax-m3-b200-fp4-vllm-tp8-8k1k";
    if got != want {
        return Err(format!("followed the links to {got:?}, expected {want:?}").into());
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        Trial::ignorable_test("browser/report_loads_with_no_network_request_and_no_console_error", || {
            with_chromium(report_loads_with_no_network_request_and_no_console_error)
        }),
        Trial::ignorable_test("browser/checker_catches_an_external_image_request", || {
            with_chromium(checker_catches_an_external_image_request)
        }),
        Trial::ignorable_test("browser/checker_catches_a_console_error_and_an_exception", || {
            with_chromium(checker_catches_a_console_error)
        }),
        Trial::ignorable_test("browser/checker_passes_a_clean_page", || with_chromium(checker_passes_a_clean_page)),
        Trial::ignorable_test("browser/a_headline_cell_leads_to_its_sweeps_and_their_charts", || {
            match support::missing_corpora_and_scenarios() {
                Some(why) => support::requires(Some(why), || Ok(())),
                None => with_chromium(a_headline_cell_leads_to_its_sweeps_and_their_charts),
            }
        }),
        Trial::ignorable_test("corpus/vllm/one_chart_per_scored_sweep_plus_two_per_arm", || {
            with_corpora(one_chart_per_scored_sweep_plus_two_per_arm)
        }),
        Trial::ignorable_test("corpus/gate_page_is_byte_identical_twice", || {
            with_corpora(the_gate_page_is_byte_identical_twice)
        }),
    ];
    libtest_mimic::run(&args, trials).exit();
}
