//! OpenAI Chat Completions (`POST /v1/chat/completions`): the request's `tools`, the
//! `tool_calls` of an assistant message (whole, or streamed: [`StreamAssembler`]), and
//! `role: "tool"` result messages ([`run_turn`] runs a turn's calls and builds them).
//!
//! # A complete loop
//!
//! Each request carries [`render_tools`] of the session's
//! [`active_definitions`](crate::Session::active_definitions); [`run_response`] runs the
//! calls of the reply; the reply's message and the turn's result messages go into the
//! history. The replies are scripted here in the shape of a `chat.completion`; a real loop
//! POSTs each request to `/v1/chat/completions` (see `examples/agent`).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
//! use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry, Session};
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
//! let session = registry.session(); // one per conversation
//!
//! // A chat.completion as the API returns it.
//! let completion = |message: Value, finish_reason: &str| json!({
//!     "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", "object": "chat.completion",
//!     "created": 1741570283, "model": "gpt-4.1-2025-04-14",
//!     "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish_reason}],
//!     "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
//! });
//! let call = |id: &str, name: &str, arguments: Value| json!({
//!     "role": "assistant", "content": null, "refusal": null,
//!     "tool_calls": [{"id": id, "type": "function",
//!         "function": {"name": name, "arguments": arguments.to_string()}}]
//! });
//! let replies = [
//!     completion(call("call_1", DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})), "tool_calls"),
//!     completion(call("call_2", "get_forecast", json!({"city": "Paris"})), "tool_calls"),
//!     completion(json!({"role": "assistant", "content": "Sunny in Paris tomorrow."}), "stop"),
//! ];
//!
//! let mut messages = vec![json!({"role": "user", "content": "Weather in Paris tomorrow?"})];
//! let mut tools_sent = Vec::new();
//! for response in replies {
//!     let tools = openai_chat::render_tools(&session.active_definitions(), &OpenAiChatOptions::default());
//!     let request = json!({"model": "gpt-4.1", "messages": messages, "tools": tools});
//!     tools_sent.push(request["tools"].as_array().map_or(Vec::new(), |tools| {
//!         tools.iter().map(|tool| tool["function"]["name"].clone()).collect()
//!     }));
//!     // let response = client.post(".../v1/chat/completions").json(&request).send().await?...;
//!     let turn = openai_chat::run_response(&session, &response, 4).await?;
//!     messages.push(response["choices"][0]["message"].clone());
//!     if turn.is_empty() {
//!         break; // the model answered
//!     }
//!     messages.extend(turn.messages);
//! }
//!
//! assert_eq!(tools_sent[0], [json!("get_time"), json!(DISCOVERY_TOOL_NAME)]);
//! // Discovered during the first turn, `get_forecast` is sent from the next request on.
//! assert_eq!(tools_sent[1], [json!("get_time"), json!("get_forecast")]);
//! assert_eq!(messages[4], json!({"role": "tool", "tool_call_id": "call_2", "content": "Sunny in Paris"}));
//! // A stateless server rebuilds the same session from the history.
//! assert_eq!(Session::from_history(&registry, &messages).discovered().tools, ["get_forecast"]);
//! # Ok(())
//! # }
//! ```

mod stream;

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

pub use stream::StreamAssembler;

use super::content;
use super::history::{HistoryScan, id_field, member, record_of_content, str_field};
use super::read::{ParseError, Provider, Reader, join};
use super::render::{examples_in_description, object_root};
use super::turn;
use crate::call::{ContentPart, ToolCall, ToolResult};
use crate::schema::dialect;
use crate::tool::ToolDefinition;

