//! Where each third-party input comes from: a command-line flag, an environment variable, or
//! the vendored default. The origin is kept so every report can say which one it used.

use std::fmt;
use std::path::{Path, PathBuf};

/// One kind of input a figure may need, with the flag and the variable that supply it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InputKind {
    Measurements,
    Catalog,
    Registry,
    Scenarios,
    Blis,
    /// A folder of releases, one folder per tag (`cargo xtask history`, the `blis-releases`
    /// figures of the gate).
    Releases,
}

impl InputKind {
    pub const ALL: [InputKind; 6] = [
        InputKind::Measurements,
        InputKind::Catalog,
        InputKind::Registry,
        InputKind::Scenarios,
        InputKind::Blis,
        InputKind::Releases,
    ];

    /// The input's one name: the manifest's `inputs:` entries, the lock's section headers and
    /// the vendored folder below `testdata/` all spell it this way.
    pub fn name(self) -> &'static str {
        match self {
            InputKind::Measurements => "measurements",
            InputKind::Catalog => "catalog",
            InputKind::Registry => "registry",
            InputKind::Scenarios => "scenarios",
            InputKind::Blis => "blis",
            InputKind::Releases => "releases",
        }
    }

    /// The input called `name` (see [`InputKind::name`]).
    pub fn from_name(name: &str) -> Option<InputKind> {
        InputKind::ALL.into_iter().find(|k| k.name() == name)
    }

    pub fn flag(self) -> &'static str {
        match self {
            InputKind::Measurements => "--measurements",
            InputKind::Catalog => "--catalog",
            InputKind::Registry => "--registry",
            InputKind::Scenarios => "--scenarios",
            InputKind::Blis => "--blis",
            InputKind::Releases => "--releases",
        }
    }

    pub const fn env_var(self) -> &'static str {
        match self {
            InputKind::Measurements => "BLIS_MEASUREMENTS",
            InputKind::Catalog => "BLIS_CATALOG",
            InputKind::Registry => "BLIS_REGISTRY",
            InputKind::Scenarios => "BLIS_SCENARIOS",
            InputKind::Blis => "BLIS_BIN",
            InputKind::Releases => "BLIS_RELEASES",
        }
    }

    /// The variable's earlier name, still read (for one release) when the current one is unset,
    /// so scripts that set it keep working.
    pub const fn deprecated_env_var(self) -> Option<&'static str> {
        match self {
            InputKind::Releases => Some("BLIS_RELEASES_DIR"),
            _ => None,
        }
    }

    /// What a person would call it in a refusal.
    pub fn describe(self) -> &'static str {
        match self {
            InputKind::Measurements => "the measurement corpora",
            InputKind::Catalog => "the vendored blis-catalog tree",
            InputKind::Registry => "the vendored blis-registry tree",
            InputKind::Scenarios => "the vendored scenario tree",
            InputKind::Blis => "a `blis` binary",
            InputKind::Releases => "a folder of BLIS releases (one folder per tag, each holding `blis`)",
        }
    }

    /// The vendored default below `testdata/`, for the trees `cargo xtask vendor` writes, and
    /// for the corpora only once `cargo xtask vendor --fetch` has fetched them there (no folder,
    /// no default: the corpora are optional, the trees are not).
    pub fn vendored_default(self) -> Option<PathBuf> {
        match self {
            InputKind::Catalog | InputKind::Registry | InputKind::Scenarios => {
                Some(crate::paths::testdata().join(self.name()))
            }
            InputKind::Measurements => {
                let fetched = crate::paths::testdata().join(self.name());
                fetched.is_dir().then_some(fetched)
            }
            InputKind::Blis | InputKind::Releases => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    Flag,
    Env,
    Vendored,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputPath {
    pub kind: InputKind,
    pub path: PathBuf,
    pub origin: Origin,
}

impl InputPath {
    /// True when the user pointed this input somewhere else than the vendored, locked tree.
    pub fn is_override(&self) -> bool {
        self.origin != Origin::Vendored
    }

    pub fn source_label(&self) -> String {
        match self.origin {
            Origin::Flag => format!("{} {}", self.kind.flag(), self.path.display()),
            Origin::Env => format!("{}={}", self.kind.env_var(), self.path.display()),
            Origin::Vendored => crate::paths::display(&self.path),
        }
    }
}

/// Paths given on the command line; `None` means "not given".
#[derive(Clone, Debug, Default)]
pub struct Flags {
    pub measurements: Option<PathBuf>,
    pub catalog: Option<PathBuf>,
    pub registry: Option<PathBuf>,
    pub scenarios: Option<PathBuf>,
    pub blis: Option<PathBuf>,
    pub releases: Option<PathBuf>,
}

impl Flags {
    /// Every flag given, with its input, in [`InputKind::ALL`] order.
    pub fn given(&self) -> impl Iterator<Item = (InputKind, &PathBuf)> {
        let Flags { measurements, catalog, registry, scenarios, blis, releases } = self;
        let in_order = [measurements, catalog, registry, scenarios, blis, releases];
        InputKind::ALL.into_iter().zip(in_order).filter_map(|(kind, flag)| flag.as_ref().map(|path| (kind, path)))
    }
}

/// Every input, resolved. `None` means nobody supplied it and there is no default.
#[derive(Clone, Debug)]
pub struct Inputs {
    pub measurements: Option<InputPath>,
    pub catalog: Option<InputPath>,
    pub registry: Option<InputPath>,
    pub scenarios: Option<InputPath>,
    pub blis: Option<InputPath>,
    pub releases: Option<InputPath>,
}

impl Inputs {
    /// Flags win over variables, variables over the vendored default. `env` is injected so
    /// tests do not depend on the caller's environment. `BLIS_MEASUREMENTS` set but empty means
    /// "no corpora": it turns off the fetched default (testdata/measurements) too.
    /// With `BLIS_IGNORE_VENDORED` set (to anything but empty) the vendored defaults are not
    /// used: the view of a fresh clone.
    pub fn resolve(flags: &Flags, env: impl Fn(&str) -> Option<String>) -> Inputs {
        let use_vendored = env(IGNORE_VENDORED).is_none_or(|v| v.is_empty());
        let pick = |kind: InputKind, flag: &Option<PathBuf>| -> Option<InputPath> {
            if let Some(path) = flag {
                return Some(InputPath { kind, path: path.clone(), origin: Origin::Flag });
            }
            let value = env(kind.env_var()).or_else(|| kind.deprecated_env_var().and_then(&env));
            if let Some(value) = value.clone().filter(|v| !v.is_empty()) {
                return Some(InputPath { kind, path: PathBuf::from(value), origin: Origin::Env });
            }
            if kind == InputKind::Measurements && value.is_some() {
                return None;
            }
            kind.vendored_default().filter(|_| use_vendored).map(|path| InputPath {
                kind,
                path,
                origin: Origin::Vendored,
            })
        };
        Inputs {
            measurements: pick(InputKind::Measurements, &flags.measurements),
            catalog: pick(InputKind::Catalog, &flags.catalog),
            registry: pick(InputKind::Registry, &flags.registry),
            scenarios: pick(InputKind::Scenarios, &flags.scenarios),
            blis: pick(InputKind::Blis, &flags.blis),
            releases: pick(InputKind::Releases, &flags.releases),
        }
    }

    /// Resolution against the process environment.
    pub fn from_process(flags: &Flags) -> Inputs {
        Inputs::resolve(flags, |name| std::env::var(name).ok())
    }

    /// Nothing but the vendored trees (what tests use when they want no leakage): never the
    /// corpora, even where `vendor --fetch` put them under testdata/.
    pub fn none() -> Inputs {
        Inputs { measurements: None, ..Inputs::resolve(&Flags::default(), |_| None) }
    }

    /// These kinds only: every other input is dropped (`None`), so a command neither checks nor
    /// uses an input it does not read, whatever its variable says.
    pub fn only(mut self, kinds: &[InputKind]) -> Inputs {
        let Inputs { measurements, catalog, registry, scenarios, blis, releases } = &mut self;
        for (kind, slot) in InputKind::ALL.into_iter().zip([measurements, catalog, registry, scenarios, blis, releases])
        {
            if !kinds.contains(&kind) {
                *slot = None;
            }
        }
        self
    }

    pub fn get(&self, kind: InputKind) -> Option<&InputPath> {
        match kind {
            InputKind::Measurements => self.measurements.as_ref(),
            InputKind::Catalog => self.catalog.as_ref(),
            InputKind::Registry => self.registry.as_ref(),
            InputKind::Scenarios => self.scenarios.as_ref(),
            InputKind::Blis => self.blis.as_ref(),
            InputKind::Releases => self.releases.as_ref(),
        }
    }

    /// Whether the input was supplied and is there: a file for the binary, a folder otherwise.
    pub fn present(&self, kind: InputKind) -> bool {
        self.get(kind).is_some_and(|i| if kind == InputKind::Blis { i.path.is_file() } else { i.path.is_dir() })
    }

    /// The input's directory if it was supplied and exists, else a refusal that says which
    /// flag or variable supplies it.
    pub fn require_dir(&self, kind: InputKind, needed_for: &str) -> Result<&Path, Refusal> {
        match self.get(kind) {
            Some(input) if input.path.is_dir() => Ok(&input.path),
            Some(input) => Err(Refusal::new(
                kind,
                needed_for,
                format!("{} is not a directory ({})", input.path.display(), input.source_label()),
            )),
            None => Err(Refusal::new(kind, needed_for, "not supplied".to_string())),
        }
    }
}

/// The variable that hides the vendored trees (tests use it to see what a fresh clone sees).
pub const IGNORE_VENDORED: &str = "BLIS_IGNORE_VENDORED";

impl Inputs {
    /// Every input a user gave explicitly (flag or variable) must hold what it must: the
    /// corpora, catalog and registry a folder; the scenario tree a folder with at least one
    /// `*.yaml`; the folder of releases a folder with an entry; the `blis` binary an executable
    /// file. A wrong one is an error naming the flag
    /// or variable, never a refusal: only an input nobody supplied is refused (a mistyped
    /// `--blis` must not turn the gate green with fewer figures).
    pub fn check_supplied(&self) -> anyhow::Result<()> {
        let mut problems = Vec::new();
        for kind in InputKind::ALL {
            let Some(input) = self.get(kind).filter(|i| i.is_override()) else {
                continue;
            };
            let label = input.source_label();
            if kind == InputKind::Blis {
                if let Some(found) = not_an_executable(&input.path) {
                    problems.push(format!("{label}: {} must be an executable file, found {found}", kind.describe()));
                }
            } else if let Some(found) = not_a_dir(&input.path) {
                problems.push(format!("{label}: {} must be a folder, found {found}", kind.describe()));
            } else if kind == InputKind::Scenarios && !holds_yaml(&input.path) {
                problems.push(format!("{label}: {} holds no scenario file (*.yaml)", kind.describe()));
            } else if kind == InputKind::Releases && !holds_entry(&input.path) {
                problems.push(format!(
                    "{label}: {} is empty: expected one folder per release, named by its tag, each holding `blis`",
                    kind.describe()
                ));
            }
        }
        match problems.is_empty() {
            true => Ok(()),
            false => anyhow::bail!("{}", problems.join("\n")),
        }
    }
}

/// Whether `dir` holds anything but hidden entries (what `history::releases::from_dir` lists).
fn holds_entry(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .is_ok_and(|entries| entries.flatten().any(|e| !e.file_name().to_string_lossy().starts_with('.')))
}

fn holds_yaml(dir: &Path) -> bool {
    std::fs::read_dir(dir)
        .is_ok_and(|entries| entries.flatten().any(|e| e.path().extension().is_some_and(|x| x == "yaml")))
}

/// What stands at `path` when it is not an executable regular file (following symlinks), in
/// words.
pub fn not_an_executable(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.permissions().mode() & 0o111 != 0 => None,
        Ok(meta) if meta.is_file() => {
            Some(format!("a file that is not executable (mode {:o})", meta.permissions().mode() & 0o7777))
        }
        Ok(meta) => Some(crate::atomic::describe_kind(&meta.file_type()).to_string()),
        Err(_) => crate::read::not_a_file(path),
    }
}

/// What stands at `path` when it is not a folder (following symlinks), in words.
pub fn not_a_dir(path: &Path) -> Option<String> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => None,
        Ok(meta) => Some(crate::atomic::describe_kind(&meta.file_type()).to_string()),
        Err(_) => crate::read::not_a_file(path),
    }
}

