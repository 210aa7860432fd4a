//! Google Gemini `generateContent`: the request's `tools`, the `functionCall` parts of a
//! response (whole, or streamed: [`StreamAssembler`]), and `functionResponse` parts
//! ([`run_turn`] runs a turn's calls and builds them).
//!
//! # A complete loop
//!
//! Each request carries [`render_tools`] of the session's
//! [`active_definitions`](crate::Session::active_definitions); [`run_response`] runs the
//! `functionCall` parts of the response; the candidate's content and the turn's content of
//! `functionResponse` parts go into `contents`. The responses are scripted here in the shape
//! of a `GenerateContentResponse`; a real loop POSTs each request to
//! `/v1beta/models/{model}:generateContent`.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use lazytool_runtime::provider::gemini::{self, GeminiSchemaField};
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
//! // A GenerateContentResponse as the API returns it.
//! let response = |parts: Value| json!({
//!     "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
//!     "usageMetadata": {"promptTokenCount": 82, "candidatesTokenCount": 17, "totalTokenCount": 99},
//!     "modelVersion": "gemini-2.5-flash", "responseId": "mAitaLmkHPPlz7IPvtfUqQ4"
//! });
//! let call = |name: &str, args: Value| json!([{"functionCall": {"name": name, "args": args}}]);
//! let replies = [
//!     response(call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]}))),
//!     response(call("get_forecast", json!({"city": "Paris"}))),
//!     response(json!([{"text": "Sunny in Paris tomorrow."}])),
//! ];
//!
//! let mut contents = vec![json!({"role": "user", "parts": [{"text": "Weather in Paris tomorrow?"}]})];
//! let mut tools_sent = Vec::new();
//! for response in replies {
//!     let tools = gemini::render_tools(&session.active_definitions(), GeminiSchemaField::ParametersJsonSchema);
//!     let request = json!({"contents": contents, "tools": tools});
//!     tools_sent.push(request["tools"][0]["functionDeclarations"].as_array().map_or(Vec::new(), |tools| {
//!         tools.iter().map(|tool| tool["name"].clone()).collect()
//!     }));
//!     // let response = client.post(".../v1beta/models/gemini-2.5-flash:generateContent")...;
//!     let turn = gemini::run_response(&session, &response, 4).await?;
//!     contents.push(response["candidates"][0]["content"].clone());
//!     if turn.is_empty() {
//!         break; // the model answered
//!     }
//!     contents.extend(turn.messages);
//! }
//!
//! assert_eq!(tools_sent[0], [json!("get_time"), json!(DISCOVERY_TOOL_NAME)]);
//! // Discovered during the first turn, `get_forecast` is sent from the next request on.
//! assert_eq!(tools_sent[1], [json!("get_time"), json!("get_forecast")]);
//! // The calls came without ids, so the responses carry none either.
//! assert_eq!(contents[4], json!({"role": "user", "parts": [
//!     {"functionResponse": {"name": "get_forecast", "response": {"result": "Sunny in Paris"}}}
//! ]}));
//! // A stateless server rebuilds the same session from the contents.
//! assert_eq!(Session::from_history(&registry, &contents).discovered().tools, ["get_forecast"]);
//! # Ok(())
//! # }
//! ```

mod json_path;
mod stream;

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

pub use stream::StreamAssembler;

use super::content;
use super::history::{HistoryScan, id_field, member, record_of_content, str_field};
use super::read::{ParseError, Provider, Reader, join};
use super::turn;
use crate::call::{ContentPart, DiscoveredSet, ResourceContents, ToolCall, ToolResult, parts_text};
use crate::schema::dialect::{self, SchemaLoss};
use crate::tool::ToolDefinition;

/// The prefix of the ids given to calls that arrive without one.
const SYNTHESIZED_ID_PREFIX: &str = "gemini-call-";

