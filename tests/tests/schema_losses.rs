//! Nothing is lost silently in a schema dialect: what OpenAI strict mode or Gemini's OpenAPI
//! subset cannot express is named with its path; the OpenAI providers send such a tool
//! without strict mode (OpenAI takes `strict` per function), Gemini's reports it in a `warn`
//! event and through `gemini::openapi_losses`.

use std::collections::HashMap;

use lazytool_runtime::provider::gemini::{self, GeminiSchemaField};
use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
use lazytool_runtime::provider::openai_responses;
use lazytool_runtime::schema::dialect::{
    Rewrite, SchemaLoss, gemini_openapi_rewrite, openai_strict_rewrite,
};
use lazytool_runtime::{Registry, ToolDefinition, tool};
use lazytool_tests::dialect_rules::{check_gemini_openapi, check_openai_strict};
use lazytool_tests::events::captured as events;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct DateRange {
    from: String,
    to: String,
}

/// Books rooms for date ranges.
#[tool(lazy)]
async fn book_rooms(
    /// The hotel.
    hotel: String,
    /// The date ranges to book, per room.
    ranges: Option<HashMap<String, Vec<DateRange>>>,
) -> usize {
    let _ = hotel;
    ranges.map_or(0, |ranges| ranges.len())
}

/// Cancels a booking.
#[tool]
async fn cancel_booking(id: u32, reason: Option<String>) -> u32 {
    let _ = reason;
    id
}

fn definitions() -> Vec<ToolDefinition> {
    let registry = Registry::from_inventory().expect("valid tools");
    ["book_rooms", "cancel_booking"]
        .into_iter()
        .map(|name| registry.get(name).expect("registered").definition())
        .collect()
}

fn paths(rewrite: &Rewrite) -> Vec<&str> {
    rewrite
        .losses
        .iter()
        .map(|loss| loss.path.as_str())
        .collect()
}

/// A dialect's rewrite, its rule checker, and what it says of a map.
type Dialect = (
    fn(&Value) -> Rewrite,
    fn(&Value) -> Result<(), String>,
    &'static str,
);

/// The case: `Option<HashMap<String, Vec<DateRange>>>` became an empty closed
/// object in strict mode and vanished in Gemini's subset, without a word.
#[test]
fn a_map_is_named_in_both_dialects() {
    let schema = &definitions()[0].input_schema;
    let dialects: [Dialect; 2] = [
        (
            openai_strict_rewrite,
            check_openai_strict,
            "only `{}` can be sent",
        ),
        (gemini_openapi_rewrite, check_gemini_openapi, "left out"),
    ];
    for (rewrite, check, what) in dialects {
        let rewrite = rewrite(schema);
        assert_eq!(paths(&rewrite), ["/properties/ranges"]);
        assert!(
            rewrite.losses[0].what.contains(what),
            "{}",
            rewrite.losses[0]
        );
        check(&rewrite.schema).expect("still valid in its dialect");
    }
    let gemini = gemini_openapi_rewrite(schema);
    assert!(gemini.schema["properties"].get("ranges").is_none());

    for tool in &definitions()[1..] {
        assert!(openai_strict_rewrite(&tool.input_schema).losses.is_empty());
        assert!(gemini_openapi_rewrite(&tool.input_schema).losses.is_empty());
    }
}