/// How tools are rendered for Chat Completions (and, as
/// [`OpenAiResponsesOptions`](super::openai_responses::OpenAiResponsesOptions), for the
/// Responses API).
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
/// use serde_json::json;
///
/// let tool = ToolDefinition {
///     name: "get_forecast".into(),
///     description: "Tomorrow's weather in a city.".into(),
///     input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// };
/// let strict = openai_chat::render_tools(&[tool], &OpenAiChatOptions { strict: true });
/// assert_eq!(strict[0]["function"]["strict"], true);
/// // Strict mode requires every property and closes the object.
/// assert_eq!(strict[0]["function"]["parameters"]["additionalProperties"], false);
/// ```
#[derive(Clone, Debug, Default)]
pub struct OpenAiChatOptions {
    /// Send every tool with `"strict": true` and its schema rewritten by
    /// [`dialect::openai_strict`]: the model's arguments then always match the schema, but
    /// optional properties arrive as `null` (see
    /// [`strip_strict_nulls`](crate::schema::strip_strict_nulls)). A tool whose schema strict
    /// mode cannot express (a map, a value of any type) is sent with `"strict": false`
    /// instead (see [`render_tools`]).
    pub strict: bool,
}

/// The array for the request's `tools` field:
/// `[{"type": "function", "function": {"name", "description", "parameters"}}]`, with
/// `"strict"` in `function` only when `options.strict`.
///
/// In strict mode each tool is sent with `"strict": true` and its schema rewritten by
/// [`dialect::openai_strict`], unless strict mode cannot express part of it (a map, a value
/// of any type: see [`dialect::openai_strict_rewrite`]): that tool alone is sent with
/// `"strict": false` and its canonical schema, which OpenAI allows per function, and a
/// `debug` event (target `lazytool::schema`) names it and what strict mode could not say.
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
/// use serde_json::json;
///
/// let tool = |name: &str, property| ToolDefinition {
///     name: name.into(),
///     description: "A tool.".into(),
///     input_schema: json!({"type": "object", "properties": {"p": property}}),
/// };
/// let tools = [
///     tool("plain", json!({"type": "string"})),
///     tool("mapped", json!({"type": "object", "additionalProperties": {"type": "integer"}})),
/// ];
/// let rendered = openai_chat::render_tools(&tools, &OpenAiChatOptions { strict: true });
/// assert_eq!(rendered[0]["function"]["strict"], true);
/// assert_eq!(rendered[1]["function"]["strict"], false);
/// assert_eq!(rendered[1]["function"]["parameters"], tools[1].input_schema);
/// ```
pub fn render_tools<D: Borrow<ToolDefinition>>(tools: &[D], options: &OpenAiChatOptions) -> Value {
    let rendered = tools
        .iter()
        .map(Borrow::borrow)
        .map(|tool: &ToolDefinition| {
            let tool = examples_in_description(tool);
            let (parameters, strict) = parameters(&tool.name, &tool.input_schema, options);
            let mut function = Map::new();
            function.insert("name".to_owned(), json!(tool.name));
            function.insert("description".to_owned(), json!(tool.description));
            function.insert("parameters".to_owned(), parameters);
            if options.strict {
                function.insert("strict".to_owned(), Value::Bool(strict));
            }
            json!({"type": "function", "function": Value::Object(function)})
        })
        .collect();
    Value::Array(rendered)
}

/// A tool's `parameters` schema and whether it is sent strict: rewritten by
/// [`dialect::openai_strict`] in strict mode when strict mode expresses all of it, the
/// canonical schema otherwise. (The Responses API takes the same.)
pub(crate) fn parameters(name: &str, schema: &Value, options: &OpenAiChatOptions) -> (Value, bool) {
    if !options.strict {
        return (object_root(schema), false);
    }
    let rewrite = dialect::openai_strict_rewrite(schema);
    if rewrite.losses.is_empty() {
        return (rewrite.schema, true);
    }
    tracing::debug!(
        target: "lazytool::schema",
        tool = name,
        dialect = "openai_strict",
        losses = %super::render::losses_text(&rewrite.losses),
        "sent without strict mode, which cannot express all of its schema"
    );
    (object_root(schema), false)
}

