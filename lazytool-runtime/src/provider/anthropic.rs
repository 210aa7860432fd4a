//! Anthropic Messages (`POST /v1/messages`): the request's `tools`, the `tool_use` blocks of
//! a response, and `tool_result` blocks in a user message.

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

use super::{ParseError, Provider, Reader, ToolCall, join, object_root};
use crate::discovery;
use crate::{Session, ToolDefinition, ToolResult};

/// The array for the request's `tools` field: `[{"name", "description", "input_schema"}]`,
/// the schema sent as it is (Anthropic takes JSON Schema).
pub fn render_tools<D: Borrow<ToolDefinition>>(tools: &[D]) -> Value {
    let rendered = tools
        .iter()
        .map(Borrow::borrow)
        .map(|tool: &ToolDefinition| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": object_root(&tool.input_schema),
            })
        })
        .collect();
    Value::Array(rendered)
}

/// The `tools` array for Anthropic's native deferred loading: eager tools and the discovery
/// tool as usual, and every lazy tool with its full definition and `"defer_loading": true`.
/// The array is the same on every request, so the prompt cache holds; the model loads a
/// deferred tool by calling the discovery tool, whose result goes back as `tool_reference`
/// blocks ([`tool_reference_block`]), and the API expands them into the tools' definitions.
/// Requests need the beta header `anthropic-beta: advanced-tool-use-2025-11-20`.
pub fn render_tools_deferred(session: &Session) -> Value {
    let rendered = session
        .deferrable_tools()
        .into_iter()
        .map(|(tool, deferred)| {
            let mut rendered = json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": object_root(&tool.input_schema),
            });
            if deferred {
                rendered["defer_loading"] = Value::Bool(true);
            }
            rendered
        })
        .collect();
    Value::Array(rendered)
}

/// The `tool_result` block answering a discovery call in deferred-loading mode: one
/// `{"type": "tool_reference", "tool_name"}` block per tool found, and the discovery's
/// errors as text. Any other result (a failed discovery) is sent as [`tool_result_block`]
/// sends it.
pub fn tool_reference_block(call_id: &str, result: &ToolResult) -> Value {
    if result.is_error() || !result.content().get("tools").is_some_and(Value::is_array) {
        return tool_result_block(call_id, result);
    }
    let mut content: Vec<Value> = discovery::found_names(result.content())
        .into_iter()
        .map(|name| json!({"type": "tool_reference", "tool_name": name}))
        .collect();
    if let Some(Value::Array(errors)) = result.content().get("errors") {
        let text: Vec<&str> = errors.iter().filter_map(Value::as_str).collect();
        content.push(json!({"type": "text", "text": text.join("\n")}));
    }
    json!({"type": "tool_result", "tool_use_id": call_id, "content": content})
}

/// The tool calls of a Messages API response (its `content` blocks) or of a bare content
/// array: the `tool_use` blocks (`id`, `name`, `input`), in order. Other blocks (text,
/// thinking, server tool use) are skipped; a message whose `content` is a plain string has
/// no calls.
pub fn parse_tool_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let reader = Reader {
        provider: Provider::Anthropic,
    };
    let (blocks, path) = match response {
        Value::Array(blocks) => (blocks, String::new()),
        Value::Object(object) => match object.get("content") {
            Some(Value::Array(blocks)) => (blocks, "/content".to_owned()),
            Some(Value::String(_)) => return Ok(Vec::new()),
            _ => {
                return Err(reader.error("/content", "the message's `content` array"));
            }
        },
        _ => return Err(reader.error("", "a message object or its `content` array")),
    };
    let mut calls = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        let block_path = join(&path, index);
        let block = reader.object(block, &block_path, "a content block")?;
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let id = reader.non_empty_string(block, &block_path, "id")?;
        let name = reader.non_empty_string(block, &block_path, "name")?;
        let arguments = match block.get("input") {
            Some(input @ Value::Object(_)) => input.clone(),
            _ => {
                return Err(reader.error(&join(&block_path, "input"), "the input object"));
            }
        };
        calls.push(ToolCall {
            id,
            name,
            arguments,
        });
    }
    Ok(calls)
}

