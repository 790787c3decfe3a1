//! The README's own commands, run as written, so the first page cannot drift from the tool.
//! Every command line of its `sh` and `console` blocks runs in a shell from the clone's root,
//! as a user on a fresh clone runs it (no `BLIS_*` variable, the vendored trees hidden), and
//! must exit 0. A `console` block's other lines are the output the README shows: each run of
//! them between `...` markers must stand, in order and line for line, in what the command
//! printed. Two kinds of line are not run, and the README says so on each: a command whose
//! comment starts `# needs` (it takes an input a fresh clone does not have), and
//! `cargo test`, which runs this very test.

use crate::support::{root, xtask_shell};

#[derive(Debug)]
struct Command {
    line: String,
    /// For a `console` block: the output excerpt, split at `...` lines.
    shown: Vec<Vec<String>>,
}

/// The command lines of every `sh` and `console` block of `text`, and the lines left out.
fn commands(text: &str) -> (Vec<Command>, Vec<String>) {
    let (mut run, mut skipped) = (Vec::new(), Vec::new());
    let mut block: Option<&str> = None;
    for line in text.lines() {
        if let Some(fence) = line.strip_prefix("```") {
            block = match block {
                None => Some(fence.trim()),
                Some(_) => None,
            };
            continue;
        }
        let command = match block {
            Some("sh") if !line.trim().is_empty() => line.trim(),
            Some("console") => match line.strip_prefix("$ ") {
                Some(command) => command.trim(),
                None => {
                    let last: &mut Command = run.last_mut().expect("a console block starts with `$ `");
                    if line == "..." {
                        last.shown.push(Vec::new());
                    } else {
                        last.shown.last_mut().expect("started with the command").push(line.to_string());
                    }
                    continue;
                }
            },
            _ => continue,
        };
        let comment = command.split_once(" #").map(|(_, c)| c.trim());
        if command.starts_with("cargo test") || comment.is_some_and(|c| c.starts_with("needs ")) {
            skipped.push(command.to_string());
        } else {
            run.push(Command { line: command.to_string(), shown: vec![Vec::new()] });
        }
    }
    (run, skipped)
}

/// Whether each group of `shown` stands, line for line, in `output`, each after the one before.
fn shows(output: &str, shown: &[Vec<String>]) -> Result<(), String> {
    let lines: Vec<&str> = output.lines().collect();
    let mut from = 0;
    for group in shown.iter().filter(|g| !g.is_empty()) {
        let found = (from..lines.len().saturating_sub(group.len() - 1))
            .find(|&i| group.iter().enumerate().all(|(j, l)| lines[i + j] == l));
        match found {
            Some(i) => from = i + group.len(),
            None => return Err(format!("not in the output (after line {from}):\n{}", group.join("\n"))),
        }
    }
    Ok(())
}

#[test]
fn every_readme_command_that_needs_no_input_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let (run, skipped) = commands(&readme);
    assert!(run.len() >= 5, "the README's commands were not found: {run:?}");
    assert!(skipped.iter().any(|s| s.starts_with("cargo test")), "{skipped:?}");
    let mut failures = Vec::new();
    for command in &run {
        let out = xtask_shell(&root(), &command.line).env("BLIS_IGNORE_VENDORED", "1").output().unwrap();
        let output = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            failures.push(format!("`{}` exited with {}:\n{output}", command.line, out.status));
        } else if let Err(e) = shows(&output, &command.shown) {
            failures.push(format!("`{}`: the README's output is {e}", command.line));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_readme_parser_reads_blocks_excerpts_and_skips() {
    let text = "intro\n```sh\ncargo xtask a   # what\ncargo xtask b   # needs a blis\ncargo test --x\n```\n\
                ```console\n$ cargo xtask c\none\n...\ntwo\n```\n```text\n$ not run\n```\n";
    let (run, skipped) = commands(text);
    let lines: Vec<&str> = run.iter().map(|c| c.line.as_str()).collect();
    assert_eq!(lines, ["cargo xtask a   # what", "cargo xtask c"]);
    assert_eq!(skipped, ["cargo xtask b   # needs a blis", "cargo test --x"]);
    assert_eq!(run[1].shown, [vec!["one".to_string()], vec!["two".to_string()]]);
    assert!(shows("zero\none\nx\ntwo\n", &run[1].shown).is_ok());
    assert!(shows("two\none\n", &run[1].shown).is_err(), "order matters");
    assert!(shows("one\n", &run[1].shown).is_err());
}
