//! Hygiene of the manifest against the tree and the published document, in the spirit of
//! rust-analyzer's tidy: one function serving both the `gate/manifest-consistent` figure and a
//! test. Every snapshot a figure names exists; every snapshot file is referenced; every value
//! the manifest claims stands, with the same digits, in its section of the document.

use super::manifest::Manifest;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Where the record of the published figures (PUBLISHED-FIGURES.md) is read from:
/// `BLIS_PUBLISHED_FIGURES` only. No default: it is not redistributable, so a user names their
/// own copy (the project's CI sets it, .ci/run).
pub fn published_figures_path() -> Option<PathBuf> {
    std::env::var_os("BLIS_PUBLISHED_FIGURES").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// Why the document cannot be read, in the words both the gate's line and the test use.
fn unreadable(doc_path: Option<&Path>) -> String {
    match doc_path {
        None => "published digits not checked: set BLIS_PUBLISHED_FIGURES to your copy of PUBLISHED-FIGURES.md".into(),
        Some(p) => format!(
            "published digits not checked: BLIS_PUBLISHED_FIGURES names {}, which is not a readable file",
            crate::paths::display(p)
        ),
    }
}

/// Snapshot names (file stems) present under `dir`.
pub fn snapshot_files(dir: &Path) -> BTreeSet<String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return BTreeSet::new() };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.strip_suffix(".snap")).map(str::to_string))
        .collect()
}

/// Figures naming a snapshot that does not exist.
pub fn missing_snapshots(manifest: &Manifest, present: &BTreeSet<String>) -> Vec<String> {
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for f in &manifest.figures {
        if let Some(s) = &f.snapshot {
            named.insert(s);
        }
    }
    named
        .into_iter()
        .filter(|s| !present.contains(*s))
        .map(|s| format!("snapshot `{s}` is named by the manifest but snapshots/{s}.snap does not exist"))
        .collect()
}

/// Snapshot files referenced neither by the manifest nor by any test source (as a string).
pub fn orphaned_snapshots(manifest: &Manifest, present: &BTreeSet<String>, sources: &str) -> Vec<String> {
    present
        .iter()
        .filter(|s| !manifest.figures.iter().any(|f| f.snapshot.as_deref() == Some(s.as_str())))
        .filter(|s| !sources.contains(&format!("\"{s}\"")))
        .map(|s| format!("snapshots/{s}.snap is referenced by no figure and no test: delete it or pin it"))
        .collect()
}

/// The text of every `.rs` file under the crates' `src/` and `tests/` folders.
pub fn test_sources() -> String {
    let root = crate::paths::workspace_root();
    let mut text = String::new();
    let mut stack: Vec<PathBuf> =
        ["harness/src", "harness/tests", "xtask/src", "xtask/tests", "oracles/src", "oracles/tests"]
            .iter()
            .map(|d| root.join(d))
            .collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                text.push_str(&crate::read::text(&path).unwrap_or_default());
            }
        }
    }
    text
}

/// The body of section `number` of a markdown document: from `## <number>.` to the next `## `.
pub fn section<'a>(document: &'a str, number: &str) -> Option<&'a str> {
    let heading = format!("## {number}.");
    let start = document.find(&heading)?;
    let body = &document[start..];
    let end = body[heading.len()..].find("\n## ").map_or(body.len(), |i| i + heading.len());
    Some(&body[..end])
}

/// Figures of `document_name` whose published text is not in their section of `document`.
pub fn published_digits(manifest: &Manifest, document_name: &str, document: &str) -> Vec<String> {
    let mut problems = Vec::new();
    for f in manifest.figures.iter().filter(|f| f.document == document_name) {
        let claimed = f.published_text();
        match section(document, &f.section) {
            None => problems.push(format!("figure `{}`: {document_name} has no section {}", f.id, f.section)),
            Some(body) if !body.contains(&claimed) => problems.push(format!(
                "figure `{}`: `{claimed}` does not stand in {document_name} section {}",
                f.id, f.section
            )),
            Some(_) => {}
        }
    }
    problems
}

/// Why the published-digits check cannot run here (the document is not there), if it cannot.
pub fn digits_unchecked() -> Option<String> {
    let doc_path = published_figures_path();
    match doc_path.as_deref().map(std::fs::metadata) {
        Some(Ok(m)) if m.is_file() => None,
        _ => Some(unreadable(doc_path.as_deref())),
    }
}

/// All hygiene problems that can be checked with what is on disk; the document check is skipped
/// (and said so in the second value) when the document is not there.
pub fn check(manifest: &Manifest) -> (Vec<String>, Option<String>) {
    let present = snapshot_files(&crate::paths::snapshots());
    let mut problems = missing_snapshots(manifest, &present);
    problems.extend(orphaned_snapshots(manifest, &present, &test_sources()));
    let doc_path = published_figures_path();
    let skipped = match doc_path.as_deref().map(crate::read::text) {
        Some(Ok(doc)) => {
            problems.extend(published_digits(manifest, "PUBLISHED-FIGURES.md", &doc));
            None
        }
        _ => Some(unreadable(doc_path.as_deref())),
    };
    (problems, skipped)
}