/// Why a figure or command could not run: which input is missing and what supplies it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub kind: InputKind,
    pub needed_for: String,
    pub detail: String,
}

impl Refusal {
    pub fn new(kind: InputKind, needed_for: &str, detail: String) -> Refusal {
        Refusal { kind, needed_for: needed_for.to_string(), detail }
    }
}

impl InputKind {
    /// How a user supplies this input: the command, the flag and the variable.
    pub fn remedy(self) -> String {
        match self {
            InputKind::Catalog | InputKind::Registry | InputKind::Scenarios => {
                format!("run `cargo xtask vendor --from DIR`, or pass {} DIR, or set {}", self.flag(), self.env_var())
            }
            InputKind::Blis => format!("pass {} PATH or set {}", self.flag(), self.env_var()),
            InputKind::Releases => format!(
                "pass {} DIR or set {} (a folder with one sub-folder per release tag, each holding its `blis`)",
                self.flag(),
                self.env_var()
            ),
            InputKind::Measurements => format!(
                "pass {} DIR or set {}, or run `cargo xtask vendor --fetch` (over the network)",
                self.flag(),
                self.env_var()
            ),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} needs {} ({}): {}", self.needed_for, self.kind.describe(), self.detail, self.kind.remedy())
    }
}

impl std::error::Error for Refusal {}

