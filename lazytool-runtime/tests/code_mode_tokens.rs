//! What discovery in code mode costs: over the GitHub MCP catalog (`data/`), discovering
//! tools answers with TypeScript declarations, which must take fewer tokens (`o200k_base`)
//! than the JSON Schemas a discovery answers with otherwise; so must the code tool's
//! declarations of eager tools against their definitions.
#![cfg(all(feature = "code-mode", feature = "tokens"))]

use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{CodeMode, DISCOVERY_TOOL_NAME, Registry, SessionOptions, catalog_tools};
use serde_json::{Value, json};

fn github(lazy: bool) -> Registry {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../data/github-mcp-tools.json");
    let text = std::fs::read_to_string(path).expect("the catalog in data/");
    let catalog: Value = serde_json::from_str(&text).expect("the catalog's JSON");
    let tools = catalog_tools(&catalog, |_, _: Value, _| async {
        Ok::<_, String>(json!(null))
    })
    .expect("the catalog's tools");
    Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(lazy)))
        .build()
        .expect("a registry of the catalog")
}

#[tokio::test]
async fn declarations_cost_fewer_tokens_than_schemas() {
    let registry = github(true);
    let names: Vec<String> = registry
        .session()
        .lazy_tool_names()
        .iter()
        .take(12)
        .cloned()
        .collect();
    let ask = json!({ "toolNames": names });
    let schemas = registry
        .session()
        .call(DISCOVERY_TOOL_NAME, ask.clone())
        .await;
    let code = registry.session_with(SessionOptions::new().code_mode(CodeMode::new()));
    let declared = code.call(DISCOVERY_TOOL_NAME, ask).await;
    assert_eq!(declared.discovered(), schemas.discovered());
    let (schema_tokens, declared_tokens) = (
        count_json_tokens(schemas.content()),
        count_json_tokens(declared.content()),
    );
    eprintln!(
        "12 tools discovered: schemas {schema_tokens} tokens, declarations {declared_tokens}"
    );
    assert!(
        declared_tokens < schema_tokens,
        "{declared_tokens} vs {schema_tokens}"
    );
}

#[test]
fn the_code_tool_costs_fewer_tokens_than_the_definitions_it_declares() {
    let registry = github(false);
    let direct = serde_json::to_value(registry.session().active_tools()).expect("definitions");
    let code = registry.session_with(SessionOptions::new().code_mode(CodeMode::new()));
    let declared = serde_json::to_value(code.active_tools()).expect("the code tool");
    let (direct_tokens, declared_tokens) =
        (count_json_tokens(&direct), count_json_tokens(&declared));
    eprintln!(
        "{} eager tools: definitions {direct_tokens} tokens, the code tool {declared_tokens}",
        registry.len()
    );
    assert!(
        declared_tokens < direct_tokens,
        "{declared_tokens} vs {direct_tokens}"
    );
}
