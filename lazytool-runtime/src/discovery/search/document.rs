//! What the index is given of a tool: [`SearchDocument`].

use serde_json::Value;

/// What the index knows of one tool.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SearchDocument<'a> {
    /// The tool's name, in any case convention (`list_pull_requests`, `listPullRequests`).
    pub(crate) name: &'a str,
    /// What the tool does, in prose.
    pub(crate) description: &'a str,
    /// The JSON Schema of the tool's arguments.
    pub(crate) input_schema: &'a Value,
    /// Extra keywords that help search find the tool.
    pub(crate) tags: &'a [&'a str],
}
