//! Panic payloads: what is logged of a panic caught in a tool (the model never sees it).

use std::any::Any;

use crate::call::{ToolErrorKind, ToolResult};

/// The text of a panic payload, for logs only: it may contain internals the model must not see.
pub(crate) fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(message) = payload.downcast_ref::<&'static str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "non-string panic payload"
    }
}

/// The answer to a call whose tool panicked: the payload is logged, never shown.
#[cold]
pub(super) fn panicked(tool: &str, payload: &(dyn Any + Send)) -> ToolResult {
    tracing::error!(
        target: "lazytool::call",
        tool = %tool,
        panic = panic_message(payload),
        "tool panicked"
    );
    ToolResult::error(
        ToolErrorKind::Panicked,
        format!(
            "Error: tool '{tool}' failed with an internal error. Do not retry with the same arguments."
        ),
    )
}
