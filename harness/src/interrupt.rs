//! SIGINT and SIGTERM caught while work that must clean up runs (the simulator's children, the
//! fetches of `vendor`, the fuzzer's cases): the handler only records the signal, and whoever
//! polls `interrupted()` stops its work, cleans up and exits.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

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
    CATCHING.fetch_add(1, Ordering::SeqCst);
    let r = catch_signals(f);
    CATCHING.fetch_sub(1, Ordering::SeqCst);
    r
}

/// How many `interruptible` calls are in force (nested ones leave the exit to the outermost).
static CATCHING: AtomicUsize = AtomicUsize::new(0);

/// Whether an `interruptible` call encloses the current one: its caller then owns the exit.
pub fn nested_interruptible() -> bool {
    CATCHING.load(Ordering::SeqCst) > 1
}

fn catch_signals<R>(f: impl FnOnce() -> R) -> R {
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

/// Waits for `child` (a process of ours that catches SIGTERM and cleans up after itself, such
/// as the gate's rendering of a task) while polling `interrupted()`: on an interrupt the child
/// is sent SIGTERM, so it stops its own children and removes its own temporaries instead of
/// simulating on as an orphan, and SIGKILL if it has not exited `grace` later.
pub fn wait_forwarding(
    child: &mut std::process::Child,
    grace: std::time::Duration,
) -> std::io::Result<std::process::ExitStatus> {
    let mut sent: Option<std::time::Instant> = None;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(status);
        }
        match sent {
            None if interrupted() => {
                #[cfg(unix)]
                // SAFETY: a signal to our own child, whose pid `try_wait` has not yet reaped.
                unsafe {
                    libc::kill(child.id() as libc::pid_t, libc::SIGTERM);
                }
                sent = Some(std::time::Instant::now());
            }
            Some(at) if at.elapsed() > grace => {
                let _ = child.kill();
                return child.wait();
            }
            _ => {}
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}
