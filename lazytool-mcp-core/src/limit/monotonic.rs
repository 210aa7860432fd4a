//! The clock the token buckets read: [`Monotonic`].

use std::sync::OnceLock;
use std::time::Instant;

use governor::clock::Clock;
use governor::nanos::Nanos;

/// The time since the process first read it, from [`Instant`] (monotonic). governor's own
/// clock of `Instant` needs its `std` feature, which also builds futures-timer and parking_lot
/// and links futures-executor, for waits and keyed stores the limits do not use: half a
/// megabyte of every stdio server's debug binary.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Monotonic;

impl Clock for Monotonic {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        static START: OnceLock<Instant> = OnceLock::new();
        Nanos::from(START.get_or_init(Instant::now).elapsed())
    }
}

#[cfg(test)]
mod tests {
    use governor::clock::Reference;

    use super::*;

    #[test]
    fn never_goes_back() {
        let clock = Monotonic;
        let first = clock.now();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let second = clock.now();
        assert!(second > first);
        assert!(second.duration_since(first) >= Nanos::from(std::time::Duration::from_millis(2)));
    }
}
