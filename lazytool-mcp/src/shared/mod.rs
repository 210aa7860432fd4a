//! Sessions that every replica of an HTTP server shares through lazytool-mcp-core's
//! [`SharedStore`] (features `redis` and `server-http`): [`SharedSessions`] keeps them in
//! Redis, [`SessionInits`] is rmcp's side of them. The store itself and the limits decided
//! in it are lazytool-mcp-core's (`shared`), re-exported here for this crate's code.

// The tests' Redis, one file for both crates' tests.
#[cfg(test)]
#[path = "../../../lazytool-mcp-core/src/shared/redis_server.rs"]
mod redis_server;
mod session_inits;
mod shared_sessions;

pub(crate) use lazytool_mcp_core::shared::*;
pub(crate) use session_inits::SessionInits;
pub(crate) use shared_sessions::SharedSessions;