/// Which field of a function declaration carries the schema.
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::gemini::{self, GeminiSchemaField};
/// use serde_json::json;
///
/// let tool = ToolDefinition {
///     name: "get_forecast".into(),
///     description: "Tomorrow's weather in a city.".into(),
///     input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// };
/// let json_schema = gemini::render_tools(&[tool.clone()], GeminiSchemaField::ParametersJsonSchema);
/// assert_eq!(json_schema[0]["functionDeclarations"][0]["parametersJsonSchema"], tool.input_schema);
/// let openapi = gemini::render_tools(&[tool], GeminiSchemaField::OpenApiParameters);
/// assert_eq!(openapi[0]["functionDeclarations"][0]["parameters"]["properties"]["city"]["type"], "string");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GeminiSchemaField {
    /// `parametersJsonSchema`: the JSON Schema as it is.
    #[default]
    ParametersJsonSchema,
    /// `parameters`: the OpenAPI subset, rewritten by [`dialect::gemini_openapi`] (for
    /// endpoints or models without `parametersJsonSchema`).
    OpenApiParameters,
}

/// The array for the request's `tools` field: one tool holding every declaration,
/// `[{"functionDeclarations": [{"name", "description", "parametersJsonSchema"}]}]`, or with
/// `"parameters"` for [`GeminiSchemaField::OpenApiParameters`]. There `parameters` is left out
/// when the rewritten schema has no properties, since Gemini rejects an object without them.
/// No tools give an empty array.
///
/// The OpenAPI subset cannot express everything (maps, recursion, values of any type: see
/// [`dialect::gemini_openapi_rewrite`]), and Gemini takes no other dialect in `parameters`:
/// each such tool is reported by a `warn` event (target `lazytool::schema`) naming it and
/// every path left out. Check a tool set once, at startup, with [`openapi_losses`].
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::gemini::{self, GeminiSchemaField};
/// use serde_json::json;
///
/// let tool = ToolDefinition {
///     name: "get_forecast".into(),
///     description: "Tomorrow's weather in a city.".into(),
///     input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
/// };
/// assert_eq!(gemini::render_tools(&[tool.clone()], GeminiSchemaField::default()), json!([{
///     "functionDeclarations": [{
///         "name": "get_forecast",
///         "description": "Tomorrow's weather in a city.",
///         "parametersJsonSchema": tool.input_schema,
///     }]
/// }]));
/// ```
pub fn render_tools<D: Borrow<ToolDefinition>>(tools: &[D], field: GeminiSchemaField) -> Value {
    if tools.is_empty() {
        return json!([]);
    }
    let declarations: Vec<Value> = tools
        .iter()
        .map(Borrow::borrow)
        .map(|tool: &ToolDefinition| {
            let tool = super::render::examples_in_description(tool);
            let mut declaration = Map::new();
            declaration.insert("name".to_owned(), json!(tool.name));
            declaration.insert("description".to_owned(), json!(tool.description));
            match field {
                GeminiSchemaField::ParametersJsonSchema => {
                    declaration.insert(
                        "parametersJsonSchema".to_owned(),
                        super::render::object_root(&tool.input_schema),
                    );
                }
                GeminiSchemaField::OpenApiParameters => {
                    let rewrite = dialect::gemini_openapi_rewrite(&tool.input_schema);
                    if !rewrite.losses.is_empty() {
                        tracing::warn!(
                            target: "lazytool::schema",
                            tool = tool.name,
                            dialect = "gemini_openapi",
                            losses = %super::render::losses_text(&rewrite.losses),
                            "Gemini's OpenAPI subset cannot express all of the tool's schema"
                        );
                    }
                    let parameters = rewrite.schema;
                    let has_properties = parameters
                        .get("properties")
                        .and_then(Value::as_object)
                        .is_some_and(|properties| !properties.is_empty());
                    if has_properties {
                        declaration.insert("parameters".to_owned(), parameters);
                    }
                }
            }
            Value::Object(declaration)
        })
        .collect();
    json!([{"functionDeclarations": declarations}])
}

