//! The synthetic discovery tool through which the model loads lazy tools.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};

use crate::definition::ToolDefinition;
use crate::mode::ResolvedMode;
use crate::name::DISCOVERY_TOOL_NAME;
use crate::result::{ToolErrorKind, ToolResult};
use crate::tool::Tool;

/// How the discovery tool's description lists the lazy tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DiscoveryListing {
    /// Bare names: `[compareProducts, calculateFinancing]` (TanStack AI's format; the
    /// cheapest).
    #[default]
    Names,
    /// Each name with the first sentence of its description, one per line.
    FirstSentence,
    /// Each name with its whole description, one per line.
    FullDescription,
}

/// The discovery tool of one session: its definition (fixed for the conversation, so that
/// it does not break prompt caching) and the lazy tools it can hand out.
pub(crate) struct DiscoveryTool {
    pub(crate) definition: Arc<ToolDefinition>,
    lazy_names: Vec<String>,
    search: bool,
}

/// One entry of a discovery result: what the model needs to call the tool.
#[derive(Serialize)]
struct DiscoveredTool<'a> {
    name: &'a str,
    description: &'a str,
    #[serde(rename = "inputSchema")]
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    skill: Option<&'a str>,
}

/// The names of the tools a discovery result (`{"tools": [{"name", ...}]}`) hands out.
pub(crate) fn found_names(content: &Value) -> Vec<&str> {
    content
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tool| tool.get("name").and_then(Value::as_str))
        .collect()
}

/// What a discovery call found.
pub(crate) struct Discovery {
    pub(crate) result: ToolResult,
    /// The lazy tools returned, in request order, without repeats.
    pub(crate) found: Vec<String>,
    pub(crate) unknown: Vec<String>,
}

/// The search results a search-mode discovery returns by default, and at most.
const DEFAULT_SEARCH_LIMIT: usize = 5;
const MAX_SEARCH_LIMIT: usize = 20;

/// What the model asked the discovery tool for.
enum Request {
    Names(Vec<String>),
    Query { query: String, limit: usize },
}

impl DiscoveryTool {
    /// The discovery tool over `lazy` (the session's lazy tools, in name order) for `mode`;
    /// `None` when there are none or the mode sends them inline, so that a tool set without
    /// lazy tools costs exactly what it did.
    pub(crate) fn new(
        lazy: &[&Tool],
        mode: ResolvedMode,
        listing: DiscoveryListing,
    ) -> Option<Self> {
        if lazy.is_empty() {
            return None;
        }
        let tool_names_property = json!({
            "type": "array",
            "items": {"type": "string"},
            "description": "The names of the tools to load."
        });
        let (description, input_schema) = match mode {
            ResolvedMode::Inline => return None,
            ResolvedMode::Names => {
                let catalog = match listing {
                    DiscoveryListing::Names => format!(
                        "[{}]",
                        lazy.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
                    ),
                    DiscoveryListing::FirstSentence => {
                        lines(lazy, |t| first_sentence(t.description()))
                    }
                    DiscoveryListing::FullDescription => lines(lazy, |t| t.description().trim()),
                };
                (
                    format!(
                        "Loads tools that are available but not loaded yet. Call it with the names of the \
                         tools you need; it returns their descriptions and argument schemas, and from your \
                         next turn on you can call them directly. Tools available: {catalog}"
                    ),
                    json!({
                        "type": "object",
                        "properties": {"toolNames": tool_names_property},
                        "required": ["toolNames"]
                    }),
                )
            }
            // Every token here is paid on every request: the wording is kept short. The
            // search also accepts `toolNames` (a tool name as the query finds it, too).
            ResolvedMode::Search => (
                format!(
                    "Searches {} tools not loaded yet by keywords for what you need. Returns the \
                     best matches ({DEFAULT_SEARCH_LIMIT} unless you set limit) with their schemas; \
                     you can call them from your next turn.",
                    lazy.len()
                ),
                json!({
                    "type": "object",
                    "properties": {
                        "query": {"type": "string"},
                        "limit": {"type": "integer", "minimum": 1, "maximum": MAX_SEARCH_LIMIT}
                    },
                    "required": ["query"]
                }),
            ),
            ResolvedMode::CacheStable => (
                "Returns the full description and argument schema of tools listed with an open \
                 schema. Call it with their names before calling them for the first time."
                    .to_owned(),
                json!({
                    "type": "object",
                    "properties": {"toolNames": tool_names_property},
                    "required": ["toolNames"]
                }),
            ),
        };
        Some(DiscoveryTool {
            definition: Arc::new(ToolDefinition {
                name: DISCOVERY_TOOL_NAME.to_owned(),
                description,
                input_schema,
            }),
            lazy_names: lazy.iter().map(|t| t.name().to_owned()).collect(),
            search: mode == ResolvedMode::Search,
        })
    }

    /// The lazy tools' names, in name order.
    pub(crate) fn lazy_names(&self) -> &[String] {
        &self.lazy_names
    }

