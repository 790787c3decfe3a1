//! `cargo xtask bench suite`: where `cargo test --workspace` spends its time. Compiling (its
//! `--no-run`, timed as the target folder stands: on a fresh clone, cold), then each test
//! binary's wall time with the simulations it started, read from the runner's ledger
//! (`harness::blis::ledger`): how many, their summed simulator time, and every point
//! simulated more than once in the whole run. docs/speed.md records a run.
//!
//! cargo runs test binaries one after another, so the ledger lines that appear while a binary
//! runs are that binary's (its xtask children included).

use anyhow::{Context, Result};
use harness::blis::ledger;
use harness::task::exit;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// No flags: the measurement is of the README's test command as it stands, whatever inputs the
/// environment gives it (`.ci/run` sets the team's).
#[derive(clap::Args)]
pub struct Args {}

/// One test binary's share of the run.
#[derive(Default)]
struct Binary {
    name: String,
    wall: Duration,
    result: String,
    simulations: usize,
    simulator_ms: u64,
    /// What it printed: shown when it fails, so a failing run's bench still says why.
    output: Vec<String>,
}

pub fn run(_: Args) -> Result<u8> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let root = harness::paths::workspace_root();

    let started = Instant::now();
    let built = Command::new(&cargo)
        .current_dir(&root)
        .args(["test", "--workspace", "--no-run"])
        .status()
        .context("running cargo test --no-run")?;
    let compile = started.elapsed();
    if !built.success() {
        eprintln!("bench suite: the tests did not build ({built})");
        return Ok(exit::FAILED);
    }

    let ledger_file = tempfile::NamedTempFile::new().context("creating the run ledger")?;
    let ledger_path = ledger_file.path().to_path_buf();
    // Both streams through one pipe, in the order cargo and the tests wrote them.
    let mut child = Command::new("sh")
        .current_dir(&root)
        .arg("-c")
        .arg(r#"exec "$0" test --workspace 2>&1"#)
        .arg(&cargo)
        .env(ledger::VAR, &ledger_path)
        .stdout(Stdio::piped())
        .spawn()
        .context("running cargo test")?;
    let out = child.stdout.take().context("cargo test's output")?;
    let tests_started = Instant::now();
    let mut binaries: Vec<Binary> = Vec::new();
    let mut current: Option<(Binary, Instant)> = None;
    let mut seen = 0usize;
    let mut simulations: Vec<(String, ledger::Entry)> = Vec::new();
    let mut close = |current: &mut Option<(Binary, Instant)>, binaries: &mut Vec<Binary>| -> Result<()> {
        let new = read_ledger(&ledger_path, &mut seen)?;
        if let Some((mut b, since)) = current.take() {
            b.wall = since.elapsed();
            b.simulations = new.len();
            b.simulator_ms = new.iter().map(|s| s.ms).sum();
            if !b.result.starts_with("ok") {
                eprintln!("bench suite: {} failed:\n{}", b.name, b.output.join("\n"));
            }
            b.output = Vec::new();
            simulations.extend(new.into_iter().map(|s| (b.name.clone(), s)));
            binaries.push(b);
        }
        Ok(())
    };
    for line in std::io::BufReader::new(out).lines() {
        let line = line.context("reading cargo test's output")?;
        let trimmed = line.trim_start();
        let next = trimmed
            .strip_prefix("Running ")
            .map(binary_name)
            .or_else(|| trimmed.strip_prefix("Doc-tests ").map(|c| format!("doc-tests {c}")));
        if let Some(mut name) = next {
            // Two packages may each have a `tests/it/main.rs`.
            let same = binaries.iter().filter(|b| b.name == name || b.name.starts_with(&format!("{name} #"))).count();
            if same > 0 {
                name = format!("{name} #{}", same + 1);
            }
            close(&mut current, &mut binaries)?;
            eprintln!("bench suite: {name}");
            current = Some((Binary { name, ..Binary::default() }, Instant::now()));
        } else if let Some((b, _)) = current.as_mut() {
            if let Some(result) = trimmed.strip_prefix("test result: ") {
                b.result = result.split(';').take(3).collect::<Vec<_>>().join(";");
            }
            b.output.push(line);
        }
    }
    close(&mut current, &mut binaries)?;
    let status = child.wait().context("waiting for cargo test")?;
    let tests = tests_started.elapsed();

    print!("{}", render(compile, tests, &binaries, &simulations));
    if !status.success() {
        eprintln!("bench suite: cargo test failed ({status}); the split above is of a failing run");
        return Ok(exit::FAILED);
    }
    Ok(exit::OK)
}

/// `unittests src/lib.rs (target/debug/deps/harness-0123)` → `harness unittests`;
/// `tests/blis_real.rs (target/...)` → `tests/blis_real.rs`.
fn binary_name(running: &str) -> String {
    let (what, path) = running.split_once(" (").unwrap_or((running, ""));
    match what.strip_prefix("unittests ") {
        Some(_) => {
            let file = path.trim_end_matches(')').rsplit('/').next().unwrap_or("");
            let krate = file.rsplit_once('-').map_or(file, |(name, _hash)| name);
            format!("{krate} unittests")
        }
        None => what.to_string(),
    }
}

