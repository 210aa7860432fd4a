//! The canonical input schema `#[tool]` generates.

use lazytool_runtime::{Registry, tool};
use serde::Deserialize;
use serde_json::{Value, json};

fn schema_of(name: &str) -> Value {
    let registry = Registry::from_inventory().expect("valid tools");
    registry
        .get(name)
        .unwrap_or_else(|| panic!("{name} is registered"))
        .input_schema()
        .clone()
}

/// Search products by keyword.
///
/// Matches names and descriptions.
///
/// # Arguments
///
/// * `limit` - Maximum number
///   of results.
#[tool(lazy)]
async fn search_products(
    /// Search keyword or phrase.
    query: String,
    limit: Option<u32>,
    #[arg(default = 20)] page_size: u32,
    #[arg(rename = "sortBy", description = "Field to sort by.")] sort: Option<String>,
) -> Vec<String> {
    let _ = (limit, page_size, sort);
    vec![query]
}

#[test]
fn descriptions_come_from_docs_and_the_arguments_list() {
    let registry = Registry::from_inventory().expect("valid tools");
    let tool = registry.get("search_products").expect("registered");
    assert_eq!(
        tool.description(),
        "Search products by keyword.\n\nMatches names and descriptions."
    );
    assert!(tool.is_lazy());
    assert_eq!(
        tool.input_schema(),
        &json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Search keyword or phrase."},
                "limit": {
                    "type": ["integer", "null"],
                    "minimum": 0,
                    "maximum": u32::MAX,
                    "description": "Maximum number of results."
                },
                "page_size": {"type": "integer", "minimum": 0, "maximum": u32::MAX, "default": 20},
                "sortBy": {"type": ["string", "null"], "description": "Field to sort by."}
            },
            "required": ["query"]
        })
    );
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Address {
    /// Street and number.
    street: String,
    city: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Category {
    name: String,
    children: Vec<Category>,
}

/// Ships to an address.
#[tool(rename_all = "camelCase", strict)]
async fn ship_order(order_id: u64, ship_to: Address, categories: Vec<Category>) -> String {
    let _ = (ship_to, categories);
    order_id.to_string()
}

#[test]
fn refs_are_inlined_unless_recursive_and_strict_closes_the_object() {
    let schema = schema_of("ship_order");
    let text = schema.to_string();
    assert!(!text.contains("\"$schema\""), "{text}");
    assert!(schema.get("title").is_none());
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(
        schema["required"],
        json!(["orderId", "shipTo", "categories"])
    );
    let keys: Vec<&String> = schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    assert_eq!(keys, ["orderId", "shipTo", "categories"]);
    assert_eq!(
        schema["properties"]["shipTo"]["properties"]["street"]["description"],
        "Street and number."
    );
    assert_eq!(
        schema["properties"]["categories"]["items"],
        json!({"$ref": "#/$defs/Category"})
    );
    assert_eq!(
        schema["$defs"]["Category"]["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/Category"})
    );
    assert!(schema["$defs"].get("Address").is_none());
}

/// Pings.
#[tool]
async fn ping() -> &'static str {
    "pong"
}

#[test]
fn a_tool_without_parameters_has_an_empty_object_schema() {
    assert_eq!(
        schema_of("ping"),
        json!({"type": "object", "properties": {}})
    );
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
/// Products to compare.
struct Comparison {
    /// The ids, at least two.
    #[schemars(length(min = 2))]
    product_ids: Vec<u32>,
}

/// Compares products.
#[tool(output_schema)]
async fn compare_products(#[args] comparison: Comparison) -> Result<Vec<u32>, String> {
    Ok(comparison.product_ids)
}

#[test]
fn an_args_struct_is_the_whole_argument_object() {
    let registry = Registry::from_inventory().expect("valid tools");
    let tool = registry.get("compare_products").expect("registered");
    assert_eq!(
        tool.input_schema(),
        &json!({
            "description": "Products to compare.",
            "type": "object",
            "properties": {
                "product_ids": {
                    "description": "The ids, at least two.",
                    "type": "array",
                    "items": {"type": "integer", "minimum": 0, "maximum": u32::MAX},
                    "minItems": 2
                }
            },
            "required": ["product_ids"]
        })
    );
    assert_eq!(
        tool.output_schema(),
        Some(&json!({
            "type": "array",
            "items": {"type": "integer", "minimum": 0, "maximum": u32::MAX}
        }))
    );
}

/// Every registry built in a process shares each `#[tool]`'s schemas: built (and their
/// validators compiled) once, on first use.
#[test]
fn schemas_are_built_once_per_process() {
    let first = Registry::from_inventory().expect("valid tools");
    for _ in 0..5 {
        let again = Registry::from_inventory().expect("valid tools");
        assert_eq!(again.len(), first.len());
        for (a, b) in first.tools().zip(again.tools()) {
            assert!(
                std::ptr::eq(a.input_schema(), b.input_schema()),
                "{}",
                a.name()
            );
        }
    }
}

/// Deletes a product.
///
/// # Skill
///
/// Ask the user to confirm first.
#[tool(
    lazy,
    title = "Delete product",
    destructive,
    idempotent,
    read_only = false,
    tags = ["catalog", "admin"]
)]
async fn delete_product(id: u32) -> u32 {
    id
}

