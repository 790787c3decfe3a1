//! Every command takes exactly the input flags it reads. Walking the command tree as `--help`
//! shows it: an input flag a command does not list is a usage error (exit 64), never accepted
//! and ignored; one it lists is read: pointed at a path that does not exist, the command stops
//! before any work and names the path (exit 1, bad input; or 2 where the command's documented
//! contract refuses it: a `blis` binary that cannot run, `lock diff`'s missing DIR).

use predicates::prelude::*;
use std::path::Path;

use crate::support::xtask;

/// Every flag that names an input (a folder, the binary, the baseline binary).
const INPUT_FLAGS: [&str; 7] =
    ["--measurements", "--catalog", "--registry", "--scenarios", "--blis", "--releases", "--baseline-blis"];

/// What a command needs besides the flag under test to get as far as reading its inputs.
fn required_args(command: &[String]) -> &'static [&'static str] {
    match command.join(" ").as_str() {
        "blis run" => &["--specs", "points.json"],
        "explain" => &["fixtures/numpy-seed0-randint"],
        _ => &[],
    }
}

fn help(command: &[String]) -> String {
    let out = xtask(Path::new("/")).args(command).arg("--help").output().unwrap();
    assert!(out.status.success(), "{command:?} --help: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The entries of a help section (`Commands:`, `Options:`), each trimmed: lines indented by at
/// most `indent` spaces (deeper lines continue a description).
fn section<'a>(help: &'a str, title: &'a str, indent: usize) -> impl Iterator<Item = &'a str> {
    help.lines()
        .skip_while(move |l| *l != title)
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(move |l| l.len() - l.trim_start().len() <= indent)
        .map(str::trim_start)
}

/// Every leaf command (`["reproduce"]`, `["blis", "run"]`, ...).
fn leaves(prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let text = help(&prefix);
    let subs: Vec<String> = section(&text, "Commands:", 2)
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect();
    if subs.is_empty() {
        out.push(prefix);
        return;
    }
    for sub in subs {
        let mut command = prefix.clone();
        command.push(sub);
        leaves(command, out);
    }
}

/// The long flags a command's `--help` lists.
fn listed_flags(command: &[String]) -> Vec<String> {
    let text = help(command);
    // `  -v, --verbose` or `      --blis <PATH>`.
    section(&text, "Options:", 6)
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")))
        .map(|w| w.trim_end_matches(',').to_string())
        .collect()
}

fn all_commands() -> Vec<(Vec<String>, Vec<String>)> {
    let mut commands = Vec::new();
    leaves(Vec::new(), &mut commands);
    assert!(commands.len() > 20, "the walk found only {commands:?}");
    commands
        .into_iter()
        .map(|c| {
            let flags = listed_flags(&c);
            (c, flags)
        })
        .collect()
}

#[test]
fn an_input_flag_a_command_does_not_read_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut tried = 0;
    for (command, listed) in all_commands() {
        for flag in INPUT_FLAGS.iter().filter(|f| !listed.iter().any(|l| l == *f)) {
            let out = xtask(dir.path()).args(&command).args([*flag, "/nonexistent/input"]).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(64), "{command:?} {flag}: {stderr}");
            assert!(stderr.contains(&format!("unexpected argument '{flag}'")), "{command:?} {flag}: {stderr}");
            tried += 1;
        }
    }
    // fixtures check alone leaves six of the seven out; the walk must have tried many.
    assert!(tried > 100, "only {tried} flags tried");
}

