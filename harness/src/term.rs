//! What a terminal gets that a log does not: colour and progress bars appear only when a person
//! is watching. Colour needs the stream to be a terminal and `NO_COLOR` unset or empty
//! (no-color.org); progress needs stderr to be a terminal and not a CI run (`CI` set to anything
//! but `false` or `0`), so logs, files and snapshots never change.

use std::io::IsTerminal;

/// True under a CI runner: `CI` set, non-empty, and not `false`/`0`.
pub fn is_ci(ci: Option<&str>) -> bool {
    ci.is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

pub fn colour_wanted(is_terminal: bool, no_color: Option<&str>) -> bool {
    is_terminal && no_color.is_none_or(str::is_empty)
}

pub fn progress_wanted(stderr_is_terminal: bool, ci: Option<&str>) -> bool {
    stderr_is_terminal && !is_ci(ci)
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Colour for what goes to stdout.
pub fn stdout_colour() -> bool {
    colour_wanted(std::io::stdout().is_terminal(), var("NO_COLOR").as_deref())
}

/// Whether to draw progress on stderr.
pub fn stderr_progress() -> bool {
    progress_wanted(std::io::stderr().is_terminal(), var("CI").as_deref())
}

/// A progress bar on stderr for `total` steps, or a hidden one (every call a no-op) when
/// nobody is watching. `unit` names the steps ("tasks", "points").
pub fn bar(total: usize, unit: &str) -> indicatif::ProgressBar {
    if !stderr_progress() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(total as u64);
    let template = format!("{{bar:30}} {{pos}}/{{len}} {unit} {{msg}} [{{elapsed}}, {{per_sec}}]");
    if let Ok(style) = indicatif::ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_only_on_a_terminal_and_never_with_no_color() {
        assert!(colour_wanted(true, None));
        assert!(colour_wanted(true, Some("")), "an empty NO_COLOR does not count (no-color.org)");
        assert!(!colour_wanted(true, Some("1")));
        assert!(!colour_wanted(false, None), "files and pipes stay plain");
    }

    #[test]
    fn progress_only_on_a_terminal_outside_ci() {
        assert!(progress_wanted(true, None));
        assert!(progress_wanted(true, Some("false")));
        assert!(!progress_wanted(true, Some("true")));
        assert!(!progress_wanted(true, Some("1")));
        assert!(!progress_wanted(false, None));
    }
}
