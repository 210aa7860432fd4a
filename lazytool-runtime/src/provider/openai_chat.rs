//! OpenAI Chat Completions (`POST /v1/chat/completions`): the request's `tools`, the
//! `tool_calls` of an assistant message, and `role: "tool"` result messages.

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

use super::{ParseError, Provider, Reader, ToolCall, join, object_root};
use crate::schema::dialect;
use crate::{ToolDefinition, ToolResult};

/// How tools are rendered for Chat Completions (and, as
/// [`OpenAiResponsesOptions`](super::openai_responses::OpenAiResponsesOptions), for the
/// Responses API).
#[derive(Clone, Debug, Default)]
pub struct OpenAiChatOptions {
    /// Send every tool with `"strict": true` and its schema rewritten by
    /// [`dialect::openai_strict`]: the model's arguments then always match the schema, but
    /// optional properties arrive as `null` (see
    /// [`strip_strict_nulls`](crate::schema::strip_strict_nulls)).
    pub strict: bool,
}

/// The array for the request's `tools` field:
/// `[{"type": "function", "function": {"name", "description", "parameters"}}]`, with
/// `"strict": true` in `function` only when `options.strict`.
pub fn render_tools<D: Borrow<ToolDefinition>>(tools: &[D], options: &OpenAiChatOptions) -> Value {
    let rendered = tools
        .iter()
        .map(Borrow::borrow)
        .map(|tool: &ToolDefinition| {
            let mut function = Map::new();
            function.insert("name".to_owned(), json!(tool.name));
            function.insert("description".to_owned(), json!(tool.description));
            function.insert(
                "parameters".to_owned(),
                parameters(&tool.input_schema, options),
            );
            if options.strict {
                function.insert("strict".to_owned(), Value::Bool(true));
            }
            json!({"type": "function", "function": Value::Object(function)})
        })
        .collect();
    Value::Array(rendered)
}

/// A tool's `parameters` schema: rewritten by [`dialect::openai_strict`] in strict mode, the
/// canonical schema otherwise. (The Responses API takes the same.)
pub(crate) fn parameters(schema: &Value, options: &OpenAiChatOptions) -> Value {
    if options.strict {
        dialect::openai_strict(schema)
    } else {
        object_root(schema)
    }
}

/// The tool calls of a response: a whole `chat.completion` (read from
/// `choices[0].message.tool_calls`) or a single assistant message
/// (`{"role": "assistant", "tool_calls": [...]}`). No `tool_calls`, or `null`, is no calls.
///
/// Each call is `{"id", "type": "function", "function": {"name", "arguments"}}`; its
/// `arguments` (a JSON-encoded string) is kept as that string (an object, as some compatible
/// servers send, is kept as the object).
pub fn parse_tool_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let reader = Reader {
        provider: Provider::OpenAiChat,
    };
    let root = reader.object(response, "", "a chat.completion or an assistant message")?;
    let (message, path) = if let Some(choices) = root.get("choices") {
        let first = choices
            .as_array()
            .and_then(|choices| choices.first())
            .ok_or_else(|| reader.error("/choices", "a non-empty array of choices"))?;
        let choice = reader.object(first, "/choices/0", "a choice")?;
        let message = choice
            .get("message")
            .ok_or_else(|| reader.error("/choices/0/message", "the choice's message"))?;
        let message = reader.object(message, "/choices/0/message", "a message")?;
        (message, "/choices/0/message".to_owned())
    } else if root.contains_key("tool_calls") || root.contains_key("role") {
        (root, String::new())
    } else {
        return Err(reader.error(
            "",
            "a chat.completion (with `choices`) or an assistant message (with `role`)",
        ));
    };
    let Some(calls) = reader.optional_array(message, &path, "tool_calls")? else {
        return Ok(Vec::new());
    };
    let calls_path = join(&path, "tool_calls");
    calls
        .iter()
        .enumerate()
        .map(|(index, call)| parse_call(&reader, call, &join(&calls_path, index)))
        .collect()
}

