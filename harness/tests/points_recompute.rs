//! The per-point table (`--points`, docs/points.md) against the figures it claims to make: on
//! the team's corpora, every headline cell and every interval of the full headline and of the
//! measured-tier table is recomputed from the table as written (a CSV read back), in Rust to
//! the last bit, and by the documented numpy recipe (docs/recipes/headline_from_points.py) to
//! the printed digits; with the test double as the BLIS arm, the BLIS cells too.
//!
//! Needs BLIS_MEASUREMENTS and a scenario tree (ignored with the reason otherwise, failing under
//! CI=true); the recipe also needs python3 with numpy (ignored with the reason otherwise,
//! failing under CI=true, where .ci/run installs it).

mod support;

use harness::inputs::{Flags, Inputs};
use harness::score::{self, intervals, points, ErrorMetric};
use harness::task::{TaskOutput, Value};
use libtest_mimic::{Arguments, Failed, Trial};
use oracles::bootstrap::{self, SweepTotal};
use oracles::tiers::{ConfigTier, Tier};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn headline(config_tier: Option<ConfigTier>) -> Result<TaskOutput, Failed> {
    headline_with(config_tier, Flags::default())
}

fn headline_with(config_tier: Option<ConfigTier>, flags: Flags) -> Result<TaskOutput, Failed> {
    let inputs = Inputs::from_process(&flags);
    score::task_headline(&inputs, config_tier, harness::blis::arm::headline_column).map_err(|e| format!("{e}").into())
}

/// The table written as `--points` writes it, and read back: (header, rows of cells).
fn written(out: &TaskOutput, dir: &Path) -> Result<(Vec<String>, Vec<Vec<String>>), Failed> {
    let path = dir.join("points.csv");
    let rows = points::from_values(&out.points).map_err(|e| e.to_string())?;
    harness::atomic::write(&path, points::csv(&rows).as_bytes()).map_err(|e| e.to_string())?;
    let text = std::fs::read_to_string(&path).map_err(|e| e.to_string())?;
    let mut lines = text.lines().map(parse_line);
    let header = lines.next().ok_or("an empty table")?;
    Ok((header, lines.collect()))
}

/// One CSV line (RFC 4180 quotes).
fn parse_line(line: &str) -> Vec<String> {
    let (mut cells, mut cell, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(std::mem::take(&mut cell)),
            (c, _) => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// Every cell `<tier>.<arm>.<metric>` (and its `.ci_low`, `.ci_high`) recomputed from the rows:
/// the mean |e| of the rows with the tier's column 1, the arm, the metric's column not empty;
/// the interval over those rows' sweeps in table order.
fn recompute(header: &[String], rows: &[Vec<String>], measured_only: bool) -> Result<BTreeMap<String, f64>, Failed> {
    let col = |name: &str| header.iter().position(|h| h == name).ok_or(format!("no column {name}"));
    let (arm, scenario, label, measured) = (col("arm")?, col("scenario")?, col("label")?, col("measured_tier")?);
    let rows: Vec<&Vec<String>> = rows.iter().filter(|r| !measured_only || r[measured] == "1").collect();
    let mut arms: Vec<&str> = Vec::new();
    for r in &rows {
        if !arms.contains(&r[arm].as_str()) {
            arms.push(&r[arm]);
        }
    }
    let mut out = BTreeMap::new();
    for tier in Tier::ORDER {
        let member = col(tier.key())?;
        for a in &arms {
            for m in ErrorMetric::ALL {
                let error = col(points::column(m))?;
                let mut sweeps: Vec<((&str, &str), SweepTotal)> = Vec::new();
                let (mut sum, mut n) = (0.0, 0usize);
                for r in rows.iter().filter(|r| r[member] == "1" && r[arm] == *a && !r[error].is_empty()) {
                    let e: f64 =
                        r[error].parse().map_err(|_| format!("{}: not a number: {:?}", points::column(m), r[error]))?;
                    sum += e.abs();
                    n += 1;
                    let key = (r[scenario].as_str(), r[label].as_str());
                    match sweeps.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, t)) => {
                            t.sum_abs += e.abs();
                            t.n += 1;
                        }
                        None => sweeps.push((key, SweepTotal { sum_abs: e.abs(), n: 1 })),
                    }
                }
                if n == 0 {
                    continue;
                }
                let key = format!("{}.{a}.{}", tier.key(), m.key());
                out.insert(key.clone(), sum / n as f64);
                let totals: Vec<SweepTotal> = sweeps.into_iter().map(|(_, t)| t).collect();
                if let Ok(ci) = bootstrap::interval(&totals, bootstrap::DEFAULT_RESAMPLES, bootstrap::SEED) {
                    out.insert(format!("{key}.ci_low"), ci.low);
                    out.insert(format!("{key}.ci_high"), ci.high);
                }
            }
        }
    }
    Ok(out)
}

