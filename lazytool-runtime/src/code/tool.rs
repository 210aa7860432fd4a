//! The code tool, [`CODE_TOOL_NAME`], as a session offers it: its definition (the tools'
//! declarations in its description) and the tool that runs a script, built once per session.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, OnceLock};
use std::task::Poll;

use serde_json::{Value, json};

use super::host::{Bounds, CallTool, Host};
use super::mode::DEFAULT_WALL_TIME;
use super::outcome::{Finished, Limit};
use super::{CODE_TOOL_NAME, CodeMode, ScriptRunner, settle};
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

/// How long past its wall time the dispatch gives up on a script that has not ended itself.
const BACKSTOP: std::time::Duration = std::time::Duration::from_secs(2);

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
    let schemas = CompiledSchemas::build_deferred(
        input_schema(),
        None,
        crate::tool::ArgumentValidation::JSON_SCHEMA,
    )
    .ok()?;
    Some(Tool::new(ToolInner {
        name: Arc::from(CODE_TOOL_NAME),
        description: Arc::from(PREAMBLE),
        lazy: false,
        metadata: ToolMetadata::default(),
        schemas,
        handler: Handler::Dynamic(handler),
        location: SourceLocation::from(std::panic::Location::caller()),
        // The script ends itself at its wall time (the engine's interrupt, or its worker
        // killed a grace later): the call's own timeout is only a backstop behind those.
        limits: limits.timeout(Some(wall_time.saturating_add(BACKSTOP))),
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
    match mode.runner {
        ScriptRunner::InProcess => {
            in_process(source.to_owned(), call, &context, bounds, mode).await
        }
        #[cfg(target_os = "linux")]
        ScriptRunner::Worker => {
            super::worker::run(source.to_owned(), call, &context, bounds, mode).await
        }
        #[cfg(not(target_os = "linux"))]
        ScriptRunner::Worker => ToolResult::error(
            ToolErrorKind::ToolFailed,
            "Error: the script could not run: scripts run in worker processes, which lazytool \
             has on Linux only; `CodeMode::in_process()` runs them in the server's own \
             process, with no security boundary.",
        ),
    }
}

/// Runs a script on the current async worker, in this process.
async fn in_process(
    source: String,
    call: CallTool,
    context: &ToolContext,
    bounds: Bounds,
    mode: &CodeMode,
) -> ToolResult {
    let host = Host::new(call, context.clone(), bounds);
    let script = settle::run(source, host, mode.max_memory_bytes, mode.max_stack_bytes);
    let cancelled = context.cancellation().clone().cancelled_owned();
    // The script is dropped when its call is cancelled: its runtime with it, and the tool
    // calls it awaited, each cancelling its own token.
    let (mut script, mut cancelled) = (pin!(script), pin!(cancelled));
    std::future::poll_fn(|cx| {
        if cancelled.as_mut().poll(cx).is_ready() {
            return Poll::Ready(Limit::Cancelled.result());
        }
        script.as_mut().poll(cx).map(Finished::result)
    })
    .await
}