#[test]
fn every_kind_of_loss_has_its_path() {
    let cases = [
        (
            json!({"type": "object", "properties": {"tags": {"type": "object",
                "patternProperties": {"^x-": {"type": "string"}}}}}),
            vec!["/properties/tags"],
            vec!["/properties/tags"],
        ),
        (
            json!({"type": "object", "properties": {"inputs": {"type": "object", "properties": {}}}}),
            vec!["/properties/inputs"],
            vec!["/properties/inputs"],
        ),
        (
            json!({"type": "object", "properties": {"value": {"description": "Any JSON."}}}),
            vec!["/properties/value"],
            vec!["/properties/value"],
        ),
        (
            json!({"type": "object", "properties": {"list": {"type": "array"}}}),
            vec!["/properties/list/items"],
            vec!["/properties/list/items"],
        ),
        (
            json!({"type": "object", "properties": {"either": {"anyOf": [
                {"type": "string"},
                {"type": "object", "properties": {"a": {"type": "string"}},
                    "additionalProperties": {"type": "integer"}}
            ]}}}),
            vec!["/properties/either/anyOf/1"],
            vec!["/properties/either/anyOf/1"],
        ),
        (
            json!({"type": "object", "properties": {"tree": {"$ref": "#/$defs/Node"}},
                "$defs": {"Node": {"type": "object", "properties": {
                    "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}}),
            vec![],
            vec!["/properties/tree/properties/children/items"],
        ),
        (
            json!({"type": "object", "properties": {"a~b/c": {"$ref": "#/$defs/Missing"}}}),
            vec!["/properties/a~0b~1c"],
            vec!["/properties/a~0b~1c"],
        ),
    ];
    for (schema, strict, gemini) in cases {
        assert_eq!(paths(&openai_strict_rewrite(&schema)), strict, "{schema}");
        assert_eq!(paths(&gemini_openapi_rewrite(&schema)), gemini, "{schema}");
    }
    // A schema nested past the rewrite's depth is cut, and said so.
    let mut deep = json!({"type": "string"});
    for _ in 0..80 {
        deep = json!({"type": "object", "properties": {"n": deep}, "required": ["n"]});
    }
    let strict = openai_strict_rewrite(&deep);
    assert!(
        strict
            .losses
            .iter()
            .any(|loss| loss.what.contains("too deeply")),
        "{:?}",
        strict.losses
    );
    assert_eq!(
        SchemaLoss {
            path: String::new(),
            what: "x".into()
        }
        .to_string(),
        "/: x"
    );
}

/// OpenAI takes `strict` per function: the tool strict mode cannot express goes without it,
/// with its whole schema; the others stay strict.
#[test]
fn openai_sends_only_the_lossy_tool_without_strict_mode() {
    let tools = definitions();
    let options = OpenAiChatOptions { strict: true };
    let mut rendered = Value::Null;
    let logged = events(|| rendered = openai_chat::render_tools(&tools, &options));
    assert_eq!(rendered[0]["function"]["strict"], false);
    assert_eq!(rendered[0]["function"]["parameters"], tools[0].input_schema);
    assert_eq!(rendered[1]["function"]["strict"], true);
    check_openai_strict(&rendered[1]["function"]["parameters"]).expect("strict");
    assert!(logged.contains("DEBUG lazytool::schema"), "{logged}");
    assert!(logged.contains("tool=\"book_rooms\""), "{logged}");
    assert!(logged.contains("/properties/ranges"), "{logged}");
    assert!(!logged.contains("cancel_booking"), "{logged}");

    let rendered = openai_responses::render_tools(&tools, &options);
    assert_eq!(
        (rendered[0]["strict"].clone(), rendered[1]["strict"].clone()),
        (json!(false), json!(true))
    );
    assert_eq!(rendered[0]["parameters"], tools[0].input_schema);
}

/// Gemini's `parameters` take no other dialect: the loss is reported, as a `warn` event on
/// every render and by `openapi_losses` up front.
#[test]
fn gemini_reports_what_its_subset_leaves_out() {
    let tools = definitions();
    let mut rendered = Value::Null;
    let logged =
        events(|| rendered = gemini::render_tools(&tools, GeminiSchemaField::OpenApiParameters));
    let declaration = &rendered[0]["functionDeclarations"][0];
    assert!(
        declaration["parameters"]["properties"]
            .get("ranges")
            .is_none()
    );
    assert!(logged.contains("WARN lazytool::schema"), "{logged}");
    assert!(logged.contains("tool=\"book_rooms\""), "{logged}");
    assert!(
        logged.contains("/properties/ranges: an object with arbitrary keys"),
        "{logged}"
    );

    let losses = gemini::openapi_losses(&tools);
    assert_eq!(losses.len(), 1);
    assert_eq!(losses[0].0, "book_rooms");
    assert_eq!(losses[0].1.path, "/properties/ranges");

    // parametersJsonSchema takes the schema whole: nothing to report.
    let logged = events(|| {
        gemini::render_tools(&tools, GeminiSchemaField::ParametersJsonSchema);
    });
    assert!(logged.is_empty(), "{logged}");
}