#[test]
fn annotations_tags_and_skills_are_recorded() {
    let registry = Registry::from_inventory().expect("valid tools");
    let tool = registry.get("delete_product").expect("registered");
    assert_eq!(tool.description(), "Deletes a product.");
    assert_eq!(tool.skill(), Some("Ask the user to confirm first."));
    assert_eq!(tool.tags().collect::<Vec<_>>(), ["catalog", "admin"]);
    let annotations = tool.annotations();
    assert_eq!(annotations.title.as_deref(), Some("Delete product"));
    assert_eq!(
        (
            annotations.read_only,
            annotations.destructive,
            annotations.idempotent,
            annotations.open_world
        ),
        (Some(false), Some(true), Some(true), None)
    );
    assert!(
        registry
            .get("ping")
            .expect("registered")
            .annotations()
            .is_empty()
    );
}

#[tokio::test]
async fn a_skill_travels_only_with_the_discovery_result() {
    let registry = Registry::from_inventory().expect("valid tools");
    let session = registry.session();
    let active = session.active_tools();
    assert!(
        !serde_json::to_string(&active)
            .expect("serializable")
            .contains("confirm first"),
        "the skill is not in the request"
    );
    let result = session
        .call(
            lazytool_runtime::DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["delete_product"]}),
        )
        .await;
    assert_eq!(
        result.content()["tools"][0]["skill"],
        "Ask the user to confirm first."
    );
}

#[derive(Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Reading {
    sensor: u8,
    offset: i16,
    slot: usize,
    /// When it was taken.
    #[schemars(extend("format" = "date-time"))]
    at: String,
}

/// Records sensor readings.
#[tool]
async fn record_readings(
    readings: Vec<Reading>,
    total: u64,
    delta: i64,
    scale: f32,
    ratio: f64,
    retries: Option<u16>,
    /// Who to notify.
    #[schemars(email)]
    notify: Option<String>,
) -> usize {
    let _ = (total, delta, scale, ratio, retries, notify);
    readings.len()
}

/// Every `format` in `schema`, with its JSON pointer.
fn formats(schema: &Value, path: &str, found: &mut Vec<(String, String)>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                let inner = format!("{path}/{key}");
                if key == "format"
                    && let Value::String(format) = value
                {
                    found.push((path.to_owned(), format.clone()));
                }
                formats(value, &inner, found);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                formats(item, &format!("{path}/{index}"), found);
            }
        }
        _ => {}
    }
}

/// schemars names Rust number types in `format` (`uint8`, `int64`, `double`, ...), which JSON
/// Schema does not define: what is sent keeps only standard formats, the integer ranges as
/// bounds.
#[test]
fn only_standard_formats_are_sent_and_integer_ranges_become_bounds() {
    let schema = schema_of("record_readings");
    let mut found = Vec::new();
    formats(&schema, "", &mut found);
    assert_eq!(
        found,
        [
            (
                "/properties/readings/items/properties/at".to_owned(),
                "date-time".to_owned()
            ),
            ("/properties/notify".to_owned(), "email".to_owned()),
        ]
    );
    let property = |pointer: &str| schema.pointer(pointer).cloned().unwrap_or(Value::Null);
    assert_eq!(
        property("/properties/readings/items/properties/sensor"),
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        property("/properties/readings/items/properties/offset"),
        json!({"type": "integer", "minimum": -32768, "maximum": 32767})
    );
    assert_eq!(
        property("/properties/total"),
        json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})
    );
    assert_eq!(
        property("/properties/delta"),
        json!({"type": "integer", "minimum": i64::MIN, "maximum": i64::MAX})
    );
    assert_eq!(
        property("/properties/readings/items/properties/slot"),
        json!({"type": "integer", "minimum": 0, "maximum": u64::MAX})
    );
    assert_eq!(property("/properties/scale"), json!({"type": "number"}));
    assert_eq!(property("/properties/ratio"), json!({"type": "number"}));
    assert_eq!(
        property("/properties/retries"),
        json!({"type": ["integer", "null"], "minimum": 0, "maximum": 65535})
    );
}

/// Validation is exactly as strict as the Rust types: every integer in and out of range.
#[tokio::test]
async fn integer_bounds_validate_exactly_the_rust_ranges() {
    let registry = Registry::from_inventory().expect("valid tools");
    let arguments = |sensor: Value, offset: Value, total: Value| {
        json!({"readings": [{"sensor": sensor, "offset": offset, "slot": 0,
            "at": "2025-01-01T00:00:00Z"}], "total": total, "delta": 0, "scale": 1.0, "ratio": 1.0})
    };
    for (sensor, offset, total, valid) in [
        (json!(0), json!(-32768), json!(0), true),
        (json!(255), json!(32767), json!(u64::MAX), true),
        (json!(256), json!(0), json!(0), false),
        (json!(-1), json!(0), json!(0), false),
        (json!(0), json!(32768), json!(0), false),
        (json!(0), json!(-32769), json!(0), false),
        (json!(0), json!(0), json!(-1), false),
        (json!(0), json!(0), json!(1.8446744073709552e19), false),
    ] {
        let result = registry
            .call(
                "record_readings",
                arguments(sensor.clone(), offset.clone(), total.clone()),
            )
            .await;
        assert_eq!(
            !result.is_error(),
            valid,
            "{sensor} {offset} {total}: {}",
            result.text()
        );
        if !valid {
            assert!(result.text().contains(" at /"), "{}", result.text());
        }
    }
}
