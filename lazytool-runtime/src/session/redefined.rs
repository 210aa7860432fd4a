//! Tools whose definition changed under a conversation: a discovered lazy tool must be
//! discovered again, an eager one listed again, before a call runs it.
//!
//! What the model read of a tool is its name, description, input schema and skill, as the
//! session's registry holds them (one shared definition per tool, built once). A catalog
//! change compares them with the new registry's once per conversation
//! ([`Session::with_registry`](super::Session::with_registry)): exact, so no definition an
//! upstream crafts can pass for another, and nothing is compared or hashed per call.

use crate::call::{ToolErrorKind, ToolResult};
use crate::tool::{DISCOVERY_TOOL_NAME, Tool};

/// Whether `new` reads exactly as `old` did.
pub(super) fn reads_the_same(old: &Tool, new: &Tool) -> bool {
    std::ptr::eq(old.inner(), new.inner())
        || (old.shared_definition() == new.shared_definition() && old.skill() == new.skill())
}

/// The refusal of a discovered lazy tool whose definition changed since its discovery.
pub(super) fn rediscover(name: &str) -> ToolResult {
    ToolResult::error(
        ToolErrorKind::NotDiscovered,
        format!(
            "Error: Tool '{name}' changed since it was discovered. Call {DISCOVERY_TOOL_NAME} with toolNames: ['{name}'] to discover it again."
        ),
    )
}

/// The refusal of an eager tool whose definition changed since the tools were last listed.
pub(super) fn relist(name: &str) -> ToolResult {
    ToolResult::error(
        ToolErrorKind::NotDiscovered,
        format!(
            "Error: Tool '{name}' changed since the tools were last listed. List the tools again to read its new definition before calling it."
        ),
    )
}
