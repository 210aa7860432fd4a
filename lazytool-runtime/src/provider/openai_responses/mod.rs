//! OpenAI Responses (`POST /v1/responses`): the request's `tools`, the `function_call` items
//! of a response's `output` (whole, or streamed: [`StreamAssembler`]), and
//! `function_call_output` input items ([`run_turn`] runs a turn's calls and builds them);
//! and client-executed tool search (`tool_search_call` / `tool_search_output`) for native
//! deferred loading.
//!
//! # A complete loop
//!
//! Each request carries [`render_tools`] of the session's
//! [`active_definitions`](crate::Session::active_definitions); [`run_response`] runs the
//! `function_call` items of the response; the response's `output` items and the turn's
//! `function_call_output` items go into the next request's `input`. The responses are
//! scripted here in the shape of a `response` object; a real loop POSTs each request to
//! `/v1/responses`.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use lazytool_runtime::provider::openai_responses::{self, OpenAiResponsesOptions};
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
//! // A response object as the API returns it.
//! let response = |output: Value| json!({
//!     "id": "resp_67ccd2bed1ec8190b14f964abc054267", "object": "response",
//!     "created_at": 1741476542, "status": "completed", "model": "gpt-4.1-2025-04-14",
//!     "output": output, "parallel_tool_calls": true,
//!     "usage": {"input_tokens": 82, "output_tokens": 17, "total_tokens": 99}
//! });
//! let call = |id: &str, name: &str, arguments: Value| json!([{
//!     "type": "function_call", "id": format!("fc_{id}"), "call_id": id, "name": name,
//!     "arguments": arguments.to_string(), "status": "completed"
//! }]);
//! let replies = [
//!     response(call("call_1", DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]}))),
//!     response(call("call_2", "get_forecast", json!({"city": "Paris"}))),
//!     response(json!([{"type": "message", "id": "msg_3", "status": "completed", "role": "assistant",
//!         "content": [{"type": "output_text", "text": "Sunny in Paris tomorrow.", "annotations": []}]}])),
//! ];
//!
//! let mut input = vec![json!({"role": "user", "content": "Weather in Paris tomorrow?"})];
//! let mut tools_sent = Vec::new();
//! for response in replies {
//!     let tools = openai_responses::render_tools(&session.active_definitions(), &OpenAiResponsesOptions::default());
//!     let request = json!({"model": "gpt-4.1", "input": input, "tools": tools});
//!     tools_sent.push(request["tools"].as_array().map_or(Vec::new(), |tools| {
//!         tools.iter().map(|tool| tool["name"].clone()).collect()
//!     }));
//!     // let response = client.post(".../v1/responses").json(&request).send().await?...;
//!     let turn = openai_responses::run_response(&session, &response, 4).await?;
//!     input.extend(response["output"].as_array().into_iter().flatten().cloned());
//!     if turn.is_empty() {
//!         break; // the model answered
//!     }
//!     input.extend(turn.messages);
//! }
//!
//! assert_eq!(tools_sent[0], [json!("get_time"), json!(DISCOVERY_TOOL_NAME)]);
//! // Discovered during the first turn, `get_forecast` is sent from the next request on.
//! assert_eq!(tools_sent[1], [json!("get_time"), json!("get_forecast")]);
//! assert_eq!(input[4], json!({"type": "function_call_output", "call_id": "call_2", "output": "Sunny in Paris"}));
//! // A stateless server rebuilds the same session from the items.
//! assert_eq!(Session::from_history(&registry, &input).discovered().tools, ["get_forecast"]);
//! # Ok(())
//! # }
//! ```

mod stream;

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

pub use stream::StreamAssembler;