/// The tool calls of a response: a whole `chat.completion` (read from
/// `choices[0].message.tool_calls`) or a single assistant message
/// (`{"role": "assistant", "tool_calls": [...]}`). No `tool_calls`, or `null`, is no calls.
///
/// Each call is `{"id", "type": "function", "function": {"name", "arguments"}}`; its
/// `arguments` (a JSON-encoded string) is kept as that string (an object, as some compatible
/// servers send, is kept as the object).
///
/// ```
/// use lazytool_runtime::provider::openai_chat;
/// use serde_json::json;
///
/// let response = json!({
///     "id": "chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG", "object": "chat.completion",
///     "created": 1741570283, "model": "gpt-4.1-2025-04-14",
///     "choices": [{
///         "index": 0,
///         "message": {"role": "assistant", "content": null, "refusal": null, "tool_calls": [
///             {"id": "call_12345xyz", "type": "function",
///              "function": {"name": "get_forecast", "arguments": "{\"city\":\"Paris\"}"}}
///         ]},
///         "logprobs": null, "finish_reason": "tool_calls"
///     }],
///     "usage": {"prompt_tokens": 82, "completion_tokens": 17, "total_tokens": 99}
/// });
/// let calls = openai_chat::parse_tool_calls(&response).unwrap();
/// assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("call_12345xyz", "get_forecast"));
/// assert_eq!(calls[0].arguments, json!("{\"city\":\"Paris\"}")); // validated when the call runs
/// ```
pub fn parse_tool_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let reader = Reader {
        provider: Provider::OpenAiChat,
    };
    let root = reader.object(response, "", "a chat.completion or an assistant message")?;
    let (message, path) = if let Some(choices) = root.get("choices") {
        let first = choices
            .as_array()
            .and_then(|choices| choices.first())
            .ok_or_else(|| reader.error("/choices", "a non-empty array of choices"))?;
        let choice = reader.object(first, "/choices/0", "a choice")?;
        let message = choice
            .get("message")
            .ok_or_else(|| reader.error("/choices/0/message", "the choice's message"))?;
        let message = reader.object(message, "/choices/0/message", "a message")?;
        (message, "/choices/0/message".to_owned())
    } else if root.contains_key("tool_calls") || root.contains_key("role") {
        (root, String::new())
    } else {
        return Err(reader.error(
            "",
            "a chat.completion (with `choices`) or an assistant message (with `role`)",
        ));
    };
    let Some(calls) = reader.optional_array(message, &path, "tool_calls")? else {
        return Ok(Vec::new());
    };
    let calls_path = join(&path, "tool_calls");
    calls
        .iter()
        .enumerate()
        .map(|(index, call)| parse_call(&reader, call, &join(&calls_path, index)))
        .collect()
}

