use serde_json::json;

use serde_json::Value;

use super::tool;
use crate::ToolErrorKind;
use crate::provider::gemini::is_synthesized_id;
use crate::provider::gemini::*;
use crate::{ToolCall, ToolDefinition, ToolResult};

/// A generateContent response with two functionCall parts, the second with an id.
fn response() -> Value {
    json!({
        "candidates": [
            {
                "content": {
                    "parts": [
                        {
                            "functionCall": {
                                "name": "issue_read",
                                "args": {"method": "get", "owner": "octocat", "repo": "hello-world", "issue_number": 42}
                            },
                            "thoughtSignature": "CiQBcsjafBvJ0Y2r1xdPr7mV5pJz6c7kzXo0yQ1hTvx4m2x1QwYKYwFyyNp8"
                        },
                        {
                            "functionCall": {
                                "id": "fc_3c1d8a9e2b7f4c10",
                                "name": "list_pull_requests",
                                "args": {"owner": "octocat", "repo": "hello-world", "state": "open"}
                            }
                        }
                    ],
                    "role": "model"
                },
                "finishReason": "STOP",
                "index": 0
            }
        ],
        "usageMetadata": {
            "promptTokenCount": 1210,
            "candidatesTokenCount": 58,
            "totalTokenCount": 1342,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 1210}],
            "thoughtsTokenCount": 74
        },
        "modelVersion": "gemini-2.5-flash",
        "responseId": "kH1yaPvGD9u0nvgP2Z2a2Ao"
    })
}

fn expected_calls() -> Vec<ToolCall> {
    vec![
        ToolCall {
            id: "gemini-call-0".into(),
            name: "issue_read".into(),
            arguments: json!({"method": "get", "owner": "octocat", "repo": "hello-world", "issue_number": 42}),
        },
        ToolCall {
            id: "fc_3c1d8a9e2b7f4c10".into(),
            name: "list_pull_requests".into(),
            arguments: json!({"owner": "octocat", "repo": "hello-world", "state": "open"}),
        },
    ]
}

#[test]
fn parses_two_function_calls() {
    assert_eq!(parse_tool_calls(&response()), Ok(expected_calls()));
    let content = response()["candidates"][0]["content"].clone();
    assert_eq!(parse_tool_calls(&content), Ok(expected_calls()));
}

#[test]
fn calls_without_args_and_responses_without_content() {
    let content = json!({"role": "model", "parts": [
        {"text": "Checking who you are."},
        {"functionCall": {"name": "get_me", "id": ""}}
    ]});
    assert_eq!(
        parse_tool_calls(&content),
        Ok(vec![ToolCall {
            id: "gemini-call-0".into(),
            name: "get_me".into(),
            arguments: json!({}),
        }])
    );
    let blocked = json!({"candidates": [{"finishReason": "MALFORMED_FUNCTION_CALL", "index": 0}]});
    assert_eq!(parse_tool_calls(&blocked), Ok(Vec::new()));
    let no_parts = json!({"candidates": [{"content": {"role": "model"}, "finishReason": "STOP"}]});
    assert_eq!(parse_tool_calls(&no_parts), Ok(Vec::new()));
}

#[test]
fn malformed_responses_name_the_path() {
    let mut bad = response();
    bad["candidates"][0]["content"]["parts"][1]["functionCall"]["args"] = json!([]);
    assert_eq!(
        parse_tool_calls(&bad).expect_err("array args").path(),
        "/candidates/0/content/parts/1/functionCall/args"
    );
    let mut unnamed = response();
    unnamed["candidates"][0]["content"]["parts"][1]["functionCall"]["name"] = json!("");
    assert_eq!(
        parse_tool_calls(&unnamed).expect_err("empty name").path(),
        "/candidates/0/content/parts/1/functionCall/name"
    );
    let prompt_blocked = json!({"promptFeedback": {"blockReason": "SAFETY"}});
    assert_eq!(
        parse_tool_calls(&prompt_blocked)
            .expect_err("no candidates")
            .path(),
        ""
    );
    assert_eq!(
        parse_tool_calls(&json!({"candidates": []}))
            .expect_err("empty")
            .path(),
        "/candidates"
    );
}

#[test]
fn function_responses() {
    let calls = expected_calls();
    let ok = ToolResult::success(json!({"number": 42, "state": "open"}));
    let failed = ToolResult::error(ToolErrorKind::ToolFailed, "not found");
    let first = function_response_part(&calls[0], &ok);
    assert_eq!(
        first,
        json!({"functionResponse": {
            "name": "issue_read",
            "response": {"result": {"number": 42, "state": "open"}}
        }})
    );
    let second = function_response_part(&calls[1], &failed);
    assert_eq!(
        second,
        json!({"functionResponse": {
            "name": "list_pull_requests",
            "id": "fc_3c1d8a9e2b7f4c10",
            "response": {"error": "not found"}
        }})
    );
    assert_eq!(
        tool_results([(&calls[0], &ok), (&calls[1], &failed)]),
        [json!({"role": "user", "parts": [first, second]})]
    );
    let text = ToolResult::success(json!("plain text"));
    assert_eq!(
        function_response_part(&calls[0], &text)["functionResponse"]["response"],
        json!({"result": "plain text"})
    );
}

#[test]
fn synthesized_ids() {
    assert!(is_synthesized_id("gemini-call-0"));
    assert!(is_synthesized_id("gemini-call-12"));
    assert!(!is_synthesized_id("gemini-call-"));
    assert!(!is_synthesized_id("gemini-call-x"));
    assert!(!is_synthesized_id("fc_1"));
}

#[test]
fn renders_both_schema_fields() {
    let tools = [
        tool(
            "get_issue",
            json!({
                "type": "object",
                "additionalProperties": false,
                "properties": {"number": {"type": "integer"}, "repo": {"type": ["string", "null"]}},
                "required": ["number"]
            }),
        ),
        tool("get_me", json!({"type": "object", "properties": {}})),
    ];
    assert_eq!(
        render_tools(&tools, GeminiSchemaField::default()),
        json!([{"functionDeclarations": [
            {"name": "get_issue", "description": "The get_issue tool.", "parametersJsonSchema": tools[0].input_schema},
            {"name": "get_me", "description": "The get_me tool.", "parametersJsonSchema": tools[1].input_schema}
        ]}])
    );
    assert_eq!(
        render_tools(&tools, GeminiSchemaField::OpenApiParameters),
        json!([{"functionDeclarations": [
            {
                "name": "get_issue",
                "description": "The get_issue tool.",
                "parameters": {
                    "type": "object",
                    "properties": {"number": {"type": "integer"}, "repo": {"type": "string", "nullable": true}},
                    "required": ["number"]
                }
            },
            {"name": "get_me", "description": "The get_me tool."}
        ]}])
    );
    assert_eq!(
        render_tools::<ToolDefinition>(&[], GeminiSchemaField::default()),
        json!([])
    );
}
