//! Checking trees against the lock: the vendored trees (the default), an explicit override
//! (`BLIS_CATALOG`, `BLIS_REGISTRY`, `BLIS_SCENARIOS`, or their flags) pointing at a live
//! checkout, and a measurements folder against the pinned corpus hashes.
//!
//! docs/upstream.md §8 (BLK `scripts/fetch-testdata.sh`): the stamp must equal the lock, every hash
//! must match, an absent tree fails with the command that makes it. The report is text a
//! snapshot can pin: no absolute paths for the vendored trees, no times, a fixed order.

use super::file::{Lock, Upstream};
use super::tree::{self, Scan, COMMIT_STAMP, MANIFEST_STAMP};
use crate::inputs::{InputKind, InputPath, Inputs, Origin};
use crate::task::TaskOutput;
use std::path::Path;

/// How a tree is read: a vendored tree is all ours (stray files are extra, stamps required);
/// a live checkout only counts what the globs match and has no stamps of ours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Vendored,
    Live,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Changed {
    pub path: String,
    pub locked: String,
    pub found: String,
    pub not_utf8: bool,
}

/// A tree compared with its lock section, file by file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Comparison {
    pub locked: usize,
    pub matched: usize,
    pub changed: Vec<Changed>,
    pub missing: Vec<String>,
    pub extra: Vec<String>,
    /// Entries refused while reading (symlink, FIFO, directory, unreadable), with the reason.
    pub refused: Vec<(String, String)>,
    /// Stamp mismatches (vendored trees) or a checkout whose HEAD is not the locked commit.
    pub stamp: Vec<String>,
    /// Facts that are not failures, e.g. that a live checkout's commit could not be checked.
    pub notes: Vec<String>,
}

impl Comparison {
    pub fn ok(&self) -> bool {
        self.changed.is_empty()
            && self.missing.is_empty()
            && self.extra.is_empty()
            && self.refused.is_empty()
            && self.stamp.is_empty()
    }
}

/// Compares what was read with the lock section's files.
pub fn compare(upstream: &Upstream, scan: &Scan) -> Comparison {
    let mut c = Comparison { locked: upstream.files.len(), ..Comparison::default() };
    for entry in &upstream.files {
        match scan.files.get(&entry.path) {
            Some(found) if *found == entry.digest => c.matched += 1,
            Some(found) => c.changed.push(Changed {
                path: entry.path.clone(),
                locked: entry.digest.to_hex(),
                found: found.to_hex(),
                not_utf8: scan.not_utf8.contains(&entry.path),
            }),
            None if scan.problems.contains_key(&entry.path) => {}
            None => c.missing.push(entry.path.clone()),
        }
    }
    let locked: std::collections::BTreeSet<&str> = upstream.files.iter().map(|e| e.path.as_str()).collect();
    for path in scan.files.keys() {
        if !locked.contains(path.as_str()) {
            c.extra.push(path.clone());
        }
    }
    c.refused = scan.problems.iter().map(|(p, why)| (p.clone(), why.clone())).collect();
    c
}

/// A vendored tree: every file, plus both stamps checked against the lock.
pub fn check_vendored(upstream: &Upstream, root: &Path) -> std::io::Result<Comparison> {
    let scan = tree::scan_tree(root)?;
    let mut c = compare(upstream, &scan);
    match crate::read::bytes(&root.join(COMMIT_STAMP)) {
        Ok(bytes) if bytes == format!("{}\n", upstream.commit).as_bytes() => {}
        Ok(bytes) => c.stamp.push(format!(
            "{COMMIT_STAMP} says {:?}, the lock says {}",
            String::from_utf8_lossy(&bytes).trim_end(),
            upstream.commit
        )),
        Err(e) => c.stamp.push(format!("{COMMIT_STAMP} unreadable: {e:#}")),
    }
    match crate::read::bytes(&root.join(MANIFEST_STAMP)) {
        Ok(bytes) if bytes == upstream.manifest_text().as_bytes() => {}
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes);
            let lock_text = upstream.manifest_text();
            let first_diff = text
                .lines()
                .zip(lock_text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| text.lines().count().min(lock_text.lines().count()));
            c.stamp.push(format!("{MANIFEST_STAMP} differs from the lock from its line {}", first_diff + 1));
        }
        Err(e) => c.stamp.push(format!("{MANIFEST_STAMP} unreadable: {e:#}")),
    }
    Ok(c)
}

