//! The tree is formatted as `rustfmt.toml` says: a change that skipped `cargo fmt` fails here,
//! not in review.

use crate::support::root;
use std::process::Command;

#[test]
fn the_workspace_is_formatted_by_cargo_fmt() {
    let output = Command::new(env!("CARGO"))
        .args(["fmt", "--all", "--check"])
        .current_dir(root())
        .output()
        .expect("running cargo fmt (rustfmt ships with the toolchain)");
    assert!(
        output.status.success(),
        "cargo fmt --all --check found unformatted code; run `cargo fmt`:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
