//! A [`ToolResult`] as an MCP `tools/call` result.

use lazytool_runtime::ToolResult;
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::content::McpContent;
use crate::structured;

/// Failures are `isError` results with the message as text. A success that is [`McpContent`]
/// is its blocks; a success of a tool with an output schema carries `structuredContent` and
/// the same JSON as text; any other success is text only (a string as is, other values as
/// compact JSON).
pub(crate) fn call_result(result: ToolResult, output_schema: Option<&Value>) -> CallToolResult {
    if result.is_error() {
        return CallToolResult::error(vec![ContentBlock::text(result.text())]);
    }
    if let Some(content) = McpContent::read(result.content()) {
        return content.into();
    }
    match output_schema {
        Some(schema) => {
            CallToolResult::structured(structured::object_value(schema, result.into_content()))
        }
        None => CallToolResult::success(vec![ContentBlock::text(result.text())]),
    }
}
