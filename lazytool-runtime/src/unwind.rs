//! Panic payloads: what is logged of a panic caught in a tool (the model never sees it).

use std::any::Any;

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