use super::content;
use super::history::{HistoryScan, id_field, member, record_of_content, str_field};
use super::openai_chat::parameters;
use super::read::{ParseError, Provider, Reader, join};
use super::render::examples_in_description;
use super::turn::{self, Turn};
use crate::call::{ContentPart, DiscoveredSet, ResourceContents, ToolCall, ToolResult};
use crate::registry::Registry;
use crate::session::Session;
use crate::tool::{DISCOVERY_TOOL_NAME, ToolDefinition};

/// How tools are rendered for the Responses API: the Chat Completions options re-used.
/// Without `strict`, tools are sent with `"strict": false` (spelled out: the Responses API's
/// default is strict).
///
/// ```
/// use lazytool_runtime::provider::openai_responses::OpenAiResponsesOptions;
///
/// let options = OpenAiResponsesOptions { strict: true };
/// # let _ = options;
/// ```
pub type OpenAiResponsesOptions = super::openai_chat::OpenAiChatOptions;

/// The array for the request's `tools` field; the Responses API flattens function tools:
/// `[{"type": "function", "name", "description", "parameters", "strict"}]`. In strict mode a
/// tool whose schema strict mode cannot express is sent with `"strict": false`, as
/// [`openai_chat::render_tools`](super::openai_chat::render_tools) does.
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::openai_responses::{self, OpenAiResponsesOptions};
/// use serde_json::json;
///
/// let tool = ToolDefinition {
///     name: "get_forecast".into(),
///     description: "Tomorrow's weather in a city.".into(),
///     input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// };
/// assert_eq!(openai_responses::render_tools(&[tool.clone()], &OpenAiResponsesOptions::default()), json!([{
///     "type": "function",
///     "name": "get_forecast",
///     "description": "Tomorrow's weather in a city.",
///     "parameters": tool.input_schema,
///     "strict": false,
/// }]));
/// ```
pub fn render_tools<D: Borrow<ToolDefinition>>(
    tools: &[D],
    options: &OpenAiResponsesOptions,
) -> Value {
    let rendered = tools
        .iter()
        .map(Borrow::borrow)
        .map(|tool: &ToolDefinition| Value::Object(function_tool(tool, options)))
        .collect();
    Value::Array(rendered)
}

/// One function tool as the Responses API takes it, its examples in the description.
fn function_tool(tool: &ToolDefinition, options: &OpenAiResponsesOptions) -> Map<String, Value> {
    let tool = examples_in_description(tool);
    let mut rendered = Map::new();
    rendered.insert("type".to_owned(), json!("function"));
    rendered.insert("name".to_owned(), json!(tool.name));
    rendered.insert("description".to_owned(), json!(tool.description));
    let (parameters, strict) = parameters(&tool.name, &tool.input_schema, options);
    rendered.insert("parameters".to_owned(), parameters);
    rendered.insert("strict".to_owned(), Value::Bool(strict));
    rendered
}

/// The `tools` array for OpenAI's native deferred loading with client-executed tool search
/// (models from `gpt-5.4` on): eager tools as usual, every lazy tool with its full definition
/// and `"defer_loading": true`, and in place of the discovery function a
/// `{"type": "tool_search", "execution": "client", "description", "parameters"}` entry with
/// the discovery tool's description and parameters. The array is the same on every request,
/// so the prompt cache holds.
///
/// The model sees the deferred tools' names and descriptions, not their schemas. To load
/// some it emits a `tool_search_call`, which [`parse_tool_calls`] returns as a call of the
/// discovery tool: run it with [`Session::call`] like any call (the session records the
/// discovery, so gating and validation work as in every mode) and answer it with
/// [`tool_search_output_item`]. `DiscoveryMode::Search` pairs best with it: its parameters are
/// a query, where names mode lists every lazy name once more.
///
/// ```
/// use lazytool_runtime::provider::openai_responses::{self, OpenAiResponsesOptions};
/// use lazytool_runtime::{DynamicTool, Registry};
/// use serde_json::json;
///
/// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("12:00")) });
/// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tools([time, forecast]).build().unwrap();
/// let session = registry.session();
/// let tools = openai_responses::render_tools_deferred(&session, &OpenAiResponsesOptions::default());
/// assert_eq!(tools[0]["name"], "get_time");
/// assert_eq!((&tools[1]["type"], &tools[1]["execution"]), (&json!("tool_search"), &json!("client")));
/// assert_eq!((&tools[2]["name"], &tools[2]["defer_loading"]), (&json!("get_forecast"), &json!(true)));
/// ```
pub fn render_tools_deferred(session: &Session, options: &OpenAiResponsesOptions) -> Value {
    let rendered = session
        .deferrable_tools()
        .into_iter()
        .map(|(tool, deferred)| {
            if tool.name == DISCOVERY_TOOL_NAME {
                return json!({
                    "type": "tool_search",
                    "execution": "client",
                    "description": tool.description,
                    "parameters": parameters(&tool.name, &tool.input_schema, options).0,
                });
            }
            let mut rendered = function_tool(&tool, options);
            if deferred {
                rendered.insert("defer_loading".to_owned(), Value::Bool(true));
            }
            Value::Object(rendered)
        })
        .collect();
    Value::Array(rendered)
}

