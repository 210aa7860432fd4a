//! Anthropic Messages (`POST /v1/messages`): the request's `tools`, the `tool_use` blocks of
//! a response (whole, or streamed: [`StreamAssembler`]), and `tool_result` blocks in a user
//! message ([`run_turn`] runs a turn's calls and builds it).
//!
//! # A complete loop
//!
//! Each request carries [`render_tools`] of the session's
//! [`active_definitions`](crate::Session::active_definitions); [`run_response`] runs the
//! `tool_use` blocks of the response; the assistant's content and the turn's user message of
//! `tool_result` blocks go into the history. The responses are scripted here in the shape of
//! a Messages API `message`; a real loop POSTs each request to `/v1/messages`. (For native
//! deferred loading, see [`render_tools_deferred`].)
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use lazytool_runtime::provider::anthropic;
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
//! // A message as the API returns it.
//! let message = |content: Value, stop_reason: &str| json!({
//!     "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant",
//!     "model": "claude-sonnet-4-5-20250929", "content": content,
//!     "stop_reason": stop_reason, "stop_sequence": null,
//!     "usage": {"input_tokens": 472, "output_tokens": 57}
//! });
//! let call = |id: &str, name: &str, input: Value| json!([
//!     {"type": "text", "text": "Let me check."},
//!     {"type": "tool_use", "id": id, "name": name, "input": input}
//! ]);
//! let replies = [
//!     message(call("toolu_01", DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})), "tool_use"),
//!     message(call("toolu_02", "get_forecast", json!({"city": "Paris"})), "tool_use"),
//!     message(json!([{"type": "text", "text": "Sunny in Paris tomorrow."}]), "end_turn"),
//! ];
//!
//! let mut messages = vec![json!({"role": "user", "content": "Weather in Paris tomorrow?"})];
//! let mut tools_sent = Vec::new();
//! for response in replies {
//!     let tools = anthropic::render_tools(&session.active_definitions());
//!     let request = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024,
//!         "messages": messages, "tools": tools});
//!     tools_sent.push(request["tools"].as_array().map_or(Vec::new(), |tools| {
//!         tools.iter().map(|tool| tool["name"].clone()).collect()
//!     }));
//!     // let response = client.post(".../v1/messages").json(&request).send().await?...;
//!     let turn = anthropic::run_response(&session, &response, 4).await?;
//!     messages.push(json!({"role": "assistant", "content": response["content"]}));
//!     if turn.is_empty() {
//!         break; // the model answered
//!     }
//!     messages.extend(turn.messages);
//! }
//!
//! assert_eq!(tools_sent[0], [json!("get_time"), json!(DISCOVERY_TOOL_NAME)]);
//! // Discovered during the first turn, `get_forecast` is sent from the next request on.
//! assert_eq!(tools_sent[1], [json!("get_time"), json!("get_forecast")]);
//! assert_eq!(messages[4], json!({"role": "user", "content": [
//!     {"type": "tool_result", "tool_use_id": "toolu_02", "content": "Sunny in Paris"}
//! ]}));
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
use super::render::object_root;
use super::turn::{self, Turn};
use crate::call::{ContentPart, DiscoveredSet, ResourceContents, ToolCall, ToolResult};
use crate::session::Session;
use crate::tool::{DISCOVERY_TOOL_NAME, ToolDefinition};

/// The array for the request's `tools` field: `[{"name", "description", "input_schema"}]`,
/// the schema sent as it is (Anthropic takes JSON Schema).
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::anthropic;
/// use serde_json::json;
///
/// let tool = ToolDefinition {
///     name: "get_forecast".into(),
///     description: "Tomorrow's weather in a city.".into(),
///     input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// };
/// assert_eq!(anthropic::render_tools(&[tool.clone()]), json!([{
///     "name": "get_forecast",
///     "description": "Tomorrow's weather in a city.",
///     "input_schema": tool.input_schema,
/// }]));
/// ```
pub fn render_tools<D: Borrow<ToolDefinition>>(tools: &[D]) -> Value {
    let rendered = tools.iter().map(Borrow::borrow).map(rendered).collect();
    Value::Array(rendered)
}

