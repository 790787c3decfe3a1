//! The bounded worker pool and the one child process per point, with a timeout that kills the
//! child's whole process group, a bounded stderr tail, and Ctrl-C handling that stops every
//! running point and removes its temporary directory.

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// `f` over every item on at most `workers` threads; results in item order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], workers: usize, f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    let order: Vec<usize> = (0..items.len()).collect();
    parallel_map_in_order(items, &order, workers, f)
}

/// `parallel_map`, the workers taking the items in `order` (a permutation of the indices):
/// longest first, so the last worker is not left alone with the longest item. Results are
/// still in item order.
pub fn parallel_map_in_order<T: Sync, R: Send>(
    items: &[T],
    order: &[usize],
    workers: usize,
    f: impl Fn(usize, &T) -> R + Sync,
) -> Vec<R> {
    assert_eq!(order.len(), items.len(), "the order is a permutation of the items");
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let workers = workers.clamp(1, items.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) else { break };
                let item = &items[i];
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
    /// SIGINT or SIGTERM arrived while the child ran; its group was killed.
    Interrupted,
}

pub struct ChildRun<'a> {
    pub program: &'a Path,
    pub args: Vec<String>,
    pub cwd: &'a Path,
    pub env: &'a [(String, String)],
    pub timeout: Duration,
    /// The child's stderr goes to this file (a pipe could fill up and stall it).
    pub stderr_path: PathBuf,
    /// The child's stdout: a file, or discarded.
    pub stdout_path: Option<PathBuf>,
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Whether SIGINT or SIGTERM arrived while `interruptible` was in force.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

#[cfg(unix)]
extern "C" fn on_signal(_: libc::c_int) {
    // Only an atomic store: the pollers do the killing and the cleanup.
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Runs `f` with SIGINT and SIGTERM caught (children run in their own process groups, so a
/// terminal's Ctrl-C no longer reaches them; the pollers kill them instead). The previous
/// handlers are restored afterwards; the caller exits when `interrupted()` is then true.
pub fn interruptible<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(unix)]
    {
        let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
        // SAFETY: installing a handler that only stores to an atomic is async-signal-safe.
        let previous = unsafe { [libc::signal(libc::SIGINT, handler), libc::signal(libc::SIGTERM, handler)] };
        let r = f();
        // SAFETY: restores what was installed before.
        unsafe {
            libc::signal(libc::SIGINT, previous[0]);
            libc::signal(libc::SIGTERM, previous[1]);
        }
        r
    }
    #[cfg(not(unix))]
    f()
}

/// Kills the process group the child leads (the child and whatever it started).
fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // SAFETY: plain syscall; a group that is already gone gives ESRCH, which is fine.
        unsafe {
            libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Runs the child to its end or its timeout; on timeout (or an interrupt) its whole process
/// group is killed and the child reaped.
pub fn run_child(run: &ChildRun) -> std::io::Result<ChildEnd> {
    let stderr = std::fs::File::create(&run.stderr_path)?;
    let stdout = match &run.stdout_path {
        Some(p) => Stdio::from(std::fs::File::create(p)?),
        None => Stdio::null(),
    };
    // A relative program path would be resolved against the child's working directory.
    let program = std::path::absolute(run.program)?;
    let mut command = Command::new(program);
    command
        .args(&run.args)
        .current_dir(run.cwd)
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn()?;
    let start = Instant::now();
    // Poll with a growing interval: short points finish within a millisecond or two, long
    // ones are not polled needlessly often.
    let mut pause = Duration::from_micros(200);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(ChildEnd::Exited(status));
        }
        if interrupted() {
            kill_group(&mut child);
            return Ok(ChildEnd::Interrupted);
        }
        if start.elapsed() >= run.timeout {
            kill_group(&mut child);
            return Ok(ChildEnd::TimedOut);
        }
        std::thread::sleep(pause.min(run.timeout.saturating_sub(start.elapsed())));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// How much of one stderr line a failure carries.
pub const TAIL_LINE_BYTES: usize = 300;

/// The last `n` non-empty lines of a file (the child's stderr), each cut to
/// `TAIL_LINE_BYTES` bytes. Read in chunks, so a 50 MB line costs no more memory than a short one.
pub fn tail_lines(path: &Path, n: usize) -> Vec<String> {
    let Ok(file) = std::fs::File::open(path) else {
        return Vec::new();
    };
    tail_of(file, n)
}

pub fn tail_of(mut reader: impl Read, n: usize) -> Vec<String> {
    let mut lines: VecDeque<String> = VecDeque::with_capacity(n + 1);
    let mut current: Vec<u8> = Vec::with_capacity(TAIL_LINE_BYTES);
    let mut cut = 0u64;
    let finish = |current: &mut Vec<u8>, cut: &mut u64, lines: &mut VecDeque<String>| {
        let mut line = String::from_utf8_lossy(current).into_owned();
        if *cut > 0 {
            line += &format!(" [... {} more bytes]", *cut);
        }
        if !line.trim().is_empty() && n > 0 {
            lines.push_back(line);
            if lines.len() > n {
                lines.pop_front();
            }
        }
        current.clear();
        *cut = 0;
    };
    let mut buf = [0u8; 64 * 1024];
    loop {
        let got = match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(k) => k,
        };
        for &b in &buf[..got] {
            if b == b'\n' {
                finish(&mut current, &mut cut, &mut lines);
            } else if current.len() < TAIL_LINE_BYTES {
                current.push(b);
            } else {
                cut += 1;
            }
        }
    }
    finish(&mut current, &mut cut, &mut lines);
    lines.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_worker_takes_the_items_in_the_given_order_and_results_stay_in_item_order() {
        let taken = Mutex::new(Vec::new());
        let out = parallel_map_in_order(&[10, 20, 30], &[2, 0, 1], 1, |i, x| {
            taken.lock().unwrap().push(i);
            x + 1
        });
        assert_eq!(out, [11, 21, 31]);
        assert_eq!(taken.into_inner().unwrap(), [2, 0, 1]);
    }

    #[test]
    fn a_huge_single_line_is_cut_and_the_count_of_lines_bounded() {
        let mut text = "x".repeat(5_000_000);
        for i in 0..30 {
            text += &format!("\nline {i}");
        }
        let tail = tail_of(text.as_bytes(), 10);
        assert_eq!(tail.len(), 10);
        assert_eq!(tail[0], "line 20");
        let only = tail_of("y".repeat(1_000_000).as_bytes(), 10);
        assert_eq!(only.len(), 1);
        assert!(only[0].len() < TAIL_LINE_BYTES + 40, "{}", only[0].len());
        assert!(only[0].ends_with("[... 999700 more bytes]"), "{}", &only[0][TAIL_LINE_BYTES..]);
    }
}
