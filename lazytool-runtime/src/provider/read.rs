//! Reading a provider's JSON: [`Reader`]'s lookups, each failure a [`ParseError`] naming the
//! [`Provider`] and the JSON pointer ([`join`]) where it was found. Every format's parser
//! uses these; none defines its own.

use std::fmt;

use serde_json::{Map, Value};

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
