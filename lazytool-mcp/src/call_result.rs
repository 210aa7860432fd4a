//! A [`ToolResult`] as an MCP `tools/call` result.

use lazytool_runtime::ToolResult;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::structured;
use lazytool_mcp_core::content::block;

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
