//! Whether an upstream tool can join a catalog, and what a source reports about its tools:
//! [`ToolNote`].

use lazytool_runtime::{DynamicTool, Registry, RegistryProblem};

/// Something said about one upstream tool: why it was left out, or what was removed from
/// its text. `tool` is its name on the upstream server.
///
/// ```
/// use lazytool_mcp_client::ToolNote;
///
/// let note = ToolNote { tool: "search".into(), note: "invalid input schema: ...".into() };
/// assert_eq!(note.to_string(), "search: invalid input schema: ...");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolNote {
    /// The tool's upstream name.
    pub tool: String,
    /// What happened to it.
    pub note: String,
}

impl std::fmt::Display for ToolNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.tool, self.note)
    }
}

/// `Ok` when `tool`'s definition is at most `max_definition_bytes` and it builds into a
/// registry on its own (a valid, unreserved name and an input schema that compiles), else
/// why not.
pub(crate) fn admit(tool: &DynamicTool, max_definition_bytes: usize) -> Result<(), String> {
    // Measured first: a definition too large to serve is not worth compiling.
    if let Some(why) = tool.oversized(max_definition_bytes) {
        return Err(why);
    }
    let built = Registry::builder()
        .without_inventory()
        .tools([tool.clone()])
        .build();
    let Err(error) = built else { return Ok(()) };
    let reasons: Vec<String> = (error.problems().iter())
        .map(|problem| match problem {
            RegistryProblem::InvalidName { name, reason, .. } => {
                format!("its name `{name}` cannot be used: {reason}")
            }
            RegistryProblem::InvalidSchema { reason, .. } => {
                format!("invalid input schema: {reason}")
            }
            other => other.to_string(),
        })
        .collect();
    Err(reasons.join("; "))
}