/// What the OpenAPI subset of Gemini's `parameters` field cannot express in each tool's
/// schema (see [`dialect::gemini_openapi_rewrite`]), as `(tool name, loss)` in tool order;
/// empty when every tool renders whole with [`GeminiSchemaField::OpenApiParameters`]. Call
/// it when the tool set is built to fail early, or to choose
/// [`GeminiSchemaField::ParametersJsonSchema`], which loses nothing.
///
/// ```
/// use lazytool_runtime::ToolDefinition;
/// use lazytool_runtime::provider::gemini;
/// use serde_json::json;
///
/// let tool = ToolDefinition {
///     name: "book".into(),
///     description: "Books rooms.".into(),
///     input_schema: json!({"type": "object", "properties": {
///         "nights": {"type": "integer"},
///         "ranges": {"type": "object", "additionalProperties": {"type": "string"}}
///     }}),
/// };
/// let losses = gemini::openapi_losses(&[tool]);
/// assert_eq!(losses.len(), 1);
/// assert_eq!((losses[0].0.as_str(), losses[0].1.path.as_str()), ("book", "/properties/ranges"));
/// ```
pub fn openapi_losses<D: Borrow<ToolDefinition>>(tools: &[D]) -> Vec<(String, SchemaLoss)> {
    tools
        .iter()
        .map(Borrow::borrow)
        .flat_map(|tool: &ToolDefinition| {
            (dialect::gemini_openapi_rewrite(&tool.input_schema)
                .losses
                .into_iter())
            .map(|loss| (tool.name.clone(), loss))
        })
        .collect()
}

/// The tool calls of a `generateContent` response (`candidates[0].content.parts`) or of a
/// bare content object (`{"role": "model", "parts": [...]}`): the parts with a
/// `functionCall` (`name`, `args`, optional `id`), in order. A missing `args` is `{}`; a call
/// without an id gets `gemini-call-{index}`, its index among the calls. A candidate without
/// content (a safety stop, a malformed function call) has no calls.
///
/// ```
/// use lazytool_runtime::provider::gemini;
/// use serde_json::json;
///
/// let response = json!({
///     "candidates": [{
///         "content": {"role": "model", "parts": [
///             {"functionCall": {"name": "get_forecast", "args": {"city": "Paris"}}},
///             {"functionCall": {"id": "fc-7", "name": "get_time"}}
///         ]},
///         "finishReason": "STOP", "index": 0
///     }],
///     "usageMetadata": {"promptTokenCount": 82, "candidatesTokenCount": 17, "totalTokenCount": 99},
///     "modelVersion": "gemini-2.5-flash"
/// });
/// let calls = gemini::parse_tool_calls(&response).unwrap();
/// assert_eq!((calls[0].id.as_str(), &calls[0].arguments), ("gemini-call-0", &json!({"city": "Paris"})));
/// assert_eq!((calls[1].id.as_str(), &calls[1].arguments), ("fc-7", &json!({})));
/// ```
pub fn parse_tool_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let reader = Reader {
        provider: Provider::Gemini,
    };
    let root = reader.object(response, "", "a generateContent response or a content")?;
    let (content, path) = if let Some(candidates) = root.get("candidates") {
        let first = candidates
            .as_array()
            .and_then(|candidates| candidates.first())
            .ok_or_else(|| reader.error("/candidates", "a non-empty array of candidates"))?;
        let candidate = reader.object(first, "/candidates/0", "a candidate")?;
        match candidate.get("content") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(content) => (
                reader.object(content, "/candidates/0/content", "a content")?,
                "/candidates/0/content".to_owned(),
            ),
        }
    } else if root.contains_key("parts") || root.contains_key("role") {
        (root, String::new())
    } else {
        return Err(reader.error(
            "",
            "a generateContent response (with `candidates`) or a content (with `parts`)",
        ));
    };
    let Some(parts) = reader.optional_array(content, &path, "parts")? else {
        return Ok(Vec::new());
    };
    let parts_path = join(&path, "parts");
    let mut calls = Vec::new();
    for (index, part) in parts.iter().enumerate() {
        let part_path = join(&parts_path, index);
        let part = reader.object(part, &part_path, "a part")?;
        let Some(call) = part.get("functionCall") else {
            continue;
        };
        let call_path = join(&part_path, "functionCall");
        let call = reader.object(call, &call_path, "a function call")?;
        let name = reader.non_empty_string(call, &call_path, "name")?;
        let arguments = match call.get("args") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(args @ Value::Object(_)) => args.clone(),
            Some(_) => return Err(reader.error(&join(&call_path, "args"), "an args object")),
        };
        let id = match call.get("id") {
            Some(Value::String(id)) if !id.is_empty() => id.clone(),
            // Gemini ids are optional; an empty one is as good as none.
            None | Some(Value::Null | Value::String(_)) => {
                format!("{SYNTHESIZED_ID_PREFIX}{}", calls.len())
            }
            Some(_) => return Err(reader.error(&join(&call_path, "id"), "a string")),
        };
        calls.push(ToolCall {
            id,
            name,
            arguments,
        });
    }
    Ok(calls)
}

