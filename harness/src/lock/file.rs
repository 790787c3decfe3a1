//! `lockfiles/upstream.lock`: what each upstream is pinned to, file by file.
//!
//! BLK's `testdata/upstream.lock` is one line per upstream (`<dest> <repo-url> <tag> <commit>
//! <path-glob>...`, docs/upstream.md §8). Ours adds a SHA-256 per file, so it is one section per
//! upstream with one `key = value` per line: a changed hash, glob or commit is a one-line diff.
//!
//! ```text
//! [catalog]
//! repo = https://github.com/inference-sim/blis-catalog
//! tag = 0.3.0
//! commit = 747a2213e13030ae675f9872c3e2a76b6b770d50
//! path = .
//! glob = hardware/*.yaml
//! partial = 5 of 9 hardware descriptors ...
//! file = <sha256>  hardware/a100-sxm.yaml
//! ```
//!
//! The parser is strict: an unknown key or section, a repeated key or section, a commit that
//! is not 40 lowercase hex digits, a `file` outside every glob or out of order, each fails
//! naming the line.

use super::glob::Glob;
use crate::inputs::InputKind;
use oracles::hashing::{self, ManifestEntry};
use std::fmt;

/// The four sections, in the order they are written. The first three are vendored below
/// `testdata/` by `vendor --from` and `--fetch`; measurements are fetched there by `--fetch`
/// only, and otherwise checked in place.
pub const SECTIONS: [InputKind; 4] =
    [InputKind::Catalog, InputKind::Registry, InputKind::Scenarios, InputKind::Measurements];

fn section_kind(name: &str) -> Option<InputKind> {
    InputKind::from_name(name).filter(|k| SECTIONS.contains(k))
}

/// One upstream's pin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upstream {
    pub kind: InputKind,
    pub repo: String,
    pub tag: Option<String>,
    pub commit: String,
    /// Directory inside the upstream repository the globs are relative to (`.` = its root).
    pub path: String,
    pub globs: Vec<Glob>,
    /// Set when the copy the hashes were taken from holds only part of the upstream tree:
    /// says what is missing, so a gap is reported as the copy's and not the published run's.
    pub partial: Option<String>,
    /// Where the hashed copy came from when it is not the upstream repository itself.
    pub via: Option<String>,
    /// Sorted bytewise by path.
    pub files: Vec<ManifestEntry>,
}

impl Upstream {
    pub fn name(&self) -> &'static str {
        self.kind.name()
    }

    /// `github.com/inference-sim/blis-catalog`: the URL without its scheme, for reports.
    pub fn repo_short(&self) -> &str {
        self.repo.strip_prefix("https://").unwrap_or(&self.repo)
    }

    /// The last path component of the repository URL (`blis-catalog`): the directory name a
    /// clone gets, and the second place `vendor --from DIR` looks for a source.
    pub fn repo_basename(&self) -> &str {
        self.repo.trim_end_matches('/').trim_end_matches(".git").rsplit('/').next().unwrap_or("")
    }

    /// The first 12 hex digits: enough to be unambiguous in any of these repositories.
    pub fn short_commit(&self) -> &str {
        &self.commit[..12]
    }

    pub fn manifest_text(&self) -> String {
        hashing::render_manifest(&self.files)
    }

    /// Copied by `vendor --from` (the trees). `vendor --fetch` takes every section.
    pub fn is_vendored(&self) -> bool {
        self.kind != InputKind::Measurements
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lock {
    /// In `SECTIONS` order, all four present.
    pub upstreams: Vec<Upstream>,
}

impl Lock {
    pub fn get(&self, kind: InputKind) -> &Upstream {
        self.upstreams.iter().find(|u| u.kind == kind).expect("a parsed lock has every section")
    }

    pub fn get_mut(&mut self, kind: InputKind) -> &mut Upstream {
        self.upstreams.iter_mut().find(|u| u.kind == kind).expect("a parsed lock has every section")
    }

    pub fn vendored(&self) -> impl Iterator<Item = &Upstream> {
        self.upstreams.iter().filter(|u| u.is_vendored())
    }
}

/// A lock file error: the 1-based line (0 when it concerns the whole file) and the reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockError {
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "line {}: {}", self.line, self.reason)
        }
    }
}

