//! Streamed Chat Completions: the `tool_calls` fragments of `chat.completion.chunk` events.

use serde_json::{Map, Value};

use crate::call::ToolCall;
use crate::provider::stream::{StreamState, arguments_object, stream_assembler};
use crate::provider::{Provider, StreamError, StreamErrorKind};

/// Assembles the tool calls of a streamed Chat Completion (`"stream": true`) from its
/// `chat.completion.chunk` events.
///
/// Each chunk's `choices[].delta.tool_calls[]` carries fragments of calls: the first one of
/// a call its `index`, `id` and `function.name`, the later ones pieces of
/// `function.arguments`, several calls possibly interleaved. The calls are complete when the
/// choice's `finish_reason` arrives (`tool_calls` or `stop`): that event returns all of them,
/// in `index` order, with their arguments as the JSON-encoded string they add up to (as
/// [`parse_tool_calls`](super::parse_tool_calls) keeps it), checked to be a JSON object.
///
/// Only the first choice (`index` 0) is read, as `parse_tool_calls` reads `choices[0]`. The
/// terminating `data: [DONE]` is not JSON and not an event: stop reading there and call
/// [`finish`](crate::provider::AssembleCalls::finish), which fails if no `finish_reason` came. A finish for
/// another reason (`length`, `content_filter`) while calls are open is an error, and so is
/// an `{"error": ...}` event.
///
/// Some compatible servers repeat a call's `id` and `name` in every fragment, or give every
/// call `index` 0 with its own `id`, or leave `index` out: a repeated value is ignored, a new
/// `id` starts a new call.
///
/// ```
/// use lazytool_runtime::provider::{AssembleCalls, openai_chat};
/// use serde_json::json;
///
/// let chunk = |delta, finish| json!({"object": "chat.completion.chunk",
///     "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
/// let events = [
///     chunk(json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1",
///         "type": "function", "function": {"name": "add", "arguments": ""}}]}), json!(null)),
///     chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\": 2,"}}]}), json!(null)),
///     chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": " \"b\": 3}"}}]}), json!(null)),
///     chunk(json!({}), json!("tool_calls")),
/// ];
/// let calls = openai_chat::StreamAssembler::new().assemble(&events).unwrap();
/// assert_eq!(calls[0].id, "call_1");
/// assert_eq!(calls[0].arguments, json!("{\"a\": 2, \"b\": 3}"));
/// ```
#[derive(Debug)]
pub struct StreamAssembler {
    state: StreamState,
    events: Chunks,
}

stream_assembler!(Provider::OpenAiChat, "openai_chat");

/// What the chunks of the first choice said so far.
#[derive(Debug, Default)]
struct Chunks {
    /// The calls, in the order they started.
    calls: Vec<Fragments>,
    finish_reason: Option<String>,
}

/// What the fragments of one call added up to so far.
#[derive(Debug)]
struct Fragments {
    index: u64,
    id: String,
    name: String,
    arguments: String,
}

impl Chunks {
    fn read(&mut self, state: &StreamState, event: &Value) -> Result<Vec<ToolCall>, StreamError> {
        let chunk = state.object(event, "the chunk")?;
        if let Some(error) = chunk.get("error") {
            return Err(state.provider_error(error));
        }
        let choices = match chunk.get("choices") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(choices)) => choices,
            Some(_) => {
                return Err(state.error(StreamErrorKind::Malformed, "`choices` is not an array"));
            }
        };
        let mut completed = Vec::new();
        for choice in choices {
            let choice = state.object(choice, "a choice")?;
            if choice.get("index").and_then(Value::as_u64).unwrap_or(0) != 0 {
                continue;
            }
            if let Some(delta) = choice.get("delta").filter(|delta| !delta.is_null()) {
                let delta = state.object(delta, "a choice's delta")?;
                read_delta(state, delta, &mut self.calls, self.finish_reason.as_deref())?;
            }
            match choice.get("finish_reason") {
                None | Some(Value::Null) => {}
                Some(Value::String(reason)) => {
                    self.finish_reason = Some(reason.clone());
                    completed.extend(complete(state, &mut self.calls, reason)?);
                }
                Some(_) => {
                    return Err(state.error(
                        StreamErrorKind::Malformed,
                        "`finish_reason` is not a string",
                    ));
                }
            }
        }
        Ok(completed)
    }

    fn end(&mut self, state: &StreamState) -> Result<Vec<ToolCall>, StreamError> {
        if self.finish_reason.is_some() {
            return Ok(Vec::new());
        }
        let open = match self.calls.len() {
            0 => String::new(),
            1 => " with a tool call still open".to_owned(),
            n => format!(" with {n} tool calls still open"),
        };
        Err(state.error(
            StreamErrorKind::Truncated,
            format!("the stream ended before a `finish_reason`{open}"),
        ))
    }
}