/// One tool as the Messages API takes it, its examples in `input_examples`.
fn rendered(tool: &ToolDefinition) -> Value {
    let examples = tool.examples();
    let schema = match examples {
        [] => object_root(&tool.input_schema),
        _ => object_root(&tool.without_examples().input_schema),
    };
    let mut rendered = json!({
        "name": tool.name,
        "description": tool.description,
        "input_schema": schema,
    });
    if !examples.is_empty() {
        rendered["input_examples"] = Value::from(examples.to_vec());
    }
    rendered
}

/// The `tools` array for Anthropic's native deferred loading: eager tools and the discovery
/// tool as usual, and every lazy tool with its full definition and `"defer_loading": true`.
/// The array is the same on every request, so the prompt cache holds; the model loads a
/// deferred tool by calling the discovery tool, whose result goes back as `tool_reference`
/// blocks ([`tool_reference_block`]), and the API expands them into the tools' definitions.
/// Requests need the beta header `anthropic-beta: advanced-tool-use-2025-11-20`.
///
/// ```
/// use lazytool_runtime::provider::anthropic;
/// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry};
/// use serde_json::json;
///
/// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("12:00")) });
/// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tools([time, forecast]).build().unwrap();
/// let session = registry.session();
/// let tools = anthropic::render_tools_deferred(&session);
/// assert_eq!(tools[0]["name"], "get_time");
/// assert_eq!(tools[1]["name"], DISCOVERY_TOOL_NAME);
/// assert_eq!((&tools[2]["name"], &tools[2]["defer_loading"]), (&json!("get_forecast"), &json!(true)));
/// ```
pub fn render_tools_deferred(session: &Session) -> Value {
    let rendered = session
        .deferrable_tools()
        .into_iter()
        .map(|(tool, deferred)| {
            let mut rendered = rendered(&tool);
            if deferred {
                rendered["defer_loading"] = Value::Bool(true);
            }
            rendered
        })
        .collect();
    Value::Array(rendered)
}

/// The `tool_result` block answering a discovery call in deferred-loading mode: one
/// `{"type": "tool_reference", "tool_name"}` block per tool the discovery handed out
/// ([`ToolResult::discovered`]), and the discovery's errors as text. Any other result (a
/// failed discovery) is sent as [`tool_result_block`] sends it.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::provider::anthropic;
/// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry, ToolCall};
/// use serde_json::json;
///
/// let tool = DynamicTool::new("forecast", "Weather forecast.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
/// let session = registry.session();
/// let call = ToolCall {
///     id: "toolu_1".into(),
///     name: DISCOVERY_TOOL_NAME.into(),
///     arguments: json!({"toolNames": ["forecast"]}),
/// };
/// let result = session.call(&call.name, call.arguments.clone()).await;
/// assert_eq!(
///     anthropic::tool_reference_block(&call, &result),
///     json!({"type": "tool_result", "tool_use_id": "toolu_1",
///            "content": [{"type": "tool_reference", "tool_name": "forecast"}]})
/// );
/// # }
/// ```
pub fn tool_reference_block(call: &ToolCall, result: &ToolResult) -> Value {
    let Some(discovered) = result.discovered().filter(|_| !result.is_error()) else {
        return tool_result_block(call, result);
    };
    let mut content: Vec<Value> = (discovered.tools.iter())
        .map(|name| json!({"type": "tool_reference", "tool_name": name}))
        .collect();
    if let Some(Value::Array(errors)) = result.content().get("errors") {
        let text: Vec<&str> = errors.iter().filter_map(Value::as_str).collect();
        content.push(json!({"type": "text", "text": text.join("\n")}));
    }
    json!({"type": "tool_result", "tool_use_id": call.id, "content": content})
}

/// [`run_turn`] for tools rendered with [`render_tools_deferred`]: discovery calls are
/// answered with [`tool_reference_block`], so that the API loads the deferred tools they
/// found.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::provider::anthropic;
/// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry};
/// use serde_json::json;
///
/// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("12:00")) });
/// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tools([time, forecast]).build().unwrap();
/// let session = registry.session();
/// let response = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
///     "name": DISCOVERY_TOOL_NAME, "input": {"toolNames": ["get_forecast"]}}]});
/// let calls = anthropic::parse_tool_calls(&response).unwrap();
/// let turn = anthropic::run_turn_deferred(&session, calls, 4).await;
/// assert_eq!(turn.messages, [json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
///     "content": [{"type": "tool_reference", "tool_name": "get_forecast"}]}]})]);
/// # }
/// ```
pub fn run_turn_deferred(
    session: &Session,
    calls: Vec<ToolCall>,
    concurrency: usize,
) -> impl Future<Output = Turn> + Send + 'static {
    turn::run(session, calls, concurrency, |calls, results| {
        let blocks = turn::each(calls.iter().zip(results), |call, result| {
            if call.name == DISCOVERY_TOOL_NAME {
                tool_reference_block(call, result)
            } else {
                tool_result_block(call, result)
            }
        });
        vec![json!({"role": "user", "content": blocks})]
    })
}

