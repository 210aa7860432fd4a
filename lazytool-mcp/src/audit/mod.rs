//! The audit trail: one JSON line per tool call, login and refusal ([`AuditLog`]), written by
//! a thread of its own from a bounded channel, to stdout or to a file rotated by size.

mod call;
mod line;
mod log;
mod rotate;
mod tally;

#[cfg(feature = "server-http")]
pub(crate) use call::limit_kind;
pub(crate) use call::{CallAudit, session_of};
pub(crate) use line::AuditLine;
#[cfg(feature = "server-http")]
pub(crate) use line::CallRecord;
pub use log::{AUDIT_CHANNEL_BOUND, AuditLog};
pub use rotate::Rotation;
pub use tally::{CallCounts, CallTally, MAX_TALLIED_NAMES, TALLY_OTHERS};
