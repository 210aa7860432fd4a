//! Sessions that run lazy tools through the call-through tool
//! ([`SessionOptions::call_through`](crate::SessionOptions::call_through)): their fixed tool
//! list, and the routing of their calls.

use std::sync::Arc;

use serde_json::Value;

use super::{Session, redefined};
use crate::call::{CallLimits, ToolContext, ToolErrorKind, ToolResult, dispose, quote};
use crate::discovery::call_through;
use crate::dispatch::{Admitted, admit, bound, recheck};
use crate::tool::{
    CALL_THROUGH_TOOL_NAME, DISCOVERY_TOOL_NAME, MAX_TOOL_NAME_LEN, Tool, ToolDefinition,
};

/// What the call-through routing made of a call.
pub(super) enum Routed {
    /// Answered or admitted here.
    Done(Result<Admitted, ToolResult>),
    /// Not a call this routing handles: the arguments, back for the ordinary rules.
    Pass(Value),
}

/// Room for the envelope around the named tool's arguments: its name (at most 64 bytes)
/// and the keys, so that arguments within the limits are never refused for their envelope.
const ENVELOPE_BYTES: usize = 128;

impl Session {
    /// Whether this session lists a fixed set of tools and runs lazy ones through the
    /// call-through tool: asked for, and in a mode that discovers.
    pub(super) fn calls_through(&self) -> bool {
        self.shared.options.is_call_through()
            && self.shared.mode.discovers()
            && self.shared.discovery().is_some()
    }

    /// Eager tools, the discovery tool, the call-through tool: whatever was discovered.
    pub(super) fn call_through_definitions(&self) -> Vec<Arc<ToolDefinition>> {
        let mut tools = self.eager_definitions();
        if let Some(discovery) = self.shared.discovery() {
            tools.push(Arc::clone(&discovery.definition));
        }
        tools.push(Arc::clone(call_through::definition()));
        tools
    }

    /// Routes a call of a call-through session: the call-through tool runs the tool it names,
    /// a discovery result says how to run what it found, and a lazy tool called by its own name
    /// runs without waiting for discovery (its arguments validated all the same). Everything
    /// else passes to the ordinary rules.
    pub(super) fn route_through(
        &self,
        name: &str,
        arguments: Value,
        context: &ToolContext,
    ) -> Routed {
        if !self.calls_through() {
            return Routed::Pass(arguments);
        }
        if name == CALL_THROUGH_TOOL_NAME {
            return Routed::Done(self.admit_through(arguments, context.clone()));
        }
        if name == DISCOVERY_TOOL_NAME
            && let Some(discovery) = self.shared.discovery()
        {
            let found = self.discover(discovery, arguments);
            let registry = &self.shared.registry;
            let found = call_through::with_how_to_call(found, |name| {
                registry.get(name).map(Tool::fingerprint)
            });
            return Routed::Done(Err(bound(found, registry.limits())));
        }
        match self.lazy_tool(name) {
            Some(tool) => Routed::Done(admit(tool, arguments, context.clone())),
            None => Routed::Pass(arguments),
        }
    }

    fn admit_through(
        &self,
        arguments: Value,
        context: ToolContext,
    ) -> Result<Admitted, ToolResult> {
        let limits = *self.shared.registry.limits();
        if recheck(CALL_THROUGH_TOOL_NAME, &arguments, &envelope(limits)).is_err() {
            // Said with the limits the model knows of; over the loosened ones, over these too.
            let rejected = recheck(CALL_THROUGH_TOOL_NAME, &arguments, &limits).err();
            dispose(arguments);
            return Err(rejected.unwrap_or_else(|| {
                ToolResult::error(
                    ToolErrorKind::InvalidArguments,
                    "Error: the arguments are over the limits.",
                )
            }));
        }
        let target = call_through::read(arguments)?;
        let Some(tool) = self
            .shared
            .registry
            .get(&target.name)
            .filter(|t| self.allowed(t))
        else {
            return Err(self.not_runnable(&target.name));
        };
        // No session remembers a stateless discovery: the fingerprint it gave stands for it.
        if target
            .fingerprint
            .is_some_and(|carried| carried != tool.fingerprint())
        {
            dispose(target.arguments);
            return Err(redefined::rediscover(&target.name));
        }
        admit(tool, target.arguments, context)
    }

    /// The answer to a call-through naming a tool that does not exist or is not allowed: an
    /// error result (not an unknown tool: the call-through tool exists) listing what can run.
    fn not_runnable(&self, name: &str) -> ToolResult {
        if let Some(why) = self.shared.registry.missing_tool(name) {
            return ToolResult::unavailable(&quote(name, MAX_TOOL_NAME_LEN), &why);
        }
        let lazy = self.lazy_tool_names();
        ToolResult::error(
            ToolErrorKind::InvalidArguments,
            format!(
                "Error: no tool named '{name}' can be run with {CALL_THROUGH_TOOL_NAME}. Tools \
                 available: {}. Call {DISCOVERY_TOOL_NAME} to get a tool's schema first.",
                call_through::bounded_list(lazy.iter().map(String::as_str))
            ),
        )
    }
}

/// `limits` loosened by the envelope: the named tool's admission applies them exactly to its
/// own arguments.
fn envelope(limits: CallLimits) -> CallLimits {
    limits
        .max_argument_bytes(limits.max_argument_bytes.saturating_add(ENVELOPE_BYTES))
        .max_argument_depth(limits.max_argument_depth.saturating_add(1))
}