/// The tool calls of a Messages API response (its `content` blocks) or of a bare content
/// array: the `tool_use` blocks (`id`, `name`, `input`), in order. Other blocks (text,
/// thinking, server tool use) are skipped; a message whose `content` is a plain string has
/// no calls.
///
/// ```
/// use lazytool_runtime::provider::anthropic;
/// use serde_json::json;
///
/// let response = json!({
///     "id": "msg_01Aq9w938a90dw8q", "type": "message", "role": "assistant",
///     "model": "claude-sonnet-4-5-20250929",
///     "content": [
///         {"type": "text", "text": "I'll check the weather."},
///         {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9", "name": "get_forecast",
///          "input": {"city": "Paris"}}
///     ],
///     "stop_reason": "tool_use", "stop_sequence": null,
///     "usage": {"input_tokens": 472, "output_tokens": 57}
/// });
/// let calls = anthropic::parse_tool_calls(&response).unwrap();
/// assert_eq!(calls.len(), 1);
/// assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("toolu_01A09q90qw90lq917835lq9", "get_forecast"));
/// assert_eq!(calls[0].arguments, json!({"city": "Paris"}));
/// ```
pub fn parse_tool_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let reader = Reader {
        provider: Provider::Anthropic,
    };
    let (blocks, path) = match response {
        Value::Array(blocks) => (blocks, String::new()),
        Value::Object(object) => match object.get("content") {
            Some(Value::Array(blocks)) => (blocks, "/content".to_owned()),
            Some(Value::String(_)) => return Ok(Vec::new()),
            _ => {
                return Err(reader.error("/content", "the message's `content` array"));
            }
        },
        _ => return Err(reader.error("", "a message object or its `content` array")),
    };
    let mut calls = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        let block_path = join(&path, index);
        let block = reader.object(block, &block_path, "a content block")?;
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let id = reader.non_empty_string(block, &block_path, "id")?;
        let name = reader.non_empty_string(block, &block_path, "name")?;
        let arguments = match block.get("input") {
            Some(input @ Value::Object(_)) => input.clone(),
            _ => {
                return Err(reader.error(&join(&block_path, "input"), "the input object"));
            }
        };
        calls.push(ToolCall {
            id,
            name,
            arguments,
        });
    }
    Ok(calls)
}

/// The block that returns one result:
/// `{"type": "tool_result", "tool_use_id", "content"}`, the content being
/// [`ToolResult::text`], with `"is_error": true` only for a failed call.
///
/// A result with [`parts`](ToolResult::parts) (a tool that returned
/// [`Content`](crate::Content)) has a list of blocks as its content, as the Messages API
/// takes in a `tool_result`: its structured value as a `text` block, then each part in
/// order — text as `text` blocks, PNG, JPEG, GIF and WebP images as `image` blocks with a
/// `base64` source, PDF resources as `document` blocks, anything else (audio, other image
/// types, links) as a `text` block describing it ([`ContentPart::as_text`](crate::ContentPart::as_text)).
///
/// ```
/// use lazytool_runtime::provider::anthropic;
/// use lazytool_runtime::{Content, ContentPart, ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "toolu_1".into(), name: "add".into(), arguments: json!({}) };
/// let block = anthropic::tool_result_block(&call, &ToolResult::success(json!(5)));
/// assert_eq!(block, json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "5"}));
///
/// let chart = ToolResult::from(Content::new([ContentPart::image("iVBORw0KGgo=", "image/png")]));
/// let block = anthropic::tool_result_block(&call, &chart);
/// assert_eq!(block["content"], json!([{"type": "image", "source": {
///     "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="
/// }}]));
/// ```
pub fn tool_result_block(call: &ToolCall, result: &ToolResult) -> Value {
    let mut block = Map::new();
    block.insert("type".to_owned(), json!("tool_result"));
    block.insert("tool_use_id".to_owned(), json!(call.id));
    let content = content::text_or_blocks(
        result,
        native_block,
        |text| json!({"type": "text", "text": text}),
    );
    block.insert("content".to_owned(), content);
    if result.is_error() {
        block.insert("is_error".to_owned(), Value::Bool(true));
    }
    Value::Object(block)
}

