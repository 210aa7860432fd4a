//! Limits on tool calls, per principal and per upstream server: a token bucket ([`Rate`])
//! and a cap on calls in flight, together a [`CallQuota`]; a call over one is refused with
//! [`LimitExceeded`], which says which limit and when to retry.

mod call_quota;
pub mod call_refusal;
mod exceeded;
mod invalid_limit;
pub mod limiter;
mod limits_hit;
mod monotonic;
mod rate;
mod store_down;

pub use call_quota::CallQuota;
pub use exceeded::{LimitExceeded, LimitKind, LimitScope};
pub use invalid_limit::InvalidLimit;
pub use limits_hit::LimitsHit;
pub use rate::Rate;
pub use store_down::StoreDown;
