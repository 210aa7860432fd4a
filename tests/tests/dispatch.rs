//! `Registry::call`: arguments in every accepted shape, and every failure as an error result.

use lazytool_runtime::{Registry, State, ToolContext, ToolErrorKind, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

struct Prices {
    tax_rate: f64,
}

#[derive(Serialize)]
struct Quote {
    net: f64,
    gross: f64,
}

/// Quotes a price.
#[tool]
async fn quote(net: f64, #[arg(default = 1)] quantity: u32, prices: State<Prices>) -> Quote {
    let net = net * f64::from(quantity);
    Quote {
        net,
        gross: net * (1.0 + prices.tax_rate),
    }
}

/// Returns the time of day.
#[tool]
async fn now() -> String {
    "noon".to_owned()
}

#[derive(Debug)]
enum ShopError {
    OutOfStock(u32),
}

impl std::fmt::Display for ShopError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShopError::OutOfStock(id) => write!(f, "product {id} is out of stock"),
        }
    }
}

/// Reserves a product.
#[tool]
async fn reserve(product_id: u32) -> Result<u32, ShopError> {
    Err(ShopError::OutOfStock(product_id))
}

/// Fails in an `anyhow` way.
#[tool]
async fn flaky(attempt: u32) -> anyhow::Result<u32> {
    anyhow::ensure!(attempt > 2, "attempt {attempt} is too early");
    Ok(attempt)
}

/// Panics.
#[tool]
async fn explode(secret: String) -> u32 {
    panic!("internal detail: {secret}");
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Filter {
    /// Inclusive minimum price.
    min_price: f64,
    tags: Vec<String>,
}

/// Filters products.
#[tool(strict)]
async fn filter(filter: Filter, #[schemars(length(min = 2))] ids: Vec<u32>) -> usize {
    filter.tags.len() + ids.len() + filter.min_price as usize
}

/// Echoes the call id.
#[tool]
fn call_id(ctx: ToolContext) -> Option<String> {
    ctx.call_id().map(str::to_owned)
}

/// An argument type whose `Deserialize` panics on a value its schema allows.
#[derive(schemars::JsonSchema)]
struct Touchy(#[allow(dead_code)] String);

impl<'de> Deserialize<'de> for Touchy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        assert!(text != "boom", "a Deserialize that panics (secret: {text})");
        Ok(Touchy(text))
    }
}

/// Takes a touchy argument.
#[tool]
async fn touchy(value: Touchy) -> bool {
    let _ = value;
    true
}

fn registry() -> Registry {
    Registry::builder()
        .state(Prices { tax_rate: 0.5 })
        .build()
        .expect("valid tools")
}

fn error_text(result: &lazytool_runtime::ToolResult) -> &str {
    assert!(result.is_error(), "expected an error, got {result:?}");
    result.content().as_str().expect("errors are JSON strings")
}

#[tokio::test]
async fn arguments_as_object_or_json_string() {
    let registry = registry();
    let expected = json!({"net": 4.0, "gross": 6.0});
    let from_object = registry
        .call("quote", json!({"net": 2.0, "quantity": 2}))
        .await;
    assert_eq!(from_object.content(), &expected);
    let from_string = registry
        .call("quote", json!("{\"net\": 2.0, \"quantity\": 2}"))
        .await;
    assert_eq!(from_string.content(), &expected);
}

#[tokio::test]
async fn a_default_applies_when_absent_or_null() {
    let registry = registry();
    for arguments in [json!({"net": 2.0}), json!({"net": 2.0, "quantity": null})] {
        let result = registry.call("quote", arguments).await;
        assert_eq!(result.content(), &json!({"net": 2.0, "gross": 3.0}));
    }
}

#[tokio::test]
async fn no_parameters_accepts_nothing_at_all() {
    let registry = registry();
    for arguments in [
        json!({}),
        Value::Null,
        json!(""),
        json!("{}"),
        json!("null"),
    ] {
        let result = registry.call("now", arguments.clone()).await;
        assert!(!result.is_error(), "{arguments}: {result:?}");
        assert_eq!(result.content(), "noon");
    }
}

