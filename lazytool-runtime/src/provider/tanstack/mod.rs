//! TanStack AI's message formats: `ModelMessage` (the Chat Completions shape in camelCase,
//! `toolCalls` on assistant messages and `toolCallId` on `role: "tool"` results) and
//! `UIMessage` (`parts`, with `tool-call` parts carrying their `output` and `tool-result`
//! parts), both of which TanStack's `chat()` accepts. TanStack's adapters render the tools and
//! parse the responses; lazytool reads these histories and writes messages TanStack reads
//! back ([`assistant_message`], [`tool_result_message`], [`run_turn`]).
//!
//! What matches `@tanstack/ai` 0.58 and what differs on purpose is listed in the guide
//! ([`crate::guide::discovery`]); `tests/fixtures/tanstack/` holds what the real package did.
//!
//! # A complete loop
//!
//! TanStack's `chat()` posts the whole `messages` history on every request, so the server
//! rebuilds the session from it ([`Session::from_history`](crate::Session::from_history)),
//! hands TanStack [`render_tools`] of the session's
//! [`active_definitions`](crate::Session::active_definitions) (TanStack's `{name,
//! description, inputSchema}`), runs the assistant's `toolCalls` with [`run_turn`], and writes the
//! messages TanStack reads back. The assistant messages are scripted here.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use lazytool_runtime::provider::tanstack;
//! use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry, Session, ToolCall};
//! use serde_json::{Value, json};
//!
//! let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
//!     |_, _| async { Ok::<_, String>(json!("12:00")) });
//! let city = json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]});
//! let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather in a city.", city,
//!     |arguments, _| async move {
//!         Ok::<_, String>(json!(format!("Sunny in {}", arguments["city"].as_str().unwrap_or("?"))))
//!     })
//!     .lazy(true);
//! let registry = Registry::builder().without_inventory().tools([time, forecast]).build()?;
//!
//! // An assistant ModelMessage with one tool call, as TanStack's adapters produce it.
//! let call = |id: &str, name: &str, arguments: Value| json!({
//!     "role": "assistant", "content": null,
//!     "toolCalls": [{"id": id, "type": "function",
//!         "function": {"name": name, "arguments": arguments.to_string()}}]
//! });
//! let replies = [
//!     call("tc_1", DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})),
//!     call("tc_2", "get_forecast", json!({"city": "Paris"})),
//!     json!({"role": "assistant", "content": "Sunny in Paris tomorrow."}),
//! ];
//!
//! let mut messages = vec![json!({"role": "user", "content": "Weather in Paris tomorrow?"})];
//! let mut tools_sent = Vec::new();
//! for reply in replies {
//!     // One request of a stateless server: the session comes from the history.
//!     let session = Session::from_history(&registry, &messages);
//!     let tools = tanstack::render_tools(&session.active_definitions());
//!     tools_sent.push(tools.as_array().map_or(Vec::new(), |tools| {
//!         tools.iter().map(|tool| tool["name"].clone()).collect()
//!     }));
//!     let calls: Vec<ToolCall> = (reply["toolCalls"].as_array().into_iter().flatten())
//!         .map(|call| ToolCall {
//!             id: call["id"].as_str().unwrap_or_default().to_owned(),
//!             name: call["function"]["name"].as_str().unwrap_or_default().to_owned(),
//!             arguments: call["function"]["arguments"].clone(),
//!         })
//!         .collect();
//!     let turn = tanstack::run_turn(&session, calls, 4).await;
//!     messages.push(reply);
//!     if turn.is_empty() {
//!         break; // the model answered
//!     }
//!     messages.extend(turn.messages);
//! }
//!
//! assert_eq!(tools_sent[0], [json!("get_time"), json!(DISCOVERY_TOOL_NAME)]);
//! // Discovered during the first turn, `get_forecast` is sent from the next request on.
//! assert_eq!(tools_sent[1], [json!("get_time"), json!("get_forecast")]);
//! assert_eq!(messages[4], json!({"role": "tool", "content": "Sunny in Paris", "toolCallId": "tc_2"}));
//! # Ok(())
//! # }
//! ```

mod ui_message;

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

use super::history::{HistoryScan, member, str_field};
use super::openai_chat::read_chat_message;
use super::render::examples_in_description;
use super::turn;
use crate::call::{ToolCall, ToolResult};
use crate::tool::ToolDefinition;

/// The tools as TanStack AI's `chat()` takes them: `[{"name", "description", "inputSchema"}]`
/// (a [`ToolDefinition`]'s own JSON), each tool's examples appended to its description, as
/// TanStack's adapters send only that to the model.
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::tanstack;
/// use serde_json::json;
///
/// let tool = ToolDefinition {
///     name: "get_forecast".into(),
///     description: "Tomorrow's weather in a city.".into(),
///     input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}},
///         "examples": [{"city": "Paris"}]}),
/// };
/// assert_eq!(tanstack::render_tools(&[tool]), json!([{
///     "name": "get_forecast",
///     "description": "Tomorrow's weather in a city.\n\nExamples:\n{\"city\":\"Paris\"}",
///     "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
/// }]));
/// ```
pub fn render_tools<D: Borrow<ToolDefinition>>(tools: &[D]) -> Value {
    let rendered = tools
        .iter()
        .map(|tool| {
            let tool = examples_in_description(tool.borrow());
            json!({
                "name": tool.name,
                "description": tool.description,
                "inputSchema": tool.input_schema,
            })
        })
        .collect();
    Value::Array(rendered)
}