/// The input item answering a client-executed tool search (a discovery call parsed from a
/// `tool_search_call`): `{"type": "tool_search_output", "execution": "client", "call_id",
/// "status": "completed", "tools": [...]}` with the full definition of every tool the
/// discovery handed out ([`ToolResult::discovered`]), looked up in the `session` that ran it,
/// `"defer_loading": true` as the API expects; a tool's skill (see `#[tool(skill)]`) is
/// appended to its description, as the item has no other place for it.
///
/// The item has no place for text either: names the discovery did not know, or a failed
/// discovery, give fewer tools or none, and the model sees that they did not load.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::provider::openai_responses::{self, OpenAiResponsesOptions};
/// use lazytool_runtime::{DynamicTool, Registry};
/// use serde_json::json;
///
/// let tool = DynamicTool::new("forecast", "Weather forecast.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
/// let session = registry.session();
/// let response = json!({"output": [{"type": "tool_search_call", "execution": "client",
///     "call_id": "call_1", "arguments": {"toolNames": ["forecast"]}}]});
/// let calls = openai_responses::parse_tool_calls(&response).unwrap();
/// let result = session.call(&calls[0].name, calls[0].arguments.clone()).await;
/// let options = OpenAiResponsesOptions::default();
/// let item = openai_responses::tool_search_output_item(&session, &calls[0], &result, &options);
/// assert_eq!(item["tools"][0]["name"], "forecast");
/// assert_eq!(item["tools"][0]["defer_loading"], true);
/// # }
/// ```
pub fn tool_search_output_item(
    session: &Session,
    call: &ToolCall,
    result: &ToolResult,
    options: &OpenAiResponsesOptions,
) -> Value {
    search_output_item(session.registry(), call, result, options)
}

/// [`tool_search_output_item`], the tools looked up in `registry`.
fn search_output_item(
    registry: &Registry,
    call: &ToolCall,
    result: &ToolResult,
    options: &OpenAiResponsesOptions,
) -> Value {
    let found = result.discovered().filter(|_| !result.is_error());
    let tools: Vec<Value> = (found.into_iter())
        .flat_map(|discovered| &discovered.tools)
        .filter_map(|name| registry.get(name))
        .map(|tool| {
            let mut definition = tool.definition();
            if let Some(skill) = tool.skill() {
                definition.description.push_str("\n\n");
                definition.description.push_str(skill);
            }
            let mut rendered = function_tool(&definition, options);
            rendered.insert("defer_loading".to_owned(), Value::Bool(true));
            Value::Object(rendered)
        })
        .collect();
    json!({
        "type": "tool_search_output",
        "execution": "client",
        "call_id": call.id,
        "status": "completed",
        "tools": tools,
    })
}

