//! What a tool tells clients about its behaviour: [`ToolAnnotations`] (MCP's tool
//! annotations).

use std::borrow::Cow;

/// Hints about a tool's behaviour, sent to MCP clients as the tool's `annotations`.
///
/// Declare them in `#[tool(title = "...", read_only, destructive = false, idempotent,
/// open_world)]`, or with [`DynamicTool::annotations`](crate::DynamicTool::annotations). They
/// are hints for clients (to ask for confirmation, say), not guarantees: never base a
/// security decision on them.
///
/// ```
/// use lazytool_runtime::{DynamicTool, ToolAnnotations};
/// use serde_json::json;
///
/// let annotations = ToolAnnotations {
///     title: Some("Delete a repository".into()),
///     destructive: Some(true),
///     idempotent: Some(true),
///     ..ToolAnnotations::default()
/// };
/// let tool = DynamicTool::new("delete_repo", "Deletes a repository.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!("deleted")) })
///     .annotations(annotations);
/// # let _ = tool;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// A human-readable title (MCP `title`).
    pub title: Option<Cow<'static, str>>,
    /// The tool does not modify its environment (MCP `readOnlyHint`).
    pub read_only: Option<bool>,
    /// The tool may perform destructive updates (MCP `destructiveHint`).
    pub destructive: Option<bool>,
    /// Calling it again with the same arguments has no further effect (MCP
    /// `idempotentHint`).
    pub idempotent: Option<bool>,
    /// The tool interacts with an open world of external entities (MCP `openWorldHint`).
    pub open_world: Option<bool>,
}

impl ToolAnnotations {
    /// Whether no annotation is set.
    ///
    /// ```
    /// use lazytool_runtime::ToolAnnotations;
    ///
    /// assert!(ToolAnnotations::default().is_empty());
    /// assert!(!ToolAnnotations { read_only: Some(false), ..ToolAnnotations::default() }.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        *self == ToolAnnotations::default()
    }
}
