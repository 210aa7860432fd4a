//! Streamed Responses: `function_call` output items and their argument deltas.

use serde_json::{Map, Value};

use super::parse_item;
use crate::call::ToolCall;
use crate::provider::read::{Provider, Reader};
use crate::provider::stream::{StreamState, arguments_object, stream_assembler};
use crate::provider::{StreamError, StreamErrorKind};

/// Assembles the tool calls of a streamed response (`"stream": true`) from its events.
///
/// `response.output_item.added` opens a `function_call` item (`call_id`, `name`);
/// `response.function_call_arguments.delta` events add pieces of its arguments and
/// `response.function_call_arguments.done` gives them whole; `response.output_item.done`
/// completes it and returns the call, read from the finished item as
/// [`parse_tool_calls`](super::parse_tool_calls) reads it (so a client-executed
/// `tool_search_call` is a discovery call, and [`ToolCall::id`] is the `call_id`). Its
/// arguments must agree with the deltas and be a JSON object.
///
/// The stream ends with `response.completed`, or `response.incomplete` (a token limit; an
/// error if a call is still open then). `response.failed` and `error` events are errors, and
/// so is a stream that ends without one of those ends. Reasoning, message and other items,
/// and event types this version does not know, are skipped.
///
/// ```
/// use lazytool_runtime::provider::{AssembleCalls, openai_responses};
/// use serde_json::json;
///
/// let item = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
///     "name": "add", "arguments": ""});
/// let done = json!({"type": "function_call", "id": "fc_1", "call_id": "call_1",
///     "name": "add", "arguments": "{\"a\": 2}"});
/// let events = [
///     json!({"type": "response.output_item.added", "output_index": 0, "item": item}),
///     json!({"type": "response.function_call_arguments.delta", "output_index": 0,
///            "item_id": "fc_1", "delta": "{\"a\": 2}"}),
///     json!({"type": "response.output_item.done", "output_index": 0, "item": done}),
///     json!({"type": "response.completed", "response": {"status": "completed"}}),
/// ];
/// let calls = openai_responses::StreamAssembler::new().assemble(&events).unwrap();
/// assert_eq!((calls[0].id.as_str(), &calls[0].arguments), ("call_1", &json!("{\"a\": 2}")));
/// ```
#[derive(Debug)]
pub struct StreamAssembler {
    state: StreamState,
    events: Items,
}

stream_assembler!(Provider::OpenAiResponses, "openai_responses");

/// The function calls open, and whether the response ended.
#[derive(Debug, Default)]
struct Items {
    open: Vec<OpenCall>,
    ended: bool,
}

/// A `function_call` item between its `added` and `done` events.
#[derive(Debug)]
struct OpenCall {
    output_index: Option<u64>,
    item_id: Option<String>,
    name: String,
    deltas: String,
    arguments: Option<String>,
}

impl Items {
    fn read(&mut self, state: &StreamState, event: &Value) -> Result<Vec<ToolCall>, StreamError> {
        let Self { open, ended } = self;
        let (kind, event) = state.typed(event)?;
        match kind {
            "response.output_item.added" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                let item = state.object(item, "the `item` of `response.output_item.added`")?;
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    open.push(OpenCall {
                        output_index: event.get("output_index").and_then(Value::as_u64),
                        item_id: item.get("id").and_then(Value::as_str).map(str::to_owned),
                        name: (item.get("name").and_then(Value::as_str))
                            .unwrap_or_default()
                            .to_owned(),
                        deltas: String::new(),
                        arguments: None,
                    });
                }
            }
            "response.function_call_arguments.delta" => {
                let call = find(state, open, event, kind)?;
                let delta = state.optional_str(event, "delta", kind)?;
                open[call].deltas.push_str(delta.unwrap_or_default());
            }
            "response.function_call_arguments.done" => {
                let call = find(state, open, event, kind)?;
                let arguments = state.optional_str(event, "arguments", kind)?;
                open[call].arguments = arguments.map(str::to_owned);
            }
            "response.output_item.done" => {
                let item = event.get("item").unwrap_or(&Value::Null);
                let item = state.object(item, "the `item` of `response.output_item.done`")?;
                let call = if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    let streamed = position(open, event, Some(item)).map(|at| open.remove(at));
                    Some(complete(state, item, streamed)?)
                } else {
                    read_item(state, item)?
                };
                return Ok(call.into_iter().collect());
            }
            "response.completed" | "response.incomplete" => {
                *ended = true;
                if let Some(call) = open.first() {
                    let reason = event
                        .get("response")
                        .and_then(|response| response.pointer("/incomplete_details/reason"))
                        .and_then(Value::as_str)
                        .map_or_else(String::new, |reason| format!(" (\"{reason}\")"));
                    return Err(state.error(
                        StreamErrorKind::Truncated,
                        format!(
                            "`{kind}`{reason} while the function call `{}` is open",
                            call.name
                        ),
                    ));
                }
            }
            "response.failed" => {
                let error = event
                    .get("response")
                    .and_then(|response| response.get("error"));
                return Err(state.provider_error(error.unwrap_or(&Value::Null)));
            }
            "error" => return Err(state.provider_error(&Value::Object(event.clone()))),
            _ => {}
        }
        Ok(Vec::new())
    }

    fn end(&mut self, state: &StreamState) -> Result<Vec<ToolCall>, StreamError> {
        if self.ended {
            return Ok(Vec::new());
        }
        let open = match self.open.first() {
            Some(call) => format!(" (inside the function call `{}`)", call.name),
            None => String::new(),
        };
        Err(state.error(
            StreamErrorKind::Truncated,
            format!("the stream ended before `response.completed`{open}"),
        ))
    }
}

