//! A record of every simulation the runner starts, for measuring where a test suite's time goes
//! (`cargo xtask bench suite`) and what a warm run still simulates (`cargo xtask bench warm`).
//! With `REPRO_RUN_LEDGER=FILE` in the environment, each finished child appends one line,
//! `<point key> <wall ms> <label>`; the key holds the binary's hash, so two lines with one key
//! are the same point simulated twice. Unset, nothing is written. [`parse_line`] reads a line
//! back, so the format lives here alone.
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
    let line = line(key, wall, label);
    // One write to a file opened for appending: lines of concurrent workers and processes
    // land whole.
    if let Ok(mut file) = std::fs::OpenOptions::new().append(true).create(true).open(path) {
        let _ = file.write_all(line.as_bytes());
    }
}

/// A ledger's line: `<point key> <wall ms> <label>`, the label on one line.
fn line(key: &str, wall: Duration, label: &str) -> String {
    format!("{key} {} {}\n", wall.as_millis(), label.replace(['\n', '\r'], " "))
}

/// One simulation the ledger records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: String,
    pub ms: u64,
    pub label: String,
}

/// The simulation a ledger line records, as [`note`] writes it; `None` for a line that is not
/// one (a ledger measures: a torn line is skipped, never an error).
pub fn parse_line(line: &str) -> Option<Entry> {
    let mut parts = line.splitn(3, ' ');
    let key = parts.next()?.to_string();
    let ms = parts.next()?.parse().ok()?;
    Some(Entry { key, ms, label: parts.next().unwrap_or("").to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_reads_back_as_it_was_written_with_the_label_on_one_line() {
        let written = line("k1", Duration::from_millis(1234), "two\nlines c=4");
        assert_eq!(
            parse_line(written.trim_end()),
            Some(Entry { key: "k1".into(), ms: 1234, label: "two lines c=4".into() })
        );
        assert_eq!(parse_line("k1 notanumber x"), None);
        assert_eq!(parse_line("k1"), None);
    }
}