/// The task's cell values: numbers keyed `<tier>.<arm>.<metric>[.ci_low|.ci_high]`.
fn cells(out: &TaskOutput) -> BTreeMap<String, f64> {
    let metric = |k: &str| ErrorMetric::ALL.iter().any(|m| k.split('.').nth(2) == Some(m.key()));
    out.values
        .iter()
        .filter(|(k, _)| {
            Tier::ORDER.iter().any(|t| k.split('.').next() == Some(t.key())) && metric(k) && !k.contains("_minus_")
        })
        .filter_map(|(k, v)| match v {
            Value::Number(x) => Some((k.clone(), *x)),
            _ => None,
        })
        .collect()
}

fn differences(task: &BTreeMap<String, f64>, table: &BTreeMap<String, f64>) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = task.keys().chain(table.keys()).collect();
    keys.into_iter()
        .filter(|k| task.get(*k) != table.get(*k))
        .map(|k| format!("{k}: task {:?}, table {:?}", task.get(k), table.get(k)))
        .collect()
}

/// Both tables (the full headline, and the measured tier from the full table's
/// `measured_tier` rows and from its own table), recomputed exactly.
fn rust_recomputes_every_cell() -> Result<(), Failed> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let full = headline(None)?;
    let measured = headline(Some(ConfigTier::Measured))?;
    let (header, rows) = written(&full, dir.path())?;
    let (m_header, m_rows) = written(&measured, dir.path())?;
    let mut wrong = Vec::new();
    for (what, task, table) in [
        ("headline", cells(&full), recompute(&header, &rows, false)?),
        ("measured tier (full table, measured_tier = 1)", cells(&measured), recompute(&header, &rows, true)?),
        ("measured tier (its own table)", cells(&measured), recompute(&m_header, &m_rows, false)?),
    ] {
        if task.len() < 32 {
            return Err(format!("{what}: only {} cells in the task's values", task.len()).into());
        }
        wrong.extend(differences(&task, &table).into_iter().map(|d| format!("{what}: {d}")));
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

/// With the test double as the BLIS arm (it models every sweep, so the headline has BLIS
/// cells): the BLIS cells recompute from the BLIS rows like the others, and every BLIS row
/// carries its run.
fn double_column_recomputes_from_its_rows() -> Result<(), Failed> {
    let double = harness::blis::double::build().map_err(|e| format!("{e:#}"))?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let out = headline_with(None, Flags { blis: Some(double), ..Flags::default() })?;
    let (header, rows) = written(&out, dir.path())?;
    let task = cells(&out);
    if !task.keys().any(|k| k.contains(".blis.")) {
        return Err("the task has no BLIS cell: the double should model every sweep".into());
    }
    let wrong = differences(&task, &recompute(&header, &rows, false)?);
    if !wrong.is_empty() {
        return Err(wrong.join("\n").into());
    }
    blis_rows_carry_their_run(&header, &rows, true)
}

/// With a real release (`BLIS_REAL_BIN`), which models some sweeps: the headline refuses the
/// published BLIS cells, so the column its rows give is the release's own, `blis-release/<tag>/`
/// (`score --blis` prints it). Each of those figures recomputes from the table's BLIS rows to
/// its printed digits. Its points are the release figure's (uniform form), which the blis_real
/// suite has just cached, so neither task here simulates anything after that suite.
fn real_column_recomputes_from_its_rows(real: &Path) -> Result<(), Failed> {
    use harness::inputs::InputKind;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let flags = Flags { blis: Some(real.to_path_buf()), ..Flags::default() };
    let (header, rows) = written(&headline_with(None, flags.clone())?, dir.path())?;
    blis_rows_carry_their_run(&header, &rows, false)?;
    let table = recompute(&header, &rows, false)?;
    let alone =
        [InputKind::Measurements, InputKind::Catalog, InputKind::Registry, InputKind::Scenarios, InputKind::Blis];
    let inputs = Inputs::from_process(&flags).only(&alone);
    let figures =
        harness::gate::tasks::release_figures(&harness::gate::manifest_path()).map_err(|e| format!("{e:#}"))?;
    let release = harness::history::task_releases(&inputs, &figures).map_err(|e| format!("{e:?}"))?;
    let (mut compared, mut wrong) = (0, Vec::new());
    for (key, value) in &release.values {
        let (Value::Number(x), Some((_tag, cell))) = (value, key.split_once('.')) else { continue };
        if !cell.contains(".blis.") {
            continue;
        }
        compared += 1;
        match table.get(cell) {
            Some(t) if format!("{t:.2}") == format!("{x:.2}") => {}
            other => wrong.push(format!("{key}: the release's {x:.2}, the table's {other:?}")),
        }
    }
    match (compared, wrong.is_empty()) {
        (0, _) => Err("the release task gave no BLIS figure".into()),
        (_, true) => Ok(()),
        _ => Err(wrong.join("\n").into()),
    }
}

/// Every BLIS row carries the binary's hash, the form and whether it was modelled, and every
/// modelled row its point's cache key; some rows are modelled (all of them, when `models_all`).
fn blis_rows_carry_their_run(header: &[String], rows: &[Vec<String>], models_all: bool) -> Result<(), Failed> {
    let col = |name: &str| header.iter().position(|h| h == name).ok_or(format!("no column {name}"));
    let (arm, sha, form, key, modelled) =
        (col("arm")?, col("blis_binary_sha256")?, col("blis_form")?, col("blis_cache_key")?, col("blis_modelled")?);
    let blis: Vec<&Vec<String>> = rows.iter().filter(|r| r[arm] == "blis").collect();
    let bad = blis.iter().find(|r| {
        r[sha].len() != 64
            || r[form] != "uniform"
            || !["0", "1"].contains(&r[modelled].as_str())
            || (r[modelled] == "1" && r[key].len() != 64)
            || (models_all && r[modelled] != "1")
    });
    match (blis.iter().filter(|r| r[modelled] == "1").count(), bad) {
        (0, _) => Err("no modelled BLIS rows".into()),
        (_, Some(r)) => Err(format!("a BLIS row without its binary, form, key or modelled flag: {r:?}").into()),
        _ => Ok(()),
    }
}

/// The numpy recipe over the written full table, against the printed digits of both tables.
fn numpy_recipe_prints_every_cell(python: &str) -> Result<(), Failed> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let full = headline(None)?;
    let measured = headline(Some(ConfigTier::Measured))?;
    written(&full, dir.path())?;
    let recipe = harness::paths::workspace_root().join("docs/recipes/headline_from_points.py");
    let mut wrong = Vec::new();
    for (task, extra) in [(&full, None), (&measured, Some("measured"))] {
        let out = std::process::Command::new(python)
            .arg(&recipe)
            .arg(dir.path().join("points.csv"))
            .args(extra)
            .output()
            .map_err(|e| format!("{python} {}: {e}", recipe.display()))?;
        if !out.status.success() {
            return Err(format!("the recipe failed: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
        let values = cells(task);
        let printed = String::from_utf8_lossy(&out.stdout);
        let mut seen = 0;
        for line in printed.lines() {
            let f: Vec<&str> = line.split_whitespace().collect();
            let [key, mean, low, high] = f[..] else { return Err(format!("a recipe line: {line:?}").into()) };
            for (k, recipe_text) in
                [(key.to_string(), mean), (format!("{key}.ci_low"), low), (format!("{key}.ci_high"), high)]
            {
                let ours = values.get(&k).map(|v| intervals::pct(*v)).unwrap_or_else(|| "nan".to_string());
                if ours != recipe_text {
                    wrong.push(format!(
                        "{}{k}: printed {ours}, recipe {recipe_text}",
                        extra.map_or("", |_| "measured: ")
                    ));
                }
            }
            seen += 1;
        }
        let cells_in_task = values.keys().filter(|k| !k.ends_with("ci_low") && !k.ends_with("ci_high")).count();
        if seen != cells_in_task {
            wrong.push(format!("the recipe printed {seen} cells, the task has {cells_in_task}"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("\n").into())
    }
}

/// python3 with numpy, or why not.
fn numpy() -> Result<(), String> {
    let out = std::process::Command::new("python3")
        .args(["-c", "import numpy"])
        .output()
        .map_err(|e| format!("needs python3 with numpy (python3 cannot be started: {e})"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err("needs python3 with numpy (numpy cannot be imported)".into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let missing = support::missing_corpora_and_scenarios();
    let trials = vec![
        support::unless_missing(
            Trial::test("points/rust_recomputes_every_cell", rust_recomputes_every_cell),
            missing.as_deref(),
        ),
        support::unless_missing(
            Trial::test("points/blis_double/column_recomputes_from_its_rows", double_column_recomputes_from_its_rows),
            missing.as_deref(),
        ),
        {
            let missing = missing.clone();
            Trial::ignorable_test("points/blis_real/column_recomputes_from_its_rows", move || {
                let real = std::env::var_os("BLIS_REAL_BIN").filter(|v| !v.is_empty()).map(PathBuf::from);
                let why = missing.or_else(|| real.is_none().then(|| "needs BLIS_REAL_BIN (a real blis)".to_string()));
                support::requires(why, || {
                    real_column_recomputes_from_its_rows(real.as_deref().unwrap_or(Path::new("")))
                })
            })
        },
        Trial::ignorable_test("points/numpy_recipe_prints_every_cell", move || {
            let why = match (&missing, numpy()) {
                (Some(why), _) => Some(why.clone()),
                (None, found) => found.err(),
            };
            support::requires(why, || numpy_recipe_prints_every_cell("python3"))
        }),
    ];
    libtest_mimic::run(&args, trials).exit();
}