impl std::error::Error for LockError {}

/// A full commit id: exactly 40 lowercase hex digits (an abbreviation could become ambiguous).
pub fn check_commit(commit: &str) -> Result<(), String> {
    if commit.len() != 40 {
        return Err(format!("commit must be 40 hex digits, got {} characters: {commit:?}", commit.len()));
    }
    if !commit.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(format!("commit must be lowercase hex: {commit:?}"));
    }
    Ok(())
}

#[derive(Default)]
struct Draft {
    kind: Option<InputKind>,
    line: usize,
    repo: Option<String>,
    tag: Option<String>,
    commit: Option<String>,
    path: Option<String>,
    globs: Vec<Glob>,
    partial: Option<String>,
    via: Option<String>,
    files: Vec<(usize, ManifestEntry)>,
}

impl Draft {
    fn finish(self) -> Result<Upstream, LockError> {
        let kind = self.kind.expect("drafts are only made for sections");
        let name = kind.name();
        let missing = |key: &str| LockError { line: self.line, reason: format!("[{name}] has no `{key}`") };
        let repo = self.repo.ok_or_else(|| missing("repo"))?;
        let commit = self.commit.ok_or_else(|| missing("commit"))?;
        let path = self.path.ok_or_else(|| missing("path"))?;
        if self.globs.is_empty() {
            return Err(missing("glob"));
        }
        if self.files.is_empty() {
            return Err(missing("file"));
        }
        let mut files = Vec::with_capacity(self.files.len());
        for (line, entry) in self.files {
            if !self.globs.iter().any(|g| g.matches(&entry.path)) {
                return Err(LockError {
                    line,
                    reason: format!("file {:?} matches none of [{name}]'s globs", entry.path),
                });
            }
            files.push(entry);
        }
        Ok(Upstream {
            kind,
            repo,
            tag: self.tag,
            commit,
            path,
            globs: self.globs,
            partial: self.partial,
            via: self.via,
            files,
        })
    }
}

fn set_once(slot: &mut Option<String>, key: &str, value: &str, line: usize) -> Result<(), LockError> {
    if slot.is_some() {
        return Err(LockError { line, reason: format!("duplicate `{key}` in this section") });
    }
    if value.is_empty() {
        return Err(LockError { line, reason: format!("`{key}` is empty") });
    }
    *slot = Some(value.to_string());
    Ok(())
}