/// A live checkout (or a measurements folder): only the glob matches count. Its commit is
/// checked when it can be: a `.upstream-commit` stamp, else the HEAD of the git checkout the
/// folder sits in at the locked `path`; otherwise the report notes it was not checked.
pub fn check_live(upstream: &Upstream, root: &Path) -> std::io::Result<Comparison> {
    let scan = tree::scan_globs(root, &upstream.globs)?;
    let mut c = compare(upstream, &scan);
    let short = upstream.short_commit();
    if let Ok(bytes) = crate::read::bytes(&root.join(COMMIT_STAMP)) {
        if bytes != format!("{}\n", upstream.commit).as_bytes() {
            c.stamp.push(format!(
                "{COMMIT_STAMP} says {:?}, the lock says {}",
                String::from_utf8_lossy(&bytes).trim_end(),
                upstream.commit
            ));
        }
    } else if let Some(checkout) = checkout_root(root, &upstream.path) {
        match super::fetch::head(&checkout) {
            Ok(head) if head == upstream.commit => c.notes.push(format!("checkout HEAD is {short}")),
            Ok(head) => c.stamp.push(format!("checkout HEAD is {head}, the lock says {}", upstream.commit)),
            Err(e) => c.stamp.push(format!("cannot read the checkout's HEAD: {e:#}")),
        }
    } else {
        c.notes.push("no commit stamp and not a git checkout: checked by hash only".into());
    }
    Ok(c)
}

/// The folder `path` levels above `root`, when it holds a `.git`.
fn checkout_root(root: &Path, path: &str) -> Option<std::path::PathBuf> {
    let mut dir = root.to_path_buf();
    if path != "." {
        for _ in path.split('/') {
            dir = dir.parent()?.to_path_buf();
        }
    }
    dir.join(".git").exists().then_some(dir)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Checked {
        mode: Mode,
        comparison: Comparison,
    },
    /// The vendored tree is not there: run `cargo xtask vendor`.
    Absent,
    /// An override or measurements folder that is not a readable directory.
    BadDir(String),
    /// Measurements were not supplied, so they were not checked (not a failure).
    NotSupplied,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeCheck {
    pub kind: InputKind,
    /// `testdata/catalog`, or `catalog (override BLIS_CATALOG)`: never an absolute path.
    pub label: String,
    pub repo: String,
    pub commit: String,
    pub partial: Option<String>,
    pub outcome: Outcome,
}

impl TreeCheck {
    pub fn ok(&self) -> bool {
        match &self.outcome {
            Outcome::Checked { comparison, .. } => comparison.ok(),
            Outcome::NotSupplied => true,
            Outcome::Absent | Outcome::BadDir(_) => false,
        }
    }

    pub fn checked(&self) -> bool {
        !matches!(self.outcome, Outcome::NotSupplied)
    }

    pub fn files_matched(&self) -> usize {
        match &self.outcome {
            Outcome::Checked { comparison, .. } => comparison.matched,
            _ => 0,
        }
    }

    fn pin(&self) -> String {
        format!("{}@{}", self.repo.strip_prefix("https://").unwrap_or(&self.repo), &self.commit[..12])
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        match &self.outcome {
            Outcome::NotSupplied => out
                .push_str(&format!("{}: not checked (pass --measurements DIR or set BLIS_MEASUREMENTS)\n", self.label)),
            Outcome::Absent => out.push_str(&format!(
                "{}: FAILED: the vendored tree is absent; run `cargo xtask vendor --from DIR` \
                 (DIR: a folder holding the upstream checkouts), \
                 or `cargo xtask vendor --fetch` where a network is available\n",
                self.label
            )),
            Outcome::BadDir(why) => out.push_str(&format!("{}: FAILED: {why}\n", self.label)),
            Outcome::Checked { comparison: c, .. } => {
                if c.ok() {
                    out.push_str(&format!("{}: {} files match {}\n", self.label, c.matched, self.pin()));
                } else {
                    out.push_str(&format!(
                        "{}: FAILED: {} of {} locked files match {}\n",
                        self.label,
                        c.matched,
                        c.locked,
                        self.pin()
                    ));
                }
                for ch in &c.changed {
                    let utf8 = if ch.not_utf8 { "; not valid UTF-8" } else { "" };
                    out.push_str(&format!(
                        "  changed: {} (locked {}, found {}{utf8})\n",
                        ch.path,
                        &ch.locked[..12],
                        &ch.found[..12]
                    ));
                }
                for p in &c.missing {
                    out.push_str(&format!("  missing: {p}\n"));
                }
                for p in &c.extra {
                    out.push_str(&format!("  extra: {p}\n"));
                }
                for (p, why) in &c.refused {
                    out.push_str(&format!("  refused: {p}: {why}\n"));
                }
                for s in &c.stamp {
                    out.push_str(&format!("  stamp: {s}\n"));
                }
                for n in &c.notes {
                    out.push_str(&format!("  note: {n}\n"));
                }
            }
        }
        if let (Some(partial), true) = (&self.partial, self.checked()) {
            out.push_str(&format!("  partial copy: {partial}\n"));
        }
        out
    }
}

/// Every section checked: the three trees, then the measurements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    pub checks: Vec<TreeCheck>,
}

