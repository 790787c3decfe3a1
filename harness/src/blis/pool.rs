//! The bounded worker pool and the one child process per point, with a timeout, a bounded
//! stderr tail, and Ctrl-C handling that stops every running point and removes its temporary
//! directory.
//!
//! Containment. Each child leads its own process group, and when the point ends, on every
//! path (normal exit, failure, timeout, interrupt), whatever is left of that group is killed:
//! a `blis` that exits leaving background children leaves none. A descendant that left the
//! group and its session (`setsid`) is reached on Linux: while the child runs, its descendants
//! are looked up through `/proc` (parent links) every 250 ms and at a timeout or interrupt,
//! and each one seen is killed when the point ends if it is still the same process (same
//! start time). This process is the subreaper of its descendants (`PR_SET_CHILD_SUBREAPER`),
//! so such an orphan is reparented here, not to init, and reaped. What cannot be reached: a
//! descendant that detaches from the group and whose parents all exit between two looks (less
//! than 250 ms) is never seen; it stays an orphan of this process until it ends or this
//! process does (a cgroup per point would contain it; the harness does not require one).
//! Elsewhere than Linux, only the group is killed.

use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

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

pub use crate::interrupt::{interrupted, interruptible, nested_interruptible};

/// Kills the child and everything of its that can still be found, and reaps the child.
fn kill_group(child: &mut std::process::Child, seen: &mut Seen) {
    seen.look(child.id());
    #[cfg(unix)]
    // SAFETY: plain syscall; a group already gone gives ESRCH, which is fine.
    unsafe {
        libc::kill(-(child.id() as libc::pid_t), libc::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
    #[cfg(target_os = "linux")]
    linux::reaped(child.id());
    sweep(child.id(), seen);
}

/// When a point's child has ended (and is reaped): what is left of its process group is
/// killed, then (Linux) every descendant seen while it ran that is still the same process, and
/// the group's members reparented to this process are reaped.
fn sweep(group: u32, seen: &mut Seen) {
    #[cfg(unix)]
    // SAFETY: plain syscall; ESRCH when the group is empty.
    unsafe {
        libc::kill(-(group as libc::pid_t), libc::SIGKILL);
    }
    #[cfg(target_os = "linux")]
    linux::finish(group as i32, &seen.0, seen.1);
    #[cfg(not(unix))]
    let _ = (group, seen);
}

/// The descendants of a running child seen so far, as (pid, start time): a pid is killed later
/// only while it is still the process that was seen (a pid can be reused).
#[derive(Default)]
struct Seen(Vec<(i32, u64)>, u64);

impl Seen {
    /// Remembers when the child started (orphans it leaves started no earlier).
    fn started(_child: u32) -> Seen {
        #[cfg(target_os = "linux")]
        return Seen(Vec::new(), linux::start_time(_child as i32).unwrap_or(u64::MAX));
        #[cfg(not(target_os = "linux"))]
        Seen::default()
    }

    fn look(&mut self, _child: u32) {
        #[cfg(target_os = "linux")]
        for p in linux::descendants(_child as i32) {
            if !self.0.contains(&p) {
                self.0.push(p);
            }
        }
    }
}

/// How often a running child's descendants are looked up (`/proc` is read each time).
const LOOK_EVERY: Duration = Duration::from_millis(250);

#[cfg(target_os = "linux")]
mod linux {
    use std::sync::Once;

    struct Proc {
        pid: i32,
        ppid: i32,
        pgrp: i32,
        start: u64,
    }

    pub fn start_time(pid: i32) -> Option<u64> {
        stat(pid).map(|p| p.start)
    }

    fn stat(pid: i32) -> Option<Proc> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // `pid (comm) state ppid pgrp session ... starttime(22)`; comm may hold spaces and `)`.
        let rest = &stat[stat.rfind(')')? + 1..];
        let f: Vec<&str> = rest.split_whitespace().collect();
        Some(Proc {
            pid,
            ppid: f.get(1)?.parse().ok()?,
            pgrp: f.get(2)?.parse().ok()?,
            start: f.get(19)?.parse().ok()?,
        })
    }

    fn processes() -> Vec<Proc> {
        let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
        dir.flatten().filter_map(|e| e.file_name().to_string_lossy().parse::<i32>().ok()).filter_map(stat).collect()
    }

    /// Every live descendant of `root` by parent links (`setsid` ones included), with its
    /// start time.
    pub fn descendants(root: i32) -> Vec<(i32, u64)> {
        let all = processes();
        let mut found: Vec<(i32, u64)> = Vec::new();
        let mut parents = vec![root];
        while let Some(parent) = parents.pop() {
            for p in all.iter().filter(|p| p.ppid == parent) {
                if !found.iter().any(|f| f.0 == p.pid) {
                    found.push((p.pid, p.start));
                    parents.push(p.pid);
                }
            }
        }
        found
    }

    static SUBREAPER: Once = Once::new();

    /// Makes this process the subreaper of its descendants (once): an orphan below it is
    /// reparented here instead of to init, so it stays visible and is reaped here.
    pub fn become_subreaper() {
        SUBREAPER.call_once(|| {
            // SAFETY: plain prctl; failure (an old kernel) leaves the other measures.
            unsafe {
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            }
        });
    }

    /// The points' children alive now (the pool's own), by pid: never an orphan to sweep.
    pub static CHILDREN: std::sync::Mutex<std::collections::BTreeSet<i32>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());

    /// The child `pid` was reaped: its pid may now be reused by anything.
    pub fn reaped(pid: u32) {
        CHILDREN.lock().unwrap_or_else(|e| e.into_inner()).remove(&(pid as i32));
    }

    /// Kills every seen descendant that is still the process seen, and kills and reaps the
    /// orphans reparented to this process since the child started: those seen, the ended
    /// group's members, and those that left the harness's process group (`setpgid` or
    /// `setsid`) and are not one of the pool's own children. The harness's other children
    /// (a build, a browser, the gate's renderings) stay in its group.
    pub fn finish(group: i32, seen: &[(i32, u64)], child_start: u64) {
        // Held while looking: a child spawned meanwhile is registered before it is seen.
        let children = CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
        // SAFETY: plain syscalls.
        let (me, my_pgrp) = unsafe { (libc::getpid(), libc::getpgrp()) };
        for &(pid, start) in seen {
            if stat(pid).is_some_and(|p| p.start == start) {
                // SAFETY: the process seen below the child, checked by its start time.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        for p in processes() {
            let left_our_group = p.pgrp != my_pgrp && p.start >= child_start && !children.contains(&p.pid);
            let ours = seen.contains(&(p.pid, p.start)) || p.pgrp == group || left_our_group;
            if p.ppid == me && ours {
                // SAFETY: a child of this process (reparented here): killed, reaped by pid.
                unsafe {
                    libc::kill(p.pid, libc::SIGKILL);
                    libc::waitpid(p.pid, std::ptr::null_mut(), 0);
                }
            }
        }
    }
}

/// `spawn`, retried while it fails with "text file busy": the binary's private copy was just
/// written, and a fork by another thread of this process can hold a copy of the (close-on-exec)
/// write descriptor until that child execs.
fn spawn_retrying(command: &mut Command) -> std::io::Result<std::process::Child> {
    let mut attempt = 0u32;
    loop {
        match command.spawn() {
            #[cfg(unix)]
            Err(e) if e.raw_os_error() == Some(libc::ETXTBSY) && attempt < 100 => {
                attempt += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            other => return other,
        }
    }
}

/// What a child cost: wall time from its start to when it was reaped, and its CPU time (user
/// and system, its own and its waited-for descendants'), where the platform reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildCost {
    pub wall: Duration,
    pub cpu: Option<Duration>,
}

/// Runs the child to its end or its timeout; on timeout (or an interrupt) its whole process
/// group is killed and the child reaped.
pub fn run_child(run: &ChildRun) -> std::io::Result<ChildEnd> {
    run_child_measured(run).map(|(end, _)| end)
}

/// Reaps the child if it has exited, with its own resource usage (`wait4`): the process-wide
/// children's rusage would mix the points other workers run at the same time.
#[cfg(unix)]
fn try_reap(child: &mut std::process::Child) -> std::io::Result<Option<(ExitStatus, Option<Duration>)>> {
    use std::os::unix::process::ExitStatusExt;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: plain syscall on our own child's pid, with valid out-pointers.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, libc::WNOHANG, &mut usage) };
    if pid == 0 {
        return Ok(None);
    }
    if pid < 0 {
        let e = std::io::Error::last_os_error();
        // A signal (SIGINT, caught) interrupted the call: the loop looks again.
        return if e.kind() == std::io::ErrorKind::Interrupted { Ok(None) } else { Err(e) };
    }
    let secs =
        |t: libc::timeval| Duration::from_secs(t.tv_sec.max(0) as u64) + Duration::from_micros(t.tv_usec.max(0) as u64);
    Ok(Some((ExitStatus::from_raw(status), Some(secs(usage.ru_utime) + secs(usage.ru_stime)))))
}

#[cfg(not(unix))]
fn try_reap(child: &mut std::process::Child) -> std::io::Result<Option<(ExitStatus, Option<Duration>)>> {
    Ok(child.try_wait()?.map(|status| (status, None)))
}

/// `run_child`, with what the child cost when it exited by itself (`None` when it was killed).
pub fn run_child_measured(run: &ChildRun) -> std::io::Result<(ChildEnd, Option<ChildCost>)> {
    let stderr = std::fs::File::create(&run.stderr_path)?;
    let stdout = match &run.stdout_path {
        Some(p) => Stdio::from(std::fs::File::create(p)?),
        None => Stdio::null(),
    };
    // A relative program path would be resolved against the child's working directory.
    let program = std::path::absolute(run.program)?;
    let mut command = Command::new(&program);
    // The child sees exactly `run.env` (every variable of which is in the point's key).
    command
        .args(&run.args)
        .current_dir(run.cwd)
        .env_clear()
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr);
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    #[cfg(target_os = "linux")]
    linux::become_subreaper();
    // The child's wall time counts from before the spawn: a short child may be done by the
    // time spawn returns.
    let spawned = Instant::now();
    let mut child = {
        // Registered as ours before another point's sweep can look: a child of the harness
        // is never taken for an orphan of a point.
        #[cfg(target_os = "linux")]
        let mut children = linux::CHILDREN.lock().unwrap_or_else(|e| e.into_inner());
        let child = spawn_retrying(&mut command)?;
        #[cfg(target_os = "linux")]
        children.insert(child.id() as i32);
        child
    };
    #[cfg(feature = "test-support")]
    SPAWNED.lock().unwrap_or_else(|e| e.into_inner()).push((program.clone(), run.cwd.to_path_buf()));
    let start = Instant::now();
    // Poll with a growing interval: short points finish within a millisecond or two, long
    // ones are not polled needlessly often.
    let mut pause = Duration::from_micros(200);
    let mut seen = Seen::started(child.id());
    let mut looked = Instant::now();
    loop {
        if let Some((status, cpu)) = try_reap(&mut child)? {
            let cost = ChildCost { wall: spawned.elapsed(), cpu };
            #[cfg(target_os = "linux")]
            linux::reaped(child.id());
            // Background children of a child that exited are killed too.
            sweep(child.id(), &mut seen);
            return Ok((ChildEnd::Exited(status), Some(cost)));
        }
        if interrupted() {
            kill_group(&mut child, &mut seen);
            return Ok((ChildEnd::Interrupted, None));
        }
        if start.elapsed() >= run.timeout {
            kill_group(&mut child, &mut seen);
            return Ok((ChildEnd::TimedOut, None));
        }
        if looked.elapsed() >= LOOK_EVERY {
            seen.look(child.id());
            looked = Instant::now();
        }
        std::thread::sleep(pause.min(run.timeout.saturating_sub(start.elapsed())));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// (program, working directory) of every child started in this process: what tests read to
/// check where each binary ran.
#[cfg(feature = "test-support")]
pub static SPAWNED: std::sync::Mutex<Vec<(PathBuf, PathBuf)>> = std::sync::Mutex::new(Vec::new());

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
