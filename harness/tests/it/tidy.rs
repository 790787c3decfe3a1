//! Tidy: the layering ARCHITECTURE.md states, kept by reading the source. Every `crate::`,
//! `super::` and child-module path in harness/src is resolved to the file it names (through
//! `pub use` re-exports, which are not imports of their own); an import from a module to one
//! of a higher layer, or any circle of files, fails here, naming the files and the path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

/// One product source file: its module path and its code (comments, strings and
/// `#[cfg(test)]` modules removed).
struct Source {
    file: String,
    code: String,
    children: BTreeSet<String>,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Code without comments and string or char literals (a path in prose or text is no import).
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            '/' if b.get(i + 1) == Some(&'/') => {
                while i < b.len() && b[i] != '\n' {
                    i += 1;
                }
            }
            '/' if b.get(i + 1) == Some(&'*') => {
                let mut depth = 0;
                while i < b.len() {
                    if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                        depth += 1;
                        i += 2;
                    } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            'r' if matches!(b.get(i + 1), Some('"') | Some('#'))
                && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_')) =>
            {
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&'"') {
                    out.push(b[i]);
                    i += 1;
                    continue;
                }
                j += 1;
                'raw: while j < b.len() {
                    if b[j] == '"' && (1..=hashes).all(|k| b.get(j + k) == Some(&'#')) {
                        j += 1 + hashes;
                        break 'raw;
                    }
                    j += 1;
                }
                out.push_str("\"\"");
                i = j;
            }
            '"' => {
                i += 1;
                while i < b.len() && b[i] != '"' {
                    i += if b[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("\"\"");
            }
            // A char literal ('x', '\n', '\''), not a lifetime ('a).
            '\'' if b.get(i + 2) == Some(&'\'') || b.get(i + 1) == Some(&'\\') => {
                i += 1;
                while i < b.len() && b[i] != '\'' {
                    i += if b[i] == '\\' { 2 } else { 1 };
                }
                i += 1;
                out.push_str("' '");
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// `code` without `#[cfg(test)]` items (unit tests may reach anywhere; the product may not).
fn without_tests(code: &str) -> String {
    let mut out = code.to_string();
    while let Some(at) = out.find("#[cfg(test)]") {
        let rest = &out[at..];
        let end = match (rest.find(';'), rest.find('{')) {
            (Some(semi), Some(brace)) if semi < brace => at + semi + 1,
            (_, Some(brace)) => {
                let mut depth = 0;
                let mut end = out.len();
                for (k, c) in out[at + brace..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = at + brace + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                end
            }
            (Some(semi), None) => at + semi + 1,
            (None, None) => out.len(),
        };
        out.replace_range(at..end, "");
    }
    out
}

fn module_of(rel: &Path) -> Module {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// Test-support modules of the crate (feature `test-support`): not part of the product.
const TEST_SUPPORT: [&str; 3] = ["snapshots", "stand_in", "tamper"];

fn sources() -> BTreeMap<Module, Source> {
    let src = root().join("src");
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut out = BTreeMap::new();
    for path in files {
        let rel = path.strip_prefix(&src).unwrap();
        let module = module_of(rel);
        if module.last().is_some_and(|m| m == "tests")
            || module.first().is_some_and(|m| TEST_SUPPORT.contains(&m.as_str()))
        {
            continue;
        }
        let code = without_tests(&code_only(&std::fs::read_to_string(&path).unwrap()));
        let children = code
            .lines()
            .filter_map(|l| {
                let l = l.trim();
                let l = l.strip_prefix("pub ").unwrap_or(l);
                l.strip_prefix("mod ")?.strip_suffix(';').map(|n| n.trim().to_string())
            })
            .collect();
        out.insert(module, Source { file: format!("harness/src/{}", rel.display()), code, children });
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths written at `code[at..]` (after `crate::`, `super::` or a child's name), brace
/// groups expanded: `score::{settings, Arm}` gives `score::settings` and `score::Arm`.
fn expand(code: &str) -> Vec<Vec<String>> {
    fn group(s: &[char], i: &mut usize) -> Vec<Vec<String>> {
        let mut prefix: Vec<String> = Vec::new();
        loop {
            while *i < s.len() && s[*i].is_whitespace() {
                *i += 1;
            }
            if *i < s.len() && s[*i] == '{' {
                *i += 1;
                let mut all = Vec::new();
                loop {
                    for p in group(s, i) {
                        all.push(prefix.iter().cloned().chain(p).collect());
                    }
                    while *i < s.len() && s[*i].is_whitespace() {
                        *i += 1;
                    }
                    match s.get(*i) {
                        Some(',') => *i += 1,
                        Some('}') => {
                            *i += 1;
                            return all;
                        }
                        _ => return all,
                    }
                    while *i < s.len() && s[*i].is_whitespace() {
                        *i += 1;
                    }
                    if s.get(*i) == Some(&'}') {
                        *i += 1;
                        return all;
                    }
                }
            }
            let start = *i;
            while *i < s.len() && (is_ident(s[*i]) || s[*i] == '*') {
                *i += 1;
            }
            if start == *i {
                return vec![prefix];
            }
            prefix.push(s[start..*i].iter().collect());
            if s.get(*i) == Some(&':') && s.get(*i + 1) == Some(&':') {
                *i += 2;
            } else {
                return vec![prefix];
            }
        }
    }
    let chars: Vec<char> = code.chars().collect();
    group(&chars, &mut 0)
}

/// Every absolute module path `source` (at `module`) writes, with the position it starts at.
fn references(module: &Module, source: &Source) -> Vec<(Vec<String>, bool)> {
    let code = &source.code;
    let mut out = Vec::new();
    let starts_word = |at: usize| at == 0 || !code[..at].ends_with(|c: char| is_ident(c) || c == ':');
    // `pub use` lines are re-exports: resolved through, never edges of their own.
    let in_pub_use = |at: usize| {
        let line_start = code[..at].rfind([';', '{', '}']).map_or(0, |p| p + 1);
        code[line_start..at].trim_start().starts_with("pub use")
    };
    for (at, _) in code.match_indices("::") {
        let word_start = code[..at].rfind(|c: char| !is_ident(c)).map_or(0, |p| p + 1);
        if !starts_word(word_start) {
            continue;
        }
        let first = &code[word_start..at];
        let base: Option<Module> = match first {
            "crate" => Some(Vec::new()),
            "super" => {
                let mut m = module.clone();
                let mut rest = &code[at + 2..];
                m.pop();
                while let Some(r) = rest.strip_prefix("super::") {
                    m.pop();
                    rest = r;
                }
                Some(m)
            }
            name if source.children.contains(name) => Some(module.clone()),
            _ => None,
        };
        let Some(base) = base else { continue };
        let mut from = if first == "super" || first == "crate" { at + 2 } else { word_start };
        while code[from..].starts_with("super::") {
            from += "super::".len();
        }
        for path in expand(&code[from..]) {
            out.push((base.iter().cloned().chain(path).collect(), in_pub_use(word_start)));
        }
    }
    out
}

/// The file a path names: the deepest module it walks through, then an item's re-export
/// followed to where it is defined.
fn resolve(
    path: &[String],
    mods: &BTreeMap<Module, Source>,
    exports: &BTreeMap<(Module, String), Vec<String>>,
    depth: usize,
) -> Option<Module> {
    let mut cur: Module = Vec::new();
    for seg in path {
        if seg == "self" {
            continue;
        }
        let mut next = cur.clone();
        next.push(seg.clone());
        if mods.contains_key(&next) {
            cur = next;
            continue;
        }
        if depth < 8 {
            if let Some(target) = exports.get(&(cur.clone(), seg.clone())) {
                return resolve(target, mods, exports, depth + 1);
            }
        }
        break;
    }
    mods.contains_key(&cur).then_some(cur)
}

/// An import between two product files: from, to, and the path as written.
type Edge = (Module, Module, String);

/// Every product file, and every import between two of them.
fn edges() -> (BTreeMap<Module, Source>, Vec<Edge>) {
    let mods = sources();
    let mut exports: BTreeMap<(Module, String), Vec<String>> = BTreeMap::new();
    let mut refs = Vec::new();
    for (module, source) in &mods {
        for (path, reexport) in references(module, source) {
            if reexport {
                if let Some(name) = path.last().filter(|n| *n != "*" && *n != "self") {
                    exports.insert((module.clone(), name.clone()), path.clone());
                }
            } else {
                refs.push((module.clone(), path));
            }
        }
    }
    let mut out = Vec::new();
    for (from, path) in refs {
        if let Some(to) = resolve(&path, &mods, &exports, 0) {
            if to != from && !TEST_SUPPORT.contains(&to.first().map_or("", String::as_str)) {
                out.push((from, to, path.join("::")));
            }
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
    (mods, out)
}

/// The layers ARCHITECTURE.md states (its `layers` block, highest first): module names per
/// layer, by index (0 the highest).
fn layers() -> BTreeMap<String, usize> {
    let text = std::fs::read_to_string(root().join("..").join("ARCHITECTURE.md")).unwrap();
    let block = text.split("```text layers\n").nth(1).expect("ARCHITECTURE.md has a ```text layers block");
    let block = &block[..block.find("```").unwrap()];
    let mut out = BTreeMap::new();
    for (i, line) in block.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let modules = line.split('#').next().unwrap();
        for m in modules.split_whitespace() {
            out.insert(m.to_string(), i);
        }
    }
    out
}

fn top(m: &Module) -> String {
    m.first().cloned().unwrap_or_else(|| "lib".into())
}

fn file_of(mods: &BTreeMap<Module, Source>, m: &Module) -> String {
    mods[m].file.clone()
}

#[test]
fn every_module_of_harness_has_a_layer_in_architecture_md() {
    let layers = layers();
    let (mods, _) = edges();
    let missing: BTreeSet<String> = mods.keys().map(top).filter(|t| t != "lib" && !layers.contains_key(t)).collect();
    assert!(missing.is_empty(), "modules without a layer in ARCHITECTURE.md's layers block: {missing:?}");
}

#[test]
fn no_import_climbs_a_layer() {
    let layers = layers();
    let (mods, edges) = edges();
    let mut climbs = Vec::new();
    for (from, to, path) in &edges {
        let (a, b) = (top(from), top(to));
        if a == b || a == "lib" {
            continue;
        }
        let (Some(ra), Some(rb)) = (layers.get(&a), layers.get(&b)) else { continue };
        if ra >= rb {
            let how = if ra == rb { "a module of its own layer" } else { "a higher layer" };
            climbs.push(format!("{} imports {} ({how}): {path}", file_of(&mods, from), file_of(&mods, to)));
        }
    }
    assert!(climbs.is_empty(), "imports against ARCHITECTURE.md's layers:\n{}", climbs.join("\n"));
}

#[test]
fn no_files_import_each_other_in_a_circle() {
    let (mods, edges) = edges();
    let mut next: BTreeMap<&Module, Vec<&Module>> = BTreeMap::new();
    for (from, to, _) in &edges {
        next.entry(from).or_default().push(to);
    }
    // A file is on a circle when it can reach itself.
    let mut circles: BTreeSet<Vec<String>> = BTreeSet::new();
    for start in mods.keys() {
        let mut seen: BTreeSet<&Module> = BTreeSet::new();
        let mut stack: Vec<(&Module, Vec<&Module>)> = vec![(start, vec![start])];
        while let Some((m, trail)) = stack.pop() {
            for n in next.get(m).into_iter().flatten() {
                if *n == start {
                    let mut files: Vec<String> = trail.iter().map(|m| file_of(&mods, m)).collect();
                    let first = files.iter().enumerate().min_by_key(|(_, f)| (*f).clone()).unwrap().0;
                    files.rotate_left(first);
                    circles.insert(files);
                } else if seen.insert(n) {
                    let mut t = trail.clone();
                    t.push(n);
                    stack.push((n, t));
                }
            }
        }
    }
    let text: Vec<String> = circles.iter().map(|c| c.join(" -> ")).collect();
    assert!(text.is_empty(), "files that import each other in a circle:\n{}", text.join("\n"));
}

/// The reader itself on the shapes the source uses, so a tidy pass is not a reader that sees
/// nothing.
#[test]
fn the_reader_finds_grouped_relative_and_reexported_paths() {
    let m = |s: &str| -> Module { s.split('/').filter(|p| !p.is_empty()).map(str::to_string).collect() };
    let code = code_only("use crate::score::{settings, Arm};\n// crate::gate::x\nlet s = \"crate::gate\";\nuse super::super::paths::root;\nfn g() {}\npub use arm::Plan;\nfn f() { arm::plan(); }\n");
    let src = Source { file: "x".into(), code, children: ["arm".to_string()].into() };
    let refs: Vec<(String, bool)> =
        references(&m("blis/pool"), &src).into_iter().map(|(p, r)| (p.join("::"), r)).collect();
    assert_eq!(
        refs,
        vec![
            ("score::settings".to_string(), false),
            ("score::Arm".to_string(), false),
            ("paths::root".to_string(), false),
            ("blis::pool::arm::Plan".to_string(), true),
            ("blis::pool::arm::plan".to_string(), false),
        ]
    );
    let cut = without_tests("fn a() {}\n#[cfg(test)]\nmod tests { fn b() { crate::gate::x(); } }\nfn c() {}\n");
    assert!(!cut.contains("gate") && cut.contains("fn c"), "{cut}");
}
