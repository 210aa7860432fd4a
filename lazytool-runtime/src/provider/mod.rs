//! LLM wire formats: how tool definitions are sent to each model API, how the tool calls in
//! its responses are read back, how tool results are returned to it, and how its message
//! history is read by [`Session::from_history`](crate::Session::from_history).
//!
//! One module per format, each owning all of it, with free functions:
//!
//! | format | tools | calls | results (`&ToolCall`, `&ToolResult`) | a turn's results |
//! |---|---|---|---|---|
//! | [`openai_chat`] | [`render_tools`](openai_chat::render_tools) | [`parse_tool_calls`](openai_chat::parse_tool_calls) | [`tool_result_message`](openai_chat::tool_result_message) | [`tool_results`](openai_chat::tool_results) |
//! | [`openai_responses`] | [`render_tools`](openai_responses::render_tools) | [`parse_tool_calls`](openai_responses::parse_tool_calls) | [`tool_result_item`](openai_responses::tool_result_item) | [`tool_results`](openai_responses::tool_results) |
//! | [`anthropic`] | [`render_tools`](anthropic::render_tools) | [`parse_tool_calls`](anthropic::parse_tool_calls) | [`tool_result_block`](anthropic::tool_result_block) | [`tool_results`](anthropic::tool_results) |
//! | [`gemini`] | [`render_tools`](gemini::render_tools) | [`parse_tool_calls`](gemini::parse_tool_calls) | [`function_response_part`](gemini::function_response_part) | [`tool_results`](gemini::tool_results) |
//! | [`tanstack`] | (TanStack AI renders for its adapters) | (idem) | [`tool_result_message`](tanstack::tool_result_message) | [`tool_results`](tanstack::tool_results) |
//!
//! A turn's results are the messages (or items, or contents) to append to the history, in
//! call order. Schemas are sent in each API's dialect (see [`schema`](crate::schema)).
//!
//! Streamed responses: each of the four provider modules has a `StreamAssembler`
//! ([`AssembleCalls`]) that turns the stream's events into complete calls as they arrive,
//! with a [`StreamError`] for a stream cut off or malformed. A turn in one call: each has
//! `run_turn(&session, calls, concurrency)` (and `run_response` for a whole response), which
//! runs the calls through [`Session::call_turn`](crate::Session::call_turn) and returns a
//! [`Turn`]: the calls, their results, and the result messages in the provider's shape.
//!
//! Adding a format is one new module here and its line in `FORMATS`, the history readers.

use std::fmt;

use serde_json::{Map, Value};

pub mod anthropic;
mod content;
pub mod gemini;
mod history;
pub mod openai_chat;
pub mod openai_responses;
mod stream;
pub mod tanstack;
#[cfg(test)]
pub(crate) mod tests;
mod turn;

pub use stream::{AssembleCalls, StreamError, StreamErrorKind};
pub use turn::Turn;

use history::HistoryScan;

/// What reads one format's items of a history message into a [`HistoryScan`].
type HistoryReader = for<'m> fn(&'m Map<String, Value>, &mut HistoryScan<'m>);

/// The history readers of every format, each run on every message.
const FORMATS: &[HistoryReader] = &[
    openai_chat::read_history,
    tanstack::read_history,
    anthropic::read_history,
    openai_responses::read_history,
    gemini::read_history,
];

/// Why a response could not be parsed.
///
/// ```
/// use lazytool_runtime::provider::{Provider, openai_chat};
/// use serde_json::json;
///
/// let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
///     {"id": "call_1", "type": "function", "function": {"name": "add"}}
/// ]}}]});
/// let error = openai_chat::parse_tool_calls(&response).unwrap_err();
/// assert_eq!(error.provider(), Provider::OpenAiChat);
/// assert_eq!(error.path(), "/choices/0/message/tool_calls/0/function/arguments");
/// assert_eq!(error.expected(), "the arguments as a JSON-encoded string");
/// assert_eq!(error.to_string(), "invalid OpenAI Chat Completions response: expected the arguments \
///     as a JSON-encoded string at /choices/0/message/tool_calls/0/function/arguments");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    provider: Provider,
    path: String,
    expected: String,
}

impl ParseError {
    pub(crate) fn new(provider: Provider, path: &str, expected: impl Into<String>) -> Self {
        ParseError {
            provider,
            path: path.to_owned(),
            expected: expected.into(),
        }
    }

