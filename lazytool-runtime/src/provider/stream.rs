//! Streamed responses: the tool calls of a stream, assembled from its events as they arrive.
//!
//! Each provider module has a `StreamAssembler` fed with the stream's events, each the
//! parsed JSON of one server-sent event's `data:`. [`push`](AssembleCalls::push) returns the
//! calls an event completed, in stream order; [`finish`](AssembleCalls::finish), at the end
//! of the stream, checks that nothing was cut off. Any split of a valid stream gives the same
//! calls as the provider's complete response read by its `parse_tool_calls`.

use std::fmt;

use serde_json::{Map, Value};

use super::read::Provider;
use crate::call::ToolCall;

/// What turns one provider's stream events into complete tool calls; implemented by each
/// provider module's `StreamAssembler`.
///
/// ```
/// use lazytool_runtime::provider::AssembleCalls;
/// use lazytool_runtime::provider::anthropic;
/// use serde_json::json;
///
/// let events = [
///     json!({"type": "message_start", "message": {"id": "msg_1", "content": []}}),
///     json!({"type": "content_block_start", "index": 0,
///            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {}}}),
///     json!({"type": "content_block_delta", "index": 0,
///            "delta": {"type": "input_json_delta", "partial_json": "{\"a\": 2, "}}),
///     json!({"type": "content_block_delta", "index": 0,
///            "delta": {"type": "input_json_delta", "partial_json": "\"b\": 3}"}}),
///     json!({"type": "content_block_stop", "index": 0}),
///     json!({"type": "message_stop"}),
/// ];
/// let mut assembler = anthropic::StreamAssembler::new();
/// let mut calls = Vec::new();
/// for event in &events {
///     calls.extend(assembler.push(event).unwrap());
/// }
/// calls.extend(assembler.finish().unwrap());
/// assert_eq!(calls[0].arguments, json!({"a": 2, "b": 3}));
///
/// // Cut off before the end: an error, never a half call.
/// let mut assembler = anthropic::StreamAssembler::new();
/// let error = assembler.assemble(&events[..4]).unwrap_err();
/// assert_eq!(error.kind(), lazytool_runtime::provider::StreamErrorKind::Truncated);
/// ```
pub trait AssembleCalls {
    /// Reads the next event; returns the calls it completed, in stream order. After an error
    /// the stream is over: every later `push` or `finish` returns that error again.
    ///
    /// ```
    /// use lazytool_runtime::provider::{AssembleCalls, openai_chat};
    /// use serde_json::json;
    ///
    /// let chunk = |delta| json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
    ///     "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
    /// let mut assembler = openai_chat::StreamAssembler::new();
    /// let first = json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
    ///     "function": {"name": "add", "arguments": "{\"a\": 2"}}]});
    /// assert!(assembler.push(&chunk(first)).unwrap().is_empty()); // the call is still open
    /// let rest = json!({"tool_calls": [{"index": 0, "function": {"arguments": ", \"b\": 3}"}}]});
    /// assembler.push(&chunk(rest)).unwrap();
    /// let done = json!({"id": "chatcmpl-1", "object": "chat.completion.chunk",
    ///     "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    /// let calls = assembler.push(&done).unwrap(); // the finish reason completes it
    /// assert_eq!((calls[0].name.as_str(), &calls[0].arguments), ("add", &json!("{\"a\": 2, \"b\": 3}")));
    /// ```
    fn push(&mut self, event: &Value) -> Result<Vec<ToolCall>, StreamError>;

    /// Ends the stream: an error if it was cut off (no end event, a call still open), else
    /// the calls the end completed (none for most providers).
    ///
    /// ```
    /// use lazytool_runtime::provider::{AssembleCalls, StreamErrorKind, anthropic};
    /// use serde_json::json;
    ///
    /// let mut assembler = anthropic::StreamAssembler::new();
    /// assembler.push(&json!({"type": "message_start", "message": {"id": "msg_1", "content": []}})).unwrap();
    /// assembler.push(&json!({"type": "message_stop"})).unwrap();
    /// assert!(assembler.finish().unwrap().is_empty()); // a whole stream without calls
    ///
    /// let mut cut = anthropic::StreamAssembler::new();
    /// cut.push(&json!({"type": "message_start", "message": {"id": "msg_2", "content": []}})).unwrap();
    /// assert_eq!(cut.finish().unwrap_err().kind(), StreamErrorKind::Truncated);
    /// ```
    fn finish(&mut self) -> Result<Vec<ToolCall>, StreamError>;

