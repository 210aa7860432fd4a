use lazytool_runtime::{Registry, State, ToolContext, tool};
use serde_json::json;

struct Db {
    greeting: String,
}

/// Search products by keyword.
///
/// # Arguments
///
/// * `limit` - Maximum number of results.
#[tool(lazy, rename_all = "camelCase")]
async fn search_products(
    /// Search keyword or phrase.
    query: String,
    limit: Option<u32>,
    #[arg(default = 10)] page_size: u32,
    db: State<Db>,
    ctx: ToolContext,
) -> Result<Vec<String>, String> {
    let _ = ctx;
    Ok(vec![format!(
        "{} {query} {limit:?} {page_size}",
        db.greeting
    )])
}

#[tokio::test]
async fn scratch() {
    let registry = Registry::builder()
        .state(Db {
            greeting: "hi".into(),
        })
        .build()
        .unwrap();
    for tool in registry.tools() {
        println!(
            "{} {} {}",
            tool.name(),
            tool.description(),
            serde_json::to_string_pretty(tool.input_schema()).unwrap()
        );
    }
    let r = registry
        .call("search_products", json!({"query": "x"}))
        .await;
    println!("{r:?}");
    let r = registry.call("search_products", json!({"query": 3})).await;
    println!("{r:?}");
}
