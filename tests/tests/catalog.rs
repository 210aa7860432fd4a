//! Reading MCP `tools/list`-shaped catalogs into dynamic tools (`catalog_tools`).

use lazytool_runtime::{CatalogError, DynamicTool, Registry, catalog_tools};
use serde_json::{Value, json};

const CATALOG: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/github-mcp-tools.json");

fn echo(catalog: &Value) -> Result<Vec<DynamicTool>, CatalogError> {
    catalog_tools(catalog, |name, arguments, _| async move {
        Ok::<_, String>(json!({"tool": &*name, "arguments": arguments}))
    })
}

#[tokio::test]
async fn the_shared_catalog_loads_and_each_tool_gets_its_name() {
    let text = std::fs::read_to_string(CATALOG).expect("data/github-mcp-tools.json");
    let catalog: Value = serde_json::from_str(&text).expect("JSON");
    let tools = echo(&catalog).expect("a valid catalog");
    assert_eq!(tools.len(), 117);
    assert_eq!(tools[0].name(), catalog["tools"][0]["name"]);
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()
        .expect("valid tools");
    let result = registry.call("get_me", json!({})).await;
    assert_eq!(result.content()["tool"], "get_me", "{result:?}");
    let annotated = registry.get("get_me").expect("listed");
    assert_eq!(annotated.annotations().read_only, Some(true));
}

#[test]
fn every_bad_entry_is_reported() {
    let catalog = json!({"tools": [
        {"name": "fine", "inputSchema": {"type": "object"}, "title": "Fine",
         "annotations": {"destructiveHint": false}},
        {"name": "", "inputSchema": {}},
        {"description": "no name"},
        {"name": "schemaless"},
        {"name": "odd", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": "yes"}},
        7
    ]});
    let error = echo(&catalog).expect_err("bad entries");
    assert_eq!(
        error.problems(),
        [
            "tool 1: `name` is empty",
            "tool 2: `name` is missing or not a string",
            "tool 3: `schemaless`: `inputSchema` is missing",
            "tool 4: `odd`: `annotations.readOnlyHint` is not a boolean",
            "tool 5: expected an object with `name` and `inputSchema`",
        ]
    );
    let fine = echo(&json!([catalog["tools"][0]])).expect("one good entry");
    assert_eq!(fine[0].name(), "fine");
    assert_eq!(
        echo(&json!({"items": []}))
            .expect_err("no tools")
            .to_string(),
        "invalid tool catalog: the catalog has no `tools` array"
    );
    assert!(echo(&json!("tools")).is_err());
}