    /// Reads a whole stream: every call it holds, in stream order, or the first error.
    ///
    /// ```
    /// use lazytool_runtime::provider::{AssembleCalls, gemini};
    /// use serde_json::json;
    ///
    /// // Gemini streams whole calls, one chunk of the response at a time.
    /// let events = [
    ///     json!({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "now", "args": {}}}]}}]}),
    ///     json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP"}]}),
    /// ];
    /// let calls = gemini::StreamAssembler::new().assemble(&events).unwrap();
    /// assert_eq!(calls[0].name, "now");
    /// ```
    fn assemble<'e>(
        &mut self,
        events: impl IntoIterator<Item = &'e Value>,
    ) -> Result<Vec<ToolCall>, StreamError>
    where
        Self: Sized,
    {
        let mut calls = Vec::new();
        for event in events {
            calls.extend(self.push(event)?);
        }
        calls.extend(self.finish()?);
        Ok(calls)
    }
}

/// What went wrong in a stream.
///
/// ```
/// use lazytool_runtime::provider::{AssembleCalls, StreamErrorKind, anthropic};
/// use serde_json::json;
///
/// let mut assembler = anthropic::StreamAssembler::new();
/// let error = assembler.push(&json!({"type": "error",
///     "error": {"type": "overloaded_error", "message": "Overloaded"}})).unwrap_err();
/// assert_eq!(error.kind(), StreamErrorKind::Provider);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StreamErrorKind {
    /// An event does not have the shape the provider's reference gives it.
    Malformed,
    /// The stream ended (or stopped, at a token limit) before a call was complete.
    Truncated,
    /// The provider reported an error inside the stream.
    Provider,
    /// A call's arguments, once complete, are not a JSON object.
    InvalidArguments,
}

/// Why a stream could not be assembled: which provider, which event (counted from 1), what.
///
/// ```
/// use lazytool_runtime::provider::{AssembleCalls, Provider, StreamErrorKind, gemini};
/// use serde_json::json;
///
/// let mut assembler = gemini::StreamAssembler::new();
/// let error = assembler
///     .push(&json!({"error": {"code": 503, "message": "The model is overloaded."}}))
///     .unwrap_err();
/// assert_eq!((error.provider(), error.kind(), error.event()), (Provider::Gemini, StreamErrorKind::Provider, Some(1)));
/// assert_eq!(
///     error.to_string(),
///     "Gemini generateContent stream, event 1: the provider reported an error: The model is overloaded."
/// );
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct StreamError {
    provider: Provider,
    kind: StreamErrorKind,
    event: Option<usize>,
    message: String,
}

impl StreamError {
    /// The provider whose stream it is.
    ///
    /// ```
    /// use lazytool_runtime::provider::{AssembleCalls, Provider, StreamErrorKind, gemini};
    /// use serde_json::json;
    ///
    /// let mut assembler = gemini::StreamAssembler::new();
    /// let error = assembler.push(&json!({"error": {"code": 503, "message": "The model is overloaded."}})).unwrap_err();
    /// assert_eq!(error.provider(), Provider::Gemini);
    /// ```
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// What kind of problem it is.
    ///
    /// ```
    /// use lazytool_runtime::provider::{AssembleCalls, Provider, StreamErrorKind, gemini};
    /// use serde_json::json;
    ///
    /// let mut assembler = gemini::StreamAssembler::new();
    /// let error = assembler.push(&json!({"error": {"code": 503, "message": "The model is overloaded."}})).unwrap_err();
    /// assert_eq!(error.kind(), StreamErrorKind::Provider);
    /// ```
    pub fn kind(&self) -> StreamErrorKind {
        self.kind
    }

