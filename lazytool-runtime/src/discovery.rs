//! The synthetic discovery tool through which the model loads lazy tools.

use serde::Serialize;
use serde_json::{Value, json};

use crate::definition::ToolDefinition;
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
    pub(crate) definition: ToolDefinition,
    lazy_names: Vec<String>,
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

/// What a discovery call found.
pub(crate) struct Discovery {
    pub(crate) result: ToolResult,
    /// The lazy tools returned, in request order, without repeats.
    pub(crate) found: Vec<String>,
    pub(crate) unknown: Vec<String>,
}

impl DiscoveryTool {
    /// The discovery tool over `lazy` (the session's lazy tools, in name order); `None` when
    /// there are none, so that a tool set without lazy tools costs exactly what it did.
    pub(crate) fn new(lazy: &[&Tool], listing: DiscoveryListing) -> Option<Self> {
        if lazy.is_empty() {
            return None;
        }
        let catalog = match listing {
            DiscoveryListing::Names => format!(
                "[{}]",
                lazy.iter().map(|t| t.name()).collect::<Vec<_>>().join(", ")
            ),
            DiscoveryListing::FirstSentence => lines(lazy, |t| first_sentence(t.description())),
            DiscoveryListing::FullDescription => lines(lazy, |t| t.description().trim()),
        };
        let description = format!(
            "Loads tools that are available but not loaded yet. Call it with the names of the \
             tools you need; it returns their descriptions and argument schemas, and from your \
             next turn on you can call them directly. Tools available: {catalog}"
        );
        Some(DiscoveryTool {
            definition: ToolDefinition {
                name: DISCOVERY_TOOL_NAME.to_owned(),
                description,
                input_schema: json!({
                    "type": "object",
                    "properties": {
                        "toolNames": {
                            "type": "array",
                            "items": {"type": "string"},
                            "description": "The names of the tools to load."
                        }
                    },
                    "required": ["toolNames"]
                }),
            },
            lazy_names: lazy.iter().map(|t| t.name().to_owned()).collect(),
        })
    }

    /// The lazy tools' names, in name order.
    pub(crate) fn lazy_names(&self) -> &[String] {
        &self.lazy_names
    }

    /// Answers a discovery call. `lookup` finds a tool the session may use (lazy or eager).
    pub(crate) fn discover<'t>(
        &self,
        arguments: Value,
        lookup: impl Fn(&str) -> Option<&'t Tool>,
    ) -> Discovery {
        let requested = match requested_names(arguments) {
            Ok(requested) => requested,
            Err(problem) => {
                return Discovery {
                    result: ToolResult::error(
                        ToolErrorKind::InvalidArguments,
                        format!(
                            "Error: {problem}. Call {DISCOVERY_TOOL_NAME} with toolNames: the names of the tools you need, from: [{}].",
                            self.lazy_names.join(", ")
                        ),
                    ),
                    found: Vec::new(),
                    unknown: Vec::new(),
                };
            }
        };
        let mut tools = Vec::new();
        let mut found = Vec::new();
        let mut errors = Vec::new();
        let mut unknown = Vec::new();
        for name in &requested {
            if tools.iter().any(|t: &&Tool| t.name() == name) {
                continue;
            }
            match lookup(name) {
                Some(tool) => {
                    if tool.is_lazy() {
                        found.push(name.clone());
                    }
                    tools.push(tool);
                }
                None => {
                    errors.push(format!(
                        "Unknown tool '{name}'. Available tools: [{}]",
                        self.lazy_names.join(", ")
                    ));
                    unknown.push(name.clone());
                }
            }
        }
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
}

fn requested_names(arguments: Value) -> Result<Vec<String>, String> {
    let arguments = crate::arguments::normalize(DISCOVERY_TOOL_NAME, arguments)
        .map_err(|rejected| rejected.text())?;
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
            requested_names(json!({"toolNames": ["a", " b ", ""]})),
            Ok(vec!["a".to_owned(), "b".to_owned()])
        );
        assert_eq!(
            requested_names(json!("{\"toolNames\": [\"a\"]}")),
            Ok(vec!["a".to_owned()])
        );
        assert_eq!(
            requested_names(json!({"toolNames": "a"})),
            Ok(vec!["a".to_owned()])
        );
        for bad in [
            json!({"toolNames": []}),
            json!({}),
            json!({"toolNames": 3}),
            json!([]),
        ] {
            assert!(requested_names(bad).is_err());
        }
    }
}