fn parse_call(reader: &Reader, call: &Value, path: &str) -> Result<ToolCall, ParseError> {
    let call = reader.object(call, path, "a tool call")?;
    match call.get("type") {
        None => {}
        Some(Value::String(kind)) if kind == "function" => {}
        Some(_) => {
            return Err(reader.error(&join(path, "type"), "\"function\""));
        }
    }
    let id = reader.non_empty_string(call, path, "id")?;
    let function_path = join(path, "function");
    let function = call
        .get("function")
        .ok_or_else(|| reader.error(&function_path, "the called function"))?;
    let function = reader.object(function, &function_path, "the called function")?;
    let name = reader.non_empty_string(function, &function_path, "name")?;
    let arguments = match function.get("arguments") {
        Some(arguments @ (Value::String(_) | Value::Object(_))) => arguments.clone(),
        _ => {
            return Err(reader.error(
                &join(&function_path, "arguments"),
                "the arguments as a JSON-encoded string",
            ));
        }
    };
    Ok(ToolCall {
        id,
        name,
        arguments,
    })
}

/// The message that returns a result: `{"role": "tool", "tool_call_id", "content"}`, the
/// content being [`ToolResult::text`]. (Chat Completions has no error flag: an error is sent
/// as its message.)
pub fn tool_result_message(call_id: &str, result: &ToolResult) -> Value {
    json!({
        "role": "tool",
        "tool_call_id": call_id,
        "content": result.text(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ToolErrorKind;
    use crate::provider::test_support::tool;

    /// A chat.completion with two parallel tool calls, as the API returns it.
    fn completion() -> Value {
        json!({
            "id": "chatcmpl-BVnM0q4xv3gYQ2eS9p1mX8dZ7kT6r",
            "object": "chat.completion",
            "created": 1746812345,
            "model": "gpt-4.1-2025-04-14",
            "choices": [
                {
                    "index": 0,
                    "message": {
                        "role": "assistant",
                        "content": null,
                        "tool_calls": [
                            {
                                "id": "call_8mJqX1yZ2vB3nC4dE5fG6hI7",
                                "type": "function",
                                "function": {
                                    "name": "issue_read",
                                    "arguments": "{\"method\":\"get\",\"owner\":\"octocat\",\"repo\":\"hello-world\",\"issue_number\":42}"
                                }
                            },
                            {
                                "id": "call_Q9wE8rT7yU6iO5pA4sD3fG2h",
                                "type": "function",
                                "function": {
                                    "name": "list_pull_requests",
                                    "arguments": "{\"owner\":\"octocat\",\"repo\":\"hello-world\",\"state\":\"open\"}"
                                }
                            }
                        ],
                        "refusal": null,
                        "annotations": []
                    },
                    "logprobs": null,
                    "finish_reason": "tool_calls"
                }
            ],
            "usage": {
                "prompt_tokens": 412,
                "completion_tokens": 61,
                "total_tokens": 473,
                "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
                "completion_tokens_details": {
                    "reasoning_tokens": 0,
                    "audio_tokens": 0,
                    "accepted_prediction_tokens": 0,
                    "rejected_prediction_tokens": 0
                }
            },
            "service_tier": "default",
            "system_fingerprint": "fp_b3f1157249"
        })
    }

    #[test]
    fn parses_a_completion_with_two_tool_calls() {
        let calls = parse_tool_calls(&completion()).expect("parses");
        assert_eq!(
            calls,
            vec![
                ToolCall {
                    id: "call_8mJqX1yZ2vB3nC4dE5fG6hI7".into(),
                    name: "issue_read".into(),
                    arguments: json!(
                        "{\"method\":\"get\",\"owner\":\"octocat\",\"repo\":\"hello-world\",\"issue_number\":42}"
                    ),
                },
                ToolCall {
                    id: "call_Q9wE8rT7yU6iO5pA4sD3fG2h".into(),
                    name: "list_pull_requests".into(),
                    arguments: json!(
                        "{\"owner\":\"octocat\",\"repo\":\"hello-world\",\"state\":\"open\"}"
                    ),
                },
            ]
        );
    }

    #[test]
    fn parses_a_bare_assistant_message() {
        let message = completion()["choices"][0]["message"].clone();
        let calls = parse_tool_calls(&message).expect("parses");
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[1].name, "list_pull_requests");
    }

    #[test]
    fn no_tool_calls_is_empty() {
        let text_only = json!({
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-4.1",
            "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
                "message": {"role": "assistant", "content": "Hello!", "refusal": null}}]
        });
        assert_eq!(parse_tool_calls(&text_only), Ok(Vec::new()));
        let null_calls = json!({"role": "assistant", "content": "Hi", "tool_calls": null});
        assert_eq!(parse_tool_calls(&null_calls), Ok(Vec::new()));
    }

    #[test]
    fn malformed_responses_name_the_path() {
        let mut response = completion();
        response["choices"][0]["message"]["tool_calls"][1]["function"]["arguments"] = json!(7);
        let error = parse_tool_calls(&response).expect_err("bad arguments");
        assert_eq!(
            error.path(),
            "/choices/0/message/tool_calls/1/function/arguments"
        );
        assert_eq!(error.provider(), Provider::OpenAiChat);

        let mut response = completion();
        response["choices"][0]["message"]["tool_calls"][0]
            .as_object_mut()
            .map(|call| call.remove("id"));
        let error = parse_tool_calls(&response).expect_err("no id");
        assert_eq!(
            error.to_string(),
            "invalid OpenAI Chat Completions response: expected a non-empty string at /choices/0/message/tool_calls/0/id"
        );

        let mut response = completion();
        response["choices"][0]["message"]["tool_calls"][1]["function"]["name"] = json!("");
        let error = parse_tool_calls(&response).expect_err("empty name");
        assert_eq!(
            error.path(),
            "/choices/0/message/tool_calls/1/function/name"
        );

        assert_eq!(
            parse_tool_calls(&json!({"choices": []}))
                .expect_err("no choices")
                .path(),
            "/choices"
        );
        assert_eq!(parse_tool_calls(&json!([])).expect_err("array").path(), "");
        assert_eq!(
            parse_tool_calls(&json!({"object": "list"}))
                .expect_err("unknown")
                .path(),
            ""
        );
        assert_eq!(
            parse_tool_calls(&json!({"role": "assistant", "tool_calls": {}}))
                .expect_err("not an array")
                .path(),
            "/tool_calls"
        );
    }

    #[test]
    fn renders_tools() {
        let tools = [tool(
            "get_file",
            json!({
                "type": "object",
                "properties": {"path": {"type": "string", "default": "/"}},
                "required": []
            }),
        )];
        assert_eq!(
            render_tools(&tools, &OpenAiChatOptions::default()),
            json!([{
                "type": "function",
                "function": {
                    "name": "get_file",
                    "description": "The get_file tool.",
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": "string", "default": "/"}},
                        "required": []
                    }
                }
            }])
        );
        assert_eq!(
            render_tools(&tools, &OpenAiChatOptions { strict: true }),
            json!([{
                "type": "function",
                "function": {
                    "name": "get_file",
                    "description": "The get_file tool.",
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": ["string", "null"]}},
                        "required": ["path"],
                        "additionalProperties": false
                    },
                    "strict": true
                }
            }])
        );
        assert_eq!(
            render_tools::<ToolDefinition>(&[], &OpenAiChatOptions::default()),
            json!([])
        );
    }

    #[test]
    fn result_messages() {
        let ok = ToolResult::success(json!({"number": 42, "state": "open"}));
        assert_eq!(
            tool_result_message("call_8mJqX1yZ2vB3nC4dE5fG6hI7", &ok),
            json!({
                "role": "tool",
                "tool_call_id": "call_8mJqX1yZ2vB3nC4dE5fG6hI7",
                "content": "{\"number\":42,\"state\":\"open\"}"
            })
        );
        let failed = ToolResult::error(ToolErrorKind::ToolFailed, "issue not found");
        assert_eq!(
            tool_result_message("call_1", &failed),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "issue not found"})
        );
    }
}
