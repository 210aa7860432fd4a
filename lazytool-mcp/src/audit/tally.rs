//! The tool calls of the last minutes counted per server and per principal, as the audit
//! trail records them: [`CallTally`].

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

/// Names counted apart in one minute at most (per servers, per principals); the calls of
/// any others are counted under [`TALLY_OTHERS`].
pub const MAX_TALLIED_NAMES: usize = 1000;
/// The name the calls of names past [`MAX_TALLIED_NAMES`] are counted under.
pub const TALLY_OTHERS: &str = "(others)";

/// What the calls of one server or principal came to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CallCounts {
    /// Every call, refused ones included.
    pub calls: u64,
    /// Calls whose result was an error.
    pub errors: u64,
    /// Calls refused for a rate limit.
    pub rate_limited: u64,
    /// Calls refused for a limit of calls in flight.
    pub in_flight_limited: u64,
    /// Calls refused because the tool differs from the lock.
    pub pin_refused: u64,
}

impl CallCounts {
    fn add(&mut self, other: &CallCounts) {
        self.calls += other.calls;
        self.errors += other.errors;
        self.rate_limited += other.rate_limited;
        self.in_flight_limited += other.in_flight_limited;
        self.pin_refused += other.pin_refused;
    }
}

/// The tool calls of the last `window` (whole minutes), counted per server and per
/// principal from the call lines an [`AuditLog`](crate::AuditLog) records
/// ([`AuditLog::with_tally`](crate::AuditLog::with_tally)): calls, errors and the refusals of
/// each limit. Bounded: at most [`MAX_TALLIED_NAMES`] names a minute each. Cheap to clone:
/// clones count together.
///
/// ```
/// use std::time::Duration;
///
/// let tally = lazytool_mcp::CallTally::new(Duration::from_secs(15 * 60));
/// assert!(tally.by_server().is_empty());
/// assert_eq!(tally.window(), Duration::from_secs(15 * 60));
/// ```
#[derive(Clone, Debug)]
pub struct CallTally {
    inner: Arc<Mutex<Minutes>>,
    minutes: u64,
}

#[derive(Debug)]
struct Minutes {
    start: Instant,
    /// Each minute since `start` with calls, oldest first.
    kept: VecDeque<(u64, Minute)>,
}

#[derive(Debug, Default)]
struct Minute {
    servers: HashMap<String, CallCounts>,
    principals: HashMap<String, CallCounts>,
}

impl CallTally {
    /// Counts the calls of the last `window`, rounded up to whole minutes (at least one).
    pub fn new(window: Duration) -> Self {
        CallTally {
            inner: Arc::new(Mutex::new(Minutes {
                start: Instant::now(),
                kept: VecDeque::new(),
            })),
            minutes: window.as_secs().div_ceil(60).max(1),
        }
    }

    /// The window counted.
    pub fn window(&self) -> Duration {
        Duration::from_secs(self.minutes * 60)
    }

    /// Each server's counts over the window, by name.
    pub fn by_server(&self) -> BTreeMap<String, CallCounts> {
        self.sum(|minute| &minute.servers)
    }

    /// Each principal's counts over the window, by name.
    pub fn by_principal(&self) -> BTreeMap<String, CallCounts> {
        self.sum(|minute| &minute.principals)
    }

    fn sum(
        &self,
        of: impl Fn(&Minute) -> &HashMap<String, CallCounts>,
    ) -> BTreeMap<String, CallCounts> {
        let mut minutes = self.lock();
        let now = minutes.now();
        minutes.forget_before(now.saturating_sub(self.minutes - 1));
        let mut sums: BTreeMap<String, CallCounts> = BTreeMap::new();
        for (_, minute) in &minutes.kept {
            for (name, counts) in of(minute) {
                sums.entry(name.clone()).or_default().add(counts);
            }
        }
        sums
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Minutes> {
        // Counts only: a panic elsewhere leaves them usable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a `call` line of the audit trail.
    pub(crate) fn count(&self, line: &Map<String, Value>) {
        let text = |key: &str| line.get(key).and_then(Value::as_str);
        let mut counts = CallCounts {
            calls: 1,
            ..CallCounts::default()
        };
        match (text("outcome"), text("errorKind")) {
            (Some("refused"), Some("rate_limit")) => counts.rate_limited = 1,
            (Some("refused"), Some("in_flight_limit")) => counts.in_flight_limited = 1,
            (Some("refused"), Some("pin")) => counts.pin_refused = 1,
            (Some("error"), _) => counts.errors = 1,
            _ => {}
        }
        let mut minutes = self.lock();
        let now = minutes.now();
        minutes.forget_before(now.saturating_sub(self.minutes - 1));
        if minutes.kept.back().is_none_or(|(at, _)| *at != now) {
            minutes.kept.push_back((now, Minute::default()));
        }
        let Some((_, minute)) = minutes.kept.back_mut() else {
            return;
        };
        let server = text("server").unwrap_or("(no server)");
        add(&mut minute.servers, server, &counts);
        add(
            &mut minute.principals,
            text("principal").unwrap_or("(anonymous)"),
            &counts,
        );
    }
}

fn add(table: &mut HashMap<String, CallCounts>, name: &str, counts: &CallCounts) {
    let name = match table.contains_key(name) || table.len() < MAX_TALLIED_NAMES {
        true => name,
        false => TALLY_OTHERS,
    };
    table.entry(name.to_owned()).or_default().add(counts);
}

impl Minutes {
    fn now(&self) -> u64 {
        self.start.elapsed().as_secs() / 60
    }

    fn forget_before(&mut self, first: u64) {
        while self.kept.front().is_some_and(|(at, _)| *at < first) {
            self.kept.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn line(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn calls_errors_and_refusals_are_counted_per_server_and_principal() {
        let tally = CallTally::new(Duration::from_secs(300));
        tally.count(&line(
            json!({"principal": "alice", "server": "everything", "outcome": "ok"}),
        ));
        tally.count(&line(json!({"principal": "alice", "server": "everything", "outcome": "error", "errorKind": "tool_error"})));
        tally.count(&line(json!({"principal": "bob", "server": null, "outcome": "refused", "errorKind": "rate_limit"})));
        let servers = tally.by_server();
        assert_eq!(
            servers["everything"],
            CallCounts {
                calls: 2,
                errors: 1,
                ..CallCounts::default()
            }
        );
        assert_eq!(servers["(no server)"].rate_limited, 1);
        let principals = tally.by_principal();
        assert_eq!(principals["alice"].calls, 2);
        assert_eq!(
            principals["bob"],
            CallCounts {
                calls: 1,
                rate_limited: 1,
                ..CallCounts::default()
            }
        );
    }

    #[test]
    fn names_past_the_bound_are_counted_together() {
        let tally = CallTally::new(Duration::from_secs(60));
        for index in 0..MAX_TALLIED_NAMES + 5 {
            tally.count(&line(
                json!({"principal": format!("p{index}"), "server": "s", "outcome": "ok"}),
            ));
        }
        let principals = tally.by_principal();
        assert_eq!(principals.len(), MAX_TALLIED_NAMES + 1);
        assert_eq!(principals[TALLY_OTHERS].calls, 5);
    }
}