#[tokio::test]
async fn invalid_arguments_name_the_field_and_what_was_expected() {
    let registry = registry();
    let cases = [
        (
            json!({"net": "two"}),
            "at /net: \"two\" is not of type \"number\"",
        ),
        (json!({}), "\"net\" is a required property"),
        (json!([1, 2]), "must be a JSON object, not an array"),
        (json!("{not json"), "not valid JSON"),
        (
            json!({"filter": {"min_price": 1.0, "tags": [1]}, "ids": [1, 2]}),
            "at /filter/tags/0: 1 is not of type \"string\"",
        ),
    ];
    for (arguments, expected) in cases {
        let tool = if arguments.get("filter").is_some() {
            "filter"
        } else {
            "quote"
        };
        let result = registry.call(tool, arguments.clone()).await;
        assert_eq!(result.error_kind(), Some(ToolErrorKind::InvalidArguments));
        let text = error_text(&result);
        assert!(text.contains(expected), "{arguments}: {text}");
        assert!(text.starts_with(&format!("Error: invalid arguments for tool '{tool}'")));
    }
}

#[tokio::test]
async fn schemars_validation_attributes_hold() {
    let registry = registry();
    let short = registry
        .call(
            "filter",
            json!({"filter": {"min_price": 1.0, "tags": []}, "ids": [1]}),
        )
        .await;
    assert!(
        error_text(&short).contains("at /ids: [1] has less than 2 items"),
        "{short:?}"
    );
    let fine = registry
        .call(
            "filter",
            json!({"filter": {"min_price": 1.0, "tags": ["a"]}, "ids": [1, 2]}),
        )
        .await;
    assert_eq!(fine.content(), &json!(4));
}

#[tokio::test]
async fn strict_tools_reject_unknown_properties() {
    let registry = registry();
    let result = registry
        .call(
            "filter",
            json!({"filter": {"min_price": 1.0, "tags": []}, "ids": [1, 2], "extra": true}),
        )
        .await;
    assert!(error_text(&result).contains("extra"), "{result:?}");
    let lenient = registry
        .call("quote", json!({"net": 1.0, "extra": true}))
        .await;
    assert!(!lenient.is_error());
}

#[tokio::test]
async fn a_tool_error_is_its_display_text() {
    let registry = registry();
    let result = registry.call("reserve", json!({"product_id": 7})).await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::ToolFailed));
    assert_eq!(error_text(&result), "product 7 is out of stock");
    let anyhow = registry.call("flaky", json!({"attempt": 1})).await;
    assert_eq!(error_text(&anyhow), "attempt 1 is too early");
    let ok = registry.call("flaky", json!({"attempt": 3})).await;
    assert_eq!(ok.content(), &json!(3));
}

#[tokio::test]
async fn a_panic_is_an_error_result_without_its_message() {
    let registry = registry();
    let result = registry.call("explode", json!({"secret": "hunter2"})).await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::Panicked));
    let text = error_text(&result);
    assert!(
        text.contains("'explode' failed with an internal error"),
        "{text}"
    );
    assert!(!text.contains("hunter2"));
    let after = registry.call("now", json!({})).await;
    assert_eq!(after.content(), "noon", "the registry stays usable");

    // Arguments are parsed when the call is admitted, before its future exists: a panicking
    // `Deserialize` is caught there too.
    let result = registry.call("touchy", json!({"value": "boom"})).await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::Panicked));
    assert!(!error_text(&result).contains("secret"));
    let fine = registry.call("touchy", json!({"value": "calm"})).await;
    assert_eq!(fine.content(), &json!(true));
}

#[tokio::test]
async fn an_unknown_tool_lists_the_available_ones() {
    let registry = registry();
    let result = registry.call("teleport", json!({})).await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::UnknownTool));
    let text = error_text(&result);
    assert!(
        text.starts_with("Error: unknown tool 'teleport'. Available tools: "),
        "{text}"
    );
    assert!(text.contains("quote") && text.contains("now"), "{text}");
}

#[tokio::test]
async fn the_context_reaches_the_tool() {
    let registry = registry();
    let result = registry
        .call_with_context(
            "call_id",
            json!({}),
            ToolContext::new().with_call_id("call_42"),
        )
        .await;
    assert_eq!(result.content(), "call_42");
}

#[tokio::test]
async fn calls_run_concurrently_from_spawned_tasks() {
    let registry = registry();
    let mut handles = Vec::new();
    for i in 0..32u32 {
        let call =
            registry.call_with_context("quote", json!({"net": f64::from(i)}), ToolContext::new());
        handles.push(tokio::spawn(call));
    }
    for (i, handle) in handles.into_iter().enumerate() {
        let result = handle.await.expect("no task panics");
        assert_eq!(result.content()["net"], json!(i as f64));
    }
}

