//! Provider wire formats end to end: rendering every tool of a real catalog loaded as dynamic
//! tools, golden payloads, and the call/result round trip of each provider.

use std::collections::BTreeSet;

use lazytool_runtime::provider::gemini::GeminiSchemaField;
use lazytool_runtime::provider::openai_chat::OpenAiChatOptions;
use lazytool_runtime::provider::{anthropic, gemini, openai_chat, openai_responses};
use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, ToolDefinition, catalog_tools, tool};
use lazytool_tests::dialect_rules::{check_gemini_openapi, check_openai_strict};
use lazytool_tests::github_catalog;
use serde_json::{Value, json};

/// The catalog tools whose schemas OpenAI strict mode cannot express: `projects_write` takes
/// a `value` of any JSON type (objects included), `actions_run_trigger` free-form workflow
/// `inputs`. They are sent without strict mode.
const NOT_STRICT_EXPRESSIBLE: [&str; 2] = ["actions_run_trigger", "projects_write"];

/// The GitHub MCP server's 117 tools as dynamic tools that echo their arguments.
fn catalog(lazy: bool) -> Registry {
    let catalog = github_catalog::json();
    let tools = catalog_tools(&catalog, |_, arguments, _| async move {
        Ok::<_, String>(arguments)
    })
    .expect("a readable catalog");
    Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(lazy)))
        .build()
        .expect("every catalog tool is valid")
}

fn every_definition(registry: &Registry) -> Vec<ToolDefinition> {
    let session = registry.session();
    let tools = session.active_tools();
    assert_eq!(tools.len(), registry.len());
    tools
}

#[test]
fn every_catalog_tool_renders_within_each_dialect() {
    let registry = catalog(false);
    assert_eq!(registry.len(), 117);
    let tools = every_definition(&registry);

    let strict = openai_chat::render_tools(&tools, &OpenAiChatOptions { strict: true });
    for (rendered, tool) in strict.as_array().expect("an array").iter().zip(&tools) {
        let function = &rendered["function"];
        let expressible = !NOT_STRICT_EXPRESSIBLE.contains(&tool.name.as_str());
        assert_eq!(function["strict"], json!(expressible), "{}", tool.name);
        if expressible {
            check_openai_strict(&function["parameters"])
                .unwrap_or_else(|error| panic!("{}: {error}", function["name"]));
        } else {
            assert_eq!(function["parameters"], tool.input_schema);
        }
    }

    let responses = openai_responses::render_tools(&tools, &OpenAiChatOptions { strict: true });
    for rendered in responses.as_array().expect("an array") {
        if rendered["strict"] == json!(true) {
            check_openai_strict(&rendered["parameters"])
                .unwrap_or_else(|error| panic!("{}: {error}", rendered["name"]));
        }
    }

    let gemini = gemini::render_tools(&tools, GeminiSchemaField::OpenApiParameters);
    let declarations = gemini[0]["functionDeclarations"]
        .as_array()
        .expect("declarations");
    assert_eq!(declarations.len(), 117);
    for declaration in declarations {
        if let Some(parameters) = declaration.get("parameters") {
            check_gemini_openapi(parameters)
                .unwrap_or_else(|error| panic!("{}: {error}", declaration["name"]));
        }
    }
    let json_schema = gemini::render_tools(&tools, GeminiSchemaField::ParametersJsonSchema);
    for (declaration, tool) in json_schema[0]["functionDeclarations"]
        .as_array()
        .expect("declarations")
        .iter()
        .zip(&tools)
    {
        assert_eq!(declaration["parametersJsonSchema"], tool.input_schema);
    }

    let anthropic = anthropic::render_tools(&tools);
    for (rendered, tool) in anthropic.as_array().expect("an array").iter().zip(&tools) {
        assert_eq!(rendered["name"], json!(tool.name));
        assert_eq!(rendered["input_schema"]["type"], "object");
    }
}

fn names(values: impl IntoIterator<Item = Value>) -> BTreeSet<String> {
    values
        .into_iter()
        .filter_map(|value| value.as_str().map(str::to_owned))
        .collect()
}

