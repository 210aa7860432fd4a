//! OpenAI Responses (`POST /v1/responses`): the request's `tools`, the `function_call` items
//! of a response's `output`, and `function_call_output` input items; and client-executed
//! tool search (`tool_search_call` / `tool_search_output`) for native deferred loading.

use std::borrow::Borrow;

use serde_json::{Map, Value, json};

use super::openai_chat::parameters;
use super::{ParseError, Provider, Reader, ToolCall, join};
use crate::{DISCOVERY_TOOL_NAME, Session, ToolDefinition, ToolResult};

/// How tools are rendered for the Responses API: the Chat Completions options re-used.
/// Without `strict`, tools are sent with `"strict": false` (spelled out: the Responses API's
/// default is strict).
pub type OpenAiResponsesOptions = super::openai_chat::OpenAiChatOptions;

/// The array for the request's `tools` field; the Responses API flattens function tools:
/// `[{"type": "function", "name", "description", "parameters", "strict"}]`.
pub fn render_tools<D: Borrow<ToolDefinition>>(
    tools: &[D],
    options: &OpenAiResponsesOptions,
) -> Value {
    let rendered = tools
        .iter()
        .map(Borrow::borrow)
        .map(|tool: &ToolDefinition| {
            Value::Object(function_tool(
                &tool.name,
                &tool.description,
                &tool.input_schema,
                options,
            ))
        })
        .collect();
    Value::Array(rendered)
}

/// One function tool as the Responses API takes it.
fn function_tool(
    name: &str,
    description: &str,
    schema: &Value,
    options: &OpenAiResponsesOptions,
) -> Map<String, Value> {
    let mut tool = Map::new();
    tool.insert("type".to_owned(), json!("function"));
    tool.insert("name".to_owned(), json!(name));
    tool.insert("description".to_owned(), json!(description));
    tool.insert("parameters".to_owned(), parameters(schema, options));
    tool.insert("strict".to_owned(), Value::Bool(options.strict));
    tool
}

/// The `tools` array for OpenAI's native deferred loading with client-executed tool search
/// (models from `gpt-5.4` on): eager tools as usual, every lazy tool with its full definition
/// and `"defer_loading": true`, and in place of the discovery function a
/// `{"type": "tool_search", "execution": "client", "description", "parameters"}` entry with
/// the discovery tool's description and parameters. The array is the same on every request,
/// so the prompt cache holds.
///
/// The model sees the deferred tools' names and descriptions, not their schemas. To load
/// some it emits a `tool_search_call`, which [`parse_tool_calls`] returns as a call of the
/// discovery tool: run it with [`Session::call`] like any call (the session records the
/// discovery, so gating and validation work as in every mode) and answer it with
/// [`tool_search_output_item`]. `DiscoveryMode::Search` pairs best with it: its parameters are
/// a query, where names mode lists every lazy name once more.
pub fn render_tools_deferred(session: &Session, options: &OpenAiResponsesOptions) -> Value {
    let rendered = session
        .deferrable_tools()
        .into_iter()
        .map(|(tool, deferred)| {
            if tool.name == DISCOVERY_TOOL_NAME {
                return json!({
                    "type": "tool_search",
                    "execution": "client",
                    "description": tool.description,
                    "parameters": parameters(&tool.input_schema, options),
                });
            }
            let mut rendered =
                function_tool(&tool.name, &tool.description, &tool.input_schema, options);
            if deferred {
                rendered.insert("defer_loading".to_owned(), Value::Bool(true));
            }
            Value::Object(rendered)
        })
        .collect();
    Value::Array(rendered)
}

/// The input item answering a client-executed tool search (a discovery call parsed from a
/// `tool_search_call`): `{"type": "tool_search_output", "execution": "client", "call_id",
/// "status": "completed", "tools": [...]}` with the full definition of every tool the
/// discovery found, `"defer_loading": true` as the API expects; a tool's skill (see
/// `#[tool(skill)]`) is appended to its description, as the item has no other place for it.
///
/// The item has no place for text either: names the discovery did not know, or a failed
/// discovery, give fewer tools or none, and the model sees that they did not load.
pub fn tool_search_output_item(
    call_id: &str,
    result: &ToolResult,
    options: &OpenAiResponsesOptions,
) -> Value {
    let found = result
        .content()
        .get("tools")
        .and_then(Value::as_array)
        .filter(|_| !result.is_error());
    let tools: Vec<Value> = found
        .into_iter()
        .flatten()
        .filter_map(|tool| {
            let name = tool.get("name")?.as_str()?;
            let mut description = tool
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            if let Some(skill) = tool.get("skill").and_then(Value::as_str) {
                description.push_str("\n\n");
                description.push_str(skill);
            }
            let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
            let mut rendered = function_tool(name, &description, schema, options);
            rendered.insert("defer_loading".to_owned(), Value::Bool(true));
            Some(Value::Object(rendered))
        })
        .collect();
    json!({
        "type": "tool_search_output",
        "execution": "client",
        "call_id": call_id,
        "status": "completed",
        "tools": tools,
    })
}