// -------------------------------------------------------------------------------------------
// Issue 14, items 4 and 8: numbers sent as floats, errors with paths, messages the model can
// act on.
// -------------------------------------------------------------------------------------------

/// Pages through results.
#[tool]
async fn page(count: u8, offset: u64, ratio: f64, sizes: Option<Vec<i16>>) -> String {
    format!("{count} {offset} {ratio} {sizes:?}")
}

/// A number that must be even: stricter than its schema, so serde refuses what validation
/// let through.
#[derive(schemars::JsonSchema)]
#[schemars(transparent)]
struct Even(#[allow(dead_code)] u32);

impl<'de> Deserialize<'de> for Even {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = u32::deserialize(deserializer)?;
        if value % 2 == 0 {
            Ok(Even(value))
        } else {
            Err(serde::de::Error::custom(format!("{value} is odd")))
        }
    }
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Batch {
    values: Vec<Even>,
}

/// Takes even numbers.
#[tool]
async fn evens(batch: Batch) -> usize {
    batch.values.len()
}

/// Where a shipment goes: a stored address's id, or an address.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum Destination {
    Stored(u64),
    Address { street: String, city: String },
}

/// Ships a parcel.
#[tool(rename_all = "camelCase")]
async fn ship(destination: Destination, duration_minutes: u32) -> u32 {
    let _ = destination;
    duration_minutes
}

#[tokio::test]
async fn whole_numbers_sent_as_floats_are_integers() {
    let registry = registry();
    let arguments = json!({"count": 42.0, "offset": 1e2, "ratio": 2.0, "sizes": [-3.0, 7e0]});
    let result = registry.call("page", arguments).await;
    assert_eq!(result.content(), "42 100 2 Some([-3, 7])");
    // At the edges of the type: u8's 255.0 is accepted, 256.0 and 2.5 are not, with the path.
    let at = registry
        .call("page", json!({"count": 255.0, "offset": 0, "ratio": 0}))
        .await;
    assert_eq!(at.content(), "255 0 0 None");
    for (count, problem) in [
        (256.0, "at /count: 256.0 is greater than the maximum of 255"),
        (2.5, "at /count: 2.5 is not of type \"integer\""),
    ] {
        let result = registry
            .call("page", json!({"count": count, "offset": 0, "ratio": 0}))
            .await;
        assert!(error_text(&result).contains(problem), "{count}: {result:?}");
    }
    // The same arguments as JSON text, OpenAI's way.
    let text = registry
        .call(
            "page",
            json!("{\"count\": 1e1, \"offset\": 3.0, \"ratio\": 0.5}"),
        )
        .await;
    assert_eq!(text.content(), "10 3 0.5 None");
}

#[tokio::test]
async fn a_deserialization_error_names_its_path() {
    let registry = registry();
    let fine = registry
        .call("evens", json!({"batch": {"values": [2, 4]}}))
        .await;
    assert_eq!(fine.content(), &json!(2));
    let odd = registry
        .call("evens", json!({"batch": {"values": [2, 3]}}))
        .await;
    assert_eq!(
        error_text(&odd),
        "Error: invalid arguments for tool 'evens': at /batch/values/1: 3 is odd. Fix the arguments and call the tool again."
    );
}

#[tokio::test]
async fn validation_messages_say_what_to_change() {
    let registry = registry();
    // An untagged enum is an `anyOf`: the message names the closest alternative and its gap.
    let result = registry
        .call(
            "ship",
            json!({"destination": {"street": "Main St 1"}, "durationMinutes": 5}),
        )
        .await;
    let text = error_text(&result);
    assert!(
        text.contains(r#"at /destination: {"street":"Main St 1"} matches none of the 2 alternatives of 'anyOf'; the closest, alternative 2 of 2, fails because "city" is a required property"#),
        "{text}"
    );
    // A snake_case key sent to a camelCase tool: named, with the right one.
    let result = registry
        .call("ship", json!({"destination": 7, "duration_minutes": 5}))
        .await;
    let text = error_text(&result);
    assert!(
        text.contains(r#"at /duration_minutes: unexpected property "duration_minutes": did you mean "durationMinutes"?"#),
        "{text}"
    );
    assert!(
        text.contains(r#""durationMinutes" is a required property"#),
        "{text}"
    );
    let right = registry
        .call("ship", json!({"destination": 7, "durationMinutes": 5}))
        .await;
    assert_eq!(right.content(), &json!(5));
}
