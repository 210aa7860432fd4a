//! Ranks the tools of a catalog for a query, as search discovery does.
//!
//! `cargo run --release --example tool_search -- CATALOG.json "QUERY" [LIMIT]`
//!
//! The catalog has the shape of `data/github-mcp-tools.json`
//! (`{"tools":[{"name","description","inputSchema"}]}`); its tools are loaded as lazy dynamic
//! tools, and the best matches are printed one name per line, best first (10 by default).

use lazytool_runtime::{Registry, catalog_tools};
use serde_json::Value;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: tool_search CATALOG.json \"QUERY\" [LIMIT]";
    let path = args.next().ok_or(usage)?;
    let query = args.next().ok_or(usage)?;
    let limit = match args.next() {
        Some(limit) => limit
            .parse()
            .map_err(|_| "LIMIT must be a positive integer")?,
        None => 10,
    };

    let catalog: Value = serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let tools = catalog_tools(&catalog, |_, _, _| async { Ok::<_, String>(Value::Null) })?;
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(true)))
        .build()?;
    for tool in registry.search(&query, limit) {
        println!("{}", tool.name());
    }
    Ok(())
}
