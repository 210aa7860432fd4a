//! Chat Completions in async-openai's types: `ChatCompletionTools`, the tool calls of a
//! `ChatCompletionResponseMessage`, and `ChatCompletionRequestMessage::Tool` results.

use std::borrow::Borrow;

use ::async_openai::types::chat::{
    ChatCompletionMessageToolCalls, ChatCompletionRequestAssistantMessage,
    ChatCompletionRequestAssistantMessageContent, ChatCompletionRequestMessage,
    ChatCompletionRequestToolMessage, ChatCompletionRequestToolMessageContent,
    ChatCompletionResponseMessage, ChatCompletionTool, ChatCompletionTools, FunctionObject,
};
use serde_json::Value;

use crate::provider::openai_chat::{self, OpenAiChatOptions};
use crate::{Session, ToolCall, ToolDefinition, ToolResult};

/// `tools` as async-openai's Chat Completions tools (the request's `tools`), rendered as
/// [`openai_chat::render_tools`] renders them: the same parameters and strict mode.
///
/// ```
/// use lazytool_runtime::provider::{async_openai, openai_chat::OpenAiChatOptions};
/// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry};
/// use ::async_openai::types::chat::ChatCompletionTools;
/// use serde_json::json;
///
/// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
/// let session = registry.session();
/// let tools = async_openai::chat::tools(&session.active_tools(), &OpenAiChatOptions::default());
/// let ChatCompletionTools::Function(tool) = &tools[0] else { unreachable!() };
/// assert_eq!(tool.function.name, DISCOVERY_TOOL_NAME);
/// ```
pub fn tools<D: Borrow<ToolDefinition>>(
    tools: &[D],
    options: &OpenAiChatOptions,
) -> Vec<ChatCompletionTools> {
    let rendered = openai_chat::render_tools(tools, options);
    let rendered = rendered.as_array().map(Vec::as_slice).unwrap_or_default();
    rendered
        .iter()
        .map(|tool| {
            let function = &tool["function"];
            ChatCompletionTools::Function(ChatCompletionTool {
                function: FunctionObject {
                    name: function["name"].as_str().unwrap_or_default().to_owned(),
                    description: function["description"].as_str().map(str::to_owned),
                    parameters: function.get("parameters").cloned(),
                    strict: function["strict"].as_bool(),
                },
            })
        })
        .collect()
}

/// The tool calls of a response message, in order, for [`Session::call_turn`] or
/// [`run_turn`]. Arguments stay the JSON-encoded string the model sent (lazytool parses and
/// validates them when the call runs); a custom tool's call comes with its free-form input as
/// that string, so that it is answered with an error result rather than dropped.
///
/// ```
/// use ::async_openai::types::chat::ChatCompletionResponseMessage;
/// use serde_json::json;
///
/// let message: ChatCompletionResponseMessage = serde_json::from_value(json!({
///     "role": "assistant", "content": null,
///     "tool_calls": [{"id": "call_1", "type": "function",
///                     "function": {"name": "get_forecast", "arguments": "{\"city\":\"Oslo\"}"}}]
/// })).unwrap();
/// let calls = lazytool_runtime::provider::async_openai::chat::tool_calls(&message);
/// assert_eq!(calls[0].name, "get_forecast");
/// assert_eq!(calls[0].arguments, json!("{\"city\":\"Oslo\"}"));
/// ```
pub fn tool_calls(message: &ChatCompletionResponseMessage) -> Vec<ToolCall> {
    message
        .tool_calls
        .iter()
        .flatten()
        .map(|call| match call {
            ChatCompletionMessageToolCalls::Function(call) => ToolCall {
                id: call.id.clone(),
                name: call.function.name.clone(),
                arguments: Value::String(call.function.arguments.clone()),
            },
            ChatCompletionMessageToolCalls::Custom(call) => ToolCall {
                id: call.id.clone(),
                name: call.custom_tool.name.clone(),
                arguments: Value::String(call.custom_tool.input.clone()),
            },
        })
        .collect()
}

