//! The synthetic discovery tool through which the model loads lazy tools: its definition,
//! and its answers.

use std::collections::HashSet;
use std::sync::Arc;

use serde_json::{Value, json};

use super::answer::{MAX_QUOTED_NAMES, answer, name_list, unknown_names_error};
use super::explained::{Explained, Explains};
use super::listing::DiscoveryListing;
use super::mode::ResolvedMode;
use super::name_match::{MAX_CLOSEST, Short, ShortNames, closest};
use super::request::Request;
#[cfg(feature = "search")]
use super::request::{DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT};
use crate::call::{ToolErrorKind, ToolResult, quote};
use crate::tool::{DISCOVERY_TOOL_NAME, MAX_TOOL_NAME_LEN, Tool, ToolDefinition};

/// The discovery tool of one session: its definition (fixed for the conversation, so that
/// it does not break prompt caching) and the lazy tools it can hand out.
pub(crate) struct DiscoveryTool {
    pub(crate) definition: Arc<ToolDefinition>,
    lazy_names: Vec<String>,
    /// The lazy tools by the part of their name after `SERVER__`.
    short_names: ShortNames,
    search: bool,
}

/// What a discovery call found.
pub(crate) struct Discovery {
    /// The answer: `{"tools": [...], "errors"?: [...]}`, its [`DiscoveredSet`](crate::DiscoveredSet) not attached yet
    /// (the session signs it first).
    pub(crate) result: ToolResult,
    /// Every tool the answer lists, lazy or not, in answer order: what a signature covers.
    pub(crate) listed: Vec<String>,
    /// The lazy tools listed, in request order, without repeats.
    pub(crate) found: Vec<String>,
    /// The first names asked for that are no tool (cut to the longest a name can be), and
    /// how many there were.
    pub(crate) unknown: Vec<String>,
    pub(crate) unknown_count: usize,
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
            ResolvedMode::Names => (
                format!(
                    "Loads tools that are available but not loaded yet. Call it with the names of the \
                     tools you need; it returns their descriptions and argument schemas, and from your \
                     next turn on you can call them directly. Tools available: {}",
                    listing.render(lazy)
                ),
                json!({
                    "type": "object",
                    "properties": {"toolNames": tool_names_property},
                    "required": ["toolNames"]
                }),
            ),
            // Every token here is paid on every request: the wording is kept short. The
            // search also accepts `toolNames` (a tool name as the query finds it, too).
            #[cfg(feature = "search")]
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
        let lazy_names: Vec<String> = lazy.iter().map(|t| t.name().to_owned()).collect();
        Some(DiscoveryTool {
            definition: Arc::new(ToolDefinition {
                name: DISCOVERY_TOOL_NAME.to_owned(),
                description,
                input_schema,
            }),
            short_names: ShortNames::new(&lazy_names),
            lazy_names,
            search: mode.searches(),
        })
    }

    /// The lazy tools' names, in name order.
    pub(crate) fn lazy_names(&self) -> &[String] {
        &self.lazy_names
    }

    /// Answers a discovery call whose `arguments` passed the call limits (an object), in
    /// at most `max_bytes` of JSON. `lookup` finds a tool the session may use (lazy or
    /// eager); `search` ranks the session's lazy tools for a query; `missing` says why a name
    /// no tool has is missing, when its source knows, and what a search cannot offer.
    ///
    /// The work is linear in the arguments: each name is looked up once (repeats skipped),
    /// a query is at most [`MAX_QUERY_BYTES`](super::request::MAX_QUERY_BYTES).
    pub(crate) fn discover<'t>(
        &self,
        arguments: &Value,
        max_bytes: usize,
        lookup: impl Fn(&str) -> Option<&'t Tool>,
        search: impl FnOnce(&str, usize) -> Vec<&'t Tool>,
        missing: &dyn Explains,
    ) -> Discovery {
        let request = match Request::read(arguments, self.search) {
            Ok(request) => request,
            Err(problem) => {
                return Discovery {
                    result: ToolResult::error(
                        ToolErrorKind::InvalidArguments,
                        format!("Error: {problem}. {}.", self.usage(max_bytes / 2)),
                    ),
                    listed: Vec::new(),
                    found: Vec::new(),
                    unknown: Vec::new(),
                    unknown_count: 0,
                };
            }
        };
        let mut candidates: Vec<&Tool> = Vec::new();
        let mut errors = Vec::new();
        let mut unknown: Vec<&str> = Vec::new();
        let mut unknown_count = 0;
        match &request {
            Request::Names(requested) => {
                let mut seen: HashSet<&str> = HashSet::new();
                let mut listed: HashSet<&str> = HashSet::new();
                let mut ambiguous = 0;
                let mut explained = Explained::default();
                for name in requested {
                    let name: &str = name;
                    if !seen.insert(name) {
                        continue;
                    }
                    let found = lookup(name).or_else(|| {
                        match self.short_names.resolve(name, &self.lazy_names) {
                            Short::One(full) => lookup(full),
                            Short::Many(full) => {
                                ambiguous += 1;
                                if ambiguous <= MAX_QUOTED_NAMES {
                                    errors.push(ambiguous_error(name, &full));
                                }
                                None
                            }
                            Short::None if explained.add(name, missing) => None,
                            Short::None => {
                                unknown_count += 1;
                                if unknown.len() < MAX_QUOTED_NAMES {
                                    unknown.push(name);
                                }
                                None
                            }
                        }
                    });
                    // A tool asked for by its full and its short name is listed once.
                    if let Some(tool) = found
                        && listed.insert(tool.name())
                    {
                        candidates.push(tool);
                    }
                }
                errors.extend(explained.errors());
                if unknown_count > 0 {
                    errors.push(unknown_names_error(
                        &unknown,
                        unknown_count,
                        &self.offered(&unknown, max_bytes / 4),
                    ));
                }
            }
            Request::Query { query, limit } => {
                candidates = search(query, *limit);
                if candidates.is_empty() {
                    errors.push(format!(
                        "No tool matches '{query}'. Try other or fewer keywords."
                    ));
                }
                errors.extend(missing.unavailable());
            }
        }
        let answer = answer(&candidates, errors, max_bytes);
        Discovery {
            result: ToolResult::success(answer.content),
            listed: answer.listed.iter().map(|t| t.name().to_owned()).collect(),
            found: (answer.listed.iter().filter(|t| t.is_lazy()))
                .map(|t| t.name().to_owned())
                .collect(),
            unknown: unknown
                .iter()
                .map(|name| quote(name, MAX_TOOL_NAME_LEN).into_owned())
                .collect(),
            unknown_count,
        }
    }

    /// How to call the discovery tool, for an error, in about `max_bytes`.
    fn usage(&self, max_bytes: usize) -> String {
        if self.search {
            "Call it with a query: keywords describing what you need to do".to_owned()
        } else {
            format!(
                "Call {DISCOVERY_TOOL_NAME} with toolNames: the names of the tools you need, from: {}",
                name_list(&self.lazy_names, max_bytes)
            )
        }
    }

    /// What the error for the `unknown` names offers instead, in about `max_bytes`: every
    /// lazy tool when there are few, else the closest names (the listing has them all).
    fn offered(&self, unknown: &[&str], max_bytes: usize) -> String {
        if self.search {
            return "Search with a query to find the right name.".to_owned();
        }
        if self.lazy_names.len() <= MAX_CLOSEST {
            return format!(
                "Available tools: {}",
                name_list(&self.lazy_names, max_bytes)
            );
        }
        // Each compared name costs a comparison with every tool: the first few are enough.
        let near: Vec<String> = closest(&unknown[..unknown.len().min(3)], &self.lazy_names)
            .into_iter()
            .map(str::to_owned)
            .collect();
        format!(
            "Closest of the {} tools: {}; the description of {DISCOVERY_TOOL_NAME} lists them all.",
            self.lazy_names.len(),
            name_list(&near, max_bytes)
        )
    }
}

/// The error for a short name that several tools end in.
fn ambiguous_error(short: &str, full: &[&str]) -> String {
    let full: Vec<String> = (full.iter().take(MAX_CLOSEST))
        .map(|name| (*name).to_owned())
        .collect();
    format!(
        "'{}' is the end of several tools' names: {}. Ask for the one you need by its full name.",
        quote(short, MAX_TOOL_NAME_LEN),
        name_list(&full, usize::MAX)
    )
}

/// Writes the signature of a signed discovery into its result's JSON, where
/// `read_result` finds it in a history.
pub(crate) fn write_signature(content: &mut Value, signature: &str) {
    content["signature"] = Value::String(signature.to_owned());
}
