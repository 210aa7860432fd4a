//! `--check`: each server's tool count, what its tools cost on every request, how it
//! stands with the lock, and the prompts, resources and resource templates it offers.

use std::fmt::Write;

use lazytool_mcp::{LockState, McpCatalog};
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{Registry, SessionOptions, ToolDefinition};
use serde_json::json;

/// The report of `--check` for a started catalog, and whether every server listed its
/// tools and matches its lock entry, if it has one (`stale`: the lock's entries for servers
/// not configured, reported). Under a server that offers prompts or resources, a line counts
/// them. Token counts are tiktoken's `o200k_base` over each tool's MCP listing JSON
/// (`name`, `description`, `inputSchema`).
///
/// ```no_run
/// # #[tokio::main] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let config = lazytool_gateway::parse(r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#, |_| None)?;
/// let catalog = lazytool_gateway::start(config.servers).await?;
/// let (report, all_listed) = lazytool_gateway::check(&catalog, &Default::default(), &[]);
/// println!("{report}");
/// # Ok(()) }
/// ```
pub fn check(catalog: &McpCatalog, options: &SessionOptions, stale: &[String]) -> (String, bool) {
    let registry = catalog.registry();
    let mut report = String::new();
    let mut all_listed = true;
    let offered = catalog.prompts_and_resources();
    for (index, source) in catalog.reports().into_iter().enumerate() {
        let line = match &source.tools {
            Ok(names) => {
                let cost: usize = names.iter().map(|name| tool_tokens(&registry, name)).sum();
                let protocol = source.protocol.as_deref().unwrap_or("unknown");
                format!(
                    "{}: {} tools, {cost} tokens when sent eagerly (MCP {protocol})",
                    source.name,
                    names.len()
                )
            }
            Err(error) => {
                all_listed = false;
                format!("{}: FAILED: {error}", source.name)
            }
        };
        let _ = writeln!(report, "{line}");
        if let Some((_, Some(offered))) = offered.get(index) {
            let counts = [
                offered.prompts.len(),
                offered.resources.len(),
                offered.resource_templates.len(),
            ];
            if counts != [0; 3] {
                let [prompts, resources, templates] = counts;
                let _ = writeln!(
                    report,
                    "  {prompts} prompts, {resources} resources, {templates} resource templates"
                );
            }
        }
        if source.lock != LockState::Unlocked {
            let _ = writeln!(report, "  lock: {}", source.lock);
        }
        for note in &source.pinning {
            all_listed = false;
            let _ = writeln!(
                report,
                "  {}: differs from the lock: {}",
                note.tool, note.note
            );
        }
        for name in &source.collisions {
            let _ = writeln!(report, "  {name}: left out, the name is taken");
        }
        for note in &source.left_out {
            let _ = writeln!(report, "  {}: left out: {}", note.tool, note.note);
        }
        for note in &source.cleaned {
            let _ = writeln!(report, "  {}: cleaned: {}", note.tool, note.note);
        }
    }
    for name in stale {
        let _ = writeln!(report, "{name}: in the lock but not configured: ignored");
    }
    let eager: usize = (registry.tools())
        .map(|tool| definition_tokens(&tool.definition()))
        .sum();
    let first: usize = (registry.session_with(options.clone()).active_tools().iter())
        .map(definition_tokens)
        .sum();
    let _ = write!(
        report,
        "total: {} tools, {eager} tokens eagerly; the first request carries {first} tokens of tools",
        registry.len()
    );
    (report, all_listed)
}

fn tool_tokens(registry: &Registry, name: &str) -> usize {
    registry
        .get(name)
        .map_or(0, |tool| definition_tokens(&tool.definition()))
}

fn definition_tokens(definition: &ToolDefinition) -> usize {
    count_json_tokens(&json!({
        "name": definition.name,
        "description": definition.description,
        "inputSchema": definition.input_schema,
    }))
}
