//! The code tool, [`CODE_TOOL_NAME`], as a session offers it: its definition (the tools'
//! declarations in its description) and the tool that runs a script, built once per session.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, OnceLock};
use std::task::Poll;

use serde_json::{Value, json};

use super::host::{Bounds, CallTool, Host};
use super::mode::DEFAULT_WALL_TIME;
use super::outcome::Limit;
use super::{CODE_TOOL_NAME, CodeMode, script};
use crate::call::{CallLimits, ToolContext, ToolErrorKind, ToolResult};
use crate::tool::{
    CallFuture, CompiledSchemas, DynamicHandler, Handler, SourceLocation, Tool, ToolDefinition,
    ToolInner, ToolMetadata,
};

/// Connects a script to its session: the session's dispatch, or `None` once the session
/// is gone.
pub(crate) type Connect = Arc<dyn Fn() -> Option<CallTool> + Send + Sync>;

/// Code mode within one session: its options, and its tool built once.
pub(crate) struct CodeSession {
    pub(crate) mode: CodeMode,
    definition: OnceLock<Arc<ToolDefinition>>,
    /// `None` if its schema did not compile (it is a constant: never).
    tool: OnceLock<Option<Tool>>,
}

impl CodeSession {
    pub(crate) fn new(mode: CodeMode) -> CodeSession {
        CodeSession {
            mode,
            definition: OnceLock::new(),
            tool: OnceLock::new(),
        }
    }

    /// The code tool's definition, its description `describe`d the first time.
    pub(crate) fn definition(&self, describe: impl FnOnce() -> String) -> &Arc<ToolDefinition> {
        self.definition.get_or_init(|| {
            Arc::new(ToolDefinition {
                name: CODE_TOOL_NAME.to_owned(),
                description: describe(),
                input_schema: input_schema(),
            })
        })
    }

    /// The tool that runs scripts under `limits` (the registry's, its timeout the wall time).
    pub(crate) fn tool(
        &self,
        limits: &CallLimits,
        connect: impl FnOnce() -> Connect,
    ) -> Option<&Tool> {
        self.tool
            .get_or_init(|| build(self.mode.clone(), *limits, connect()))
            .as_ref()
    }
}

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"code": {"type": "string", "description": "The script (JavaScript; await tools, return the answer)."}},
        "required": ["code"]
    })
}

/// What the code tool's description says before the declarations.
pub(crate) const PREAMBLE: &str = "Runs a JavaScript script in a sandbox (no network, files, \
    modules or timers) and returns only what the script returns (as JSON) and its console.log \
    lines: chain several tool calls in one script instead of calling them one by one. Call a \
    tool as `await tools.NAME(args)`; a failed call throws an Error with the tool's message; \
    Promise.all runs calls concurrently. End with `return <answer>`.";

fn build(mode: CodeMode, limits: CallLimits, connect: Connect) -> Option<Tool> {
    let wall_time = mode
        .wall_time
        .or(limits.timeout)
        .unwrap_or(DEFAULT_WALL_TIME);
    let handler: DynamicHandler = Arc::new(move |arguments: Value, context: ToolContext| {
        let (mode, connect) = (mode.clone(), Arc::clone(&connect));
        let future: CallFuture =
            Box::pin(
                async move { run(arguments, context, &mode, connect, limits, wall_time).await },
            );
        future
    });
    let schemas = CompiledSchemas::build_deferred(input_schema(), None).ok()?;
    Some(Tool::new(ToolInner {
        name: Arc::from(CODE_TOOL_NAME),
        description: Arc::from(PREAMBLE),
        lazy: false,
        metadata: ToolMetadata::default(),
        schemas,
        handler: Handler::Dynamic(handler),
        location: SourceLocation::from(std::panic::Location::caller()),
        limits: limits.timeout(Some(wall_time)),
        definition: OnceLock::new(),
        fingerprint: OnceLock::new(),
    }))
}

async fn run(
    arguments: Value,
    context: ToolContext,
    mode: &CodeMode,
    connect: Connect,
    limits: CallLimits,
    wall_time: std::time::Duration,
) -> ToolResult {
    let Some(source) = arguments.get("code").and_then(Value::as_str) else {
        return ToolResult::error(
            ToolErrorKind::InvalidArguments,
            "Error: the script must be given as {\"code\": \"...\"}.",
        );
    };
    if source.len() > mode.max_source_bytes {
        return Limit::Source(mode.max_source_bytes).result();
    }
    let Some(call) = connect() else {
        return ToolResult::error(
            ToolErrorKind::ToolFailed,
            "Error: the session of this script has ended.",
        );
    };
    let bounds = Bounds {
        max_calls: mode.max_tool_calls,
        max_concurrent: mode.max_concurrent_calls,
        max_argument_bytes: limits.max_argument_bytes,
        max_depth: limits.max_argument_depth,
        max_output: limits.max_output_bytes,
        wall_time,
    };
    let host = Host::new(call, context.clone(), bounds);
    let script = script::run(
        source.to_owned(),
        Arc::clone(&host),
        mode.max_memory_bytes,
        mode.max_stack_bytes,
    );
    let cancelled = context.cancellation().clone().cancelled_owned();
    // The script is dropped when its call is cancelled: its runtime with it, and the tool
    // calls it awaited, each cancelling its own token.
    let (mut script, mut cancelled) = (pin!(script), pin!(cancelled));
    std::future::poll_fn(|cx| {
        if cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Limit::Cancelled.result());
        }
        match script.as_mut().poll(cx) {
            // A limit reached (a busy job interrupted, say) is why: it is said first.
            Poll::Pending if host.is_stalled() => {
                Poll::Ready(host.reached().map_or_else(stalled, Limit::result))
            }
            polled => polled,
        }
    })
    .await
}

/// The result of a script waiting for what nothing will settle.
fn stalled() -> ToolResult {
    ToolResult::error(
        ToolErrorKind::ToolFailed,
        "Error: the script awaits a promise that nothing will settle (no tool call of it is \
         running, and scripts have no timers), and was stopped.",
    )
}