/// Every provider's rendering of the catalog lists every tool, and every schema sent in a
/// dialect obeys that dialect.
#[test]
fn catalog_renders_every_tool_for_every_provider() {
    let tools = github_catalog::definitions();
    let expected: BTreeSet<String> = tools.iter().map(|tool| tool.name.clone()).collect();
    assert_eq!(expected.len(), tools.len(), "duplicate tool names");

    for strict in [false, true] {
        let options = openai_chat::OpenAiChatOptions { strict };
        let rendered = openai_chat::render_tools(&tools, &options);
        let entries = rendered.as_array().cloned().unwrap_or_default();
        assert_eq!(entries.len(), tools.len());
        assert_eq!(
            names(entries.iter().map(|e| e["function"]["name"].clone())),
            expected
        );
        for entry in &entries {
            assert_eq!(entry["type"], "function");
            if strict {
                let name = entry["function"]["name"].as_str().unwrap_or_default();
                let expressible = !NOT_STRICT_EXPRESSIBLE.contains(&name);
                assert_eq!(entry["function"]["strict"], expressible, "{name}");
                if let (true, Err(error)) = (
                    expressible,
                    check_openai_strict(&entry["function"]["parameters"]),
                ) {
                    panic!("{name}: {error}");
                }
            } else {
                assert!(entry["function"].get("strict").is_none());
            }
        }

        let options = openai_responses::OpenAiResponsesOptions { strict };
        let rendered = openai_responses::render_tools(&tools, &options);
        let entries = rendered.as_array().cloned().unwrap_or_default();
        assert_eq!(entries.len(), tools.len());
        assert_eq!(names(entries.iter().map(|e| e["name"].clone())), expected);
        for entry in &entries {
            let name = entry["name"].as_str().unwrap_or_default();
            let sent_strict = strict && !NOT_STRICT_EXPRESSIBLE.contains(&name);
            assert_eq!(entry["strict"], sent_strict, "{name}");
            if sent_strict && let Err(error) = check_openai_strict(&entry["parameters"]) {
                panic!("{name}: {error}");
            }
        }
    }

    let rendered = anthropic::render_tools(&tools);
    let entries = rendered.as_array().cloned().unwrap_or_default();
    assert_eq!(entries.len(), tools.len());
    assert_eq!(names(entries.iter().map(|e| e["name"].clone())), expected);
    for (entry, tool) in entries.iter().zip(&tools) {
        assert_eq!(entry["input_schema"], tool.input_schema);
    }

    for field in [
        gemini::GeminiSchemaField::ParametersJsonSchema,
        gemini::GeminiSchemaField::OpenApiParameters,
    ] {
        let rendered = gemini::render_tools(&tools, field);
        let groups = rendered.as_array().cloned().unwrap_or_default();
        assert_eq!(groups.len(), 1);
        let declarations = groups[0]["functionDeclarations"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert_eq!(declarations.len(), tools.len());
        assert_eq!(
            names(declarations.iter().map(|e| e["name"].clone())),
            expected
        );
        for (declaration, tool) in declarations.iter().zip(&tools) {
            match field {
                gemini::GeminiSchemaField::ParametersJsonSchema => {
                    assert_eq!(declaration["parametersJsonSchema"], tool.input_schema);
                }
                gemini::GeminiSchemaField::OpenApiParameters => {
                    if let Some(parameters) = declaration.get("parameters") {
                        if let Err(error) = check_gemini_openapi(parameters) {
                            panic!("{}: {error}", tool.name);
                        }
                        assert!(
                            parameters["properties"]
                                .as_object()
                                .is_some_and(|p| !p.is_empty())
                        );
                    } else {
                        let properties = tool.input_schema.get("properties");
                        assert!(
                            properties
                                .and_then(Value::as_object)
                                .is_none_or(|p| p.is_empty()),
                            "{} lost its parameters",
                            tool.name
                        );
                    }
                }
            }
        }
    }
}

#[tokio::test]
async fn a_lazy_catalog_renders_the_discovery_tool_and_then_what_was_discovered() {
    let registry = catalog(true);
    let session = registry.session();
    let first = session.active_tools();
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].name, DISCOVERY_TOOL_NAME);
    session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["create_pull_request", "issue_read"]}),
        )
        .await;
    let second = session.active_tools();
    let names: Vec<&str> = second.iter().map(|tool| tool.name.as_str()).collect();
    assert_eq!(
        names,
        [DISCOVERY_TOOL_NAME, "create_pull_request", "issue_read"]
    );
    let strict = openai_chat::render_tools(&second, &OpenAiChatOptions { strict: true });
    for rendered in strict.as_array().expect("an array") {
        check_openai_strict(&rendered["function"]["parameters"]).expect("strict-compatible");
    }
}

