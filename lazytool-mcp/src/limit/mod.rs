//! Limits on tool calls, per principal and per upstream server: a token bucket ([`Rate`])
//! and a cap on calls in flight, together a [`CallQuota`]; a call over one is refused with
//! [`LimitExceeded`], which says which limit and when to retry.

mod call_quota;
#[cfg(any(feature = "server-http", feature = "client"))]
pub(crate) mod call_refusal;
mod exceeded;
mod invalid_limit;
#[cfg(any(feature = "server-http", feature = "client"))]
pub(crate) mod limiter;
mod limits_hit;
#[cfg(feature = "server-http")]
mod principal_limits;
mod rate;

pub use call_quota::CallQuota;
pub use exceeded::{LimitExceeded, LimitKind, LimitScope};
pub use invalid_limit::InvalidLimit;
pub use limits_hit::LimitsHit;
#[cfg(feature = "server-http")]
pub use principal_limits::{DEFAULT_MAX_TRACKED_PRINCIPALS, PrincipalLimits};
pub use rate::Rate;
