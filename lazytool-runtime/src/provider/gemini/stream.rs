//! Streamed `generateContent`: `functionCall` parts across chunks, whole or with their
//! arguments streamed (`partialArgs`).

use serde_json::{Map, Value};

use super::{SYNTHESIZED_ID_PREFIX, json_path};
use crate::call::ToolCall;
use crate::provider::stream::{StreamState, stream_assembler};
use crate::provider::{Provider, StreamError, StreamErrorKind};

/// Assembles the tool calls of a `streamGenerateContent` response (`?alt=sse`) from its
/// chunks, each a `GenerateContentResponse`.
///
/// A `functionCall` part usually comes whole (`name`, `args`, optional `id`) and is returned
/// by the chunk that carries it. With `streamFunctionCallArguments` (Gemini 3 on Vertex AI)
/// a call spans parts: the first has its `name` and `"willContinue": true`, the next ones
/// `partialArgs` (`{"jsonPath": "$.a.b[0]", "stringValue" | "numberValue" | "boolValue" |
/// "nullValue", "willContinue"}`, a string continuing over the parts that say
/// `willContinue`), and the first part without `willContinue` ends it. The call is then
/// returned with the arguments the pieces add up to.
///
/// As in [`parse_tool_calls`](super::parse_tool_calls), only the first candidate is read,
/// a missing `args` is `{}`, and a call without an id gets `gemini-call-{n}`, `n` counting
/// the calls of the stream. Text and thought parts are skipped. An `{"error": ...}` chunk
/// and a blocked prompt are errors; so is a stream that ends without a `finishReason`, or
/// inside a streamed call.
///
/// ```
/// use lazytool_runtime::provider::{AssembleCalls, gemini};
/// use serde_json::json;
///
/// let chunk = |function_call, finish: Option<&str>| json!({"candidates": [{"index": 0,
///     "content": {"role": "model", "parts": [{"functionCall": function_call}]},
///     "finishReason": finish}]});
/// let events = [
///     chunk(json!({"name": "greet", "willContinue": true}), None),
///     chunk(json!({"partialArgs": [{"jsonPath": "$.name", "stringValue": "Ada ", "willContinue": true}],
///         "willContinue": true}), None),
///     chunk(json!({"partialArgs": [{"jsonPath": "$.name", "stringValue": "Lovelace"}],
///         "willContinue": true}), None),
///     chunk(json!({}), Some("STOP")),
/// ];
/// let calls = gemini::StreamAssembler::new().assemble(&events).unwrap();
/// assert_eq!(calls[0].id, "gemini-call-0");
/// assert_eq!(calls[0].arguments, json!({"name": "Ada Lovelace"}));
/// ```
#[derive(Debug)]
pub struct StreamAssembler {
    state: StreamState,
    events: Parts,
}

stream_assembler!(Provider::Gemini, "gemini");

/// What the chunks of the first candidate said so far.
#[derive(Debug, Default)]
struct Parts {
    /// How many calls the stream completed so far.
    completed: usize,
    open: Option<Streamed>,
    finish_reason: Option<String>,
}

/// A call whose arguments are being streamed.
#[derive(Debug)]
struct Streamed {
    id: Option<String>,
    name: String,
    args: Map<String, Value>,
    /// The path whose string value the next piece continues.
    continuing: Option<String>,
}

impl Parts {
    fn read(&mut self, state: &StreamState, event: &Value) -> Result<Vec<ToolCall>, StreamError> {
        let Self {
            completed,
            open,
            finish_reason,
        } = self;
        let chunk = state.object(event, "the chunk")?;
        if let Some(error) = chunk.get("error") {
            return Err(state.provider_error(error));
        }
        if let Some(reason) = chunk
            .get("promptFeedback")
            .and_then(|feedback| feedback.get("blockReason"))
            .and_then(Value::as_str)
        {
            return Err(state.error(
                StreamErrorKind::Provider,
                format!("the prompt was blocked (`blockReason` \"{reason}\")"),
            ));
        }
        let Some(candidate) = first_candidate(state, chunk)? else {
            return Ok(Vec::new());
        };
        let mut calls = Vec::new();
        let parts = candidate
            .get("content")
            .and_then(|content| content.get("parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            let part = state.object(part, "a part")?;
            let Some(function_call) = part.get("functionCall") else {
                continue;
            };
            let function_call = state.object(function_call, "a `functionCall`")?;
            if let Some(call) = read_call(state, function_call, open)? {
                calls.push(with_id(call, completed));
            }
        }
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str) {
            *finish_reason = Some(reason.to_owned());
            if let Some(streamed) = open {
                let finished = format!("the candidate finished (`finishReason` \"{reason}\")");
                return Err(cut_inside(state, &finished, streamed));
            }
        }
        Ok(calls)
    }

    fn end(&mut self, state: &StreamState) -> Result<Vec<ToolCall>, StreamError> {
        if let Some(streamed) = &self.open {
            return Err(cut_inside(state, "the stream ended", streamed));
        }
        if self.finish_reason.is_none() {
            return Err(state.error(
                StreamErrorKind::Truncated,
                "the stream ended before a `finishReason`",
            ));
        }
        Ok(Vec::new())
    }
}