fn parse_call(reader: &Reader, call: &Value, path: &str) -> Result<ToolCall, ParseError> {
    let call = reader.object(call, path, "a tool call")?;
    match call.get("type") {
        None => {}
        Some(Value::String(kind)) if kind == "function" => {}
        Some(_) => {
            return Err(reader.error(&join(path, "type"), "\"function\""));
        }
    }
    let id = reader.non_empty_string(call, path, "id")?;
    let function_path = join(path, "function");
    let function = call
        .get("function")
        .ok_or_else(|| reader.error(&function_path, "the called function"))?;
    let function = reader.object(function, &function_path, "the called function")?;
    let name = reader.non_empty_string(function, &function_path, "name")?;
    let arguments = match function.get("arguments") {
        Some(arguments @ (Value::String(_) | Value::Object(_))) => arguments.clone(),
        _ => {
            return Err(reader.error(
                &join(&function_path, "arguments"),
                "the arguments as a JSON-encoded string",
            ));
        }
    };
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

/// The assistant message that carries a turn's calls back into the history, as a streaming
/// loop must write it itself: `{"role": "assistant", "content", "tool_calls": [{"id",
/// "type": "function", "function": {"name", "arguments"}}]}`, the arguments as the
/// JSON-encoded string Chat Completions wants (an object is encoded), `content` `null` when
/// there is no text, no `tool_calls` when there are no calls.
///
/// ```
/// use lazytool_runtime::ToolCall;
/// use lazytool_runtime::provider::openai_chat;
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "now".into(), arguments: json!("{}") };
/// assert_eq!(
///     openai_chat::assistant_message("", &[call]),
///     json!({"role": "assistant", "content": null, "tool_calls": [
///         {"id": "call_1", "type": "function", "function": {"name": "now", "arguments": "{}"}}
///     ]})
/// );
/// ```
pub fn assistant_message(content: &str, calls: &[ToolCall]) -> Value {
    let mut message = Map::new();
    message.insert("role".to_owned(), json!("assistant"));
    let content = if content.is_empty() {
        Value::Null
    } else {
        json!(content)
    };
    message.insert("content".to_owned(), content);
    if !calls.is_empty() {
        let calls: Vec<Value> = (calls.iter())
            .map(|call| {
                let arguments = match &call.arguments {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                json!({"id": call.id, "type": "function",
                    "function": {"name": call.name, "arguments": arguments}})
            })
            .collect();
        message.insert("tool_calls".to_owned(), Value::Array(calls));
    }
    Value::Object(message)
}

/// The message that returns one result: `{"role": "tool", "tool_call_id", "content"}`, the
/// content being [`ToolResult::text`]. (Chat Completions has no error flag: an error is sent
/// as its message.)
///
/// Chat Completions takes only text in a tool message. A result with
/// [`parts`](ToolResult::parts) is sent as its text, each image or audio part as a
/// placeholder such as `[image: image/png, 1024 bytes of base64]`
/// ([`ContentPart::as_text`](crate::ContentPart::as_text)); [`tool_results`] then adds
/// [`attachments_message`], a user message carrying those images and audio clips, so
/// that the model sees them.
///
/// ```
/// use lazytool_runtime::provider::openai_chat;
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!("{}") };
/// let message = openai_chat::tool_result_message(&call, &ToolResult::success(json!(5)));
/// assert_eq!(message, json!({"role": "tool", "tool_call_id": "call_1", "content": "5"}));
/// ```
pub fn tool_result_message(call: &ToolCall, result: &ToolResult) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": call.id,
        "content": result.text(),
    })
}

/// The messages that return the results of one assistant turn, in call order: one
/// [`tool_result_message`] per call, then, when results carry images or audio that a tool
/// message cannot, their [`attachments_message`]; to append to the history.
///
/// ```
/// use lazytool_runtime::provider::openai_chat;
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!({"a": 2, "b": 3}) };
/// let result = ToolResult::success(json!(5));
/// let messages = openai_chat::tool_results([(&call, &result)]);
/// assert_eq!(messages.len(), 1);
/// assert_eq!(messages[0]["role"], "tool");
/// assert_eq!(messages[0]["tool_call_id"], "call_1");
/// ```
pub fn tool_results<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Vec<Value> {
    let turn: Vec<(&ToolCall, &ToolResult)> = turn.into_iter().collect();
    let mut messages = turn::each(turn.iter().copied(), tool_result_message);
    messages.extend(attachments_message(turn));
    messages
}

/// The user message that shows the model the images and audio of a turn's results, which
/// Chat Completions does not take in tool messages; `None` when there are none. It follows
/// the turn's tool messages (a user message may follow them): a text part naming the call
/// each attachment comes from, then PNG, JPEG, WebP and GIF images as `image_url` parts with
/// a `data:` URL, and WAV and MP3 audio as `input_audio` parts (for audio-capable models).
/// Other parts stay placeholders in the tool message. [`tool_results`] adds it.
///
/// ```
/// use lazytool_runtime::provider::openai_chat;
/// use lazytool_runtime::{Content, ContentPart, ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "chart".into(), arguments: json!("{}") };
/// let chart = ToolResult::from(Content::new([ContentPart::image("iVBORw0KGgo=", "image/png")]));
/// assert_eq!(
///     openai_chat::tool_result_message(&call, &chart)["content"],
///     "[image: image/png, 12 bytes of base64]"
/// );
/// let message = openai_chat::attachments_message([(&call, &chart)]).unwrap();
/// assert_eq!(message["role"], "user");
/// assert_eq!(message["content"][1], json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}));
/// ```
pub fn attachments_message<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Option<Value> {
    let mut parts = Vec::new();
    let mut sources = Vec::new();
    for (call, result) in turn {
        let before = parts.len();
        parts.extend(result.parts().iter().filter_map(attachment));
        if parts.len() > before {
            sources.push(format!(
                "{} from call {} ({})",
                parts.len() - before,
                call.id,
                call.name
            ));
        }
    }
    if parts.is_empty() {
        return None;
    }
    let intro = format!(
        "The images and audio the tool results above refer to, in order: {}.",
        sources.join(", ")
    );
    parts.insert(0, json!({"type": "text", "text": intro}));
    Some(json!({"role": "user", "content": parts}))
}

