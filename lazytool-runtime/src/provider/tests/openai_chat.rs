use serde_json::json;

use serde_json::Value;

use super::{call, tool};
use crate::ToolErrorKind;
use crate::provider::Provider;
use crate::provider::openai_chat::*;
use crate::{ToolCall, ToolDefinition, ToolResult};

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
        tool_result_message(&call("call_8mJqX1yZ2vB3nC4dE5fG6hI7", "issue_read"), &ok),
        json!({
            "role": "tool",
            "tool_call_id": "call_8mJqX1yZ2vB3nC4dE5fG6hI7",
            "content": "{\"number\":42,\"state\":\"open\"}"
        })
    );
    let failed = ToolResult::error(ToolErrorKind::ToolFailed, "issue not found");
    assert_eq!(
        tool_result_message(&call("call_1", "issue_read"), &failed),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "issue not found"})
    );
    assert_eq!(
        tool_results([(&call("call_1", "issue_read"), &failed)]),
        [tool_result_message(&call("call_1", "issue_read"), &failed)]
    );
}