/// Adds a delta's `tool_calls` fragments to the calls.
fn read_delta(
    state: &StreamState,
    delta: &Map<String, Value>,
    calls: &mut Vec<Fragments>,
    finished: Option<&str>,
) -> Result<(), StreamError> {
    let fragments = match delta.get("tool_calls") {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(fragments)) => fragments,
        Some(_) => {
            return Err(state.error(StreamErrorKind::Malformed, "`tool_calls` is not an array"));
        }
    };
    if let (Some(reason), false) = (finished, fragments.is_empty()) {
        return Err(state.error(
            StreamErrorKind::Malformed,
            format!("tool call fragments after `finish_reason` \"{reason}\""),
        ));
    }
    for fragment in fragments {
        let fragment = state.object(fragment, "a tool call fragment")?;
        match state.optional_str(fragment, "type", "a tool call fragment")? {
            None | Some("function") => {}
            Some(other) => {
                return Err(state.error(
                    StreamErrorKind::Malformed,
                    format!("a tool call of type \"{other}\" (expected \"function\")"),
                ));
            }
        }
        let id = state
            .optional_str(fragment, "id", "a tool call fragment")?
            .filter(|id| !id.is_empty());
        let call = slot(calls, fragment.get("index").and_then(Value::as_u64), id);
        if let Some(id) = id {
            call.id = id.to_owned();
        }
        let function = match fragment.get("function") {
            None | Some(Value::Null) => continue,
            Some(function) => state.object(function, "a tool call fragment's `function`")?,
        };
        if let Some(name) = state.optional_str(function, "name", "a `function` fragment")?
            && call.name != name
        {
            call.name.push_str(name);
        }
        match function.get("arguments") {
            None | Some(Value::Null) => {}
            Some(Value::String(piece)) => call.arguments.push_str(piece),
            Some(object @ Value::Object(_)) if call.arguments.is_empty() => {
                call.arguments = object.to_string();
            }
            Some(_) => {
                return Err(state.error(
                    StreamErrorKind::Malformed,
                    format!("the arguments fragment of `{}` is not a string", call.name),
                ));
            }
        }
    }
    Ok(())
}

/// The call a fragment belongs to, started if it is the first of its call.
fn slot<'c>(
    calls: &'c mut Vec<Fragments>,
    index: Option<u64>,
    id: Option<&str>,
) -> &'c mut Fragments {
    let latest = match index {
        Some(index) => calls.iter().rposition(|call| call.index == index),
        None => calls.len().checked_sub(1),
    };
    let starts_new = match (latest, id) {
        (None, _) => true,
        (Some(at), Some(id)) => !calls[at].id.is_empty() && calls[at].id != id,
        (Some(_), None) => false,
    };
    let at = if starts_new {
        let index = index.unwrap_or_else(|| calls.last().map_or(0, |call| call.index + 1));
        calls.push(Fragments {
            index,
            id: String::new(),
            name: String::new(),
            arguments: String::new(),
        });
        calls.len() - 1
    } else {
        latest.unwrap_or_default()
    };
    &mut calls[at]
}

/// The calls `finish_reason` completes: all of them in `index` order when the model
/// finished to call tools (or stopped), an error for any other reason while calls are open.
fn complete(
    state: &StreamState,
    calls: &mut Vec<Fragments>,
    reason: &str,
) -> Result<Vec<ToolCall>, StreamError> {
    if calls.is_empty() {
        return Ok(Vec::new());
    }
    if !matches!(reason, "tool_calls" | "stop" | "function_call") {
        let names: Vec<&str> = calls.iter().map(|call| call.name.as_str()).collect();
        return Err(state.error(
            StreamErrorKind::Truncated,
            format!(
                "the model stopped (`finish_reason` \"{reason}\") inside the tool calls {}",
                names.join(", ")
            ),
        ));
    }
    calls.sort_by_key(|call| call.index);
    calls
        .drain(..)
        .map(|call| {
            if call.id.is_empty() || call.name.is_empty() {
                let missing = if call.id.is_empty() { "id" } else { "name" };
                return Err(state.error(
                    StreamErrorKind::Malformed,
                    format!("the tool call at index {} has no {missing}", call.index),
                ));
            }
            arguments_object(state, &call.name, &call.arguments)?;
            Ok(ToolCall {
                id: call.id,
                name: call.name,
                arguments: Value::String(call.arguments),
            })
        })
        .collect()
}
