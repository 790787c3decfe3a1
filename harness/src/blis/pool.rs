//! The bounded worker pool and the one child process per point, with a timeout that kills it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `f` over every item on at most `workers` threads; results in item order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], workers: usize, f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let workers = workers.clamp(1, items.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(i, item);
                results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.expect("every item was taken by a worker"))
        .collect()
}

pub enum ChildEnd {
    Exited(ExitStatus),
    TimedOut,
}

pub struct ChildRun<'a> {
    pub program: &'a Path,
    pub args: Vec<String>,
    pub cwd: &'a Path,
    pub env: &'a [(String, String)],
    pub timeout: Duration,
    /// The child's stderr goes to this file (a pipe could fill up and stall it).
    pub stderr_path: PathBuf,
}

/// Runs the child to its end or its timeout; on timeout it is killed and reaped.
pub fn run_child(run: &ChildRun) -> std::io::Result<ChildEnd> {
    let stderr = std::fs::File::create(&run.stderr_path)?;
    let mut child = Command::new(run.program)
        .args(&run.args)
        .current_dir(run.cwd)
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()?;
    let start = Instant::now();
    // Poll with a growing interval: short points finish within a millisecond or two, long
    // ones are not polled needlessly often.
    let mut pause = Duration::from_micros(200);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(ChildEnd::Exited(status));
        }
        if start.elapsed() >= run.timeout {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(ChildEnd::TimedOut);
        }
        std::thread::sleep(pause.min(run.timeout.saturating_sub(start.elapsed())));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// The last `n` non-empty lines of a file (the child's stderr).
pub fn tail_lines(path: &Path, n: usize) -> Vec<String> {
    let text = std::fs::read(path).map(|b| String::from_utf8_lossy(&b).into_owned()).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(n)..].iter().map(|l| l.to_string()).collect()
}