/// The block that returns one result:
/// `{"type": "tool_result", "tool_use_id", "content"}`, the content being
/// [`ToolResult::text`], with `"is_error": true` only for a failed call.
pub fn tool_result_block(call_id: &str, result: &ToolResult) -> Value {
    let mut block = Map::new();
    block.insert("type".to_owned(), json!("tool_result"));
    block.insert("tool_use_id".to_owned(), json!(call_id));
    block.insert("content".to_owned(), json!(result.text()));
    if result.is_error() {
        block.insert("is_error".to_owned(), Value::Bool(true));
    }
    Value::Object(block)
}

/// The user message that returns the results of one assistant turn, in order:
/// `{"role": "user", "content": [tool_result blocks]}`. `results` pairs each call id with its
/// result.
pub fn tool_results_message(results: &[(String, ToolResult)]) -> Value {
    let blocks: Vec<Value> = results
        .iter()
        .map(|(call_id, result)| tool_result_block(call_id, result))
        .collect();
    json!({"role": "user", "content": blocks})
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ToolErrorKind;
    use crate::provider::test_support::tool;

    /// A Messages API response with a text block and two tool_use blocks.
    fn message() -> Value {
        json!({
            "id": "msg_01Aq9w938a90dw8q",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [
                {
                    "type": "text",
                    "text": "I'll read the issue and list the open pull requests."
                },
                {
                    "type": "tool_use",
                    "id": "toolu_01A09q90qw90lq917835lq9",
                    "name": "issue_read",
                    "input": {"method": "get", "owner": "octocat", "repo": "hello-world", "issue_number": 42}
                },
                {
                    "type": "tool_use",
                    "id": "toolu_01D7FLrfh4GYq7yT1ULFeyMV",
                    "name": "list_pull_requests",
                    "input": {"owner": "octocat", "repo": "hello-world", "state": "open"}
                }
            ],
            "stop_reason": "tool_use",
            "stop_sequence": null,
            "usage": {
                "input_tokens": 2095,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": 503,
                "service_tier": "standard"
            }
        })
    }

    #[test]
    fn parses_two_tool_use_blocks() {
        let expected = vec![
            ToolCall {
                id: "toolu_01A09q90qw90lq917835lq9".into(),
                name: "issue_read".into(),
                arguments: json!({"method": "get", "owner": "octocat", "repo": "hello-world", "issue_number": 42}),
            },
            ToolCall {
                id: "toolu_01D7FLrfh4GYq7yT1ULFeyMV".into(),
                name: "list_pull_requests".into(),
                arguments: json!({"owner": "octocat", "repo": "hello-world", "state": "open"}),
            },
        ];
        assert_eq!(parse_tool_calls(&message()), Ok(expected.clone()));
        assert_eq!(parse_tool_calls(&message()["content"]), Ok(expected));
    }

    #[test]
    fn messages_without_tool_use() {
        assert_eq!(
            parse_tool_calls(&json!({"role": "assistant", "content": "Hello"})),
            Ok(Vec::new())
        );
        assert_eq!(
            parse_tool_calls(&json!([{"type": "text", "text": "Hi"}])),
            Ok(Vec::new())
        );
    }

    #[test]
    fn malformed_responses_name_the_path() {
        let mut bad = message();
        bad["content"][2]["input"] = json!("{}");
        let error = parse_tool_calls(&bad).expect_err("string input");
        assert_eq!(error.path(), "/content/2/input");
        assert_eq!(
            error.to_string(),
            "invalid Anthropic Messages response: expected the input object at /content/2/input"
        );
        assert_eq!(
            parse_tool_calls(&json!({"type": "message"}))
                .expect_err("no content")
                .path(),
            "/content"
        );
        assert_eq!(
            parse_tool_calls(&json!([{"type": "tool_use", "name": "x", "input": {}}]))
                .expect_err("no id")
                .path(),
            "/0/id"
        );
    }

    #[test]
    fn renders_tools() {
        let schema =
            json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
        assert_eq!(
            render_tools(&[tool("search_issues", schema.clone())]),
            json!([{"name": "search_issues", "description": "The search_issues tool.", "input_schema": schema}])
        );
    }

    #[test]
    fn result_blocks_and_message() {
        let ok = ToolResult::success(json!({"number": 42}));
        let failed = ToolResult::error(ToolErrorKind::ToolFailed, "rate limited");
        assert_eq!(
            tool_result_block("toolu_1", &ok),
            json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"number\":42}"})
        );
        assert_eq!(
            tool_results_message(&[("toolu_1".into(), ok), ("toolu_2".into(), failed)]),
            json!({
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"number\":42}"},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "rate limited", "is_error": true}
                ]
            })
        );
    }
}
