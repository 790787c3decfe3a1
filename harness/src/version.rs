//! Which build of the tool wrote a report: set once by the CLI (`cargo xtask --version` prints
//! the same text) and written into every gate report. Unset in tests, so rendered reports and
//! their snapshots do not change with each commit.

use std::sync::OnceLock;

static TOOL: OnceLock<String> = OnceLock::new();

/// Records the build (e.g. `0.1.0 (commit 1a2b3c...)`); a second call keeps the first.
pub fn set(text: String) {
    let _ = TOOL.set(text);
}

/// The build that is writing, when the CLI said so.
pub fn get() -> Option<&'static str> {
    TOOL.get().map(String::as_str)
}
