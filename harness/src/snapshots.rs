//! The one way this project asserts a snapshot: every snapshot lives in the top-level
//! `snapshots/` folder, is named after what it pins, and has machine-specific text scrubbed.

use std::path::Path;

pub fn settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(crate::paths::snapshots());
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_sort_maps(true);
    settings
}

/// Replaces this machine's paths (workspace root, temp dir) with stable placeholders.
pub fn scrub(text: &str) -> String {
    let mut out = text.replace(&path_text(&crate::paths::workspace_root()), "[ROOT]");
    let tmp = std::env::temp_dir();
    out = out.replace(path_text(&tmp).trim_end_matches('/'), "[TMP]");
    out
}

fn path_text(p: &Path) -> String {
    p.display().to_string()
}

/// `assert_figure_snapshot!("headline__vllm_all_tier", text)`.
#[macro_export]
macro_rules! assert_figure_snapshot {
    ($name:expr, $text:expr) => {{
        let scrubbed = $crate::snapshots::scrub(&$text);
        $crate::snapshots::settings().bind(|| {
            $crate::insta::assert_snapshot!($name, scrubbed);
        });
    }};
}
