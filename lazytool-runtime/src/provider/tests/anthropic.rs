use serde_json::json;

use serde_json::Value;

use super::{call, tool};
use crate::ToolErrorKind;
use crate::provider::anthropic::*;
use crate::{ToolCall, ToolResult};

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
        tool_result_block(&call("toolu_1", "issue_read"), &ok),
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"number\":42}"})
    );
    assert_eq!(
        tool_results([
            (&call("toolu_1", "issue_read"), &ok),
            (&call("toolu_2", "issue_read"), &failed)
        ]),
        [json!({
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"number\":42}"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": "rate limited", "is_error": true}
            ]
        })]
    );
}