pub fn parse(text: &str) -> Result<Lock, LockError> {
    let mut done: Vec<Upstream> = Vec::new();
    let mut seen_at: Vec<(InputKind, usize)> = Vec::new();
    let mut current: Option<Draft> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |reason: String| LockError { line, reason };
        if raw.ends_with([' ', '\t']) {
            return Err(err("trailing whitespace".into()));
        }
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        if let Some(rest) = raw.strip_prefix('[') {
            let name =
                rest.strip_suffix(']').ok_or_else(|| err(format!("section header {raw:?} has no closing `]`")))?;
            let kind = section_kind(name).ok_or_else(|| {
                err(format!("unknown section [{name}]; expected catalog, registry, scenarios or measurements"))
            })?;
            if let Some((_, first)) = seen_at.iter().find(|(k, _)| *k == kind) {
                return Err(err(format!("duplicate section [{name}] (first at line {first})")));
            }
            seen_at.push((kind, line));
            if let Some(draft) = current.take() {
                done.push(draft.finish()?);
            }
            current = Some(Draft { kind: Some(kind), line, ..Draft::default() });
            continue;
        }
        let Some((key, value)) = raw.split_once(" = ") else {
            return Err(err(format!("expected `key = value`, `[section]` or `# comment`, got {raw:?}")));
        };
        let draft = current.as_mut().ok_or_else(|| err(format!("`{key}` before any [section]")))?;
        match key {
            "repo" => {
                // file:// is for tests and mirrors; the committed lock uses https://.
                if !value.starts_with("https://") && !value.starts_with("file://") {
                    return Err(err(format!("repo must be an https:// or file:// URL, got {value:?}")));
                }
                set_once(&mut draft.repo, key, value, line)?
            }
            "tag" => set_once(&mut draft.tag, key, value, line)?,
            "commit" => {
                check_commit(value).map_err(err)?;
                set_once(&mut draft.commit, key, value, line)?
            }
            "path" => {
                if value != "." {
                    if let Some(why) = hashing::invalid_relpath(value) {
                        return Err(err(format!("path {value:?}: {why}")));
                    }
                }
                set_once(&mut draft.path, key, value, line)?
            }
            "glob" => {
                let glob = Glob::parse(value).map_err(|why| err(format!("glob {value:?}: {why}")))?;
                if draft.globs.contains(&glob) {
                    return Err(err(format!("duplicate glob {value:?}")));
                }
                draft.globs.push(glob);
            }
            "partial" => set_once(&mut draft.partial, key, value, line)?,
            "via" => set_once(&mut draft.via, key, value, line)?,
            "file" => {
                let entry = hashing::parse_line(value).map_err(err)?;
                if let Some((_, prev)) = draft.files.last() {
                    match prev.path.as_bytes().cmp(entry.path.as_bytes()) {
                        std::cmp::Ordering::Less => {}
                        std::cmp::Ordering::Equal => return Err(err(format!("duplicate file {:?}", entry.path))),
                        std::cmp::Ordering::Greater => {
                            return Err(err(format!(
                                "file {:?} is out of bytewise order (after {:?})",
                                entry.path, prev.path
                            )))
                        }
                    }
                }
                draft.files.push((line, entry));
            }
            other => {
                return Err(err(format!(
                    "unknown key `{other}`; expected repo, tag, commit, path, glob, partial, via or file"
                )))
            }
        }
    }
    if let Some(draft) = current.take() {
        done.push(draft.finish()?);
    }
    let mut upstreams = Vec::new();
    for kind in SECTIONS {
        match done.iter().position(|u| u.kind == kind) {
            Some(i) => upstreams.push(done.swap_remove(i)),
            None => return Err(LockError { line: 0, reason: format!("no [{}] section", kind.name()) }),
        }
    }
    Ok(Lock { upstreams })
}

pub const HEADER: &str = "\
# blis-repro upstream lock: each upstream pinned to a commit and to the SHA-256 of every file
# the harness reads. Written by `cargo xtask lock update --from DIR`; checked by
# `cargo xtask lock verify`. Format and workflow: docs/lock.md.
";

