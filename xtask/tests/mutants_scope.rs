//! The mutation-testing scope (`.cargo/mutants.toml`) as docs/mutants.md states it: `cargo
//! mutants --list` with the checked-in config gives, file by file, the counts of the
//! `text mutants-scope` block there, so a change of the scope or of the code in it cannot leave
//! the published figure stale without this test failing. Needs cargo-mutants at the version of
//! `.ci/mutants/version` (another version lists other mutants); without it the trial is ignored
//! saying how to install it. `.ci/run` does not build cargo-mutants (minutes of compiling); the
//! mutation workflow (`.github/workflows/mutants.yml`) installs it and runs this test first.

use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::BTreeMap;
use std::process::Command;

mod support;

fn main() {
    let args = Arguments::from_args();
    let name = "mutants/scope-counts-match-docs-mutants-md";
    let trial = match missing() {
        None => Trial::test(name, scope_counts_match_the_docs),
        Some(why) => Trial::test(name, || Ok(())).with_ignored_flag(true).with_kind(why),
    };
    libtest_mimic::run(&args, vec![trial]).exit();
}

fn pinned() -> String {
    std::fs::read_to_string(support::root().join(".ci/mutants/version"))
        .expect(".ci/mutants/version")
        .trim()
        .to_string()
}

/// Why the trial cannot run here, or `None`.
fn missing() -> Option<String> {
    let want = pinned();
    let install = format!("cargo install cargo-mutants --locked --version {want}");
    match Command::new("cargo").args(["mutants", "--version"]).output() {
        Ok(out) if out.status.success() => {
            let have = String::from_utf8_lossy(&out.stdout).trim().to_string();
            (have != format!("cargo-mutants {want}"))
                .then(|| format!("needs cargo-mutants {want}, found {have} ({install})"))
        }
        _ => Some(format!("needs cargo-mutants {want} ({install})")),
    }
}

/// Mutants per file, and the total, from `text` lines `<file> <count>` / `total <count>`.
fn counts(lines: impl Iterator<Item = String>) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for line in lines {
        let mut parts = line.split_whitespace();
        if let (Some(file), Some(n), None) = (parts.next(), parts.next(), parts.next()) {
            out.insert(file.to_string(), n.parse().unwrap_or_else(|_| panic!("not a count: {line:?}")));
        }
    }
    out
}

fn documented() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(support::root().join("docs/mutants.md")).expect("docs/mutants.md");
    let block = text.split("```text mutants-scope\n").nth(1).expect("a ```text mutants-scope block in docs/mutants.md");
    let block = block.split("```").next().unwrap();
    counts(block.lines().map(str::to_string))
}

fn scope_counts_match_the_docs() -> Result<(), Failed> {
    let out = Command::new("cargo")
        .args(["mutants", "--list"])
        .current_dir(support::root())
        .output()
        .map_err(|e| format!("cargo mutants --list: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo mutants --list failed: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    for line in String::from_utf8(out.stdout)?.lines() {
        let file = line.split(':').next().unwrap_or_default();
        *listed.entry(file.to_string()).or_default() += 1;
    }
    let total = listed.values().sum();
    listed.insert("total".into(), total);
    let documented = documented();
    if listed != documented {
        let diff: Vec<String> = listed
            .keys()
            .chain(documented.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter(|k| listed.get(*k) != documented.get(*k))
            .map(|k| format!("{k}: listed {:?}, docs/mutants.md says {:?}", listed.get(k), documented.get(k)))
            .collect();
        return Err(format!(
            "the mutation scope changed: run `cargo mutants` over it and update docs/mutants.md (figures and the \
             mutants-scope block):\n{}",
            diff.join("\n")
        )
        .into());
    }
    Ok(())
}
