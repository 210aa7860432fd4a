//! Sessions in code mode ([`SessionOptions::code_mode`](crate::SessionOptions::code_mode)):
//! the code tool in every request, its calls run, direct calls refused when code mode is
//! alone, and discovery answered with TypeScript declarations.
//!
//! A script's tool calls come back here through [`Session::admit_direct`]: the same rules,
//! limits, spans and cancellation as a call the model makes by name.

use std::sync::{Arc, Weak};

use serde_json::{Value, json};

use super::call_through::Routed;
use super::{Live, Session, Shared};
use crate::call::{ToolContext, ToolErrorKind, ToolResult};
use crate::code::{CODE_TOOL_NAME, CodeSession, PREAMBLE, declare};
use crate::discovery::ResolvedMode;
use crate::dispatch::{admit, answered, refuse, run};
use crate::tool::{DISCOVERY_TOOL_NAME, Tool, ToolDefinition};

/// A session as a running script holds it between its calls: not keeping it alive.
struct WeakSession {
    shared: Weak<Shared>,
    live: Weak<Live>,
}

impl WeakSession {
    fn upgrade(&self) -> Option<Session> {
        Some(Session {
            shared: self.shared.upgrade()?,
            live: self.live.upgrade()?,
        })
    }
}

impl Session {
    /// `tools` with the code tool after them; when code mode is alone, only the discovery
    /// tool is kept of them. A principal that may call no tool is offered no code tool.
    pub(super) fn with_code_tool(
        &self,
        tools: Vec<Arc<ToolDefinition>>,
    ) -> Vec<Arc<ToolDefinition>> {
        let Some(code) = self.code() else {
            return tools;
        };
        let mut tools = if code.mode.direct_calls {
            tools
        } else {
            (tools.into_iter())
                .filter(|tool| tool.name == DISCOVERY_TOOL_NAME)
                .collect()
        };
        tools.push(Arc::clone(code.definition(|| self.code_description())));
        tools
    }

    /// What the code tool says: how to write a script, the declarations of the tools a
    /// request carries, and the lazy ones by name.
    fn code_description(&self) -> String {
        let shared = &*self.shared;
        let mut text = format!("{}\n{}", PREAMBLE, declare(shared.eager.iter()));
        let lazy = self.lazy_tool_names();
        if !lazy.is_empty() {
            let more = match shared.mode {
                #[cfg(feature = "search")]
                ResolvedMode::Search => format!(
                    "\n{} more tools can be found with {DISCOVERY_TOOL_NAME}, which answers with their declarations; a script can call them from the next turn on.",
                    lazy.len()
                ),
                _ => format!(
                    "\nMore tools, callable once discovered with {DISCOVERY_TOOL_NAME} (which answers with their declarations): {}",
                    lazy.join(", ")
                ),
            };
            text.push_str(&more);
        }
        text
    }

    /// Code mode, unless this session's principal may call no tool: then there is no code
    /// tool (a script could do nothing but spend the server's time), and a call of it is
    /// answered as a call of any unknown tool.
    fn code(&self) -> Option<&CodeSession> {
        let code = self.shared.code.as_ref()?;
        // The session's tools are its principal's: eager ones allowed, lazy ones allowed.
        let may_call = !self.shared.eager.is_empty() || !self.lazy_tool_names().is_empty();
        may_call.then_some(code)
    }

    /// Routes the code tool's calls, and refuses direct calls when code mode is alone.
    pub(super) fn route_code(&self, name: &str, arguments: Value, context: &ToolContext) -> Routed {
        let Some(code) = self.code() else {
            return Routed::Pass(arguments);
        };
        let limits = self.shared.registry.limits();
        if name == CODE_TOOL_NAME {
            return Routed::Done(match code.tool(limits, || self.connect()) {
                Some(tool) => admit(tool, arguments, context.clone()),
                None => Err(refuse(
                    ToolResult::error(
                        ToolErrorKind::ToolFailed,
                        "Error: the code tool is not configured correctly.",
                    ),
                    arguments,
                    limits,
                )),
            });
        }
        let callable = (self.shared.registry.get(name)).is_some_and(|tool| self.allowed(tool));
        if code.mode.direct_calls || name == DISCOVERY_TOOL_NAME || !callable {
            return Routed::Pass(arguments);
        }
        Routed::Done(Err(answered(name, context.call_id(), || {
            refuse(
                ToolResult::error(
                    ToolErrorKind::UnknownTool,
                    format!(
                        "Error: in this conversation tools run from scripts: call {CODE_TOOL_NAME} with code that awaits tools.{name}(args)."
                    ),
                ),
                arguments,
                limits,
            )
        })))
    }

    /// A discovery result in code mode: the tools by name, their declarations instead of
    /// their schemas (fewer tokens, and what a script is written against).
    pub(super) fn declare_discovered(&self, result: ToolResult) -> ToolResult {
        if self.shared.code.is_none() || result.is_error() {
            return result;
        }
        let Some(found) = result.discovered() else {
            return result;
        };
        let tools: Vec<&Tool> = (found.tools.iter())
            .filter_map(|name| self.shared.registry.get(name))
            .collect();
        let names: Vec<Value> = (found.tools.iter())
            .map(|name| json!({ "name": name }))
            .collect();
        let mut content = result.content().clone();
        content["tools"] = Value::Array(names);
        content["declarations"] = Value::String(declare(tools));
        result.with_content(content)
    }

    /// How a script reaches this session: its ordinary dispatch, while the session lives.
    fn connect(&self) -> crate::code::Connect {
        let weak = WeakSession {
            shared: Arc::downgrade(&self.shared),
            live: Arc::downgrade(&self.live),
        };
        Arc::new(move || {
            let session = weak.upgrade()?;
            let call: crate::code::CallTool = Arc::new(move |name, arguments, context| {
                Box::pin(run(session.admit_direct(name, arguments, context)))
            });
            Some(call)
        })
    }
}
