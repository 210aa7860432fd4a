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
                    "format": "uint32",
                    "minimum": 0,
                    "description": "Maximum number of results."
                },
                "page_size": {"type": "integer", "format": "uint32", "minimum": 0, "default": 20},
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
                    "items": {"type": "integer", "format": "uint32", "minimum": 0},
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
            "items": {"type": "integer", "format": "uint32", "minimum": 0}
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
