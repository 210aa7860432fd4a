//! A [`ToolResult`] as an MCP `tools/call` result.

use std::sync::Arc;

use lazytool_runtime::{CancellationToken, Registry, Tool, ToolErrorKind, ToolResult};
use rmcp::model::{CallToolResult, ContentBlock, ErrorData, NumberOrString, RequestId};
use serde_json::Value;

use crate::server::McpServer;
use crate::structured;
use lazytool_mcp_core::content::block;

/// The answer to a `tools/call` of `name`, a tool of `registry`, that ended in `result`. A
/// tool that is not served is an error result saying why it is withheld, if `server` knows,
/// else an invalid-params error (what MCP answers an unknown tool); any other result is
/// [`call_result`] with the tool's output schema.
pub(crate) fn tool_answer(
    server: &McpServer,
    registry: &Registry,
    name: &str,
    result: ToolResult,
) -> Result<CallToolResult, ErrorData> {
    if result.error_kind() == Some(ToolErrorKind::UnknownTool) {
        if let Some(why) = server.withheld(name) {
            return Ok(CallToolResult::error(vec![ContentBlock::text(why)]));
        }
        return Err(ErrorData::invalid_params(result.text(), None));
    }
    let output_schema = registry.get(name).and_then(Tool::output_schema);
    Ok(call_result(result, output_schema))
}

/// `call`'s result, or, if `cancelled` is cancelled first, the error a cancelled request is
/// answered with (rmcp drops the answer to a request its client cancelled: this only stops
/// the call).
pub(crate) async fn unless_cancelled(
    call: impl Future<Output = ToolResult>,
    cancelled: &CancellationToken,
) -> Result<ToolResult, ErrorData> {
    tokio::select! {
        result = call => Ok(result),
        () = cancelled.cancelled() => {
            Err(ErrorData::internal_error("the request was cancelled", None))
        }
    }
}

/// The request's id as its call's id (taken on every call): an integer written straight
/// into the call id's one allocation, a text id shared, not copied.
pub(crate) fn call_id(id: &RequestId) -> Arc<str> {
    match id {
        NumberOrString::Number(number) => Arc::from(itoa::Buffer::new().format(*number)),
        NumberOrString::String(text) => Arc::clone(text),
    }
}

/// Failures are `isError` results with the message as text. A structured success without
/// parts (a code mode script's object) is its JSON as text and as `structuredContent`. A success with
/// [`parts`](ToolResult::parts) (a tool that returned `Content` or `McpContent`) is those
/// parts as content blocks, with its structured value as `structuredContent`; a success of
/// a tool with an output schema carries `structuredContent` and the same JSON as text; any
/// other success is text only (a string as is, other values as compact JSON).
pub(crate) fn call_result(result: ToolResult, output_schema: Option<&Value>) -> CallToolResult {
    if result.is_error() {
        return CallToolResult::error(vec![ContentBlock::text(result.text())]);
    }
    if result.parts().is_empty()
        && let Some(value) = result.structured()
    {
        let mut call = CallToolResult::success(vec![ContentBlock::text(result.text())]);
        call.structured_content = Some(value.clone());
        return call;
    }
    if !result.parts().is_empty() {
        let mut call = CallToolResult::success(result.parts().iter().map(block).collect());
        call.structured_content = result.structured().map(|value| match output_schema {
            Some(schema) => structured::object_value(schema, value.clone()),
            None => value.clone(),
        });
        return call;
    }
    match output_schema {
        Some(schema) => {
            CallToolResult::structured(structured::object_value(schema, result.into_content()))
        }
        None => CallToolResult::success(vec![ContentBlock::text(result.text())]),
    }
}
