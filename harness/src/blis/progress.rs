//! Progress on stderr while points run: a bar on a terminal, lines, or a line a minute.

use super::*;

pub(crate) struct Progress {
    pub(crate) mode: ProgressMode,
    pub(crate) total: usize,
    pub(crate) finished: AtomicUsize,
    pub(crate) out: Mutex<()>,
    /// `Auto` on a terminal outside CI: a bar (points done / total, cached, failed, elapsed,
    /// rate) instead of a line per event; failures still print, above it.
    pub(crate) bar: Option<indicatif::ProgressBar>,
    /// Quiet without a bar (off a terminal): a line a minute on how far the run is.
    pub(crate) heartbeat: Option<heartbeat::Heartbeat>,
    pub(crate) cached: AtomicUsize,
    pub(crate) failed: AtomicUsize,
}

impl Progress {
    pub(crate) fn new(mode: ProgressMode, total: usize) -> Progress {
        let bar =
            (mode == ProgressMode::Auto && crate::term::stderr_progress()).then(|| crate::term::bar(total, "points"));
        let mode = match mode {
            ProgressMode::Auto if bar.is_some() => ProgressMode::Quiet,
            ProgressMode::Auto if std::io::stderr().is_terminal() => ProgressMode::Lines,
            ProgressMode::Auto => ProgressMode::Quiet,
            other => other,
        };
        let heartbeat = (mode == ProgressMode::Quiet && bar.is_none())
            .then(|| heartbeat::Heartbeat::new(std::time::Instant::now(), heartbeat::INTERVAL));
        let zero = || AtomicUsize::new(0);
        Progress { mode, total, finished: zero(), out: Mutex::new(()), bar, heartbeat, cached: zero(), failed: zero() }
    }

    pub(crate) fn line(&self, text: &str) {
        let _guard = self.out.lock().unwrap_or_else(|e| e.into_inner());
        match &self.bar {
            Some(bar) => bar.suspend(|| {
                let _ = writeln!(std::io::stderr(), "{text}");
            }),
            None => {
                let _ = writeln!(std::io::stderr(), "{text}");
            }
        }
    }

    pub(crate) fn running(&self, label: &str) {
        if self.mode == ProgressMode::Lines {
            let done = self.finished.load(Ordering::Relaxed);
            self.line(&format!("[{done:>5}/{}] running {label}", self.total));
        }
    }

    pub(crate) fn finished(&self, outcome: &PointOutcome) {
        let done = self.finished.fetch_add(1, Ordering::Relaxed) + 1;
        let (word, detail) = match &outcome.result {
            Ok(_) if outcome.cached => ("cached ", String::new()),
            Ok(_) => ("done   ", format!(" ({:.2}s)", outcome.elapsed.as_secs_f64())),
            Err(f) if f.kind == FailureKind::OtherShard => return,
            Err(f) if f.kind == FailureKind::NotModelled => ("skip   ", format!(": {}", f.reason)),
            Err(f) => ("failed ", format!(": {}", f.reason)),
        };
        match &outcome.result {
            Ok(_) if outcome.cached => self.cached.fetch_add(1, Ordering::Relaxed),
            Ok(_) => 0,
            Err(_) => self.failed.fetch_add(1, Ordering::Relaxed),
        };
        let (cached, failed) = (self.cached.load(Ordering::Relaxed), self.failed.load(Ordering::Relaxed));
        if let Some(bar) = &self.bar {
            bar.set_message(format!("cached {cached}, failed {failed}"));
            bar.inc(1);
        }
        if let Some(line) =
            self.heartbeat.as_ref().and_then(|h| h.tick(std::time::Instant::now(), done, self.total, cached, failed))
        {
            self.line(&line);
        }
        let show = match self.mode {
            ProgressMode::Lines => true,
            ProgressMode::Quiet => outcome.result.as_ref().is_err_and(|f| f.kind != FailureKind::NotModelled),
            _ => false,
        };
        if show {
            let mut text = format!("[{done:>5}/{}] {word}{}{detail}", self.total, outcome.label);
            if let Err(f) = &outcome.result {
                for l in &f.stderr_tail {
                    text += &format!("\n        stderr: {l}");
                }
            }
            self.line(&text);
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
