//! How a session presents its lazy tools: [`Presentation`].

use std::sync::Arc;

use super::call_through;
use super::listing::{DiscoveryListing, first_sentence};
use super::mode::ResolvedMode;
use super::tool::DiscoveryTool;
use crate::tool::{DISCOVERY_TOOL_NAME, Tool, ToolDefinition};

/// The discovery tool over a session's lazy tools and, in cache-stable mode, their stubs.
/// Built from every lazy tool, so with large catalogs it is most of a session's memory:
/// sessions without an `allow` filter share one per registry, mode and listing
/// ([`Registry::presentation`](crate::Registry)).
pub(crate) struct Presentation {
    pub(crate) discovery: Option<DiscoveryTool>,
    /// Sent after the discovery tool in [`ResolvedMode::CacheStable`]: every lazy tool with
    /// its first sentence and an open schema.
    pub(crate) stubs: Vec<Arc<ToolDefinition>>,
}

impl Presentation {
    /// With `call_through`, the discovery tool's description points at the call-through tool.
    pub(crate) fn new(
        lazy: &[&Tool],
        mode: ResolvedMode,
        listing: DiscoveryListing,
        call_through: bool,
    ) -> Self {
        let mut discovery = DiscoveryTool::new(lazy, mode, listing);
        if let Some(discovery) = &mut discovery
            && call_through
            && let Some(description) = call_through::discovery_description(lazy, mode, listing)
        {
            discovery.definition = Arc::new(ToolDefinition {
                description,
                ..ToolDefinition::clone(&discovery.definition)
            });
        }
        Presentation {
            discovery,
            stubs: if mode == ResolvedMode::CacheStable {
                lazy.iter().map(|tool| Arc::new(stub(tool))).collect()
            } else {
                Vec::new()
            },
        }
    }
}

/// A lazy tool as cache-stable mode lists it: its first sentence and an open schema.
fn stub(tool: &Tool) -> ToolDefinition {
    ToolDefinition {
        name: tool.name().to_owned(),
        description: format!(
            "{} (Parameters not shown: call {DISCOVERY_TOOL_NAME} with this name for them.)",
            first_sentence(tool.description())
        ),
        input_schema: serde_json::json!({"type": "object", "properties": {}, "additionalProperties": true}),
    }
}