/// The assistant message that carries a turn's calls, in TanStack's `ModelMessage` shape:
/// `{"role": "assistant", "content", "toolCalls": [{"id", "type": "function", "function":
/// {"name", "arguments"}}]}`, the arguments as a JSON-encoded string, `content` `null` when
/// there is no text, no `toolCalls` when there are no calls.
///
/// ```
/// use lazytool_runtime::ToolCall;
/// use lazytool_runtime::provider::tanstack;
/// use serde_json::json;
///
/// let call = ToolCall { id: "tc_1".into(), name: "add".into(), arguments: json!({"a": 1}) };
/// assert_eq!(
///     tanstack::assistant_message("", &[call]),
///     json!({"role": "assistant", "content": null, "toolCalls": [
///         {"id": "tc_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\":1}"}}
///     ]})
/// );
/// ```
pub fn assistant_message(content: &str, calls: &[ToolCall]) -> Value {
    let mut message = match super::openai_chat::assistant_message(content, calls) {
        Value::Object(message) => message,
        _ => Map::new(),
    };
    if let Some(calls) = message.shift_remove("tool_calls") {
        message.insert("toolCalls".to_owned(), calls);
    }
    Value::Object(message)
}

/// The message that returns one result, as TanStack's `chat()` writes it:
/// `{"role": "tool", "content", "toolCallId"}`, the content being [`ToolResult::text`] for a
/// success (a string as is, other values as compact JSON) and `{"error": message}` as JSON
/// for a failure. A result with [`parts`](ToolResult::parts) is sent as its text, images
/// and audio as placeholders ([`ContentPart::as_text`](crate::ContentPart::as_text)): the
/// tool messages `chat()` writes carry a string, and its adapters turn them into each
/// provider's text tool result.
///
/// ```
/// use lazytool_runtime::provider::tanstack;
/// use lazytool_runtime::{ToolCall, ToolErrorKind, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "tc_1".into(), name: "add".into(), arguments: json!({}) };
/// let message = tanstack::tool_result_message(&call, &ToolResult::success(json!(5)));
/// assert_eq!(message, json!({"role": "tool", "content": "5", "toolCallId": "tc_1"}));
/// let failed = ToolResult::error(ToolErrorKind::ToolFailed, "no such product");
/// let message = tanstack::tool_result_message(&call, &failed);
/// assert_eq!(message["content"], "{\"error\":\"no such product\"}");
/// ```
pub fn tool_result_message(call: &ToolCall, result: &ToolResult) -> Value {
    let content = if result.is_error() {
        json!({"error": result.text()}).to_string()
    } else {
        result.text()
    };
    json!({
        "role": "tool",
        "content": content,
        "toolCallId": call.id,
    })
}

/// The messages that return the results of one assistant turn, in call order: one
/// [`tool_result_message`] per call.
///
/// ```
/// use lazytool_runtime::provider::tanstack;
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!({"a": 2, "b": 3}) };
/// let result = ToolResult::success(json!(5));
/// let messages = tanstack::tool_results([(&call, &result)]);
/// assert_eq!(messages.len(), 1);
/// assert_eq!(messages[0]["toolCallId"], "call_1");
/// ```
pub fn tool_results<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Vec<Value> {
    turn::each(turn, tool_result_message)
}

super::turn::turn_functions! {
    /// TanStack's adapters read the calls; here they come from another format's parser or
    /// assembler.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::provider::tanstack;
    /// use lazytool_runtime::{DynamicTool, Registry, ToolCall};
    /// use serde_json::json;
    ///
    /// let now = DynamicTool::new("now", "The current time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tool(now).build().unwrap();
    /// let call = ToolCall { id: "tc_1".into(), name: "now".into(), arguments: json!({}) };
    /// let turn = tanstack::run_turn(&registry.session(), vec![call], 4).await;
    /// assert_eq!(turn.messages, [json!({"role": "tool", "content": "12:00", "toolCallId": "tc_1"})]);
    /// # }
    /// ```
    results: tool_results
}

/// Reads TanStack's items of one history message: `ModelMessage` `toolCalls` (with or
/// without the `function` wrapper) and a `role: "tool"` message's result under its
/// `toolCallId`; an assistant `UIMessage`'s `tool-call` and `tool-result` parts.
pub(super) fn read_history<'m>(message: &'m Map<String, Value>, scan: &mut HistoryScan<'m>) {
    read_chat_message(message, scan, "toolCalls", "toolCallId");
    if str_field(message, "role") == Some("assistant")
        && let Some(Value::Array(parts)) = member(message, "parts")
    {
        ui_message::read_parts(parts, scan);
    }
}
