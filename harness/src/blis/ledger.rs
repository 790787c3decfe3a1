//! A record of every simulation the runner starts, for measuring where a test suite's time goes
//! (`cargo xtask bench suite`). With `REPRO_RUN_LEDGER=FILE` in the environment, each finished
//! child appends one line, `<point key> <wall ms> <label>`; the key holds the binary's hash,
//! so two lines with one key are the same point simulated twice. Unset, nothing is written.
//!
//! Not `BLIS_*`: the CLI tests clear those (they are inputs), and a measurement must see the
//! simulations of every process the suite starts.

use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

pub const VAR: &str = "REPRO_RUN_LEDGER";

/// Appends one line for a finished simulation; a ledger that cannot be written is ignored (it
/// measures, it never changes a result).
pub(crate) fn note(key: &str, wall: Duration, label: &str) {
    static PATH: OnceLock<Option<PathBuf>> = OnceLock::new();
    let path = PATH.get_or_init(|| std::env::var_os(VAR).filter(|v| !v.is_empty()).map(PathBuf::from));
    let Some(path) = path else { return };
    let line = format!("{key} {} {}\n", wall.as_millis(), label.replace(['\n', '\r'], " "));
    // One write to a file opened for appending: lines of concurrent workers and processes
    // land whole.
    if let Ok(mut file) = std::fs::OpenOptions::new().append(true).create(true).open(path) {
        let _ = file.write_all(line.as_bytes());
    }
}