/// [`run_turn`] for tools rendered with [`render_tools_deferred`]: the discovery tool is then
/// a client-executed tool search, so discovery calls are answered with
/// [`tool_search_output_item`] (rendered with `options`), the others with
/// [`tool_result_item`].
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::provider::openai_responses::{self, OpenAiResponsesOptions};
/// use lazytool_runtime::{DynamicTool, Registry};
/// use serde_json::json;
///
/// let time = DynamicTool::new("get_time", "The current UTC time.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("12:00")) });
/// let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
/// let registry = Registry::builder().without_inventory().tools([time, forecast]).build().unwrap();
/// let session = registry.session();
/// let response = json!({"output": [{"type": "tool_search_call", "execution": "client",
///     "call_id": "call_1", "status": "completed", "arguments": {"toolNames": ["get_forecast"]}}]});
/// let calls = openai_responses::parse_tool_calls(&response).unwrap();
/// let turn = openai_responses::run_turn_deferred(&session, calls, 4, &OpenAiResponsesOptions::default()).await;
/// assert_eq!(turn.messages[0]["type"], "tool_search_output");
/// assert_eq!(turn.messages[0]["tools"][0]["name"], "get_forecast");
/// # }
/// ```
pub fn run_turn_deferred(
    session: &Session,
    calls: Vec<ToolCall>,
    concurrency: usize,
    options: &OpenAiResponsesOptions,
) -> impl Future<Output = Turn> + Send + 'static {
    let registry = session.registry().clone();
    let options = options.clone();
    turn::run(session, calls, concurrency, move |calls, results| {
        turn::each(calls.iter().zip(results), |call, result| {
            if call.name == DISCOVERY_TOOL_NAME {
                search_output_item(&registry, call, result, &options)
            } else {
                tool_result_item(call, result)
            }
        })
    })
}

/// The tool calls of a response object (its `output` array) or of a bare `output` array:
/// the items with `"type": "function_call"` (`call_id`, `name`, `arguments`), in order, and
/// client-executed tool searches (`"type": "tool_search_call"`, `"execution": "client"`) as
/// calls of the discovery tool ([`DISCOVERY_TOOL_NAME`]) with the search's `arguments`, to be
/// answered with [`tool_search_output_item`] (see [`render_tools_deferred`]). Other items
/// (reasoning, messages, built-in tool calls, hosted tool searches) are skipped.
///
/// [`ToolCall::id`] is the item's `call_id` (not its `fc_...` `id`), the id results are sent
/// back under; `arguments` is kept as the JSON-encoded string it arrives as.
///
/// ```
/// use lazytool_runtime::provider::openai_responses;
/// use serde_json::json;
///
/// let response = json!({
///     "id": "resp_67ccd2bed1ec8190b14f964abc054267", "object": "response",
///     "created_at": 1741476542, "status": "completed", "model": "gpt-4.1-2025-04-14",
///     "output": [
///         {"type": "reasoning", "id": "rs_1", "summary": []},
///         {"type": "function_call", "id": "fc_12345xyz", "call_id": "call_12345xyz",
///          "name": "get_forecast", "arguments": "{\"city\":\"Paris\"}", "status": "completed"}
///     ],
///     "usage": {"input_tokens": 82, "output_tokens": 17, "total_tokens": 99}
/// });
/// let calls = openai_responses::parse_tool_calls(&response).unwrap();
/// assert_eq!(calls.len(), 1);
/// assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("call_12345xyz", "get_forecast"));
/// ```
pub fn parse_tool_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let reader = Reader {
        provider: Provider::OpenAiResponses,
    };
    let (items, path) = match response {
        Value::Array(items) => (items, String::new()),
        Value::Object(object) => match object.get("output") {
            Some(Value::Array(items)) => (items, "/output".to_owned()),
            Some(Value::Null) => return Ok(Vec::new()),
            _ => return Err(reader.error("/output", "the response's `output` array")),
        },
        _ => {
            return Err(reader.error("", "a response object or its `output` array"));
        }
    };
    let mut calls = Vec::new();
    for (index, item) in items.iter().enumerate() {
        calls.extend(parse_item(&reader, item, &join(&path, index))?);
    }
    Ok(calls)
}

