//! The one way xtask's CLI tests start the binary (bat's `tests/utils/command.rs` is the model):
//! a working directory the test chooses and nothing leaking in from the shell that ran
//! `cargo test` -- no `BLIS_*` variable and no `CI`, so every test is equally isolated and a
//! test that needs an input passes it as a flag or sets its variable itself.
#![allow(dead_code)] // each test binary uses a part

use std::path::{Path, PathBuf};

/// The workspace root, found at run time like the binary finds it (harness::paths).
pub fn root() -> PathBuf {
    harness::paths::workspace_root()
}

/// The xtask binary started from `cwd`, with every `BLIS_*` variable and `CI` cleared.
pub fn xtask_std(cwd: &Path) -> std::process::Command {
    isolated(std::process::Command::new(assert_cmd::cargo::cargo_bin!("xtask")), cwd)
}

/// `script` run by bash with the same isolation, where `cargo xtask ARGS` runs this build's
/// xtask binary with ARGS (any other `cargo` command is refused with exit 127): how a user's
/// shell runs a documented command line, pipes included.
pub fn xtask_shell(cwd: &Path, script: &str) -> std::process::Command {
    let mut cmd = isolated(std::process::Command::new("bash"), cwd);
    let prelude = r#"set -o pipefail
cargo() { if [ "$1" = xtask ]; then shift; "$XTASK_BIN" "$@"; else echo "only cargo xtask runs here" >&2; return 127; fi; }
"#;
    cmd.arg("-c").arg(format!("{prelude}{script}"));
    cmd.env("XTASK_BIN", assert_cmd::cargo::cargo_bin!("xtask"));
    cmd
}

fn isolated(mut cmd: std::process::Command, cwd: &Path) -> std::process::Command {
    cmd.current_dir(cwd);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("BLIS_") {
            cmd.env_remove(&name);
        }
    }
    cmd.env_remove("CI");
    cmd
}

/// [`xtask_std`] as an assert_cmd command, for one fluent chain per behaviour.
pub fn xtask(cwd: &Path) -> assert_cmd::Command {
    assert_cmd::Command::from_std(xtask_std(cwd))
}

/// [`xtask`] with no corpora at all: `BLIS_MEASUREMENTS` set but empty, so not even the
/// measurements `vendor --fetch` may have put in testdata/ are found.
pub fn xtask_without_corpora(cwd: &Path) -> assert_cmd::Command {
    let mut cmd = xtask(cwd);
    cmd.env("BLIS_MEASUREMENTS", "");
    cmd
}

/// The team's corpora and the vendored trees, or why they are not here.
pub fn team_inputs() -> Result<PathBuf, String> {
    let corpora = std::env::var_os("BLIS_MEASUREMENTS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .ok_or("needs BLIS_MEASUREMENTS (the team's corpora)")?;
    let trees = root().join("testdata");
    if !["catalog", "registry", "scenarios"].iter().all(|t| trees.join(t).is_dir()) {
        return Err("needs the vendored trees (`cargo xtask vendor --from DIR`, docs/inputs.md)".into());
    }
    Ok(corpora)
}

/// Runs `test` on the team's corpora; without them the trial is ignored with the reason, and
/// under CI=true, where `.ci/run` supplies both, it fails instead.
pub fn with_team_inputs(
    test: fn(&Path) -> Result<(), libtest_mimic::Failed>,
) -> Result<libtest_mimic::Completion, libtest_mimic::Failed> {
    requires(team_inputs(), |corpora| test(&corpora))
}

/// Runs `test` on what `inputs` found; when it says why an input is missing, the trial is
/// ignored with that reason, or fails under CI=true, where `.ci/run` supplies every input.
pub fn requires<T>(
    inputs: Result<T, String>,
    test: impl FnOnce(T) -> Result<(), libtest_mimic::Failed>,
) -> Result<libtest_mimic::Completion, libtest_mimic::Failed> {
    match inputs {
        Ok(found) => test(found).map(|()| libtest_mimic::Completion::Completed),
        Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
            Err(format!("CI=true but this trial {why}; .ci/run supplies it").into())
        }
        Err(why) => Ok(libtest_mimic::Completion::ignored_with(why)),
    }
}
