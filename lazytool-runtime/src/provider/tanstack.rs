//! TanStack AI's message format (`ModelMessage`): the Chat Completions shape in camelCase,
//! `toolCalls` on assistant messages and `toolCallId` on `role: "tool"` results. TanStack's
//! adapters render the tools and parse the responses; lazytool reads its histories and
//! writes results it reads back.

use serde_json::{Map, Value, json};

use super::history::{HistoryScan, id_field, member, record_of_content, str_field};
use super::openai_chat::read_calls;
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
    json!({
        "role": "tool",
        "toolCallId": call.id,
        "content": result.text(),
    })
}

/// The messages that return the results of one assistant turn, in call order: one
/// [`tool_result_message`] per call.
pub fn tool_results<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Vec<Value> {
    turn.into_iter()
        .map(|(call, result)| tool_result_message(call, result))
        .collect()
}

/// Reads TanStack's items of one history message: `toolCalls` (with or without the
/// `function` wrapper), and a `role: "tool"` message's result under its `toolCallId`.
pub(super) fn read_history<'m>(message: &'m Map<String, Value>, scan: &mut HistoryScan<'m>) {
    read_calls(member(message, "toolCalls"), scan);
    if str_field(message, "role") == Some("tool")
        && let Some(call_id) = id_field(message, "toolCallId")
    {
        scan.result(call_id, || record_of_content(member(message, "content")));
    }
}