/// The call of one output item: a `function_call`, or a client-executed `tool_search_call`
/// as a discovery call; `None` for any other item.
fn parse_item(reader: &Reader, item: &Value, path: &str) -> Result<Option<ToolCall>, ParseError> {
    let item = reader.object(item, path, "an output item")?;
    let (name, arguments) = match item.get("type").and_then(Value::as_str) {
        Some("function_call") => {
            let name = reader.non_empty_string(item, path, "name")?;
            match item.get("arguments") {
                Some(arguments @ (Value::String(_) | Value::Object(_))) => {
                    (name, arguments.clone())
                }
                _ => {
                    return Err(reader.error(
                        &join(path, "arguments"),
                        "the arguments as a JSON-encoded string",
                    ));
                }
            }
        }
        Some("tool_search_call")
            if item.get("execution").and_then(Value::as_str) == Some("client") =>
        {
            let arguments = match item.get("arguments") {
                Some(arguments @ Value::Object(_)) => arguments.clone(),
                None | Some(Value::Null) => Value::Object(Map::new()),
                Some(_) => {
                    return Err(
                        reader.error(&join(path, "arguments"), "the search's arguments object")
                    );
                }
            };
            (DISCOVERY_TOOL_NAME.to_owned(), arguments)
        }
        _ => return Ok(None),
    };
    Ok(Some(ToolCall {
        id: reader.non_empty_string(item, path, "call_id")?,
        name,
        arguments,
    }))
}

/// The input item that returns one result:
/// `{"type": "function_call_output", "call_id", "output"}`, the output being
/// [`ToolResult::text`]. (There is no error flag: an error is sent as its message.) A call
/// parsed from a `tool_search_call` is answered with [`tool_search_output_item`] instead.
///
/// A result with [`parts`](ToolResult::parts) (a tool that returned
/// [`Content`](crate::Content)) has a list as its `output`, as the Responses API takes it:
/// its structured value as `input_text`, then each part in order — text as `input_text`,
/// PNG, JPEG, WebP and GIF images as `input_image` with a `data:` URL (`"detail": "auto"`),
/// binary resources as `input_file` (`file_data` a `data:` URL, `filename` the URI's last
/// segment), anything else (audio, other image types, links) as `input_text` describing it
/// ([`ContentPart::as_text`](crate::ContentPart::as_text)).
///
/// ```
/// use lazytool_runtime::provider::openai_responses;
/// use lazytool_runtime::{Content, ContentPart, ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!("{}") };
/// let item = openai_responses::tool_result_item(&call, &ToolResult::success(json!(5)));
/// assert_eq!(item, json!({"type": "function_call_output", "call_id": "call_1", "output": "5"}));
///
/// let chart = ToolResult::from(Content::new([ContentPart::image("iVBORw0KGgo=", "image/png")]));
/// let item = openai_responses::tool_result_item(&call, &chart);
/// assert_eq!(item["output"], json!([
///     {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo=", "detail": "auto"}
/// ]));
/// ```
pub fn tool_result_item(call: &ToolCall, result: &ToolResult) -> Value {
    let output = content::text_or_blocks(
        result,
        native_output,
        |text| json!({"type": "input_text", "text": text}),
    );
    json!({
        "type": "function_call_output",
        "call_id": call.id,
        "output": output,
    })
}