/// The error for a stream that stopped inside a streamed call.
fn cut_inside(state: &StreamState, what: &str, streamed: &Streamed) -> StreamError {
    state.error(
        StreamErrorKind::Truncated,
        format!("{what} inside the function call `{}`", streamed.name),
    )
}

/// The first candidate of a chunk (`index` 0), if it has one.
fn first_candidate<'c>(
    state: &StreamState,
    chunk: &'c Map<String, Value>,
) -> Result<Option<&'c Map<String, Value>>, StreamError> {
    let candidates = match chunk.get("candidates") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(candidates)) => candidates,
        Some(_) => {
            return Err(state.error(StreamErrorKind::Malformed, "`candidates` is not an array"));
        }
    };
    for (position, candidate) in candidates.iter().enumerate() {
        let candidate = state.object(candidate, "a candidate")?;
        let index = candidate.get("index").and_then(Value::as_u64);
        if index.unwrap_or(position as u64) == 0 {
            return Ok(Some(candidate));
        }
    }
    Ok(None)
}

/// Reads one `functionCall` part: the call it completes, if any.
fn read_call(
    state: &StreamState,
    function_call: &Map<String, Value>,
    open: &mut Option<Streamed>,
) -> Result<Option<Streamed>, StreamError> {
    let what = "a `functionCall`";
    let name = state
        .optional_str(function_call, "name", what)?
        .filter(|name| !name.is_empty());
    let id = state
        .optional_str(function_call, "id", what)?
        .filter(|id| !id.is_empty());
    let args = match function_call.get("args") {
        None | Some(Value::Null) => None,
        Some(Value::Object(args)) => Some(args),
        Some(_) => {
            return Err(state.error(
                StreamErrorKind::Malformed,
                "the `args` of a `functionCall` are not an object",
            ));
        }
    };
    let mut call = match (name, open.take()) {
        (Some(name), None) => Streamed {
            id: None,
            name: name.to_owned(),
            args: Map::new(),
            continuing: None,
        },
        (Some(name), Some(streamed)) => {
            return Err(state.error(
                StreamErrorKind::Malformed,
                format!(
                    "the function call `{name}` started while `{}` was still streaming its arguments",
                    streamed.name
                ),
            ));
        }
        (None, Some(streamed)) => streamed,
        (None, None) => {
            if args.is_some() || function_call.contains_key("partialArgs") {
                return Err(state.error(
                    StreamErrorKind::Malformed,
                    "arguments for a function call that has no name",
                ));
            }
            // An empty part ending a call that already ended.
            return Ok(None);
        }
    };
    if call.id.is_none() {
        call.id = id.map(str::to_owned);
    }
    if let Some(args) = args {
        call.args.extend(args.clone());
    }
    if let Some(pieces) = function_call.get("partialArgs") {
        let Value::Array(pieces) = pieces else {
            return Err(state.error(StreamErrorKind::Malformed, "`partialArgs` is not an array"));
        };
        for piece in pieces {
            add_piece(state, &mut call, state.object(piece, "a partial argument")?)?;
        }
    }
    if function_call.get("willContinue") == Some(&Value::Bool(true)) {
        *open = Some(call);
        return Ok(None);
    }
    Ok(Some(call))
}

/// Adds one `partialArgs` piece to a streamed call's arguments.
fn add_piece(
    state: &StreamState,
    call: &mut Streamed,
    piece: &Map<String, Value>,
) -> Result<(), StreamError> {
    let malformed = |message: String| state.error(StreamErrorKind::Malformed, message);
    let path = state.required_str(piece, "jsonPath", "a partial argument")?;
    let continues = call.continuing.as_deref() == Some(path);
    let slot = json_path::slot(&mut call.args, path)
        .map_err(|why| malformed(format!("a partial argument of `{}`: {why}", call.name)))?;
    if let Some(text) = piece.get("stringValue") {
        let Value::String(text) = text else {
            return Err(malformed(format!(
                "the `stringValue` at `{path}` is not a string"
            )));
        };
        match slot {
            Value::String(so_far) if continues => so_far.push_str(text),
            _ => *slot = Value::String(text.clone()),
        }
    } else if let Some(value) = ["numberValue", "boolValue"]
        .iter()
        .find_map(|key| piece.get(*key))
    {
        *slot = value.clone();
    } else if piece.contains_key("nullValue") {
        *slot = Value::Null;
    } else {
        return Err(malformed(format!(
            "the partial argument at `{path}` has no value"
        )));
    }
    call.continuing =
        (piece.get("willContinue") == Some(&Value::Bool(true))).then(|| path.to_owned());
    Ok(())
}

/// The tool call of a complete function call, given its synthesized id if it has none.
fn with_id(call: Streamed, completed: &mut usize) -> ToolCall {
    let id = call
        .id
        .unwrap_or_else(|| format!("{SYNTHESIZED_ID_PREFIX}{completed}"));
    *completed += 1;
    ToolCall {
        id,
        name: call.name,
        arguments: Value::Object(call.args),
    }
}
