//! The path globs the lock uses (`hardware/*.yaml`, `models/*/graph.yaml`): `/`-separated
//! segments where `*` matches any run of characters and `?` one character, never across a `/`,
//! and never a leading `.` (so hidden files and the `.upstream-*` stamps are not matched, as in
//! a shell). No `**`, no classes: the lock needs none, and less to match means less to get wrong.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Glob {
    text: String,
    segments: Vec<String>,
}

impl Glob {
    pub fn parse(text: &str) -> Result<Glob, String> {
        if let Some(why) = oracles::hashing::invalid_relpath(text) {
            return Err(why.to_string());
        }
        if text.contains("**") {
            return Err("`**` is not supported; spell out each directory level".into());
        }
        if text.contains(['[', ']', '{', '}']) {
            return Err("character classes and braces are not supported".into());
        }
        Ok(Glob { text: text.to_string(), segments: text.split('/').map(str::to_string).collect() })
    }

    pub fn segments(&self) -> &[String] {
        &self.segments
    }

    pub fn matches(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').collect();
        parts.len() == self.segments.len()
            && self.segments.iter().zip(parts).all(|(pat, name)| segment_matches(pat, name))
    }
}

impl fmt::Display for Glob {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One path segment against one pattern segment.
pub fn segment_matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    wildcard(pattern.as_bytes(), name.as_bytes())
}

/// Iterative wildcard match that remembers only the last `*`: on a mismatch, that `*` swallows
/// one more byte. No recursion, so no pathological blow-up.
fn wildcard(pat: &[u8], name: &[u8]) -> bool {
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pat.len() && (pat[p] == b'?' || pat[p] == name[n]) && pat[p] != b'*' {
            p += 1;
            n += 1;
        } else if p < pat.len() && pat[p] == b'*' {
            star = Some((p, n));
            p += 1;
        } else if let Some((sp, sn)) = star {
            p = sp + 1;
            n = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    pat[p..].iter().all(|&b| b == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(text: &str) -> Glob {
        Glob::parse(text).unwrap()
    }

    #[test]
    fn star_stays_within_one_segment() {
        assert!(g("hardware/*.yaml").matches("hardware/b200.yaml"));
        assert!(!g("hardware/*.yaml").matches("hardware/x/b200.yaml"));
        assert!(!g("hardware/*.yaml").matches("hardware/b200.yml"));
        assert!(g("models/*/graph.yaml").matches("models/glm-5/graph.yaml"));
        assert!(!g("models/*/graph.yaml").matches("models/glm-5/config.json"));
        assert!(!g("models/*/graph.yaml").matches("models/graph.yaml"));
    }

    #[test]
    fn literal_globs_match_only_themselves() {
        assert!(g("devices/storage.yaml").matches("devices/storage.yaml"));
        assert!(!g("devices/storage.yaml").matches("devices/storage.yamlx"));
        assert!(!g("devices/storage.yaml").matches("devices/storageXyaml"));
    }

    #[test]
    fn star_needs_backtracking() {
        assert!(segment_matches("*.yaml", "a.yaml.yaml"));
        assert!(segment_matches("a*b*c", "aXbYbZc"));
        assert!(!segment_matches("a*b*c", "aXbYbZ"));
        assert!(segment_matches("*", "x"));
        assert!(segment_matches("?.json", "a.json"));
        assert!(!segment_matches("?.json", "ab.json"));
    }

    #[test]
    fn hidden_names_need_an_explicit_dot() {
        assert!(!g("*").matches(".upstream-manifest"));
        assert!(!g("*.yaml").matches(".hidden.yaml"));
        assert!(g(".*").matches(".upstream-commit"));
    }

    #[test]
    fn unsupported_or_escaping_globs_are_rejected() {
        assert!(Glob::parse("**/*.yaml").unwrap_err().contains("**"));
        assert!(Glob::parse("../*.yaml").is_err());
        assert!(Glob::parse("/etc/*").is_err());
        assert!(Glob::parse("[ab].yaml").is_err());
    }
}
