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
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("xtask"));
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