    /// Answers a discovery call. `lookup` finds a tool the session may use (lazy or eager);
    /// `search` ranks the session's lazy tools for a query.
    pub(crate) fn discover<'t>(
        &self,
        arguments: Value,
        lookup: impl Fn(&str) -> Option<&'t Tool>,
        search: impl FnOnce(&str, usize) -> Vec<&'t Tool>,
    ) -> Discovery {
        let request = match self.request(arguments) {
            Ok(request) => request,
            Err(problem) => {
                let hint = if self.search {
                    "Call it with a query: keywords describing what you need to do".to_owned()
                } else {
                    format!(
                        "Call {DISCOVERY_TOOL_NAME} with toolNames: the names of the tools you need, from: [{}]",
                        self.lazy_names.join(", ")
                    )
                };
                return Discovery {
                    result: ToolResult::error(
                        ToolErrorKind::InvalidArguments,
                        format!("Error: {problem}. {hint}."),
                    ),
                    found: Vec::new(),
                    unknown: Vec::new(),
                };
            }
        };
        let mut tools: Vec<&Tool> = Vec::new();
        let mut found = Vec::new();
        let mut errors = Vec::new();
        let mut unknown = Vec::new();
        match request {
            Request::Names(requested) => {
                for name in &requested {
                    if tools.iter().any(|t| t.name() == name) {
                        continue;
                    }
                    match lookup(name) {
                        Some(tool) => tools.push(tool),
                        None => {
                            errors.push(self.unknown_name(name));
                            unknown.push(name.clone());
                        }
                    }
                }
            }
            Request::Query { query, limit } => {
                tools = search(&query, limit);
                if tools.is_empty() {
                    errors.push(format!(
                        "No tool matches '{query}'. Try other or fewer keywords."
                    ));
                }
            }
        }
        found.extend(
            tools
                .iter()
                .filter(|t| t.is_lazy())
                .map(|t| t.name().to_owned()),
        );
        let listed: Vec<DiscoveredTool<'_>> = tools
            .iter()
            .map(|tool| DiscoveredTool {
                name: tool.name(),
                description: tool.description(),
                input_schema: tool.input_schema(),
                skill: tool.skill(),
            })
            .collect();
        let mut content = json!({ "tools": listed });
        if !errors.is_empty() {
            content["errors"] = json!(errors);
        }
        Discovery {
            result: ToolResult::success(content),
            found,
            unknown,
        }
    }

    fn unknown_name(&self, name: &str) -> String {
        if self.search {
            format!("Unknown tool '{name}'. Search with a query to find the right name.")
        } else {
            format!(
                "Unknown tool '{name}'. Available tools: [{}]",
                self.lazy_names.join(", ")
            )
        }
    }

    fn request(&self, arguments: Value) -> Result<Request, String> {
        let arguments = crate::arguments::normalize(DISCOVERY_TOOL_NAME, arguments)
            .map_err(|rejected| rejected.text())?;
        if self.search && arguments.get("toolNames").is_none() {
            let query = match arguments.get("query") {
                Some(Value::String(query)) if !query.trim().is_empty() => query.trim().to_owned(),
                Some(Value::String(_)) => return Err("query is empty".to_owned()),
                Some(_) => return Err("query must be a string".to_owned()),
                None => return Err("query is missing".to_owned()),
            };
            let limit = match arguments.get("limit") {
                None | Some(Value::Null) => DEFAULT_SEARCH_LIMIT,
                Some(limit) => match limit.as_u64() {
                    Some(limit) if limit >= 1 => (limit as usize).min(MAX_SEARCH_LIMIT),
                    _ => {
                        return Err(format!(
                            "limit must be an integer from 1 to {MAX_SEARCH_LIMIT}"
                        ));
                    }
                },
            };
            return Ok(Request::Query { query, limit });
        }
        requested_names(&arguments).map(Request::Names)
    }
}

fn requested_names(arguments: &Value) -> Result<Vec<String>, String> {
    let names = match arguments.get("toolNames") {
        Some(Value::Array(names)) => names,
        Some(Value::String(name)) => return Ok(vec![name.clone()]),
        Some(_) => return Err("toolNames must be an array of tool names".to_owned()),
        None => return Err("toolNames is missing".to_owned()),
    };
    let names: Vec<String> = names
        .iter()
        .filter_map(|name| name.as_str())
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect();
    if names.is_empty() {
        return Err("toolNames is empty".to_owned());
    }
    Ok(names)
}

fn lines(tools: &[&Tool], text: impl Fn(&Tool) -> &str) -> String {
    tools
        .iter()
        .map(|tool| format!("\n- {}: {}", tool.name(), text(tool)))
        .collect()
}

/// The description up to the end of its first sentence (or first line).
pub(crate) fn first_sentence(description: &str) -> &str {
    let text = description.trim();
    let line_end = text.find('\n').unwrap_or(text.len());
    let line = &text[..line_end];
    match line.find(". ") {
        Some(end) => &line[..=end],
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_sentences() {
        assert_eq!(first_sentence("Gets a product. By id."), "Gets a product.");
        assert_eq!(first_sentence("Gets a product\nby id."), "Gets a product");
        assert_eq!(
            first_sentence("  Version 1.2 of it. More."),
            "Version 1.2 of it."
        );
        assert_eq!(first_sentence(""), "");
    }

    #[test]
    fn requested_names_accept_strings_and_reject_nothing() {
        assert_eq!(
            requested_names(&json!({"toolNames": ["a", " b ", ""]})),
            Ok(vec!["a".to_owned(), "b".to_owned()])
        );
        assert_eq!(
            requested_names(&json!({"toolNames": "a"})),
            Ok(vec!["a".to_owned()])
        );
        for bad in [json!({"toolNames": []}), json!({}), json!({"toolNames": 3})] {
            assert!(requested_names(&bad).is_err());
        }
    }
}