/// The model's reply as the assistant message of the next request's history: its text and
/// its tool calls as they came, which the [`tool_message`]s that follow answer by id.
///
/// ```
/// use ::async_openai::types::chat::ChatCompletionResponseMessage;
/// use serde_json::json;
///
/// let reply = json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1",
///     "type": "function", "function": {"name": "get_time", "arguments": "{}"}}]});
/// let message: ChatCompletionResponseMessage = serde_json::from_value(reply.clone()).unwrap();
/// let echoed = lazytool_runtime::provider::async_openai::chat::assistant_message(&message);
/// assert_eq!(serde_json::to_value(&echoed).unwrap(),
///     json!({"role": "assistant", "tool_calls": reply["tool_calls"]}));
/// ```
pub fn assistant_message(message: &ChatCompletionResponseMessage) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::Assistant(ChatCompletionRequestAssistantMessage {
        content: message
            .content
            .clone()
            .map(ChatCompletionRequestAssistantMessageContent::Text),
        refusal: message.refusal.clone(),
        tool_calls: message.tool_calls.clone(),
        ..Default::default()
    })
}

/// The message that returns `result` for `call`: a `tool` message with the call's id and the
/// result's text, as [`openai_chat::tool_result_message`] writes it.
///
/// ```
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!("{}") };
/// let message = lazytool_runtime::provider::async_openai::chat::tool_message(&call, &ToolResult::success(json!(5)));
/// assert_eq!(serde_json::to_value(&message).unwrap(),
///     json!({"role": "tool", "tool_call_id": "call_1", "content": "5"}));
/// ```
pub fn tool_message(call: &ToolCall, result: &ToolResult) -> ChatCompletionRequestMessage {
    ChatCompletionRequestMessage::Tool(ChatCompletionRequestToolMessage {
        content: ChatCompletionRequestToolMessageContent::Text(result.text()),
        tool_call_id: call.id.clone(),
    })
}

/// Runs the tool calls of `message` through `session` ([`openai_chat::run_turn`]: at most
/// `concurrency` at a time, gated by the state at the start of the turn) and returns the
/// messages to append to the history after it: one [`tool_message`] per call, in call order,
/// then a user message carrying the results' images and audio when there are any
/// ([`openai_chat::attachments_message`]).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use ::async_openai::types::chat::ChatCompletionResponseMessage;
/// use lazytool_runtime::provider::async_openai;
/// use lazytool_runtime::Registry;
/// use serde_json::json;
///
/// let session = Registry::builder().without_inventory().build().unwrap().session();
/// let message: ChatCompletionResponseMessage = serde_json::from_value(json!({
///     "role": "assistant",
///     "tool_calls": [{"id": "call_1", "type": "function",
///                     "function": {"name": "nope", "arguments": "{not json"}}]
/// })).unwrap();
/// let messages = async_openai::chat::run_turn(&session, &message, 4).await;
/// let answer = serde_json::to_value(&messages[0]).unwrap();
/// assert_eq!(answer["tool_call_id"], "call_1");
/// assert!(answer["content"].as_str().unwrap().starts_with("Error: unknown tool 'nope'"));
/// # }
/// ```
pub fn run_turn(
    session: &Session,
    message: &ChatCompletionResponseMessage,
    concurrency: usize,
) -> impl Future<Output = Vec<ChatCompletionRequestMessage>> + Send + 'static {
    let turn = openai_chat::run_turn(session, tool_calls(message), concurrency);
    async move {
        let turn = turn.await;
        let mut messages: Vec<ChatCompletionRequestMessage> = turn
            .calls
            .iter()
            .zip(&turn.results)
            .map(|(call, result)| tool_message(call, result))
            .collect();
        let attachments = openai_chat::attachments_message(turn.calls.iter().zip(&turn.results));
        // lazytool writes this message in Chat Completions' own shape: it always reads.
        messages.extend(attachments.and_then(|message| serde_json::from_value(message).ok()));
        messages
    }
}
