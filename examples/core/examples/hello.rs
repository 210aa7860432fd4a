//! The smallest lazytool program: one tool, one registry, one call.
//!
//! `cargo run --example hello`

use lazytool_runtime::{Registry, tool};
use serde_json::json;

/// Greets someone by name.
#[tool]
async fn greet(
    /// Who to greet.
    name: String,
    /// How many exclamation marks.
    #[arg(default = 1)]
    excitement: u8,
) -> String {
    format!("Hello, {name}{}", "!".repeat(usize::from(excitement)))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::from_inventory()?;
    let tool = registry.get("greet").ok_or("greet is registered")?;
    println!("tool {}: {}", tool.name(), tool.description());
    println!(
        "schema {}",
        serde_json::to_string_pretty(tool.input_schema())?
    );

    let result = registry.call("greet", json!({"name": "Ada"})).await;
    println!("greet(Ada) -> {}", result.content());
    let result = registry
        .call("greet", json!("{\"name\": \"Grace\", \"excitement\": 3}"))
        .await;
    println!("greet(Grace, 3) -> {}", result.content());
    let result = registry.call("greet", json!({"name": 42})).await;
    println!("greet(42) -> error: {}", result.text());
    Ok(())
}