#[cfg(test)]
mod tests {
    use super::*;

    /// A refusal reads as one sentence with one verb: `X needs Y (why): how`, never a second
    /// `needs` in the remedy, never a plural subject.
    #[test]
    fn a_refusal_has_one_verb() {
        for kind in InputKind::ALL {
            let text = Refusal::new(kind, "the corpus scorer", "not supplied".into()).to_string();
            assert_eq!(text.matches("need").count(), 1, "{text}");
        }
    }

    #[test]
    fn flag_beats_variable_beats_vendored_default() {
        let env = |name: &str| (name == "BLIS_CATALOG").then(|| "/from/env".to_string());
        let flags = Flags { catalog: Some("/from/flag".into()), ..Flags::default() };
        let inputs = Inputs::resolve(&flags, env);
        assert_eq!(inputs.catalog.as_ref().unwrap().origin, Origin::Flag);
        let inputs = Inputs::resolve(&Flags::default(), env);
        assert_eq!(inputs.catalog.as_ref().unwrap().path, PathBuf::from("/from/env"));
        assert!(inputs.catalog.as_ref().unwrap().is_override());
        assert_eq!(inputs.registry.as_ref().unwrap().origin, Origin::Vendored);
        // No corpora unless `vendor --fetch` put them under testdata/.
        assert!(inputs.measurements.is_none_or(|m| m.origin == Origin::Vendored));
    }

