//! Tool examples as each format sends them, under each provider's documented field names:
//! Anthropic's `input_examples`; the description in OpenAI Chat and Responses, Gemini and
//! TanStack (MCP's is tested in lazytool-mcp's `listing.rs`); in discovery results; and not at
//! all in a session that turns them off.

use std::collections::BTreeSet;

use lazytool_runtime::provider::gemini::GeminiSchemaField;
use lazytool_runtime::provider::openai_chat::OpenAiChatOptions;
use lazytool_runtime::provider::{anthropic, gemini, openai_chat, openai_responses, tanstack};
use lazytool_runtime::{
    DISCOVERY_TOOL_NAME, Registry, SessionOptions, ToolDefinition, ToolSpec, tool,
};
use lazytool_tests::dialect_rules::{check_gemini_openapi, check_openai_strict};
use serde_json::{Value, json};

/// Tomorrow's weather in a city.
#[tool(example(city = "Paris", days = 3), example(city = "Oslo"))]
async fn get_forecast(city: String, days: Option<u32>) -> String {
    format!("{city}: sunny for {} days", days.unwrap_or(1))
}

/// Weather alerts for a region.
#[tool(lazy, example(region = "Bretagne"))]
async fn get_alerts(region: String) -> Vec<String> {
    vec![format!("no alert in {region}")]
}

const DESCRIPTION: &str = "Tomorrow's weather in a city.\n\nExamples:\n{\"city\":\"Paris\",\"days\":3}\n{\"city\":\"Oslo\"}";

fn registry() -> Registry {
    Registry::builder()
        .filter(|spec: &ToolSpec| ["get_forecast", "get_alerts"].contains(&spec.name()))
        .build()
        .unwrap()
}

/// The eager tool's definition, as a session lists it.
fn forecast(options: SessionOptions) -> Vec<ToolDefinition> {
    let definitions = registry().session_with(options).active_tools();
    definitions
        .into_iter()
        .filter(|tool| tool.name == "get_forecast")
        .collect()
}

fn keys(value: &Value) -> BTreeSet<&str> {
    value
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, _)| key.as_str())
        .collect()
}

#[track_caller]
fn assert_keys_within(value: &Value, documented: &[&str]) {
    let documented: BTreeSet<&str> = documented.iter().copied().collect();
    let keys = keys(value);
    assert!(
        keys.is_subset(&documented),
        "{keys:?} is not within {documented:?}"
    );
}

fn schema_without_examples() -> Value {
    let registry = registry();
    registry.get("get_forecast").unwrap().input_schema().clone()
}

#[test]
fn anthropic_sends_them_as_input_examples() {
    let rendered = anthropic::render_tools(&forecast(SessionOptions::new()));
    let tool = &rendered[0];
    // Anthropic's `Tool`: name, description, input_schema, input_examples (and others unused).
    assert_keys_within(
        tool,
        &["name", "description", "input_schema", "input_examples"],
    );
    assert_eq!(
        tool["input_examples"],
        json!([{"city": "Paris", "days": 3}, {"city": "Oslo"}])
    );
    assert_eq!(tool["description"], "Tomorrow's weather in a city.");
    assert_eq!(tool["input_schema"], schema_without_examples());

    let deferred = anthropic::render_tools_deferred(&registry().session());
    let alerts = deferred
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "get_alerts");
    let alerts = alerts.unwrap();
    assert_keys_within(
        alerts,
        &[
            "name",
            "description",
            "input_schema",
            "input_examples",
            "defer_loading",
        ],
    );
    assert_eq!(alerts["input_examples"], json!([{"region": "Bretagne"}]));
}

#[test]
fn openai_chat_and_responses_append_them_to_the_description() {
    let definitions = forecast(SessionOptions::new());
    for strict in [false, true] {
        let options = OpenAiChatOptions { strict };
        let chat = openai_chat::render_tools(&definitions, &options);
        assert_keys_within(&chat[0], &["type", "function"]);
        let function = &chat[0]["function"];
        assert_keys_within(function, &["name", "description", "parameters", "strict"]);
        assert_eq!(function["description"], DESCRIPTION);
        assert!(function["parameters"].get("examples").is_none());
        if strict {
            // The examples do not cost the tool its strict mode.
            assert_eq!(function["strict"], true);
            check_openai_strict(&function["parameters"]).unwrap();
        }

        let responses = openai_responses::render_tools(&definitions, &options);
        let tool = &responses[0];
        assert_keys_within(
            tool,
            &["type", "name", "description", "parameters", "strict"],
        );
        assert_eq!(tool["description"], DESCRIPTION);
        assert_eq!(tool["strict"], strict);
        assert!(tool["parameters"].get("examples").is_none());
    }
}

#[test]
fn gemini_appends_them_to_the_description_with_either_schema_field() {
    let definitions = forecast(SessionOptions::new());
    let json_schema = gemini::render_tools(&definitions, GeminiSchemaField::ParametersJsonSchema);
    let declaration = &json_schema[0]["functionDeclarations"][0];
    assert_keys_within(
        declaration,
        &["name", "description", "parametersJsonSchema"],
    );
    assert_eq!(declaration["description"], DESCRIPTION);
    assert_eq!(
        declaration["parametersJsonSchema"],
        schema_without_examples()
    );

    let openapi = gemini::render_tools(&definitions, GeminiSchemaField::OpenApiParameters);
    let declaration = &openapi[0]["functionDeclarations"][0];
    assert_keys_within(declaration, &["name", "description", "parameters"]);
    assert_eq!(declaration["description"], DESCRIPTION);
    check_gemini_openapi(&declaration["parameters"]).unwrap();
    assert!(gemini::openapi_losses(&definitions).is_empty());
}

#[test]
fn tanstack_appends_them_to_the_description() {
    let rendered = tanstack::render_tools(&forecast(SessionOptions::new()));
    assert_eq!(
        rendered,
        json!([{
            "name": "get_forecast",
            "description": DESCRIPTION,
            "inputSchema": schema_without_examples(),
        }])
    );
}

#[tokio::test]
async fn discovery_results_carry_them() {
    let session = registry().session();
    let result = session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_alerts"]}))
        .await;
    let entry = &result.content()["tools"][0];
    assert_eq!(entry["name"], "get_alerts");
    assert_eq!(entry["inputExamples"], json!([{"region": "Bretagne"}]));
    // Discovered, the tool is listed with them too.
    let listed = session.active_tools();
    let alerts = listed
        .iter()
        .find(|tool| tool.name == "get_alerts")
        .unwrap();
    assert_eq!(alerts.examples(), [json!({"region": "Bretagne"})]);
}

#[test]
fn a_session_can_leave_them_out() {
    let definitions = forecast(SessionOptions::new().examples(false));
    assert!(definitions[0].examples().is_empty());
    assert_eq!(definitions[0].input_schema, schema_without_examples());
    let anthropic = anthropic::render_tools(&definitions);
    assert!(anthropic[0].get("input_examples").is_none());
    let chat = openai_chat::render_tools(&definitions, &OpenAiChatOptions::default());
    assert_eq!(
        chat[0]["function"]["description"],
        "Tomorrow's weather in a city."
    );
    // The registry's tool keeps them.
    assert_eq!(registry().get("get_forecast").unwrap().examples().len(), 2);
}
