//! Streamed Messages: `tool_use` content blocks built from `input_json_delta` events.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::call::ToolCall;
use crate::provider::stream::{StreamState, arguments_object, stream_assembler};
use crate::provider::{Provider, StreamError, StreamErrorKind};

/// Assembles the tool calls of a streamed Messages response (`"stream": true`) from its
/// events.
///
/// A `content_block_start` whose block is a `tool_use` opens a call (`id`, `name`); the
/// `content_block_delta` events of its `index` carry its input as `input_json_delta`
/// pieces (`partial_json`), and its `content_block_stop` completes it: that event returns
/// the call, its `input` the object the pieces add up to (the block's own `input`, `{}`, when
/// there are none), as [`parse_tool_calls`](super::parse_tool_calls) reads a `tool_use` block.
///
/// Text, thinking and server tool blocks, `ping`s and event types this version does not
/// know are skipped. An `error` event is an error; so is a stream that ends before
/// `message_stop`, or with a `tool_use` block never stopped (a `max_tokens` stop inside the
/// input), or whose input is not a JSON object.
///
/// ```
/// use lazytool_runtime::provider::{AssembleCalls, anthropic};
/// use serde_json::json;
///
/// let mut assembler = anthropic::StreamAssembler::new();
/// assembler.push(&json!({"type": "content_block_start", "index": 0,
///     "content_block": {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}}})).unwrap();
/// let calls = assembler.push(&json!({"type": "content_block_stop", "index": 0})).unwrap();
/// assert_eq!(calls[0].arguments, json!({}));
/// assert!(assembler.push(&json!({"type": "message_stop"})).unwrap().is_empty());
/// assert!(assembler.finish().unwrap().is_empty());
/// ```
#[derive(Debug)]
pub struct StreamAssembler {
    state: StreamState,
    events: Blocks,
}

stream_assembler!(Provider::Anthropic, "anthropic");

/// What the events said so far.
#[derive(Debug, Default)]
struct Blocks {
    /// The content blocks started and not stopped, by index; `None` for those that are no
    /// `tool_use`.
    open: BTreeMap<u64, Option<ToolUse>>,
    stop_reason: Option<String>,
    stopped: bool,
}

/// A `tool_use` block being streamed.
#[derive(Debug)]
struct ToolUse {
    id: String,
    name: String,
    input: Map<String, Value>,
    partial_json: String,
}

impl Blocks {
    fn read(&mut self, state: &StreamState, event: &Value) -> Result<Vec<ToolCall>, StreamError> {
        let (kind, event) = state.typed(event)?;
        match kind {
            "content_block_start" => {
                let index = state.index(event, "index", "`content_block_start`")?;
                let block = event.get("content_block").unwrap_or(&Value::Null);
                let block = state.object(block, "the `content_block` of `content_block_start`")?;
                let tool_use = match block.get("type").and_then(Value::as_str) {
                    Some("tool_use") => Some(tool_use(state, block)?),
                    _ => None,
                };
                if self.open.insert(index, tool_use).is_some() {
                    return Err(state.error(
                        StreamErrorKind::Malformed,
                        format!("content block {index} started twice"),
                    ));
                }
            }
            "content_block_delta" => {
                let index = state.index(event, "index", "`content_block_delta`")?;
                let Some(block) = self.open.get_mut(&index) else {
                    return Err(state.error(
                        StreamErrorKind::Malformed,
                        format!("a delta for content block {index}, which is not open"),
                    ));
                };
                let delta = event.get("delta").unwrap_or(&Value::Null);
                let delta = state.object(delta, "the `delta` of `content_block_delta`")?;
                if let Some(tool_use) = block
                    && delta.get("type").and_then(Value::as_str) == Some("input_json_delta")
                {
                    let piece =
                        state.optional_str(delta, "partial_json", "an `input_json_delta`")?;
                    tool_use.partial_json.push_str(piece.unwrap_or_default());
                }
            }
            "content_block_stop" => {
                let index = state.index(event, "index", "`content_block_stop`")?;
                return match self.open.remove(&index) {
                    Some(Some(tool_use)) => Ok(vec![complete(state, tool_use)?]),
                    Some(None) => Ok(Vec::new()),
                    None => Err(state.error(
                        StreamErrorKind::Malformed,
                        format!("content block {index} stopped but never started"),
                    )),
                };
            }
            "message_delta" => {
                let delta = event.get("delta");
                if let Some(reason) = delta
                    .and_then(|delta| delta.get("stop_reason"))
                    .and_then(Value::as_str)
                {
                    self.stop_reason = Some(reason.to_owned());
                }
            }
            "message_stop" => {
                self.stopped = true;
                self.check_closed(state)?;
            }
            "error" => {
                return Err(state.provider_error(event.get("error").unwrap_or(&Value::Null)));
            }
            _ => {}
        }
        Ok(Vec::new())
    }

    fn end(&mut self, state: &StreamState) -> Result<Vec<ToolCall>, StreamError> {
        if !self.stopped {
            let open = self.open_calls();
            let open = if open.is_empty() {
                String::new()
            } else {
                format!(" (inside the tool_use {open})")
            };
            return Err(state.error(
                StreamErrorKind::Truncated,
                format!("the stream ended before `message_stop`{open}"),
            ));
        }
        self.check_closed(state)?;
        Ok(Vec::new())
    }

    /// The `tool_use` blocks still open, as `name (id)`.
    fn open_calls(&self) -> String {
        let names: Vec<String> = (self.open.values().flatten())
            .map(|tool_use| format!("{} ({})", tool_use.name, tool_use.id))
            .collect();
        names.join(", ")
    }

    /// An error if a `tool_use` block is still open when the message stopped.
    fn check_closed(&self, state: &StreamState) -> Result<(), StreamError> {
        let names = self.open_calls();
        if names.is_empty() {
            return Ok(());
        }
        let reason = (self.stop_reason.as_ref()).map_or_else(String::new, |reason| {
            format!(" (`stop_reason` \"{reason}\")")
        });
        Err(state.error(
            StreamErrorKind::Truncated,
            format!("the message stopped{reason} inside the tool_use {names}"),
        ))
    }
}

fn tool_use(state: &StreamState, block: &Map<String, Value>) -> Result<ToolUse, StreamError> {
    let what = "a `tool_use` block";
    let input = match block.get("input") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(input)) => input.clone(),
        Some(_) => {
            return Err(state.error(
                StreamErrorKind::Malformed,
                "the `input` of a `tool_use` block is not an object",
            ));
        }
    };
    Ok(ToolUse {
        id: state.required_str(block, "id", what)?.to_owned(),
        name: state.required_str(block, "name", what)?.to_owned(),
        input,
        partial_json: String::new(),
    })
}

fn complete(state: &StreamState, tool_use: ToolUse) -> Result<ToolCall, StreamError> {
    let input = if tool_use.partial_json.trim().is_empty() {
        tool_use.input
    } else {
        arguments_object(state, &tool_use.name, &tool_use.partial_json)?
    };
    Ok(ToolCall {
        id: tool_use.id,
        name: tool_use.name,
        arguments: Value::Object(input),
    })
}
