//! `--check`: each server's tool count, what its tools cost on every request, how it
//! stands with the lock, and the prompts, resources and resource templates it offers.

use std::fmt::Write;

use lazytool_mcp_client::{LockState, McpCatalog};
use lazytool_runtime::tokens::count_json_tokens;
use lazytool_runtime::{Registry, SessionOptions, ToolDefinition};
use serde_json::json;

/// The report of `--check` for a started catalog, and whether every server listed its
/// tools and matches its lock entry, if it has one (`stale`: the lock's entries for servers
/// not configured, reported). Under a server that offers prompts or resources, a line counts
/// those it has (`1 prompt, 3 resources`). Token counts are tiktoken's `o200k_base` over each tool's MCP listing JSON
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
                    "{}: {}, {} when sent eagerly (MCP {protocol})",
                    source.name,
                    counted(names.len(), "tool"),
                    counted(cost, "token"),
                )
            }
            Err(error) => {
                all_listed = false;
                format!("{}: FAILED: {error}", source.name)
            }
        };
        let _ = writeln!(report, "{line}");
        if let Some((_, Some(offered))) = offered.get(index) {
            let counts: Vec<String> = [
                (offered.prompts.len(), "prompt"),
                (offered.resources.len(), "resource"),
                (offered.resource_templates.len(), "resource template"),
            ]
            .into_iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, noun)| counted(count, noun))
            .collect();
            if !counts.is_empty() {
                let _ = writeln!(report, "  {}", counts.join(", "));
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
        "total: {}, {} eagerly; the first request carries {} of tools",
        counted(registry.len(), "tool"),
        counted(eager, "token"),
        counted(first, "token"),
    );
    (report, all_listed)
}

/// `1 tool`, `2 tools`, `0 tools`.
fn counted(count: usize, noun: &str) -> String {
    match count {
        1 => format!("1 {noun}"),
        _ => format!("{count} {noun}s"),
    }
}

fn tool_tokens(registry: &Registry, name: &str) -> usize {
    registry
        .get(name)
        .map_or(0, |tool| definition_tokens(&tool.definition()))
}

/// What a tool's definition costs on every request that carries it: tiktoken's
/// `o200k_base` tokens of its MCP listing JSON (`name`, `description`, `inputSchema`), as
/// [`check`] counts them.
///
/// ```
/// use lazytool_runtime::ToolDefinition;
///
/// let definition = ToolDefinition {
///     name: "echo".into(),
///     description: "Echoes its message.".into(),
///     input_schema: serde_json::json!({"type": "object"}),
/// };
/// assert!(lazytool_gateway::definition_tokens(&definition) > 5);
/// ```
pub fn definition_tokens(definition: &ToolDefinition) -> usize {
    count_json_tokens(&json!({
        "name": definition.name,
        "description": definition.description,
        "inputSchema": definition.input_schema,
    }))
}

#[cfg(test)]
mod tests {
    use super::counted;

    #[test]
    fn counts_are_singular_for_one_only() {
        assert_eq!(counted(1, "tool"), "1 tool");
        assert_eq!(counted(0, "tool"), "0 tools");
        assert_eq!(counted(2, "resource template"), "2 resource templates");
    }
}