/// The lines added to the ledger since the last call.
fn read_ledger(path: &std::path::Path, seen: &mut usize) -> Result<Vec<ledger::Entry>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("reading the ledger {}", path.display()))?;
    let lines: Vec<&str> = text.lines().collect();
    let new = lines[(*seen).min(lines.len())..].iter().filter_map(|l| ledger::parse_line(l)).collect();
    *seen = lines.len();
    Ok(new)
}

fn render(compile: Duration, tests: Duration, binaries: &[Binary], sims: &[(String, ledger::Entry)]) -> String {
    let mut s = String::new();
    let secs = |d: Duration| format!("{:.1}", d.as_secs_f64());
    s.push_str(&format!(
        "compile (cargo test --no-run): {} s\ntests: {} s\ntotal: {} s\n\n",
        secs(compile),
        secs(tests),
        secs(compile + tests)
    ));
    s.push_str("| test binary | wall s | simulations | simulator s | result |\n|---|---|---|---|---|\n");
    let mut by_wall: Vec<&Binary> = binaries.iter().collect();
    by_wall.sort_by(|a, b| b.wall.cmp(&a.wall).then(a.name.cmp(&b.name)));
    for b in by_wall {
        s.push_str(&format!(
            "| {} | {} | {} | {:.1} | {} |\n",
            b.name,
            secs(b.wall),
            b.simulations,
            b.simulator_ms as f64 / 1000.0,
            b.result
        ));
    }
    let mut per_key: BTreeMap<&str, Vec<&(String, ledger::Entry)>> = BTreeMap::new();
    for sim in sims {
        per_key.entry(sim.1.key.as_str()).or_default().push(sim);
    }
    let repeats: usize = per_key.values().map(|v| v.len() - 1).sum();
    let total_ms: u64 = sims.iter().map(|s| s.1.ms).sum();
    s.push_str(&format!(
        "\n{} simulations of {} distinct points ({} repeats), {:.1} simulator s in all\n",
        sims.len(),
        per_key.len(),
        repeats,
        total_ms as f64 / 1000.0
    ));
    let mut repeated: Vec<_> = per_key.iter().filter(|(_, v)| v.len() > 1).collect();
    repeated.sort_by_key(|(k, v)| (std::cmp::Reverse(v.iter().map(|s| s.1.ms).sum::<u64>()), *k));
    for (key, v) in repeated {
        let mut where_: BTreeMap<&str, usize> = BTreeMap::new();
        for sim in v {
            *where_.entry(sim.0.as_str()).or_default() += 1;
        }
        let places: Vec<String> = where_.iter().map(|(b, n)| format!("{b} x{n}")).collect();
        s.push_str(&format!(
            "  {} x{} ({:.1} s): {} [{}]\n",
            &key[..key.len().min(12)],
            v.len(),
            v.iter().map(|s| s.1.ms).sum::<u64>() as f64 / 1000.0,
            v[0].1.label,
            places.join(", ")
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sim(binary: &str, key: &str, ms: u64) -> (String, ledger::Entry) {
        (binary.into(), ledger::Entry { key: key.into(), ms, label: format!("point {key}") })
    }

    #[test]
    fn a_point_simulated_by_two_binaries_is_named_with_both() {
        let binaries = [Binary { name: "a".into(), simulations: 2, ..Binary::default() }];
        let sims = [sim("a", "k1", 1000), sim("b", "k1", 3000), sim("a", "k2", 500)];
        let text = render(Duration::from_secs(60), Duration::from_secs(30), &binaries, &sims);
        assert!(text.contains("3 simulations of 2 distinct points (1 repeats), 4.5 simulator s in all"), "{text}");
        assert!(text.contains("  k1 x2 (4.0 s): point k1 [a x1, b x1]"), "{text}");
        assert!(!text.contains("k2 x"), "{text}");
    }

    #[test]
    fn a_binary_is_named_by_its_test_file_or_its_crate() {
        assert_eq!(binary_name("unittests src/lib.rs (target/debug/deps/harness-c0717f74)"), "harness unittests");
        assert_eq!(binary_name("tests/blis_real.rs (target/debug/deps/blis_real-b7cc1eae)"), "tests/blis_real.rs");
    }

    #[test]
    fn the_ledger_is_read_from_where_the_last_read_stopped() {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), "k1 10 one\n").unwrap();
        let mut seen = 0;
        assert_eq!(read_ledger(file.path(), &mut seen).unwrap().len(), 1);
        std::fs::write(file.path(), "k1 10 one\nk2 20 two words\n").unwrap();
        let new = read_ledger(file.path(), &mut seen).unwrap();
        assert_eq!((new.len(), new[0].key.as_str(), new[0].ms, new[0].label.as_str()), (1, "k2", 20, "two words"));
    }
}