/// A part as a user message's content part, for the kinds Chat Completions takes there.
fn attachment(part: &ContentPart) -> Option<Value> {
    match part {
        ContentPart::Image { data, mime_type } if content::common_image(mime_type) => Some(json!({
            "type": "image_url",
            "image_url": {"url": content::data_url(mime_type, data)},
        })),
        ContentPart::Audio { data, mime_type } => {
            let format = if content::accepts(&["audio/wav", "audio/x-wav", "audio/wave"], mime_type)
            {
                "wav"
            } else if content::accepts(&["audio/mpeg", "audio/mp3"], mime_type) {
                "mp3"
            } else {
                return None;
            };
            Some(json!({"type": "input_audio", "input_audio": {"data": data, "format": format}}))
        }
        _ => None,
    }
}

super::turn::turn_functions! {
    /// The calls come from [`parse_tool_calls`] or a [`StreamAssembler`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::provider::openai_chat;
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let add = DynamicTool::new("add", "Adds two numbers.", json!({"type": "object"}),
    ///     |arguments, _| async move {
    ///         Ok::<_, String>(json!(arguments["a"].as_i64().unwrap_or(0) + arguments["b"].as_i64().unwrap_or(0)))
    ///     });
    /// let registry = Registry::builder().without_inventory().tool(add).build().unwrap();
    /// let session = registry.session();
    ///
    /// let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
    ///     {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": "{\"a\": 2, \"b\": 3}"}},
    ///     {"id": "call_2", "type": "function", "function": {"name": "nope", "arguments": "{}"}}
    /// ]}}]});
    /// let turn = openai_chat::run_response(&session, &response, 4).await.unwrap();
    /// assert_eq!(turn.messages[0], json!({"role": "tool", "tool_call_id": "call_1", "content": "5"}));
    /// assert!(turn.results[1].is_error()); // an unknown tool: an error result for the model
    /// # }
    /// ```
    results: tool_results,
    parse: parse_tool_calls,
    module: "openai_chat"
}

/// Reads the Chat Completions items of one history message: the `tool_calls` of an
/// assistant message (`{"id", "function": {"name"}}`), and a `role: "tool"` message's
/// result under its `tool_call_id`.
pub(super) fn read_history<'m>(message: &'m Map<String, Value>, scan: &mut HistoryScan<'m>) {
    read_chat_message(message, scan, "tool_calls", "tool_call_id");
}

/// Reads a message in Chat Completions' shape, its calls under `calls_key` and a `role:
/// "tool"` result's call id under `id_key` (TanStack AI's messages have the same shape in
/// camelCase; its calls come with or without the `function` wrapper).
pub(super) fn read_chat_message<'m>(
    message: &'m Map<String, Value>,
    scan: &mut HistoryScan<'m>,
    calls_key: &str,
    id_key: &str,
) {
    if str_field(message, "role") == Some("tool")
        && let Some(call_id) = id_field(message, id_key)
    {
        scan.result(call_id, || record_of_content(member(message, "content")));
    }
    let Some(Value::Array(calls)) = member(message, calls_key) else {
        return;
    };
    for call in calls.iter().filter_map(Value::as_object) {
        let Some(id) = id_field(call, "id") else {
            continue;
        };
        let function = member(call, "function")
            .and_then(Value::as_object)
            .unwrap_or(call);
        if let Some(name) = str_field(function, "name") {
            scan.call(id, name);
        }
    }
}
