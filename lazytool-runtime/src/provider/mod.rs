//! Provider wire formats: how tool definitions are sent to each model API, how the tool calls
//! in its responses are read back, and how tool results are returned to it.
//!
//! One module per API, each with free functions:
//!
//! | provider | tools | calls | results |
//! |---|---|---|---|
//! | [`openai_chat`] | [`openai_chat::render_tools`] | [`openai_chat::parse_tool_calls`] | [`openai_chat::tool_result_message`] |
//! | [`openai_responses`] | [`openai_responses::render_tools`] | [`openai_responses::parse_tool_calls`] | [`openai_responses::tool_result_item`] |
//! | [`anthropic`] | [`anthropic::render_tools`] | [`anthropic::parse_tool_calls`] | [`anthropic::tool_results_message`] |
//! | [`gemini`] | [`gemini::render_tools`] | [`gemini::parse_tool_calls`] | [`gemini::tool_results_content`] |
//!
//! [`schema::dialect`](crate::schema::dialect) rewrites the canonical JSON Schema of a tool into
//! the subsets that OpenAI strict mode and Gemini's OpenAPI `parameters` field accept.

use std::fmt;

use serde_json::{Map, Value};

pub mod anthropic;
pub mod gemini;
pub mod openai_chat;
pub mod openai_responses;

/// A tool call the model asked for, parsed out of a provider response.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    /// The id the result must be sent back under (for Gemini calls that carry no id, a
    /// synthesized `gemini-call-{index}`).
    pub id: String,
    /// The name of the tool to call.
    pub name: String,
    /// The arguments as the provider sent them: a JSON object, or, for OpenAI (whose
    /// arguments are a JSON-encoded string), that string as-is.
    pub arguments: Value,
}

/// Why a response could not be parsed.
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
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// Where in the response the problem is, as a JSON pointer (`""` is the whole response).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// What was expected there.
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

#[cfg(test)]
pub(crate) mod test_support {
    //! The shared test catalog: the GitHub MCP server's tools.

    use crate::ToolDefinition;

    /// Where the catalog lives (`{"tools":[{"name","description","inputSchema"}]}`).
    pub(crate) const CATALOG: &str =
        concat!(env!("CARGO_MANIFEST_DIR"), "/../data/github-mcp-tools.json");

    /// A tool for unit tests.
    pub(crate) fn tool(name: &str, schema: serde_json::Value) -> ToolDefinition {
        ToolDefinition {
            name: name.to_owned(),
            description: format!("The {name} tool."),
            input_schema: schema,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    #[test]
    fn parse_error_names_provider_path_and_expectation() {
        let error = ParseError::new(Provider::Anthropic, "/content/1/id", "a string");
        assert_eq!(
            error.to_string(),
            "invalid Anthropic Messages response: expected a string at /content/1/id"
        );
        assert_eq!(error.path(), "/content/1/id");
        assert_eq!(error.provider(), Provider::Anthropic);
        let root = ParseError::new(Provider::Gemini, "", "a JSON object");
        assert!(root.to_string().ends_with("at /"), "{root}");
    }

    #[test]
    fn join_escapes_pointer_segments() {
        assert_eq!(join("", "a/b~c"), "/a~1b~0c");
        assert_eq!(join("/x", 3), "/x/3");
    }

    #[test]
    fn object_root_adds_missing_type() {
        assert_eq!(
            object_root(&json!({"properties": {}})),
            json!({"properties": {}, "type": "object"})
        );
        assert_eq!(
            object_root(&Value::Null),
            json!({"type": "object", "properties": {}})
        );
    }
}
