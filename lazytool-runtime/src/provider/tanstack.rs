//! TanStack AI's message format (`ModelMessage`): the Chat Completions shape in camelCase,
//! `toolCalls` on assistant messages and `toolCallId` on `role: "tool"` results. TanStack's
//! adapters render the tools and parse the responses; lazytool reads its histories and
//! writes results it reads back.

use serde_json::{Map, Value};

use super::history::HistoryScan;
use super::openai_chat::{read_chat_message, role_tool_message};
use crate::call::{ToolCall, ToolResult};

/// The message that returns one result in TanStack's shape:
/// `{"role": "tool", "toolCallId", "content"}`, the content being [`ToolResult::text`].
///
/// ```
/// use lazytool_runtime::provider::tanstack;
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "tc_1".into(), name: "add".into(), arguments: json!({}) };
/// let message = tanstack::tool_result_message(&call, &ToolResult::success(json!(5)));
/// assert_eq!(message, json!({"role": "tool", "toolCallId": "tc_1", "content": "5"}));
/// ```
pub fn tool_result_message(call: &ToolCall, result: &ToolResult) -> Value {
    role_tool_message(call, result, "toolCallId")
}

/// The messages that return the results of one assistant turn, in call order: one
/// [`tool_result_message`] per call.
pub fn tool_results<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Vec<Value> {
    super::one_per_result(turn, tool_result_message)
}

/// Reads TanStack's items of one history message: `toolCalls` (with or without the
/// `function` wrapper), and a `role: "tool"` message's result under its `toolCallId`.
pub(super) fn read_history<'m>(message: &'m Map<String, Value>, scan: &mut HistoryScan<'m>) {
    read_chat_message(message, scan, "toolCalls", "toolCallId");
}