/// A part as the Messages API's own block, where it has one.
fn native_block(part: &ContentPart) -> Option<Value> {
    let base64 = |kind: &str, media_type: &str, data: &str| json!({"type": kind, "source": {"type": "base64", "media_type": media_type, "data": data}});
    match part {
        ContentPart::Image { data, mime_type } if content::common_image(mime_type) => {
            Some(base64("image", mime_type, data))
        }
        ContentPart::Resource {
            resource:
                ResourceContents::Blob {
                    mime_type: Some(mime_type),
                    blob,
                    ..
                },
        } if content::accepts(&["application/pdf"], mime_type) => {
            Some(base64("document", "application/pdf", blob))
        }
        _ => None,
    }
}

/// The user message that returns the results of one assistant turn, in call order:
/// `[{"role": "user", "content": [tool_result blocks]}]` (one message; Anthropic wants every
/// result of a turn in it).
///
/// ```
/// use lazytool_runtime::provider::anthropic;
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!({"a": 2, "b": 3}) };
/// let result = ToolResult::success(json!(5));
/// let messages = anthropic::tool_results([(&call, &result)]);
/// assert_eq!(messages.len(), 1);
/// assert_eq!(messages[0]["role"], "user");
/// assert_eq!(messages[0]["content"][0]["type"], "tool_result");
/// assert_eq!(messages[0]["content"][0]["tool_use_id"], "call_1");
/// ```
pub fn tool_results<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Vec<Value> {
    vec![json!({"role": "user", "content": turn::each(turn, tool_result_block)})]
}

super::turn::turn_functions! {
    /// The calls come from [`parse_tool_calls`] or a [`StreamAssembler`]; for tools rendered
    /// with [`render_tools_deferred`], use [`run_turn_deferred`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::provider::anthropic;
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let now = DynamicTool::new("now", "The current time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tool(now).build().unwrap();
    /// let session = registry.session();
    ///
    /// let response = json!({"role": "assistant", "content": [
    ///     {"type": "text", "text": "Checking."},
    ///     {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}
    /// ]});
    /// let turn = anthropic::run_response(&session, &response, 4).await.unwrap();
    /// assert_eq!(turn.messages, [json!({"role": "user", "content": [
    ///     {"type": "tool_result", "tool_use_id": "toolu_1", "content": "12:00"}
    /// ]})]);
    /// # }
    /// ```
    results: tool_results,
    parse: parse_tool_calls,
    module: "anthropic"
}

/// Reads the Messages items of one history message: its `tool_use` blocks, and its
/// `tool_result` blocks under their `tool_use_id` (`tool_reference` blocks in a result
/// stand for the tools a deferred-loading discovery handed out).
pub(super) fn read_history<'m>(message: &'m Map<String, Value>, scan: &mut HistoryScan<'m>) {
    let Some(Value::Array(blocks)) = member(message, "content") else {
        return;
    };
    for block in blocks.iter().filter_map(Value::as_object) {
        match str_field(block, "type") {
            Some("tool_use") => {
                if let (Some(id), Some(name)) = (id_field(block, "id"), str_field(block, "name")) {
                    scan.call(id, name);
                }
            }
            Some("tool_result") => {
                if let Some(call_id) = id_field(block, "tool_use_id") {
                    scan.result(call_id, || {
                        let content = member(block, "content");
                        tool_references(content).unwrap_or_else(|| record_of_content(content))
                    });
                }
            }
            _ => {}
        }
    }
}

/// The tools named by the `tool_reference` blocks of a result's content, if it has any.
fn tool_references(content: Option<&Value>) -> Option<DiscoveredSet> {
    let Some(Value::Array(parts)) = content else {
        return None;
    };
    let names: Vec<&str> = parts
        .iter()
        .filter_map(Value::as_object)
        .filter(|part| str_field(part, "type") == Some("tool_reference"))
        .filter_map(|part| str_field(part, "tool_name"))
        .collect();
    (!names.is_empty()).then(|| DiscoveredSet::new(names))
}