impl VerifyReport {
    /// True when every tree matched and the measurements, if supplied, matched too.
    pub fn ok(&self) -> bool {
        self.checks.iter().all(TreeCheck::ok)
    }

    pub fn check(&self, kind: InputKind) -> Option<&TreeCheck> {
        self.checks.iter().find(|c| c.kind == kind)
    }

    /// The inputs that failed: the release gate reports every figure reading one of them as
    /// not reproducible.
    pub fn failed(&self) -> Vec<InputKind> {
        self.checks.iter().filter(|c| !c.ok()).map(|c| c.kind).collect()
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        for c in &self.checks {
            out.push_str(&c.render());
        }
        let failed: Vec<&str> = self.failed().into_iter().map(InputKind::name).collect();
        if failed.is_empty() {
            out.push_str("lock: OK\n");
        } else {
            out.push_str(&format!("lock: FAILED ({})\n", failed.join(", ")));
        }
        out
    }

    /// The report and the values the gate records: per section `<name>.files_matched`,
    /// `<name>.files_locked` and `<name>.ok`, and `verified` for all of them (the key
    /// harness/figures.yaml reads).
    pub fn to_task_output(&self) -> TaskOutput {
        let mut out = TaskOutput { report: self.render(), ..TaskOutput::default() };
        for c in self.checks.iter().filter(|c| c.checked()) {
            let name = c.kind.name();
            out.count(format!("{name}.files_matched"), c.files_matched() as u64);
            if let Outcome::Checked { comparison, .. } = &c.outcome {
                out.count(format!("{name}.files_locked"), comparison.locked as u64);
            }
            out.check(format!("{name}.ok"), c.ok());
        }
        out.check("verified", self.ok());
        if !self.ok() {
            out.text("verified.why", self.offenders_summary());
        }
        out
    }

    /// For the gate's one line: how many faults (a file off, a stamp, a tree absent or not a
    /// folder), and the first few by name.
    pub fn offenders_summary(&self) -> String {
        const SHOWN: usize = 3;
        let mut offenders: Vec<String> = Vec::new();
        for c in &self.checks {
            let section = c.kind.name();
            match &c.outcome {
                Outcome::Checked { comparison: cmp, .. } => {
                    let at = |p: &str| format!("{section}/{p}");
                    offenders.extend(cmp.changed.iter().map(|x| format!("{} (changed)", at(&x.path))));
                    offenders.extend(cmp.missing.iter().map(|p| format!("{} (missing)", at(p))));
                    offenders.extend(cmp.extra.iter().map(|p| format!("{} (not in the lock)", at(p))));
                    offenders.extend(cmp.refused.iter().map(|(p, why)| format!("{} ({why})", at(p))));
                    offenders.extend(cmp.stamp.iter().map(|s| format!("{section} stamp: {s}")));
                }
                Outcome::BadDir(why) => offenders.push(format!("{section}: {why}")),
                Outcome::Absent => offenders.push(format!("{section}: the vendored tree is absent")),
                Outcome::NotSupplied => {}
            }
        }
        let first: Vec<&str> = offenders.iter().take(SHOWN).map(String::as_str).collect();
        let more = offenders.len().saturating_sub(SHOWN);
        let tail = if more > 0 { format!(", and {more} more") } else { String::new() };
        format!("{} fault(s): {}{tail}", offenders.len(), first.join(", "))
    }
}

