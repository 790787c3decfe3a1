//! How points run: the binary and its folder, the cache, the pool, the progress, the form.

use super::*;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CacheMode {
    /// `--no-cache`: run everything, store nothing.
    Off,
    /// Serve hits, run and store misses.
    ReadWrite(PathBuf),
    /// Serve hits only; a miss is a failed point (scoring from a merged shard cache).
    ReadOnly(PathBuf),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgressMode {
    /// A line per point event when stderr is a terminal, else only failures and the summary.
    Auto,
    Lines,
    Quiet,
    /// Nothing at all (tests, the gate).
    Silent,
}

#[derive(Clone, Debug)]
pub struct RunOptions {
    pub binary: PathBuf,
    pub catalog: PathBuf,
    pub registry: PathBuf,
    /// The working directory of every run: the blis checkout (it reads `defaults.yaml`).
    pub blis_root: PathBuf,
    pub workers: usize,
    pub timeout: Duration,
    pub cache: CacheMode,
    pub shard: Option<Shard>,
    pub progress: ProgressMode,
    /// The child's environment: nothing else reaches it (see `child_environment`), and every
    /// variable is part of the cache key. Tests steer the double's failure modes with it.
    pub child_env: Vec<(String, String)>,
    /// The summarizer applied to every point's record, fresh or from the cache (tests swap it
    /// to show that a cached record is summarized again).
    pub summarize: metrics::Summarizer,
    /// `--form`: every point is run in this form, whatever its own `PointSpec::form` says.
    pub form: Option<workload::LengthForm>,
    /// `--latency-model NAME` for every point (flag dialect; in the key through the
    /// deployment flags). A release that lists no such flag, or not this name among its
    /// choices, fails every point as an input error naming why. `None`: the release's default.
    pub latency_model: Option<String>,
}

pub(crate) static CACHE_DISABLED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Every `RunOptions::new` of this process runs with the cache off: the gate's second
/// rendering of a task, which must compute rather than replay the first rendering's entries.
pub fn disable_cache_in_this_process() {
    CACHE_DISABLED.store(true, Ordering::SeqCst);
}

/// `<workspace root>/target-cache/blis` (git-ignored).
pub fn default_cache_dir() -> PathBuf {
    crate::paths::workspace_root().join("target-cache").join("blis")
}

pub fn default_workers() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

impl RunOptions {
    /// Defaults: the binary's directory as the blis root (where `go build -o blis` puts it),
    /// one worker per core, a 30-minute timeout per point, the default cache, no shard.
    pub fn new(binary: PathBuf, catalog: PathBuf, registry: PathBuf) -> RunOptions {
        // The child runs in another directory: relative paths the user gave must not move.
        let absolute = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
        let (catalog, registry) = (absolute(catalog), absolute(registry));
        let blis_root = default_root(&binary);
        RunOptions {
            binary,
            catalog,
            registry,
            blis_root,
            workers: default_workers(),
            timeout: Duration::from_secs(30 * 60),
            cache: if CACHE_DISABLED.load(Ordering::SeqCst) {
                CacheMode::Off
            } else {
                CacheMode::ReadWrite(default_cache_dir())
            },
            shard: None,
            progress: ProgressMode::Auto,
            child_env: Vec::new(),
            summarize: metrics::summarize,
            form: None,
            latency_model: None,
        }
    }

    /// The same options for another binary, run from that binary's own directory (its own
    /// `hardware_config.json`, `defaults.yaml` and `model_configs/`): how a baseline runs.
    pub fn for_binary(&self, binary: PathBuf) -> RunOptions {
        let mut other = RunOptions { binary, ..self.clone() };
        other.blis_root = default_root(&other.binary);
        other
    }

    /// Every variable the child runs with: `child_env`, then, from this process's environment,
    /// the test double's knobs (`BLIS_DOUBLE_*`) that `child_env` does not set; sorted. The
    /// rest of the environment is cleared, so nothing unkeyed reaches the child (a real
    /// release reads no variable for a point whose files it ships: `HF_TOKEN` only to
    /// download a model config, which the arm never lets it do).
    pub fn child_environment(&self) -> Vec<(String, String)> {
        // A later `child_env` entry overrides an earlier one, as with `Command::envs`.
        let mut env: std::collections::BTreeMap<String, String> = self.child_env.iter().cloned().collect();
        for (k, v) in std::env::vars_os() {
            let (Some(k), Some(v)) = (k.to_str(), v.to_str()) else { continue };
            if k.starts_with(PASSED_PREFIX) {
                env.entry(k.to_string()).or_insert_with(|| v.to_string());
            }
        }
        env.into_iter().collect()
    }
}

/// The variables passed through from the harness's environment: the test double's knobs.
pub const PASSED_PREFIX: &str = "BLIS_DOUBLE_";

/// A binary's own directory (where `go build -o blis` and a release archive put it), found
/// after following links: `~/bin/blis` linked to a release's `blis` runs from the release's
/// folder, whose `hardware_config.json` and `model_configs/` it needs, not from `~/bin`.
/// `--blis-root` names another folder.
pub(crate) fn default_root(binary: &Path) -> PathBuf {
    let real = std::fs::canonicalize(binary).ok();
    let binary = real.as_deref().unwrap_or(binary);
    let root = binary.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::path::absolute(root).unwrap_or_else(|_| root.to_path_buf())
}

impl RunOptions {
    /// The defaults for the binary, catalog and registry the inputs supply, quiet: how the
    /// gate's tasks and reports run BLIS. Refused (naming `needed_for`) when one is missing.
    pub fn quiet_from_inputs(
        inputs: &crate::inputs::Inputs,
        needed_for: &str,
    ) -> Result<RunOptions, crate::task::TaskError> {
        use crate::inputs::InputKind;
        let binary = binary::require(inputs, needed_for)?;
        let catalog = inputs.require_dir(InputKind::Catalog, needed_for)?.to_path_buf();
        let registry = inputs.require_dir(InputKind::Registry, needed_for)?.to_path_buf();
        let mut options = RunOptions::new(binary, catalog, registry);
        options.progress = ProgressMode::Quiet;
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::default_root;

    #[test]
    fn a_linked_binary_runs_from_the_folder_it_links_to() {
        let dir = tempfile::tempdir().unwrap();
        let release = dir.path().join("v0.7.13");
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&release).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::write(release.join("blis"), b"").unwrap();
        std::os::unix::fs::symlink(release.join("blis"), bin.join("blis")).unwrap();
        let real = std::fs::canonicalize(&release).unwrap();
        assert_eq!(default_root(&bin.join("blis")), real);
        assert_eq!(default_root(&release.join("blis")), real);
        // A path that does not exist keeps its own folder (the error comes later, naming it).
        assert_eq!(default_root(&bin.join("missing")), bin);
    }
}