/// Whether a call's id was synthesized (`gemini-call-{n}`) by [`parse_tool_calls`] or a
/// [`StreamAssembler`] because the call came without one; such an id is not sent back.
///
/// ```
/// use lazytool_runtime::provider::gemini;
///
/// assert!(gemini::is_synthesized_id("gemini-call-0"));
/// assert!(!gemini::is_synthesized_id("call_abc"));
/// ```
pub fn is_synthesized_id(id: &str) -> bool {
    id.strip_prefix(SYNTHESIZED_ID_PREFIX)
        .is_some_and(|index| !index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
}

/// The part that returns one result:
/// `{"functionResponse": {"name", "id", "response"}}`. `id` is present only when the call
/// came with one (not for a synthesized `gemini-call-{index}`); `response` must be an object:
/// `{"result": content}` for a success (the JSON value, not text), `{"error": text}` for a
/// failure.
///
/// A result with [`parts`](ToolResult::parts) (a tool that returned
/// [`Content`](crate::Content)) is a multimodal function response: `response` is
/// `{"result": ...}` with the structured value, or else the parts as text
/// ([`ToolResult::content`]), plus `"text"` with the parts as text when there is a structured
/// value; PNG, JPEG and WebP images and PDF or plain-text binary resources go in the
/// function response's own `parts` as `inlineData` (`mimeType`, `data`), as Gemini 3 models
/// take them. Whatever cannot go there (audio, other types) is still described in the text
/// ([`ContentPart::as_text`](crate::ContentPart::as_text)). Multimodal function responses
/// are a Gemini 3 feature: check that an older model takes them before relying on it.
///
/// ```
/// use lazytool_runtime::provider::gemini;
/// use lazytool_runtime::{Content, ContentPart, ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "gemini-call-0".into(), name: "add".into(), arguments: json!({}) };
/// let part = gemini::function_response_part(&call, &ToolResult::success(json!(5)));
/// assert_eq!(part, json!({"functionResponse": {"name": "add", "response": {"result": 5}}}));
///
/// let chart = ToolResult::from(Content::new([ContentPart::image("iVBORw0KGgo=", "image/png")]));
/// let part = gemini::function_response_part(&call, &chart);
/// assert_eq!(part["functionResponse"]["parts"], json!([
///     {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
/// ]));
/// ```
pub fn function_response_part(call: &ToolCall, result: &ToolResult) -> Value {
    let mut response = Map::new();
    response.insert("name".to_owned(), json!(call.name));
    if !is_synthesized_id(&call.id) {
        response.insert("id".to_owned(), json!(call.id));
    }
    let mut payload = if result.is_error() {
        json!({"error": result.text()})
    } else {
        json!({"result": result.content()})
    };
    if !result.parts().is_empty() {
        if result.structured().is_some() {
            payload["text"] = json!(parts_text(result.parts()));
        }
        let inline: Vec<Value> = result.parts().iter().filter_map(inline_data).collect();
        response.insert("response".to_owned(), payload);
        if !inline.is_empty() {
            response.insert("parts".to_owned(), Value::Array(inline));
        }
    } else {
        response.insert("response".to_owned(), payload);
    }
    json!({"functionResponse": Value::Object(response)})
}

/// The media types Gemini takes in a function response's parts.
const INLINE_TYPES: &[&str] = &[
    "image/png",
    "image/jpeg",
    "image/webp",
    "application/pdf",
    "text/plain",
];

/// A part as `inlineData` of a function response, where Gemini takes it there.
fn inline_data(part: &ContentPart) -> Option<Value> {
    let (mime_type, data) = match part {
        ContentPart::Image { data, mime_type } => (mime_type.as_str(), data),
        ContentPart::Resource {
            resource:
                ResourceContents::Blob {
                    mime_type: Some(mime_type),
                    blob,
                    ..
                },
        } => (mime_type.as_str(), blob),
        _ => return None,
    };
    content::accepts(INLINE_TYPES, mime_type)
        .then(|| json!({"inlineData": {"mimeType": mime_type, "data": data}}))
}

/// The content that returns the results of one model turn, in call order:
/// `[{"role": "user", "parts": [functionResponse parts]}]` (one content).
///
/// ```
/// use lazytool_runtime::provider::gemini;
/// use lazytool_runtime::{ToolCall, ToolResult};
/// use serde_json::json;
///
/// let call = ToolCall { id: "call_1".into(), name: "add".into(), arguments: json!({"a": 2, "b": 3}) };
/// let result = ToolResult::success(json!(5));
/// let messages = gemini::tool_results([(&call, &result)]);
/// assert_eq!(messages.len(), 1);
/// assert_eq!(messages[0]["parts"][0]["functionResponse"]["name"], "add");
/// ```
pub fn tool_results<'a>(
    turn: impl IntoIterator<Item = (&'a ToolCall, &'a ToolResult)>,
) -> Vec<Value> {
    vec![json!({"role": "user", "parts": turn::each(turn, function_response_part)})]
}

