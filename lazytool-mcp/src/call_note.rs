//! What the upstream side of a tool call tells the serving side that a [`ToolResult`]
//! cannot carry: [`CallNote`], through a task-local the serving side opens around each call.
//!
//! [`ToolResult`]: lazytool_runtime::ToolResult

use std::cell::RefCell;
use std::sync::Arc;

use crate::limit::LimitExceeded;

tokio::task_local! {
    static NOTE: RefCell<CallNote>;
}

/// Of one call: the upstream server it went to and why it was refused there, if it was.
#[derive(Debug, Default)]
pub(crate) struct CallNote {
    pub(crate) server: Option<Arc<str>>,
    pub(crate) refused: Option<Refused>,
}

/// Why an upstream server's side refused a call before sending it.
// Made only by the upstream side (feature `client`); read by the serving side in every build.
#[cfg_attr(not(feature = "client"), allow(dead_code))]
#[derive(Debug)]
pub(crate) enum Refused {
    /// The server's limit: the call is answered with a JSON-RPC error.
    Limit(LimitExceeded),
    /// The tool's definition changed against the lock.
    Pin,
    /// The upstream server refused the call for a client capability the request did not
    /// declare (-32021): the client is answered with that error, as the server gave it.
    MissingCapability(rmcp::model::ErrorData),
}

/// Runs `call` with a note open, returning its output and what was noted. The note lives on
/// the call's task: what a tool spawns notes nothing.
pub(crate) async fn noted<T>(call: impl Future<Output = T>) -> (T, CallNote) {
    NOTE.scope(RefCell::new(CallNote::default()), async {
        let output = call.await;
        (output, NOTE.with(RefCell::take))
    })
    .await
}

/// Notes something of the current call, if a note is open (outside one, nothing happens).
#[cfg_attr(not(feature = "client"), allow(dead_code))]
pub(crate) fn note(write: impl FnOnce(&mut CallNote)) {
    // The first server a call reaches is its own: code mode's calls note theirs in turn.
    NOTE.try_with(|note| write(&mut note.borrow_mut())).ok();
}