#[test]
fn every_input_flag_a_command_lists_is_read_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    crate::score_cli::tiny_inputs(dir.path());
    std::fs::write(dir.path().join("points.json"), "[]").unwrap();
    let missing = dir.path().join("no-such-input");
    let mut tried = 0;
    for (command, listed) in all_commands() {
        for flag in INPUT_FLAGS.iter().filter(|f| listed.iter().any(|l| l == *f)) {
            // Every other input usable, so nothing but the flag under test can stop the command.
            let mut cmd = xtask(dir.path());
            for (var, sub) in [
                ("BLIS_MEASUREMENTS", "measurements"),
                ("BLIS_SCENARIOS", "scenarios"),
                ("BLIS_CATALOG", "catalog"),
                ("BLIS_REGISTRY", "registry"),
            ] {
                cmd.env(var, dir.path().join(sub));
            }
            let out = cmd.args(&command).args(required_args(&command)).arg(flag).arg(&missing).output().unwrap();
            let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
            assert!(matches!(out.status.code(), Some(1 | 2)), "{command:?} {flag}: {:?}\n{said}", out.status);
            assert!(said.contains(&missing.display().to_string()), "{command:?} {flag} did not name the path:\n{said}");
            tried += 1;
        }
    }
    assert!(tried > 40, "only {tried} flags tried");
}

/// The gate's inputs are what its tasks need (the task table's `needs`), and the releases.
#[test]
fn reproduce_takes_the_inputs_its_tasks_need() {
    let mut needed: Vec<&str> = harness::gate::tasks::TASKS.iter().flat_map(|t| t.needs).map(|k| k.flag()).collect();
    needed.push(harness::inputs::InputKind::Releases.flag());
    needed.push("--baseline-blis");
    needed.sort();
    needed.dedup();
    let mut listed: Vec<String> =
        listed_flags(&["reproduce".to_string()]).into_iter().filter(|f| INPUT_FLAGS.contains(&f.as_str())).collect();
    listed.sort();
    assert_eq!(listed, needed);
}

/// A variable set for an input a command does not read is neither checked nor used by it; the
/// one it reads still is.
#[test]
fn a_command_ignores_the_variables_of_inputs_it_does_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let unread = ["BLIS_CATALOG", "BLIS_REGISTRY", "BLIS_SCENARIOS", "BLIS_BIN", "BLIS_RELEASES"];
    let fixtures_check = || {
        let mut cmd = xtask(dir.path());
        cmd.args(["fixtures", "check"]);
        for var in unread {
            cmd.env(var, "/nonexistent/unread");
        }
        cmd
    };
    fixtures_check().env("BLIS_MEASUREMENTS", "").assert().code(0);
    let out = fixtures_check().env("BLIS_MEASUREMENTS", "/nonexistent/read").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("BLIS_MEASUREMENTS=/nonexistent/read") && !stderr.contains("unread"), "{stderr}");
}

/// `history` compares whole columns, each release from its own folder: a shard of it would
/// call a step "no change" on half the points, and a working directory would be ignored.
#[test]
fn history_takes_neither_a_shard_nor_a_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    for flags in [["--shard", "1/2"], ["--blis-root", "/tmp"]] {
        let out = xtask(dir.path()).arg("history").args(flags).output().unwrap();
        assert_eq!(out.status.code(), Some(64), "history {flags:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // The flags of the pool stay.
    let help = help(&["history".to_string()]);
    for flag in ["--jobs", "--timeout", "--no-cache", "--cache-dir", "--form"] {
        assert!(help.contains(flag), "history --help lists no {flag}");
    }
}

#[test]
fn an_empty_latency_model_is_a_usage_error_not_each_releases_default() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["", " "] {
        let out = xtask(dir.path()).args(["history", "--latency-model", name]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(64), "history --latency-model {name:?}: {stderr}");
        assert!(stderr.contains("--latency-model") && stderr.contains("empty"), "{stderr}");
    }
}

