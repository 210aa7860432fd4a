//! A tool whose live definition differs from the one its lock approved, both definitions
//! kept for a diff: [`ChangedDefinition`].

use serde_json::Value;

use super::file::definition;
use super::pins::Pins;

/// A tool of an upstream server whose definition, as last listed, differs from the one the
/// lock approved ([`McpSource::changed_definitions`](crate::McpSource::changed_definitions)):
/// what a status page shows as a diff beside the command that approves it.
///
/// ```
/// use lazytool_mcp_client::{McpSource, Upstream};
///
/// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
/// assert!(time.changed_definitions().is_empty(), "no lock, nothing listed");
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ChangedDefinition {
    /// The tool's upstream name.
    pub tool: String,
    /// The definition the lock approved (`None`: a tool the lock does not have).
    pub approved: Option<Value>,
    /// The definition the server lists now, cleaned as it would be served (`None`: a tool
    /// the server no longer lists).
    pub now: Option<Value>,
}

impl Pins {
    /// Each tool of the last listing that differs from the lock, both definitions kept.
    pub(crate) fn changed_definitions(&self) -> Vec<ChangedDefinition> {
        let (Some(entry), Some((tools, verdict))) = (self.entry(), self.last_seen()) else {
            return Vec::new();
        };
        (verdict.changes.keys())
            .map(|name| ChangedDefinition {
                tool: name.clone(),
                approved: (entry.tools.get(name)).map(|pinned| pinned.definition.clone()),
                now: (tools.iter())
                    .find(|tool| tool.name == name.as_str())
                    .map(definition),
            })
            .collect()
    }
}
