//! The docs hold together: every relative link in the README, ARCHITECTURE.md and docs/ opens a
//! file of this repository and, when it names a heading (`page.md#heading`), a heading that page
//! has; and no page of docs/ outgrows one topic. A page split or a heading renamed cannot leave
//! a dead link behind.

use crate::support::root;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The pages a reader follows links through.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            pages.push(path);
        }
    }
    pages.sort();
    pages
}

/// The text outside fenced code blocks, where a `](` is code, not a link.
fn prose(text: &str) -> String {
    let mut fenced = false;
    let mut out = String::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The targets of the page's inline links `[text](target)`, as written.
fn link_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        if let Some(end) = rest.find(')') {
            targets.push(rest[..end].trim().to_string());
        }
    }
    targets
}

/// GitHub's anchor for a heading: lower case, only letters, digits, spaces, `-` and `_` kept,
/// each space a `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a page's headings, a repeated one numbered as GitHub numbers it.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for line in prose(text).lines() {
        let Some(heading) = line.strip_prefix('#') else { continue };
        let base = slug(heading.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while !seen.insert(anchor.clone()) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
    }
    seen
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap().display().to_string()
}

#[test]
fn every_relative_link_in_the_docs_opens_a_file_and_a_heading_it_has() {
    let pages = pages();
    assert!(pages.len() > 10, "found only {} pages", pages.len());
    let mut dead = Vec::new();
    let mut checked = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for target in link_targets(&prose(&text)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let opened = if file.is_empty() { page.clone() } else { page.parent().unwrap().join(file) };
            checked += 1;
            if !opened.exists() {
                dead.push(format!("{}: {target}: no such file", relative(page)));
            } else if !anchor.is_empty() {
                let heads = anchors(&std::fs::read_to_string(&opened).unwrap());
                if !heads.contains(anchor) {
                    dead.push(format!("{}: {target}: no heading with the anchor #{anchor}", relative(page)));
                }
            }
        }
    }
    assert!(checked > 30, "only {checked} links checked: the reader is missing them");
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

/// One topic a page (issue 32: the reference split into pages of about 300 lines at most).
#[test]
fn no_page_of_docs_is_over_300_lines() {
    let long: Vec<String> = pages()
        .iter()
        .filter(|p| p.parent() == Some(&root().join("docs")))
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap().lines().count()))
        .filter(|(_, lines)| *lines > 300)
        .map(|(p, lines)| format!("{p}: {lines} lines"))
        .collect();
    assert!(long.is_empty(), "split these by topic: {long:?}");
}

#[test]
fn anchors_follow_githubs_rule() {
    let page = "# Warm runs (`cargo xtask bench warm`)\n```\n# not a heading\n```\n## A, b: c\n## A, b: c\n";
    let got: Vec<String> = anchors(page).into_iter().collect();
    assert_eq!(got, ["a-b-c", "a-b-c-1", "warm-runs-cargo-xtask-bench-warm"]);
    assert_eq!(link_targets("see [x](a.md#b) and [y](c.md)."), ["a.md#b", "c.md"]);
}