super::turn::turn_functions! {
    /// The calls come from [`parse_tool_calls`] or a [`StreamAssembler`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::provider::gemini;
    /// use lazytool_runtime::{DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let now = DynamicTool::new("now", "The current time.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("12:00")) });
    /// let registry = Registry::builder().without_inventory().tool(now).build().unwrap();
    /// let session = registry.session();
    ///
    /// let response = json!({"candidates": [{"content": {"role": "model", "parts": [
    ///     {"functionCall": {"name": "now", "args": {}}}
    /// ]}}]});
    /// let turn = gemini::run_response(&session, &response, 4).await.unwrap();
    /// assert_eq!(turn.messages, [json!({"role": "user", "parts": [
    ///     {"functionResponse": {"name": "now", "response": {"result": "12:00"}}}
    /// ]})]);
    /// # }
    /// ```
    results: tool_results,
    parse: parse_tool_calls,
    module: "gemini"
}

/// Reads the Gemini items of one history message: `functionCall` and `functionResponse`
/// parts (and the Python SDK's snake_case `function_call` / `function_response`). Calls and
/// responses without an id are paired in order per tool name.
pub(super) fn read_history<'m>(message: &'m Map<String, Value>, scan: &mut HistoryScan<'m>) {
    let Some(Value::Array(parts)) = member(message, "parts") else {
        return;
    };
    for part in parts.iter().filter_map(Value::as_object) {
        let field = |camel, snake| {
            member(part, camel)
                .or_else(|| member(part, snake))
                .and_then(Value::as_object)
        };
        if let Some(call) = field("functionCall", "function_call") {
            let Some(name) = str_field(call, "name") else {
                continue;
            };
            match id_field(call, "id") {
                Some(id) => scan.call(id, name),
                None => {
                    let id = scan.unnamed_call_id(name);
                    scan.call(id, name);
                }
            }
        } else if let Some(response) = field("functionResponse", "function_response") {
            let id = match (id_field(response, "id"), str_field(response, "name")) {
                (Some(id), _) => id.to_owned(),
                (None, Some(name)) => scan.unnamed_result_id(name),
                (None, None) => continue,
            };
            scan.result(&id, || response_record(member(response, "response")));
        }
    }
}

/// The [`DiscoveredSet`] of a `functionResponse`'s `response`: the discovery result itself,
/// or wrapped in a single `result` (as [`function_response_part`] sends it), `output` or
/// `content` member, as JSON or as its text.
fn response_record(response: Option<&Value>) -> DiscoveredSet {
    let Some(Value::Object(object)) = response else {
        return record_of_content(response);
    };
    let mut entries = object.iter();
    match (entries.next(), entries.next()) {
        (Some((key, inner)), None) if matches!(key.as_str(), "result" | "output" | "content") => {
            record_of_content(Some(inner))
        }
        _ => record_of_content(response),
    }
}