    /// The event at fault, counted from 1; `None` when the end of the stream is.
    ///
    /// ```
    /// use lazytool_runtime::provider::{AssembleCalls, Provider, StreamErrorKind, gemini};
    /// use serde_json::json;
    ///
    /// let mut assembler = gemini::StreamAssembler::new();
    /// let error = assembler.push(&json!({"error": {"code": 503, "message": "The model is overloaded."}})).unwrap_err();
    /// assert_eq!(error.event(), Some(1));
    /// let mut cut = gemini::StreamAssembler::new();
    /// assert_eq!(cut.finish().unwrap_err().event(), None); // the end of the stream is at fault
    /// ```
    pub fn event(&self) -> Option<usize> {
        self.event
    }

    /// What is wrong, without the provider and event.
    ///
    /// ```
    /// use lazytool_runtime::provider::{AssembleCalls, Provider, StreamErrorKind, gemini};
    /// use serde_json::json;
    ///
    /// let mut assembler = gemini::StreamAssembler::new();
    /// let error = assembler.push(&json!({"error": {"code": 503, "message": "The model is overloaded."}})).unwrap_err();
    /// assert_eq!(error.message(), "the provider reported an error: The model is overloaded.");
    /// ```
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.event {
            Some(event) => write!(f, "{} stream, event {event}: ", self.provider)?,
            None => write!(f, "{} stream, at its end: ", self.provider)?,
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for StreamError {}

/// What every assembler shares: the provider, the count of events, the error that ended the
/// stream.
#[derive(Debug)]
pub(crate) struct StreamState {
    provider: Provider,
    events: usize,
    finished: bool,
    failed: Option<StreamError>,
}

impl StreamState {
    pub(crate) fn new(provider: Provider) -> Self {
        StreamState {
            provider,
            events: 0,
            finished: false,
            failed: None,
        }
    }

    /// An error at the current event (or at the end, once [`end`](Self::end) was called).
    pub(crate) fn error(&self, kind: StreamErrorKind, message: impl Into<String>) -> StreamError {
        StreamError {
            provider: self.provider,
            kind,
            event: (!self.finished).then_some(self.events),
            message: message.into(),
        }
    }

    /// Runs `read` on the next event; an earlier error, or an event after the end, fails.
    pub(crate) fn event<T>(
        &mut self,
        read: impl FnOnce(&Self) -> Result<T, StreamError>,
    ) -> Result<T, StreamError> {
        self.guard()?;
        self.events += 1;
        read(self).map_err(|error| self.fail(error))
    }

    /// Runs `check` at the end of the stream, once.
    pub(crate) fn end<T>(
        &mut self,
        check: impl FnOnce(&Self) -> Result<T, StreamError>,
    ) -> Result<T, StreamError> {
        self.guard()?;
        self.finished = true;
        check(self).map_err(|error| self.fail(error))
    }

    fn guard(&self) -> Result<(), StreamError> {
        if let Some(error) = &self.failed {
            return Err(error.clone());
        }
        if self.finished {
            return Err(self.error(
                StreamErrorKind::Malformed,
                "the stream was already finished",
            ));
        }
        Ok(())
    }

    fn fail(&mut self, error: StreamError) -> StreamError {
        self.failed = Some(error.clone());
        error
    }

    /// The event as an object with a string `type` (Anthropic, OpenAI Responses).
    pub(crate) fn typed<'v>(
        &self,
        event: &'v Value,
    ) -> Result<(&'v str, &'v Map<String, Value>), StreamError> {
        let object = self.object(event, "the event")?;
        match object.get("type") {
            Some(Value::String(kind)) => Ok((kind, object)),
            _ => Err(self.error(StreamErrorKind::Malformed, "the event has no string `type`")),
        }
    }

    pub(crate) fn object<'v>(
        &self,
        value: &'v Value,
        what: &str,
    ) -> Result<&'v Map<String, Value>, StreamError> {
        value.as_object().ok_or_else(|| {
            self.error(
                StreamErrorKind::Malformed,
                format!("{what} is not a JSON object"),
            )
        })
    }

    /// The string member `key` of `object`: `None` when missing or null.
    pub(crate) fn optional_str<'v>(
        &self,
        object: &'v Map<String, Value>,
        key: &str,
        what: &str,
    ) -> Result<Option<&'v str>, StreamError> {
        match object.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(self.error(
                StreamErrorKind::Malformed,
                format!("`{key}` of {what} is not a string"),
            )),
        }
    }

    /// The non-empty string member `key` of `object`.
    pub(crate) fn required_str<'v>(
        &self,
        object: &'v Map<String, Value>,
        key: &str,
        what: &str,
    ) -> Result<&'v str, StreamError> {
        match self.optional_str(object, key, what)? {
            Some(text) if !text.is_empty() => Ok(text),
            _ => Err(self.error(StreamErrorKind::Malformed, format!("{what} has no `{key}`"))),
        }
    }

    /// The unsigned integer member `key` of `object`.
    pub(crate) fn index(
        &self,
        object: &Map<String, Value>,
        key: &str,
        what: &str,
    ) -> Result<u64, StreamError> {
        object.get(key).and_then(Value::as_u64).ok_or_else(|| {
            self.error(
                StreamErrorKind::Malformed,
                format!("{what} has no integer `{key}`"),
            )
        })
    }

    /// The message of an error the provider sent in the stream: `{"message"}` or
    /// `{"error": {"message"}}`, else the whole error as JSON.
    pub(crate) fn provider_error(&self, error: &Value) -> StreamError {
        let message = ["/message", "/error/message"]
            .iter()
            .find_map(|pointer| error.pointer(pointer).and_then(Value::as_str))
            .map_or_else(|| error.to_string(), str::to_owned);
        self.error(
            StreamErrorKind::Provider,
            format!("the provider reported an error: {message}"),
        )
    }
}

