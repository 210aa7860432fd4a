//! The OpenTelemetry GenAI span of one tool execution: [`execute_tool_span`].
//!
//! Named and shaped as the semantic conventions' execute tool span (span name
//! `execute_tool {gen_ai.tool.name}`, kind `INTERNAL`): `tracing` spans have static names,
//! so the span is `execute_tool` and carries the full name in `otel.name`, which
//! `tracing-opentelemetry` exports as the span's name; `otel.kind` and `otel.status_code`
//! likewise become the span's kind and status. Only `tracing` is used: exporting is the
//! application's choice.

use tracing::Span;
use tracing::field::Empty;

use crate::call::{ToolResult, quote};
use crate::tool::MAX_TOOL_NAME_LEN;

/// The `tracing` target of the span (and of the `tool call finished` event inside it).
pub(crate) const TARGET: &str = "lazytool::call";

/// The span of one tool execution, at `INFO` on target `lazytool::call`, with the fields
/// `otel.name = "execute_tool {name}"`, `otel.kind = "internal"`,
/// `gen_ai.operation.name = "execute_tool"`, `gen_ai.tool.name`, `gen_ai.tool.call.id` (when
/// the call has one), `gen_ai.tool.type = "function"` (the convention's value for a tool the
/// client runs), and, on failure, `error.type` ([`ToolErrorKind::as_str`]) with
/// `otel.status_code = "ERROR"` ([`record_outcome`]).
///
/// When no subscriber is interested the macro returns a disabled span without evaluating any
/// field (the name is not even formatted): a cached interest check on the call's path.
///
/// [`ToolErrorKind::as_str`]: crate::ToolErrorKind::as_str
#[inline]
pub(crate) fn execute_tool_span(name: &str, call_id: Option<&str>) -> Span {
    tracing::info_span!(
        target: TARGET,
        "execute_tool",
        otel.name = format!("execute_tool {}", quote(name, MAX_TOOL_NAME_LEN)).as_str(),
        otel.kind = "internal",
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = &*quote(name, MAX_TOOL_NAME_LEN),
        gen_ai.tool.call.id = call_id,
        gen_ai.tool.type = "function",
        error.type = Empty,
        otel.status_code = Empty,
    )
}

/// Records a failed call's `error.type` and error status on its span.
#[inline]
pub(crate) fn record_outcome(span: &Span, result: &ToolResult) {
    if let Some(kind) = result.error_kind()
        && !span.is_disabled()
    {
        span.record("error.type", kind.as_str());
        span.record("otel.status_code", "ERROR");
    }
}

/// An answer given without running a tool (the discovery tool, a refusal), computed inside
/// its own execute tool span.
pub(crate) fn answered(
    name: &str,
    call_id: Option<&str>,
    answer: impl FnOnce() -> ToolResult,
) -> ToolResult {
    let span = execute_tool_span(name, call_id);
    let result = span.in_scope(answer);
    record_outcome(&span, &result);
    result
}