    #[test]
    fn an_empty_corpus_variable_means_no_corpora_even_where_fetched_ones_exist() {
        let env = |name: &str| (name == "BLIS_MEASUREMENTS").then(String::new);
        assert!(Inputs::resolve(&Flags::default(), env).measurements.is_none());
        let flags = Flags { measurements: Some("/from/flag".into()), ..Flags::default() };
        assert_eq!(Inputs::resolve(&flags, env).measurements.unwrap().origin, Origin::Flag);
        assert!(Inputs::none().measurements.is_none());
    }

    #[test]
    fn the_releases_variable_is_read_under_its_old_name_only_when_the_new_one_is_unset() {
        let both = |name: &str| match name {
            "BLIS_RELEASES" => Some("/new".to_string()),
            "BLIS_RELEASES_DIR" => Some("/old".to_string()),
            _ => None,
        };
        assert_eq!(Inputs::resolve(&Flags::default(), both).releases.unwrap().path, PathBuf::from("/new"));
        let old = |name: &str| (name == "BLIS_RELEASES_DIR").then(|| "/old".to_string());
        let releases = Inputs::resolve(&Flags::default(), old).releases.unwrap();
        assert_eq!((releases.path, releases.origin), (PathBuf::from("/old"), Origin::Env));
    }

    #[test]
    fn only_drops_every_other_kind_whatever_its_variable_says() {
        let env = |name: &str| (name == "BLIS_CATALOG").then(|| "/nonexistent".to_string());
        let inputs = Inputs::resolve(&Flags::default(), env);
        assert!(inputs.check_supplied().is_err());
        let inputs = inputs.only(&[InputKind::Measurements]);
        assert!(inputs.catalog.is_none() && inputs.registry.is_none());
        assert!(inputs.check_supplied().is_ok());
    }

    #[test]
    fn refusal_names_the_flag_and_the_variable() {
        let err = Inputs::none().require_dir(InputKind::Measurements, "figure x").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("--measurements") && text.contains("BLIS_MEASUREMENTS"), "{text}");
    }
}