/// The arguments of a complete call, as text: they must be a JSON object (no text at all
/// counting as `{}`). Returns the object.
pub(crate) fn arguments_object(
    state: &StreamState,
    name: &str,
    text: &str,
) -> Result<Map<String, Value>, StreamError> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(state.error(
            StreamErrorKind::InvalidArguments,
            format!("the arguments of `{name}` are not a JSON object: {other}"),
        )),
        Err(error) => Err(state.error(
            StreamErrorKind::InvalidArguments,
            format!(
                "the arguments of `{name}` are not valid JSON ({error}): {}",
                excerpt(text)
            ),
        )),
    }
}

/// The start of a text, for error messages.
fn excerpt(text: &str) -> String {
    const MAX: usize = 200;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.to_owned(),
    }
}

/// Implements `Default`, `new` and [`AssembleCalls`] for a provider module's
/// `StreamAssembler { state: StreamState, events }`, whose `events` (a `Default` type) reads
/// each event (`read(&mut self, &StreamState, &Value)`) and the end of the stream
/// (`end(&mut self, &StreamState)`); [`StreamState`] does the rest.
macro_rules! stream_assembler {
    ($provider:expr, $module:literal) => {
        impl Default for StreamAssembler {
            fn default() -> Self {
                Self::new()
            }
        }

        impl StreamAssembler {
            /// An assembler for a new stream.
            ///
            #[doc = concat!(
                "```\n",
                "use lazytool_runtime::provider::{AssembleCalls, StreamErrorKind, ", $module, "::StreamAssembler};\n\n",
                "let mut assembler = StreamAssembler::new();\n",
                "// A stream that ends before its final event was cut short.\n",
                "let error = assembler.finish().unwrap_err();\n",
                "assert_eq!(error.kind(), StreamErrorKind::Truncated);\n",
                "```"
            )]
            pub fn new() -> Self {
                StreamAssembler {
                    state: crate::provider::stream::StreamState::new($provider),
                    events: Default::default(),
                }
            }
        }

        impl crate::provider::AssembleCalls for StreamAssembler {
            fn push(
                &mut self,
                event: &serde_json::Value,
            ) -> Result<Vec<crate::ToolCall>, crate::provider::StreamError> {
                let events = &mut self.events;
                self.state.event(|state| events.read(state, event))
            }

            fn finish(&mut self) -> Result<Vec<crate::ToolCall>, crate::provider::StreamError> {
                let events = &mut self.events;
                self.state.end(|state| events.end(state))
            }
        }
    };
}

pub(crate) use stream_assembler;
