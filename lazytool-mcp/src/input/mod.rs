//! Input a tool asks its MCP client for ([`lazytool_runtime::ToolContext::ask`]): over a
//! 2025-11-25 session the client is sent the request and the tool waits ([`session`]); for a
//! 2026-07-28 request (SEP-2322) the call ends with an input-required result and runs again
//! with the answers ([`round`]), the answers so far carried in a signed, expiring, single-use
//! `requestState` ([`request_state`]).

pub(crate) mod asking;
pub(crate) mod request_state;
pub(crate) mod round;
pub(crate) mod session;