/// Calculate monthly payment plans for a product.
#[tool(lazy, name = "calculateFinancing", rename_all = "camelCase")]
async fn calculate_financing(
    /// The product to finance.
    product_id: u32,
    /// The number of monthly payments.
    months: Option<u32>,
) -> Result<f64, String> {
    let months = months.unwrap_or(12);
    if product_id == 0 {
        return Err("no product has id 0".to_owned());
    }
    Ok(f64::from(product_id) * 120.0 / f64::from(months))
}

fn financing() -> Registry {
    Registry::from_inventory().expect("valid tools")
}

fn financing_definition() -> ToolDefinition {
    financing()
        .get("calculateFinancing")
        .expect("registered")
        .definition()
}

#[test]
fn golden_payloads() {
    let tools = [financing_definition()];
    let schema = json!({
        "type": "object",
        "properties": {
            "productId": {"type": "integer", "minimum": 0, "maximum": u32::MAX,
                          "description": "The product to finance."},
            "months": {"type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX,
                       "description": "The number of monthly payments."}
        },
        "required": ["productId"]
    });
    let description = "Calculate monthly payment plans for a product.";
    assert_eq!(tools[0].input_schema, schema);

    assert_eq!(
        openai_chat::render_tools(&tools, &OpenAiChatOptions::default()),
        json!([{"type": "function", "function": {
            "name": "calculateFinancing", "description": description, "parameters": schema
        }}])
    );
    assert_eq!(
        openai_chat::render_tools(&tools, &OpenAiChatOptions { strict: true }),
        json!([{"type": "function", "function": {
            "name": "calculateFinancing", "description": description, "strict": true,
            "parameters": {
                "type": "object",
                "properties": {
                    "productId": {"type": "integer", "minimum": 0, "maximum": u32::MAX,
                                  "description": "The product to finance."},
                    "months": {"type": ["integer", "null"], "minimum": 0, "maximum": u32::MAX,
                               "description": "The number of monthly payments."}
                },
                "required": ["productId", "months"],
                "additionalProperties": false
            }
        }}])
    );
    assert_eq!(
        anthropic::render_tools(&tools),
        json!([{"name": "calculateFinancing", "description": description, "input_schema": schema}])
    );
    assert_eq!(
        gemini::render_tools(&tools, GeminiSchemaField::OpenApiParameters),
        json!([{"functionDeclarations": [{
            "name": "calculateFinancing", "description": description,
            "parameters": {
                "type": "object",
                "properties": {
                    "productId": {"type": "integer", "minimum": 0, "maximum": u32::MAX,
                                  "description": "The product to finance."},
                    "months": {"type": "integer", "nullable": true, "minimum": 0,
                               "maximum": u32::MAX, "description": "The number of monthly payments."}
                },
                "required": ["productId"]
            }
        }]}])
    );
}

/// Runs each parsed call on a session in which the tool is discovered.
async fn run(
    calls: Vec<lazytool_runtime::ToolCall>,
) -> Vec<(lazytool_runtime::ToolCall, lazytool_runtime::ToolResult)> {
    let registry = financing();
    let session = registry.session();
    session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["calculateFinancing"]}),
        )
        .await;
    session.begin_turn();
    let mut results = Vec::new();
    for call in calls {
        let result = session.call(&call.name, call.arguments.clone()).await;
        results.push((call, result));
    }
    results
}