/// Where the open call an event names is: by `item_id` (or the `item`'s `id`), else by
/// `output_index`.
fn position(
    open: &[OpenCall],
    event: &Map<String, Value>,
    item: Option<&Map<String, Value>>,
) -> Option<usize> {
    let item_id = (event
        .get("item_id")
        .or_else(|| item.and_then(|item| item.get("id"))))
    .and_then(Value::as_str);
    let output_index = event.get("output_index").and_then(Value::as_u64);
    item_id
        .and_then(|id| {
            open.iter()
                .position(|call| call.item_id.as_deref() == Some(id))
        })
        .or_else(|| {
            output_index.and_then(|index| {
                open.iter()
                    .position(|call| call.output_index == Some(index))
            })
        })
}

fn find(
    state: &StreamState,
    open: &[OpenCall],
    event: &Map<String, Value>,
    kind: &str,
) -> Result<usize, StreamError> {
    position(open, event, None).ok_or_else(|| {
        state.error(
            StreamErrorKind::Malformed,
            format!("`{kind}` for a function call that is not open"),
        )
    })
}

/// The call of an output item, as the complete response's parser reads it.
fn read_item(
    state: &StreamState,
    item: &Map<String, Value>,
) -> Result<Option<ToolCall>, StreamError> {
    let reader = Reader {
        provider: Provider::OpenAiResponses,
    };
    let call = parse_item(&reader, &Value::Object(item.clone()), "/item").map_err(|error| {
        state.error(
            StreamErrorKind::Malformed,
            format!(
                "`response.output_item.done` needs {} at {}",
                error.expected(),
                error.path()
            ),
        )
    })?;
    if let Some(call) = &call
        && let Value::String(text) = &call.arguments
    {
        arguments_object(state, &call.name, text)?;
    }
    Ok(call)
}

/// The call of a finished `function_call` item, checked against what was streamed of it.
fn complete(
    state: &StreamState,
    item: &Map<String, Value>,
    streamed: Option<OpenCall>,
) -> Result<ToolCall, StreamError> {
    let streamed_arguments = streamed.and_then(|call| {
        call.arguments
            .or((!call.deltas.is_empty()).then_some(call.deltas))
    });
    let mut item = item.clone();
    match (item.get("arguments"), streamed_arguments) {
        (None | Some(Value::Null), Some(arguments)) => {
            item.insert("arguments".to_owned(), Value::String(arguments));
        }
        (Some(Value::String(final_arguments)), Some(arguments))
            if *final_arguments != arguments =>
        {
            let name = item.get("name").and_then(Value::as_str).unwrap_or_default();
            return Err(state.error(
                StreamErrorKind::Malformed,
                format!("the arguments of `{name}` in `response.output_item.done` differ from those streamed"),
            ));
        }
        _ => {}
    }
    read_item(state, &item)?.ok_or_else(|| {
        state.error(
            StreamErrorKind::Malformed,
            "a function call item without a call",
        )
    })
}