/// The tool calls of a response object (its `output` array) or of a bare `output` array:
/// the items with `"type": "function_call"` (`call_id`, `name`, `arguments`), in order, and
/// client-executed tool searches (`"type": "tool_search_call"`, `"execution": "client"`) as
/// calls of the discovery tool ([`DISCOVERY_TOOL_NAME`]) with the search's `arguments`, to be
/// answered with [`tool_search_output_item`] (see [`render_tools_deferred`]). Other items
/// (reasoning, messages, built-in tool calls, hosted tool searches) are skipped.
///
/// [`ToolCall::id`] is the item's `call_id` (not its `fc_...` `id`), the id results are sent
/// back under; `arguments` is kept as the JSON-encoded string it arrives as.
pub fn parse_tool_calls(response: &Value) -> Result<Vec<ToolCall>, ParseError> {
    let reader = Reader {
        provider: Provider::OpenAiResponses,
    };
    let (items, path) = match response {
        Value::Array(items) => (items, String::new()),
        Value::Object(object) => match object.get("output") {
            Some(Value::Array(items)) => (items, "/output".to_owned()),
            Some(Value::Null) => return Ok(Vec::new()),
            _ => return Err(reader.error("/output", "the response's `output` array")),
        },
        _ => {
            return Err(reader.error("", "a response object or its `output` array"));
        }
    };
    let mut calls = Vec::new();
    for (index, item) in items.iter().enumerate() {
        let item_path = join(&path, index);
        let item = reader.object(item, &item_path, "an output item")?;
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {}
            Some("tool_search_call")
                if item.get("execution").and_then(Value::as_str) == Some("client") =>
            {
                let id = reader.non_empty_string(item, &item_path, "call_id")?;
                let arguments = match item.get("arguments") {
                    Some(arguments @ Value::Object(_)) => arguments.clone(),
                    None | Some(Value::Null) => Value::Object(Map::new()),
                    Some(_) => {
                        return Err(reader.error(
                            &join(&item_path, "arguments"),
                            "the search's arguments object",
                        ));
                    }
                };
                calls.push(ToolCall {
                    id,
                    name: DISCOVERY_TOOL_NAME.to_owned(),
                    arguments,
                });
                continue;
            }
            _ => continue,
        }
        let id = reader.non_empty_string(item, &item_path, "call_id")?;
        let name = reader.non_empty_string(item, &item_path, "name")?;
        let arguments = match item.get("arguments") {
            Some(arguments @ (Value::String(_) | Value::Object(_))) => arguments.clone(),
            _ => {
                return Err(reader.error(
                    &join(&item_path, "arguments"),
                    "the arguments as a JSON-encoded string",
                ));
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

/// The input item that returns a result:
/// `{"type": "function_call_output", "call_id", "output"}`, the output being
/// [`ToolResult::text`]. (There is no error flag: an error is sent as its message.) A call
/// parsed from a `tool_search_call` is answered with [`tool_search_output_item`] instead.
pub fn tool_result_item(call_id: &str, result: &ToolResult) -> Value {
    json!({
        "type": "function_call_output",
        "call_id": call_id,
        "output": result.text(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ToolErrorKind;
    use crate::provider::test_support::tool;

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
                "call_unLAR8MvFNptuiZK6K6HCy5k",
                &ToolResult::success(json!("done"))
            ),
            json!({
                "type": "function_call_output",
                "call_id": "call_unLAR8MvFNptuiZK6K6HCy5k",
                "output": "done"
            })
        );
        let failed = ToolResult::error(ToolErrorKind::InvalidArguments, "missing `repo`");
        assert_eq!(tool_result_item("c", &failed)["output"], "missing `repo`");
    }

    #[test]
    fn tool_search_output_carries_definitions_and_skills() {
        let discovery = ToolResult::success(json!({"tools": [
            {"name": "deploy", "description": "Deploy a service.",
             "inputSchema": {"type": "object", "properties": {"service": {"type": "string"}}},
             "skill": "Always deploy to staging first."}
        ], "errors": ["Unknown tool 'nope'"]}));
        let strict = OpenAiResponsesOptions { strict: true };
        let item = tool_search_output_item("call_1", &discovery, &strict);
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
}
