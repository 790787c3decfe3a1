//! How far a long run is, said once a minute or so on stderr when nobody watches a bar (a log,
//! a CI job, the gate's child processes): one line, however many points finished meanwhile.
//! The clock is passed in, so the throttle is tested without sleeping.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Between two lines.
pub const INTERVAL: Duration = Duration::from_secs(60);

pub struct Heartbeat {
    start: Instant,
    interval: Duration,
    next: Mutex<Instant>,
}

impl Heartbeat {
    pub fn new(start: Instant, interval: Duration) -> Heartbeat {
        Heartbeat { start, interval, next: Mutex::new(start + interval) }
    }

    /// The line to print at `now`, if one is due; the next is due an interval after this one,
    /// so points finishing in a burst after a long pause give one line, not one each.
    pub fn tick(&self, now: Instant, done: usize, total: usize, cached: usize, failed: usize) -> Option<String> {
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        if now < *next {
            return None;
        }
        *next = now + self.interval;
        let secs = now.saturating_duration_since(self.start).as_secs();
        Some(format!(
            "blis: {done} of {total} points finished ({cached} from the cache, {failed} failed) after {}m{:02}s",
            secs / 60,
            secs % 60
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_interval_however_many_points_finish() {
        let t0 = Instant::now();
        let hb = Heartbeat::new(t0, Duration::from_secs(60));
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert_eq!(hb.tick(at(0), 1, 10, 0, 0), None);
        assert_eq!(hb.tick(at(59), 2, 10, 0, 0), None);
        let first = hb.tick(at(61), 3, 10, 1, 0).expect("due after a minute");
        assert_eq!(first, "blis: 3 of 10 points finished (1 from the cache, 0 failed) after 1m01s");
        // The points finishing right after do not each print.
        assert_eq!(hb.tick(at(62), 4, 10, 1, 0), None);
        assert_eq!(hb.tick(at(120), 5, 10, 1, 0), None);
        // A long pause gives one line, and the next one is an interval after it.
        assert!(hb.tick(at(500), 6, 10, 1, 1).is_some_and(|l| l.ends_with("after 8m20s")));
        assert_eq!(hb.tick(at(501), 7, 10, 1, 1), None);
        assert!(hb.tick(at(560), 8, 10, 1, 1).is_some());
    }
}
