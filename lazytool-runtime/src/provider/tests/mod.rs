//! The provider formats' unit tests, one file per provider.

mod anthropic;
mod gemini;
mod openai_chat;
// Its tests register dynamic tools.
#[cfg(feature = "json-schema")]
mod openai_responses;

use serde_json::{Value, json};

use super::read::join;
use super::render::object_root;
use super::*;
use crate::ToolDefinition;

/// A call of `name` with the id `id`, for the result builders.
pub(super) fn call(id: &str, name: &str) -> crate::ToolCall {
    crate::ToolCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments: json!({}),
    }
}

/// A tool for unit tests.
pub(super) fn tool(name: &str, schema: Value) -> ToolDefinition {
    ToolDefinition {
        name: name.to_owned(),
        description: format!("The {name} tool."),
        input_schema: schema,
    }
}

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