#[tokio::test]
async fn openai_chat_round_trip_with_strict_nulls() {
    let response = json!({
        "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "function", "function": {
                "name": "calculateFinancing", "arguments": "{\"productId\":2,\"months\":null}"}}]
        }}]
    });
    let calls = openai_chat::parse_tool_calls(&response).expect("parsable");
    let results = run(calls).await;
    let (call, result) = &results[0];
    assert_eq!(
        result.content(),
        &json!(20.0),
        "null means absent: 12 months"
    );
    assert_eq!(
        openai_chat::tool_result_message(call, result),
        json!({"role": "tool", "tool_call_id": "call_1", "content": "20.0"})
    );
}

#[tokio::test]
async fn anthropic_round_trip_marks_errors() {
    let response = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "stop_reason": "tool_use",
        "content": [
            {"type": "text", "text": "Let me calculate."},
            {"type": "tool_use", "id": "toolu_1", "name": "calculateFinancing",
             "input": {"productId": 0, "months": 6}}
        ]
    });
    let results = run(anthropic::parse_tool_calls(&response).expect("parsable")).await;
    assert_eq!(
        anthropic::tool_results(results.iter().map(|(call, result)| (call, result))),
        [json!({"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": "toolu_1",
            "content": "no product has id 0", "is_error": true
        }]})]
    );
}

#[tokio::test]
async fn openai_responses_round_trip() {
    let response = json!({
        "id": "resp_1", "object": "response",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []},
            {"type": "function_call", "id": "fc_1", "call_id": "call_7",
             "name": "calculateFinancing", "arguments": "{\"productId\":1,\"months\":6}"}
        ]
    });
    let results = run(openai_responses::parse_tool_calls(&response).expect("parsable")).await;
    let (call, result) = &results[0];
    assert_eq!(
        openai_responses::tool_result_item(call, result),
        json!({"type": "function_call_output", "call_id": "call_7", "output": "20.0"})
    );
}

#[tokio::test]
async fn gemini_round_trip() {
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "calculateFinancing", "args": {"productId": 3, "months": 12}}}
    ]}, "finishReason": "STOP"}]});
    let calls = gemini::parse_tool_calls(&response).expect("parsable");
    let call = calls[0].clone();
    let results = run(calls).await;
    let part = gemini::function_response_part(&call, &results[0].1);
    assert_eq!(
        part,
        json!({"functionResponse": {"name": "calculateFinancing", "response": {"result": 30.0}}})
    );
}

const FINANCING_REFUSAL: &str = "Error: Tool 'calculateFinancing' must be discovered first. Call __lazy__tool__discovery__ with toolNames: ['calculateFinancing'] to discover it.";