pub fn render(lock: &Lock) -> String {
    let mut out = String::from(HEADER);
    for u in &lock.upstreams {
        out.push('\n');
        out.push_str(&format!("[{}]\n", u.name()));
        out.push_str(&format!("repo = {}\n", u.repo));
        if let Some(tag) = &u.tag {
            out.push_str(&format!("tag = {tag}\n"));
        }
        out.push_str(&format!("commit = {}\n", u.commit));
        out.push_str(&format!("path = {}\n", u.path));
        for g in &u.globs {
            out.push_str(&format!("glob = {g}\n"));
        }
        if let Some(via) = &u.via {
            out.push_str(&format!("via = {via}\n"));
        }
        if let Some(partial) = &u.partial {
            out.push_str(&format!("partial = {partial}\n"));
        }
        let mut files = u.files.clone();
        hashing::sort_entries(&mut files);
        for f in &files {
            out.push_str(&format!("file = {}\n", hashing::render_line(f)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const H: &str = "2955564e113a5daa6c7b7d336f0abb4742e3cceb8ec1c6baaf6890dc1b043834";
    const C: &str = "747a2213e13030ae675f9872c3e2a76b6b770d50";

    fn section(name: &str, glob: &str, file: &str) -> String {
        format!("[{name}]\nrepo = https://github.com/inference-sim/x\ncommit = {C}\npath = .\nglob = {glob}\nfile = {H}  {file}\n")
    }

    fn minimal() -> String {
        [
            section("catalog", "hardware/*.yaml", "hardware/a.yaml"),
            section("registry", "coefficients/*.yaml", "coefficients/a.yaml"),
            section("scenarios", "*.yaml", "a.yaml"),
            section("measurements", "*.json", "a.json"),
        ]
        .join("\n")
    }

    fn error_of(text: &str) -> LockError {
        parse(text).expect_err("should not parse")
    }

    #[test]
    fn render_then_parse_round_trips() {
        let lock = parse(&minimal()).unwrap();
        let text = render(&lock);
        assert_eq!(parse(&text).unwrap(), lock);
        assert_eq!(render(&parse(&text).unwrap()), text);
        assert_eq!(lock.get(InputKind::Scenarios).files[0].path, "a.yaml");
    }

    #[test]
    fn short_commit_names_its_line() {
        let text = minimal().replacen(C, &C[..12], 1);
        let e = error_of(&text);
        assert_eq!((e.line, e.reason.contains("40 hex digits")), (3, true), "{e}");
    }

    #[test]
    fn non_hex_commit_names_its_line() {
        let text = minimal().replacen(C, &C.replace('a', "g"), 1);
        let e = error_of(&text);
        assert_eq!((e.line, e.reason.contains("lowercase hex")), (3, true), "{e}");
        let upper = minimal().replacen(C, &C.to_uppercase(), 1);
        assert!(error_of(&upper).reason.contains("lowercase hex"));
    }

    #[test]
    fn duplicate_section_names_both_lines() {
        let text = format!("{}\n{}", minimal(), section("registry", "*.yaml", "b.yaml"));
        let e = error_of(&text);
        assert!(e.reason.contains("duplicate section [registry] (first at line 8)"), "{e}");
    }

    #[test]
    fn duplicate_file_and_duplicate_key_are_errors() {
        let dup_file = minimal().replacen("file = ", &format!("file = {H}  hardware/a.yaml\nfile = "), 1);
        let e = error_of(&dup_file);
        assert_eq!(e.line, 7);
        assert!(e.reason.contains("duplicate file \"hardware/a.yaml\""), "{e}");
        let dup_key = minimal().replacen("path = .", "path = .\npath = .", 1);
        assert!(error_of(&dup_key).reason.contains("duplicate `path`"));
    }

    #[test]
    fn unknown_key_and_unknown_section_are_errors() {
        let e = error_of(&minimal().replacen("path = .", "branch = main", 1));
        assert!(e.reason.contains("unknown key `branch`"), "{e}");
        let e = error_of(&minimal().replacen("[scenarios]", "[scenario]", 1));
        assert!(e.reason.contains("unknown section [scenario]"), "{e}");
    }

    #[test]
    fn files_must_be_sorted_and_inside_a_glob() {
        let unsorted =
            minimal().replacen(&format!("file = {H}  a.json"), &format!("file = {H}  b.json\nfile = {H}  a.json"), 1);
        assert!(error_of(&unsorted).reason.contains("out of bytewise order"));
        let outside = minimal().replacen("hardware/a.yaml", "networks/a.yaml", 1);
        assert!(error_of(&outside).reason.contains("matches none of [catalog]'s globs"));
    }

    #[test]
    fn missing_pieces_are_errors() {
        let no_measurements = minimal().split("[measurements]").next().unwrap().to_string();
        assert_eq!(error_of(&no_measurements).reason, "no [measurements] section");
        assert!(error_of(&minimal().replacen("repo = https://github.com/inference-sim/x\n", "", 1))
            .reason
            .contains("[catalog] has no `repo`"));
        assert!(error_of(&minimal().replacen("repo = https://", "repo = http://", 1)).reason.contains("https://"));
        assert!(error_of(&minimal().replacen("path = .", "path = . ", 1)).reason.contains("trailing whitespace"));
        assert!(error_of(&format!("repo = x\n{}", minimal())).reason.contains("before any [section]"));
        assert!(error_of(&minimal().replacen("path = .", "path=.", 1)).reason.contains("key = value"));
    }

    #[test]
    fn bad_file_hash_names_its_line() {
        let e = error_of(&minimal().replacen(H, &H[..40], 1));
        assert_eq!(e.line, 6);
        assert!(e.reason.contains("64 hex digits"), "{e}");
    }
}