    /// The provider whose response was being parsed.
    ///
    /// ```
    /// use lazytool_runtime::provider::{Provider, anthropic};
    /// use serde_json::json;
    ///
    /// let error = anthropic::parse_tool_calls(&json!("not a message")).unwrap_err();
    /// assert_eq!(error.provider(), Provider::Anthropic);
    /// ```
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// Where in the response the problem is, as a JSON pointer (`""` is the whole response).
    ///
    /// ```
    /// use lazytool_runtime::provider::gemini;
    /// use serde_json::json;
    ///
    /// let response = json!({"candidates": [{"content": {"parts": [{"functionCall": {"name": ""}}]}}]});
    /// assert_eq!(gemini::parse_tool_calls(&response).unwrap_err().path(), "/candidates/0/content/parts/0/functionCall/name");
    /// ```
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was expected there.
    ///
    /// ```
    /// use lazytool_runtime::provider::openai_responses;
    /// use serde_json::json;
    ///
    /// let error = openai_responses::parse_tool_calls(&json!({"output": "none"})).unwrap_err();
    /// assert_eq!(error.expected(), "the response's `output` array");
    /// ```
    pub fn expected(&self) -> &str {
        &self.expected
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "/"
        } else {
            self.path.as_str()
        };
        write!(
            f,
            "invalid {} response: expected {} at {}",
            self.provider, self.expected, path
        )
    }
}

impl std::error::Error for ParseError {}

/// The providers.
///
/// ```
/// use lazytool_runtime::provider::{Provider, anthropic};
/// use serde_json::json;
///
/// let error = anthropic::parse_tool_calls(&json!(42)).unwrap_err();
/// assert_eq!(error.provider(), Provider::Anthropic);
/// assert_eq!(Provider::Anthropic.to_string(), "Anthropic Messages");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions (`/v1/chat/completions`).
    OpenAiChat,
    /// OpenAI Responses (`/v1/responses`).
    OpenAiResponses,
    /// Anthropic Messages (`/v1/messages`).
    Anthropic,
    /// Google Gemini `generateContent`.
    Gemini,
}

impl Provider {
    /// A short snake_case label: `openai_chat`, `openai_responses`, `anthropic`, `gemini`.
    ///
    /// ```
    /// use lazytool_runtime::provider::Provider;
    ///
    /// assert_eq!(Provider::OpenAiResponses.as_str(), "openai_responses");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai_chat",
            Provider::OpenAiResponses => "openai_responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Provider::OpenAiChat => "OpenAI Chat Completions",
            Provider::OpenAiResponses => "OpenAI Responses",
            Provider::Anthropic => "Anthropic Messages",
            Provider::Gemini => "Gemini generateContent",
        })
    }
}

/// Schema losses as one line, for events.
pub(crate) fn losses_text(losses: &[crate::schema::dialect::SchemaLoss]) -> String {
    let lines: Vec<String> = losses.iter().map(ToString::to_string).collect();
    lines.join("; ")
}

/// `base` extended by one JSON pointer segment.
pub(crate) fn join(base: &str, segment: impl fmt::Display) -> String {
    let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
    format!("{base}/{segment}")
}

/// Reading helpers shared by the parsers: each failure names the provider and the path.
pub(crate) struct Reader {
    pub(crate) provider: Provider,
}

impl Reader {
    pub(crate) fn error(&self, path: &str, expected: impl Into<String>) -> ParseError {
        ParseError::new(self.provider, path, expected)
    }

    pub(crate) fn object<'v>(
        &self,
        value: &'v Value,
        path: &str,
        what: &str,
    ) -> Result<&'v Map<String, Value>, ParseError> {
        value
            .as_object()
            .ok_or_else(|| self.error(path, format!("{what} (a JSON object)")))
    }

    /// The string member `key` of `object` at `path`; missing or non-string is an error.
    /// The string member `key` of `object`, which must not be empty (it names a tool or a
    /// call: an empty one could not be answered or would match nothing).
    pub(crate) fn non_empty_string(
        &self,
        object: &Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Result<String, ParseError> {
        match object.get(key) {
            Some(Value::String(text)) if !text.is_empty() => Ok(text.clone()),
            _ => Err(self.error(&join(path, key), "a non-empty string")),
        }
    }

    /// The array member `key` of `object`: `None` when missing or null.
    pub(crate) fn optional_array<'v>(
        &self,
        object: &'v Map<String, Value>,
        path: &str,
        key: &str,
    ) -> Result<Option<&'v Vec<Value>>, ParseError> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(_) => Err(self.error(&join(path, key), "an array or null")),
        }
    }
}

/// The root of a tool's schema as every provider wants it: an object schema. A schema map
/// without `type` gets `"type": "object"`; anything that is not a map becomes an empty object
/// schema.
pub(crate) fn object_root(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut map = map.clone();
            if !map.contains_key("type") {
                map.insert("type".to_owned(), Value::String("object".to_owned()));
            }
            Value::Object(map)
        }
        _ => serde_json::json!({"type": "object", "properties": {}}),
    }
}