/// A part as the Responses API's own output content, where it has one.
fn native_output(part: &ContentPart) -> Option<Value> {
    match part {
        ContentPart::Image { data, mime_type } if content::common_image(mime_type) => Some(json!({
            "type": "input_image",
            "image_url": content::data_url(mime_type, data),
            "detail": "auto",
        })),
        ContentPart::Resource { resource } => match resource {
            ResourceContents::Blob {
                mime_type, blob, ..
            } => Some(json!({
                "type": "input_file",
                "file_data": content::data_url(
                    mime_type.as_deref().unwrap_or("application/octet-stream"),
                    blob
                ),
                "filename": content::file_name(resource),
            })),
            ResourceContents::Text { .. } => None,
        },
        _ => None,
    }
}

/// The input items that return the results of one response's calls, in call order: one
/// [`tool_result_item`] per call.
///
/// ```
/// use lazytool_runtime::provider::openai_responses;
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!({"a": 2, "b": 3}) };
/// let result = ToolResult::success(json!(5));
/// let messages = openai_responses::tool_results([(&call, &result)]);
/// assert_eq!(messages.len(), 1);
/// assert_eq!(messages[0]["type"], "function_call_output");
/// assert_eq!(messages[0]["call_id"], "call_1");
/// ```
pub fn tool_results<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Vec<Value> {
    turn::each(turn, tool_result_item)
}

super::turn::turn_functions! {
    /// The calls come from [`parse_tool_calls`] or a [`StreamAssembler`]; for tools rendered
    /// with [`render_tools_deferred`], use [`run_turn_deferred`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::provider::openai_responses;
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let now = DynamicTool::new("now", "The current time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tool(now).build().unwrap();
    /// let session = registry.session();
    ///
    /// let response = json!({"output": [
    ///     {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "now", "arguments": "{}"}
    /// ]});
    /// let turn = openai_responses::run_response(&session, &response, 4).await.unwrap();
    /// assert_eq!(turn.messages, [json!({"type": "function_call_output", "call_id": "call_1", "output": "12:00"})]);
    /// # }
    /// ```
    results: tool_results,
    parse: parse_tool_calls,
    module: "openai_responses"
}

/// Reads one history item of the Responses API: a `function_call` (under its `call_id`), a
/// `function_call_output`'s result, and client-executed tool searches: a `tool_search_call`
/// as a discovery call, its `tool_search_output` as the tools it loaded (those of loaded
/// namespaces included). Hosted searches (`"execution": "server"`) are the API's business.
pub(super) fn read_history<'m>(item: &'m Map<String, Value>, scan: &mut HistoryScan<'m>) {
    let client = || str_field(item, "execution") == Some("client");
    match str_field(item, "type") {
        Some("function_call") => {
            if let (Some(id), Some(name)) = (id_field(item, "call_id"), str_field(item, "name")) {
                scan.call(id, name);
            }
        }
        Some("function_call_output") => {
            if let Some(call_id) = id_field(item, "call_id") {
                scan.result(call_id, || record_of_content(member(item, "output")));
            }
        }
        Some("tool_search_call") if client() => {
            if let Some(id) = id_field(item, "call_id") {
                scan.call(id, DISCOVERY_TOOL_NAME);
            }
        }
        Some("tool_search_output") if client() => {
            if let Some(call_id) = id_field(item, "call_id") {
                scan.result(call_id, || loaded_tools(item));
            }
        }
        _ => {}
    }
}

/// The tools a `tool_search_output` item loaded: its functions, and the functions inside
/// its namespaces.
fn loaded_tools(item: &Map<String, Value>) -> DiscoveredSet {
    let mut names = Vec::new();
    for tool in (member(item, "tools").and_then(Value::as_array).into_iter())
        .flatten()
        .filter_map(Value::as_object)
    {
        match (str_field(tool, "type"), member(tool, "tools")) {
            (Some("namespace"), Some(Value::Array(inner))) => names.extend(
                inner
                    .iter()
                    .filter_map(Value::as_object)
                    .filter_map(|tool| str_field(tool, "name")),
            ),
            _ => names.extend(str_field(tool, "name")),
        }
    }
    DiscoveredSet::new(names)
}
