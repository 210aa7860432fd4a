//! Reading MCP `tools/list`-shaped catalogs into dynamic tools (`catalog_tools`).

use lazytool_runtime::{CatalogError, CatalogReader, DynamicTool, Registry, catalog_tools};
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

/// A catalog whose tool `wide` has 8,000 properties, each described in 100 characters: no
/// text is long, the definition is 1.1 MB.
fn wide_catalog() -> Value {
    let properties: serde_json::Map<String, Value> = (0..8_000)
        .map(|n| {
            let description = format!("Property {n:04}.{}", "x".repeat(86));
            (
                format!("p{n:04}"),
                json!({"type": "string", "description": description}),
            )
        })
        .collect();
    json!({"tools": [
        {"name": "small", "inputSchema": {"type": "object"}},
        {"name": "wide", "description": "Takes every property.",
         "inputSchema": {"type": "object", "properties": properties}},
    ]})
}

#[test]
fn a_definition_over_the_bound_is_reported_with_its_size() {
    let catalog = wide_catalog();
    let bytes = json!({
        "name": "wide",
        "description": "Takes every property.",
        "inputSchema": catalog["tools"][1]["inputSchema"],
    })
    .to_string()
    .len();
    assert!(bytes > 1_000_000, "{bytes}");
    let grouped = format!(
        "{},{:03},{:03}",
        bytes / 1_000_000,
        bytes / 1_000 % 1_000,
        bytes % 1_000
    );
    let problem = format!(
        "tool 1: `wide`: its definition is {grouped} bytes, over the bound of 65,536 bytes"
    );

    let error = echo(&catalog).expect_err("over the default bound");
    assert_eq!(error.problems(), std::slice::from_ref(&problem));

    let (tools, error) = CatalogReader::new()
        .read_partial(&catalog, |_, _, _| async { Ok::<_, String>(Value::Null) });
    let names: Vec<&str> = tools.iter().map(DynamicTool::name).collect();
    assert_eq!(names, ["small"], "the rest is read");
    assert_eq!(error.expect("reported").problems(), [problem]);

    let roomy = CatalogReader::new().max_definition_bytes(bytes);
    let tools = roomy
        .read(&catalog, |_, _, _| async { Ok::<_, String>(Value::Null) })
        .expect("within a bound of its own size");
    assert_eq!(tools[1].definition_bytes(), bytes);
}
