//! The OpenTelemetry GenAI span of one tool execution, [`CallSpan`], and the
//! `tool call finished` event that ends every call, [`trace_outcome`].
//!
//! Named and shaped as the semantic conventions' execute tool span (span name
//! `execute_tool {gen_ai.tool.name}`, kind `INTERNAL`): `tracing` spans have static names,
//! so the span is `execute_tool` and carries the full name in `otel.name`, which
//! `tracing-opentelemetry` exports as the span's name; `otel.kind` and `otel.status_code`
//! likewise become the span's kind and status. Only `tracing` is used: exporting is the
//! application's choice.

use tracing::Span;
use tracing::field::Empty;
use tracing::span::Entered;

use crate::call::{ToolErrorKind, ToolResult, quote};
use crate::tool::{MAX_TOOL_NAME_LEN, Tool};

/// The `tracing` target of the span (and of the `tool call finished` event inside it).
const TARGET: &str = "lazytool::call";

/// The execute tool span of one call, or nothing when no subscriber is interested: then
/// making it is a level check, and entering it a null check (no `Span` is built, moved
/// with the call, entered or dropped).
pub(crate) struct CallSpan(Option<Box<Span>>);

impl CallSpan {
    /// The span of a call of `name` (see [`execute_tool_span`]).
    #[inline]
    pub(crate) fn new(name: &str, call_id: Option<&str>) -> Self {
        if tracing::level_enabled!(tracing::Level::INFO) {
            Self::enabled(name, call_id)
        } else {
            CallSpan(None)
        }
    }

    #[cold]
    #[inline(never)]
    fn enabled(name: &str, call_id: Option<&str>) -> Self {
        let span = execute_tool_span(name, call_id);
        CallSpan((!span.is_disabled()).then(|| Box::new(span)))
    }

    /// Enters the span until the guard is dropped.
    #[inline]
    pub(crate) fn enter(&self) -> Option<Entered<'_>> {
        self.0.as_deref().map(Span::enter)
    }

    /// Closes the span, with a failed call's `error.type` and error status recorded. (Taking
    /// the span by value spares the call's path the out-of-line drop of an empty one.)
    #[inline]
    pub(crate) fn close(self, result: &ToolResult) {
        if let Some(span) = self.0 {
            close_span(*span, result);
        }
    }
}

#[cold]
#[inline(never)]
fn close_span(span: Span, result: &ToolResult) {
    if let Some(kind) = result.error_kind() {
        span.record("error.type", kind.as_str());
        span.record("otel.status_code", "ERROR");
    }
}

/// The `lazytool::call` event that ends every call, admitted or not. (Inlined: when nothing
/// listens, it is a level check.)
#[inline(always)]
pub(super) fn trace_outcome(tool: &Tool, result: &ToolResult, started: Option<std::time::Instant>) {
    // Every field is computed only when something listens.
    tracing::debug!(
        target: TARGET,
        tool = %tool.name(),
        outcome = result.error_kind().map_or("ok", ToolErrorKind::as_str),
        duration_us = started.map(|start| start.elapsed().as_micros() as u64),
        "tool call finished"
    );
}

/// The span of one tool execution, at `INFO` on target `lazytool::call`, with the fields
/// `otel.name = "execute_tool {name}"`, `otel.kind = "internal"`,
/// `gen_ai.operation.name = "execute_tool"`, `gen_ai.tool.name`, `gen_ai.tool.call.id` (when
/// the call has one), `gen_ai.tool.type = "function"` (the convention's value for a tool the
/// client runs), and, on failure, `error.type` ([`ToolErrorKind::as_str`]) with
/// `otel.status_code = "ERROR"` ([`CallSpan::record`]).
///
/// [`ToolErrorKind::as_str`]: crate::ToolErrorKind::as_str
fn execute_tool_span(name: &str, call_id: Option<&str>) -> Span {
    let name = quote(name, MAX_TOOL_NAME_LEN);
    tracing::info_span!(
        target: TARGET,
        "execute_tool",
        otel.name = format!("execute_tool {name}").as_str(),
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = &*name,
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.type = "function",
        error.type = Empty,
        otel.status_code = Empty,
    )
}

/// An answer given without running a tool (the discovery tool, a refusal), computed inside
/// its own execute tool span.
pub(crate) fn answered(
    name: &str,
    call_id: Option<&str>,
    answer: impl FnOnce() -> ToolResult,
) -> ToolResult {
    let span = CallSpan::new(name, call_id);
    let entered = span.enter();
    let result = answer();
    drop(entered);
    span.close(&result);
    result
}