fn override_label(name: &str, input: &InputPath) -> String {
    match input.origin {
        Origin::Flag => format!("{name} (override {}, not the vendored tree)", input.kind.flag()),
        Origin::Env => format!("{name} (override {}, not the vendored tree)", input.kind.env_var()),
        Origin::Vendored => crate::paths::display(&input.path),
    }
}

/// One section against where `inputs` says it lives.
pub fn check_section(upstream: &Upstream, input: Option<&InputPath>) -> TreeCheck {
    let name = upstream.name();
    let mut check = TreeCheck {
        kind: upstream.kind,
        label: name.to_string(),
        repo: upstream.repo.clone(),
        commit: upstream.commit.clone(),
        partial: upstream.partial.clone(),
        outcome: Outcome::NotSupplied,
    };
    let Some(input) = input else { return check };
    check.label = override_label(name, input);
    if input.kind == InputKind::Measurements {
        check.label = match input.origin {
            Origin::Flag => "measurements (--measurements)".into(),
            Origin::Env => "measurements (BLIS_MEASUREMENTS)".into(),
            Origin::Vendored => crate::paths::display(&input.path),
        };
    }
    // The corpora are "vendored" only where `vendor --fetch` put them (their default exists
    // only then), and are then checked like the trees: stamps and no stray files.
    let vendored = input.origin == Origin::Vendored;
    if !input.path.is_dir() {
        check.outcome = if vendored && !input.path.exists() {
            Outcome::Absent
        } else {
            Outcome::BadDir(format!("{} is not a directory", crate::paths::display(&input.path)))
        };
        return check;
    }
    let (mode, result) = if vendored {
        (Mode::Vendored, check_vendored(upstream, &input.path))
    } else {
        (Mode::Live, check_live(upstream, &input.path))
    };
    check.outcome = match result {
        Ok(comparison) => Outcome::Checked { mode, comparison },
        Err(e) => Outcome::BadDir(format!("cannot read {}: {e}", crate::paths::display(&input.path))),
    };
    check
}

/// Every section against `inputs`: the vendored trees unless overridden, the measurements when
/// supplied.
pub fn verify(lock: &Lock, inputs: &Inputs) -> VerifyReport {
    let checks = lock.upstreams.iter().map(|u| check_section(u, inputs.get(u.kind))).collect();
    VerifyReport { checks }
}

/// A live checkout against one section, touching nothing: what `lock diff` prints.
pub fn diff(upstream: &Upstream, dir: &Path) -> std::io::Result<Comparison> {
    check_live(upstream, dir)
}

/// `lock diff` output: `~` changed, `-` in the lock but not the checkout, `+` the reverse.
pub fn render_diff(upstream: &Upstream, c: &Comparison) -> String {
    let mut out = format!(
        "{}: {} of {} locked files match {}@{}",
        upstream.name(),
        c.matched,
        c.locked,
        upstream.repo_short(),
        upstream.short_commit()
    );
    out.push_str(&format!(
        "; {} changed, {} missing, {} extra, {} refused\n",
        c.changed.len(),
        c.missing.len(),
        c.extra.len(),
        c.refused.len()
    ));
    for ch in &c.changed {
        out.push_str(&format!("~ {}  {} -> {}\n", ch.path, &ch.locked[..12], &ch.found[..12]));
    }
    for p in &c.missing {
        out.push_str(&format!("- {p}\n"));
    }
    for p in &c.extra {
        out.push_str(&format!("+ {p}\n"));
    }
    for (p, why) in &c.refused {
        out.push_str(&format!("! {p}: {why}\n"));
    }
    for s in &c.stamp {
        out.push_str(&format!("! commit: {s}\n"));
    }
    for n in &c.notes {
        out.push_str(&format!("  note: {n}\n"));
    }
    out
}

#[cfg(test)]
mod tests;