/// The range `--help` and docs/commands.md state for `--resamples` is the one the parser holds
/// (it said 1 when 39 was already refused).
#[test]
fn the_stated_resample_range_is_the_one_enforced() {
    use oracles::bootstrap::{MAX_RESAMPLES, MIN_RESAMPLES};
    let range = format!("{MIN_RESAMPLES} to {MAX_RESAMPLES}");
    for command in ["score", "history"] {
        let help = help(&[command.to_string()]);
        assert!(help.contains(&format!("({range};")), "{command} --help states another range than {range}");
    }
    let docs = std::fs::read_to_string(crate::support::root().join("docs/commands.md")).unwrap();
    assert!(docs.contains(&format!("from {range})")), "docs/commands.md states another range than {range}");
    assert!(!docs.contains("from 1 to 1000000"));
    // The ends themselves: the last refused and the first accepted, through the parser.
    let dir = tempfile::tempdir().unwrap();
    for (n, usage) in
        [(MIN_RESAMPLES - 1, true), (MIN_RESAMPLES, false), (MAX_RESAMPLES, false), (MAX_RESAMPLES + 1, true)]
    {
        let out = xtask(dir.path()).args(["score", "--resamples", &n.to_string()]).output().unwrap();
        assert_eq!(
            out.status.code() == Some(64),
            usage,
            "score --resamples {n}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_shard_bench_given_a_cache_that_is_no_folder_fails_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("file"), "").unwrap();
    for cache in ["/nonexistent/cache", "file"] {
        let out = xtask(dir.path()).args(["bench", "shards", "--cache-dir", cache]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "bench shards --cache-dir {cache}: {stderr}");
        assert!(stderr.contains(&format!("--cache-dir {cache}")) && out.stdout.is_empty(), "{stderr}");
    }
}

/// A `blis` given that cannot run (`--blis /nonexistent/blis`, `BLIS_BIN=/nonexistent`,
/// `--blis /tmp`) is bad input on every command that takes `--blis`: exit 1 before any work,
/// naming the path, never a refusal (exit 2) and never a gate that passes with fewer figures.
/// No other input is given, so nothing done before the check could stop the command first.
#[test]
fn a_given_blis_that_cannot_run_exits_1_before_any_work_on_every_command_that_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    let not_executable = dir.path().join("blis.txt");
    std::fs::write(&not_executable, "not a binary").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&not_executable, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut commands = 0;
    for (command, listed) in all_commands() {
        if !listed.iter().any(|f| f == "--blis") {
            continue;
        }
        commands += 1;
        let cases: [(&str, Option<&Path>, &str); 4] = [
            ("/nonexistent/blis", None, "found nothing (no such file)"),
            ("/nonexistent", Some(Path::new("BLIS_BIN")), "found nothing (no such file)"),
            ("/tmp", None, "found a directory"),
            (not_executable.to_str().unwrap(), None, "found a file that is not executable (mode 644)"),
        ];
        for (path, via_env, found) in cases {
            let mut cmd = crate::support::xtask_without_corpora(dir.path());
            cmd.args(&command).args(required_args(&command));
            match via_env {
                Some(_) => cmd.env("BLIS_BIN", path),
                None => cmd.args(["--blis", path]),
            };
            let out = cmd.timeout(std::time::Duration::from_secs(60)).output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let what =
                format!("{} with {}{path}", command.join(" "), if via_env.is_some() { "BLIS_BIN=" } else { "--blis " });
            assert_eq!(out.status.code(), Some(1), "{what}: {stderr}");
            assert!(stderr.contains(path) && stderr.contains(found), "{what}: {stderr}");
            assert!(out.stdout.is_empty() && !stderr.contains("refused"), "{what}: {stderr}");
        }
    }
    // reproduce, score, blis run/determinism/sensitivity, bench shards/blis-real.
    assert!(commands >= 7, "only {commands} commands take --blis");
}

/// A bench that needs an input nobody gave is refused as every command is: exit 2, naming the
/// flag and the variable that supply it, before any work.
#[test]
fn a_bench_without_its_binary_or_releases_is_refused_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let blis = harness::blis::double::build().unwrap();
    let cases: [(&[&str], &str); 3] = [
        (&["bench", "blis-real"], "--blis PATH or set BLIS_BIN"),
        (&["bench", "warm"], "--blis PATH or set BLIS_BIN"),
        (&["bench", "warm", "--blis", blis.to_str().unwrap()], "--releases DIR or set BLIS_RELEASES"),
    ];
    for (args, names) in cases {
        xtask(dir.path())
            .args(args)
            .assert()
            .code(2)
            .stdout("")
            .stderr(predicates::str::starts_with("refused: ").and(predicates::str::contains(names)));
    }
}
