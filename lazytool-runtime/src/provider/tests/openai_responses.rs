use serde_json::json;

use serde_json::Value;

use super::{call, tool};
use crate::ToolErrorKind;
use crate::provider::openai_responses::*;
use crate::{ToolCall, ToolResult};

/// A Responses API response with a reasoning item, a message and a function call.
fn response() -> Value {
    json!({
        "id": "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
        "object": "response",
        "created_at": 1741476542,
        "status": "completed",
        "background": false,
        "error": null,
        "incomplete_details": null,
        "instructions": null,
        "max_output_tokens": null,
        "model": "o4-mini-2025-04-16",
        "output": [
            {
                "id": "rs_67ccd2bf17f0819081ff3bb2cf6508e60bb6a6b452d3795b",
                "type": "reasoning",
                "summary": [
                    {"type": "summary_text", "text": "**Finding the issue**\n\nThe user wants issue 42."}
                ]
            },
            {
                "id": "msg_67ccd2c0a8d881909f0e4e5b6b1cb8a10bb6a6b452d3795b",
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "Let me look that issue up.", "annotations": []}
                ]
            },
            {
                "id": "fc_67ccd2c1c3e48190a8b8dc51d6e2ad500bb6a6b452d3795b",
                "type": "function_call",
                "status": "completed",
                "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k",
                "name": "issue_read",
                "arguments": "{\"method\":\"get\",\"owner\":\"octocat\",\"repo\":\"hello-world\",\"issue_number\":42}"
            }
        ],
        "parallel_tool_calls": true,
        "previous_response_id": null,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "store": true,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": "auto",
        "tools": [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": 291,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 123,
            "output_tokens_details": {"reasoning_tokens": 64},
            "total_tokens": 414
        },
        "user": null,
        "metadata": {}
    })
}

#[test]
fn parses_the_function_call_among_other_items() {
    let expected = vec![ToolCall {
        id: "call_unLAR8MvFNptuiZK6K6HCy5k".into(),
        name: "issue_read".into(),
        arguments: json!(
            "{\"method\":\"get\",\"owner\":\"octocat\",\"repo\":\"hello-world\",\"issue_number\":42}"
        ),
    }];
    assert_eq!(parse_tool_calls(&response()), Ok(expected.clone()));
    assert_eq!(parse_tool_calls(&response()["output"]), Ok(expected));
}

#[test]
fn text_only_output_is_empty() {
    let output = json!([{
        "id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
        "content": [{"type": "output_text", "text": "Done.", "annotations": []}]
    }]);
    assert_eq!(parse_tool_calls(&output), Ok(Vec::new()));
}

#[test]
fn malformed_responses_name_the_path() {
    let mut bad = response();
    bad["output"][2]
        .as_object_mut()
        .map(|item| item.remove("call_id"));
    let error = parse_tool_calls(&bad).expect_err("no call_id");
    assert_eq!(error.path(), "/output/2/call_id");
    assert_eq!(
        parse_tool_calls(&json!({"object": "response"}))
            .expect_err("no output")
            .path(),
        "/output"
    );
    assert_eq!(
        parse_tool_calls(&json!([1])).expect_err("item").path(),
        "/0"
    );
    assert!(parse_tool_calls(&json!("x")).is_err());
}

#[test]
fn renders_flat_function_tools() {
    let tools = [tool(
        "search_code",
        json!({"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}),
    )];
    assert_eq!(
        render_tools(&tools, &OpenAiResponsesOptions::default()),
        json!([{
            "type": "function",
            "name": "search_code",
            "description": "The search_code tool.",
            "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
            "strict": false
        }])
    );
    let strict = render_tools(&tools, &OpenAiResponsesOptions { strict: true });
    assert_eq!(strict[0]["strict"], true);
    assert_eq!(strict[0]["parameters"]["additionalProperties"], false);
}

#[test]
fn result_items() {
    assert_eq!(
        tool_result_item(
            &call("call_unLAR8MvFNptuiZK6K6HCy5k", "deploy"),
            &ToolResult::success(json!("done"))
        ),
        json!({
            "type": "function_call_output",
            "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k",
            "output": "done"
        })
    );
    let failed = ToolResult::error(ToolErrorKind::InvalidArguments, "missing `repo`");
    assert_eq!(
        tool_result_item(&call("c", "deploy"), &failed)["output"],
        "missing `repo`"
    );
}

#[tokio::test]
async fn tool_search_output_carries_definitions_and_skills() {
    let deploy = crate::DynamicTool::new(
        "deploy",
        "Deploy a service.",
        json!({"type": "object", "properties": {"service": {"type": "string"}}}),
        |_, _| async { Ok::<_, String>(json!("deployed")) },
    )
    .lazy(true)
    .skill("Always deploy to staging first.");
    let registry = crate::Registry::builder()
        .without_inventory()
        .tool(deploy)
        .build()
        .expect("valid tools");
    let session = registry.session();
    let search = call("call_1", crate::DISCOVERY_TOOL_NAME);
    let discovery = session
        .call(&search.name, json!({"toolNames": ["deploy", "nope"]}))
        .await;
    let strict = OpenAiResponsesOptions { strict: true };
    let item = tool_search_output_item(&session, &search, &discovery, &strict);
    assert_eq!(
        item["tools"],
        json!([{
            "type": "function",
            "name": "deploy",
            "description": "Deploy a service.\n\nAlways deploy to staging first.",
            "parameters": {
                "type": "object",
                "properties": {"service": {"type": ["string", "null"]}},
                "required": ["service"],
                "additionalProperties": false
            },
            "strict": true,
            "defer_loading": true
        }])
    );
}

#[test]
fn client_tool_search_calls_need_an_id_and_an_arguments_object() {
    let call = |item: Value| parse_tool_calls(&json!({"output": [item]}));
    let bad = call(json!({"type": "tool_search_call", "execution": "client", "arguments": {}}));
    assert_eq!(bad.expect_err("no call_id").path(), "/output/0/call_id");
    let bad = call(json!({"type": "tool_search_call", "execution": "client",
        "call_id": "c", "arguments": "{}"}));
    assert_eq!(
        bad.expect_err("string arguments").path(),
        "/output/0/arguments"
    );
    let no_arguments = call(json!({"type": "tool_search_call", "execution": "client",
        "call_id": "c"}));
    assert_eq!(no_arguments.expect("parses")[0].arguments, json!({}),);
    let hosted = call(json!({"type": "tool_search_call", "execution": "server",
        "call_id": null, "arguments": {"paths": ["crm"]}}));
    assert_eq!(hosted, Ok(Vec::new()));
}