/// One call runs a turn, for each provider: the calls are gated by the state at the start of
/// the turn (the financing call next to its discovery is refused), and the results come
/// back in the provider's shape, in call order.
#[tokio::test]
async fn each_provider_runs_a_turn_in_one_call() {
    let registry = financing();
    let discover = "{\"toolNames\":[\"calculateFinancing\"]}";
    let finance = "{\"productId\":1,\"months\":6}";

    let session = registry.session();
    let response = json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": DISCOVERY_TOOL_NAME, "arguments": discover}},
        {"id": "c2", "type": "function", "function": {"name": "calculateFinancing", "arguments": finance}}
    ]}}]});
    let turn = openai_chat::run_response(&session, &response, 2)
        .await
        .expect("parsable");
    assert_eq!(turn.calls.len(), 2);
    assert!(!turn.results[0].is_error());
    assert_eq!(
        turn.messages[1],
        json!({"role": "tool", "tool_call_id": "c2", "content": FINANCING_REFUSAL})
    );
    let discovered: Value =
        serde_json::from_str(turn.messages[0]["content"].as_str().expect("text")).expect("JSON");
    assert_eq!(discovered["tools"][0]["name"], "calculateFinancing");
    // The next turn may call it.
    session.begin_turn();
    let calls = openai_chat::parse_tool_calls(&json!({"role": "assistant", "tool_calls": [
        {"id": "c3", "type": "function", "function": {"name": "calculateFinancing", "arguments": finance}}
    ]}))
    .expect("parsable");
    let turn = openai_chat::run_turn(&session, calls, 2).await;
    assert_eq!(
        turn.messages,
        [json!({"role": "tool", "tool_call_id": "c3", "content": "20.0"})]
    );

    let session = registry.session();
    let response = json!({"output": [
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": DISCOVERY_TOOL_NAME, "arguments": discover},
        {"type": "function_call", "id": "fc_2", "call_id": "c2", "name": "nope", "arguments": "{}"}
    ]});
    let turn = openai_responses::run_response(&session, &response, 1)
        .await
        .expect("parsable");
    assert_eq!(turn.messages[0]["call_id"], "c1");
    assert_eq!(turn.messages[1]["type"], "function_call_output");
    assert!(turn.results[1].is_error());

    let session = registry.session();
    let response = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "t1", "name": "calculateFinancing", "input": {"productId": 1}},
        {"type": "tool_use", "id": "t2", "name": DISCOVERY_TOOL_NAME, "input": {"toolNames": ["calculateFinancing"]}}
    ]});
    let turn = anthropic::run_response(&session, &response, 4)
        .await
        .expect("parsable");
    assert_eq!(
        turn.messages.len(),
        1,
        "every result of a turn in one user message"
    );
    let blocks = &turn.messages[0]["content"];
    assert_eq!(
        blocks[0],
        json!({"type": "tool_result", "tool_use_id": "t1", "content": FINANCING_REFUSAL, "is_error": true})
    );
    assert_eq!(blocks[1]["tool_use_id"], "t2");

    let session = registry.session();
    let response = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": DISCOVERY_TOOL_NAME, "args": {"toolNames": ["calculateFinancing"]}}},
        {"functionCall": {"id": "g2", "name": "calculateFinancing", "args": {"productId": 1}}}
    ]}}]});
    let turn = gemini::run_response(&session, &response, 4)
        .await
        .expect("parsable");
    let parts = &turn.messages[0]["parts"];
    assert_eq!(parts[0]["functionResponse"]["name"], DISCOVERY_TOOL_NAME);
    assert_eq!(
        parts[1],
        json!({"functionResponse": {"name": "calculateFinancing", "id": "g2",
            "response": {"error": FINANCING_REFUSAL}}})
    );

    // A turn without calls has no result messages; a response that cannot be read is an error.
    let turn = gemini::run_turn(&registry.session(), Vec::new(), 4).await;
    assert!(turn.is_empty() && turn.messages.is_empty());
    let error = anthropic::run_response(&registry.session(), &json!(42), 4)
        .await
        .expect_err("not a message");
    assert!(error.to_string().contains("Anthropic Messages"), "{error}");
}

/// With native deferred loading, discovery calls are answered the way the API loads tools.
#[tokio::test]
async fn deferred_turns_answer_discovery_calls_natively() {
    let registry = financing();
    let search = json!({"toolNames": ["calculateFinancing"]});
    let calls = vec![
        lazytool_runtime::ToolCall {
            id: "s1".into(),
            name: DISCOVERY_TOOL_NAME.into(),
            arguments: search.clone(),
        },
        lazytool_runtime::ToolCall {
            id: "s2".into(),
            name: "nope".into(),
            arguments: json!({}),
        },
    ];
    let turn = anthropic::run_turn_deferred(&registry.session(), calls.clone(), 4).await;
    let blocks = &turn.messages[0]["content"];
    assert_eq!(
        blocks[0],
        json!({"type": "tool_result", "tool_use_id": "s1",
            "content": [{"type": "tool_reference", "tool_name": "calculateFinancing"}]})
    );
    assert_eq!(blocks[1]["is_error"], true);

    let options = OpenAiChatOptions::default();
    let turn = openai_responses::run_turn_deferred(&registry.session(), calls, 4, &options).await;
    assert_eq!(turn.messages[0]["type"], "tool_search_output");
    assert_eq!(turn.messages[0]["tools"][0]["name"], "calculateFinancing");
    assert_eq!(turn.messages[0]["tools"][0]["defer_loading"], true);
    assert_eq!(turn.messages[1]["type"], "function_call_output");
}
