//! A call refused for a limit: [`LimitExceeded`], which says which limit and when to retry.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ErrorCode, ErrorData};
use serde_json::json;

use super::rate::Rate;

/// JSON-RPC's range for server errors starts at -32000; the HTTP guard's other refusals
/// (sessions, streams, shutdown) use it too.
const LIMITED: ErrorCode = ErrorCode(-32000);

/// Whose limit: a principal's (every call it makes) or an upstream server's (every call to
/// it, whoever makes it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LimitScope {
    /// The limit of the principal making the call.
    Principal,
    /// The limit of the upstream server the call goes to.
    Server,
}

impl LimitScope {
    /// `principal` or `server`, as in messages, metrics and the audit trail.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::LimitScope::Server.as_str(), "server");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            LimitScope::Principal => "principal",
            LimitScope::Server => "server",
        }
    }
}

/// Which limit was reached, with its setting.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LimitKind {
    /// The token bucket was empty.
    Rate(Rate),
    /// This many calls were in flight already.
    InFlight(u32),
}

impl LimitKind {
    /// `rate` or `in_flight`, as in metrics and the audit trail.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::LimitKind::InFlight(2).as_str(), "in_flight");
    /// ```
    pub fn as_str(&self) -> &'static str {
        match self {
            LimitKind::Rate(_) => "rate",
            LimitKind::InFlight(_) => "in_flight",
        }
    }
}

/// A call refused because a principal or an upstream server reached a limit of its
/// [`CallQuota`](crate::CallQuota). Its message names the limit, whose it is, its setting
/// and the retry time; as a JSON-RPC error ([`LimitExceeded::error_data`]) its `data` carries
/// the same as fields.
///
/// ```
/// use std::time::Duration;
/// use lazytool_mcp_core::{LimitExceeded, LimitKind, LimitScope, Rate};
///
/// let exceeded = LimitExceeded::new(LimitScope::Principal, "alice", LimitKind::Rate(Rate::new(2.0, 2).unwrap()), Duration::from_millis(300));
/// assert_eq!(exceeded.to_string(), "rate limit of principal `alice` reached (2 calls/s, burst 2); retry in 1 s");
/// assert_eq!(exceeded.retry_after_seconds(), 1); // rounded up, at least 1
/// let error = exceeded.error_data();
/// assert_eq!(error.code.0, -32000);
/// assert_eq!(error.data.unwrap()["retryAfterSeconds"], 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct LimitExceeded {
    scope: LimitScope,
    name: Arc<str>,
    kind: LimitKind,
    retry_after: Duration,
}

impl LimitExceeded {
    /// The limit `kind` of `name` (a principal or a server, by `scope`) reached; a call may
    /// succeed again after `retry_after`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use lazytool_mcp_core::{LimitExceeded, LimitKind, LimitScope};
    ///
    /// let exceeded = LimitExceeded::new(LimitScope::Server, "github", LimitKind::InFlight(4), Duration::from_secs(1));
    /// assert_eq!(exceeded.to_string(), "in-flight limit of server `github` reached (4 calls in flight); retry in 1 s");
    /// ```
    pub fn new(
        scope: LimitScope,
        name: impl Into<Arc<str>>,
        kind: LimitKind,
        retry_after: Duration,
    ) -> Self {
        LimitExceeded {
            scope,
            name: name.into(),
            kind,
            retry_after,
        }
    }

    /// Whose limit.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use lazytool_mcp_core::{LimitExceeded, LimitKind, LimitScope};
    /// let exceeded = LimitExceeded::new(LimitScope::Server, "git", LimitKind::InFlight(1), Duration::ZERO);
    /// assert_eq!((exceeded.scope(), exceeded.name()), (LimitScope::Server, "git"));
    /// ```
    pub fn scope(&self) -> LimitScope {
        self.scope
    }

    /// The principal's or the server's name.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use lazytool_mcp_core::{LimitExceeded, LimitKind, LimitScope};
    /// let exceeded = LimitExceeded::new(LimitScope::Principal, "ci", LimitKind::InFlight(1), Duration::ZERO);
    /// assert_eq!(exceeded.name(), "ci");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Which limit, with its setting.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use lazytool_mcp_core::{LimitExceeded, LimitKind, LimitScope};
    /// let exceeded = LimitExceeded::new(LimitScope::Principal, "ci", LimitKind::InFlight(1), Duration::ZERO);
    /// assert_eq!(exceeded.kind(), LimitKind::InFlight(1));
    /// ```
    pub fn kind(&self) -> LimitKind {
        self.kind
    }

    /// How long until a call may succeed: the next token of a rate; for calls in flight, a
    /// guess (one second), since none can tell when a call ends.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use lazytool_mcp_core::{LimitExceeded, LimitKind, LimitScope};
    /// let exceeded = LimitExceeded::new(LimitScope::Principal, "ci", LimitKind::InFlight(1), Duration::from_secs(1));
    /// assert_eq!(exceeded.retry_after(), Duration::from_secs(1));
    /// ```
    pub fn retry_after(&self) -> Duration {
        self.retry_after
    }

    /// [`retry_after`](Self::retry_after) in whole seconds, rounded up, at least 1: what
    /// `Retry-After` says.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use lazytool_mcp_core::{LimitExceeded, LimitKind, LimitScope};
    /// let exceeded = LimitExceeded::new(LimitScope::Principal, "ci", LimitKind::InFlight(1), Duration::from_millis(2100));
    /// assert_eq!(exceeded.retry_after_seconds(), 3);
    /// ```
    pub fn retry_after_seconds(&self) -> u64 {
        let whole = self.retry_after.as_secs();
        let rounded = whole + u64::from(self.retry_after.subsec_nanos() > 0);
        rounded.max(1)
    }

    /// The JSON-RPC error a refused call is answered with: code -32000, this message, and in
    /// `data` the fields `limit` (`rate` or `in_flight`), `scope`, `name`, the setting
    /// (`perSecond` and `burst`, or `maxInFlight`) and `retryAfterSeconds`.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use lazytool_mcp_core::{LimitExceeded, LimitKind, LimitScope};
    /// let exceeded = LimitExceeded::new(LimitScope::Server, "git", LimitKind::InFlight(2), Duration::from_secs(1));
    /// let data = exceeded.error_data().data.unwrap();
    /// assert_eq!(data, serde_json::json!({"limit": "in_flight", "scope": "server", "name": "git", "maxInFlight": 2, "retryAfterSeconds": 1}));
    /// ```
    pub fn error_data(&self) -> ErrorData {
        let mut data = json!({
            "limit": self.kind.as_str(),
            "scope": self.scope.as_str(),
            "name": &*self.name,
            "retryAfterSeconds": self.retry_after_seconds(),
        });
        match self.kind {
            LimitKind::Rate(rate) => {
                data["perSecond"] = json!(rate.per_second());
                data["burst"] = json!(rate.burst());
            }
            LimitKind::InFlight(calls) => data["maxInFlight"] = json!(calls),
        }
        ErrorData::new(LIMITED, self.to_string(), Some(data))
    }
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (limit, setting) = match self.kind {
            LimitKind::Rate(rate) => ("rate", rate.to_string()),
            LimitKind::InFlight(1) => ("in-flight", "1 call in flight".to_owned()),
            LimitKind::InFlight(calls) => ("in-flight", format!("{calls} calls in flight")),
        };
        write!(
            f,
            "{limit} limit of {} `{}` reached ({setting}); retry in {} s",
            self.scope.as_str(),
            self.name,
            self.retry_after_seconds()
        )
    }
}

impl std::error::Error for LimitExceeded {}
