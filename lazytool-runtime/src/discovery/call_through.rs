//! The call-through tool, [`CALL_THROUGH_TOOL_NAME`]: its definition, what it is called with,
//! and the wording that points the model at it (the discovery tool's description and results).
//!
//! With it the tool list never changes, so lazy discovery works where the list must not
//! depend on earlier calls (stateless MCP); sessions route its calls
//! (`session/call_through.rs`).

use std::sync::{Arc, LazyLock};

use serde_json::{Map, Value, json};

use super::listing::DiscoveryListing;
use super::mode::ResolvedMode;
#[cfg(feature = "search")]
use super::request::DEFAULT_SEARCH_LIMIT;
use crate::call::ToolResult;
use crate::dispatch::normalize;
use crate::tool::{CALL_THROUGH_TOOL_NAME, Tool, ToolDefinition};

/// The key of a discovery result that says how to run the tools it returned.
pub(crate) const HOW_TO_CALL_KEY: &str = "howToCall";

/// How many tool names an error lists at most: the rest is counted.
pub(crate) const MAX_LISTED_NAMES: usize = 50;

static DEFINITION: LazyLock<Arc<ToolDefinition>> = LazyLock::new(|| {
    Arc::new(ToolDefinition {
        name: CALL_THROUGH_TOOL_NAME.to_owned(),
        description: "Runs a tool returned by __lazy__tool__discovery__: pass its name, \
                      its arguments as its inputSchema describes them, and its fingerprint."
            .to_owned(),
        input_schema: json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name."},
                "arguments": {"type": "object", "description": "The tool's arguments."},
                "fingerprint": {"type": "string", "description": "The tool's, as discovered."}
            },
            "required": ["name"]
        }),
    })
});

/// The call-through tool as requests carry it (built once per process).
pub(crate) fn definition() -> &'static Arc<ToolDefinition> {
    &DEFINITION
}

/// The discovery tool's description when lazy tools are run through the call-through tool,
/// for the modes that discover (`None` for the others).
pub(crate) fn discovery_description(
    lazy: &[&Tool],
    mode: ResolvedMode,
    listing: DiscoveryListing,
) -> Option<String> {
    match mode {
        ResolvedMode::Names => Some(format!(
            "Loads tools that are available but not loaded yet. Call it with the names of the \
             tools you need; it returns their descriptions and argument schemas, and you run them \
             with {CALL_THROUGH_TOOL_NAME}. Tools available: {}",
            listing.render(lazy)
        )),
        #[cfg(feature = "search")]
        ResolvedMode::Search => Some(format!(
            "Searches {} tools not loaded yet by keywords for what you need. Returns the best \
             matches ({DEFAULT_SEARCH_LIMIT} unless you set limit) with their schemas; run them \
             with {CALL_THROUGH_TOOL_NAME}.",
            lazy.len()
        )),
        ResolvedMode::Inline | ResolvedMode::CacheStable => None,
    }
}

/// The key of a discovered tool's fingerprint ([`Tool::fingerprint`]), in discovery results
/// and in calls of the call-through tool.
pub(crate) const FINGERPRINT_KEY: &str = "fingerprint";

/// A successful discovery result, told how to run what it found, each tool with its
/// fingerprint (`fingerprint_of` its name).
pub(crate) fn with_how_to_call<'t>(
    result: ToolResult,
    fingerprint_of: impl Fn(&str) -> Option<&'t str>,
) -> ToolResult {
    let found_some = (result.content().get("tools").and_then(Value::as_array))
        .is_some_and(|tools| !tools.is_empty());
    if result.is_error() || !found_some {
        return result;
    }
    let mut content = result.content().clone();
    if let Some(tools) = content.get_mut("tools").and_then(Value::as_array_mut) {
        for tool in tools {
            let fingerprint = tool
                .get("name")
                .and_then(Value::as_str)
                .and_then(&fingerprint_of);
            if let (Some(fingerprint), Some(entry)) = (fingerprint, tool.as_object_mut()) {
                entry.insert(
                    FINGERPRINT_KEY.to_owned(),
                    Value::String(fingerprint.to_owned()),
                );
            }
        }
    }
    content[HOW_TO_CALL_KEY] = Value::String(format!(
        "Run these tools with {CALL_THROUGH_TOOL_NAME}: {{\"name\": \"<tool name>\", \"arguments\": {{<its arguments>}}, \"{FINGERPRINT_KEY}\": \"<its fingerprint>\"}}."
    ));
    result.with_content(content)
}

/// What a call of the call-through tool asks for.
#[derive(Debug, PartialEq)]
pub(crate) struct Target {
    pub(crate) name: String,
    /// As sent: the named tool's admission normalizes and validates them.
    pub(crate) arguments: Value,
    /// The fingerprint its discovery gave, if the call brought it back.
    pub(crate) fingerprint: Option<String>,
}

/// Reads `{"name": "...", "arguments": ...}` (or the same JSON-encoded in a string). The
/// error says what is wrong, for the model. The caller has checked the limits.
pub(crate) fn read(arguments: Value) -> Result<Target, ToolResult> {
    let Value::Object(mut members) = normalize(CALL_THROUGH_TOOL_NAME, arguments)? else {
        return Err(invalid("the arguments must be a JSON object"));
    };
    if let Some(problem) = stray_property(&members) {
        return Err(invalid(&problem));
    }
    let name = match members.remove("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        Some(Value::String(_)) => return Err(invalid("name is empty")),
        Some(_) => return Err(invalid("name must be a string: the tool's name")),
        None => return Err(invalid("name is missing: the name of the tool to run")),
    };
    let fingerprint = match members.remove(FINGERPRINT_KEY) {
        None | Some(Value::Null) => None,
        Some(Value::String(fingerprint)) => Some(fingerprint),
        Some(_) => {
            return Err(invalid(
                "fingerprint must be a string: the one the discovery result gave the tool",
            ));
        }
    };
    let arguments = members.remove("arguments").unwrap_or(Value::Null);
    Ok(Target {
        name,
        arguments,
        fingerprint,
    })
}

/// A model that put the tool's arguments next to `name` instead of inside `arguments`.
fn stray_property(members: &Map<String, Value>) -> Option<String> {
    let mut strays = members
        .keys()
        .filter(|key| !matches!(key.as_str(), "name" | "arguments" | FINGERPRINT_KEY));
    let first = strays.next()?;
    let others = match strays.count() {
        0 => String::new(),
        1 => " (and 1 other)".to_owned(),
        n => format!(" (and {n} others)"),
    };
    Some(format!(
        "unexpected property '{first}'{others}: put the tool's own arguments inside \"arguments\""
    ))
}

fn invalid(problem: &str) -> ToolResult {
    crate::dispatch::invalid(CALL_THROUGH_TOOL_NAME, problem)
}

/// `names`, at most [`MAX_LISTED_NAMES`] of them, as `[a, b, ...]` with a count of the rest.
pub(crate) fn bounded_list<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let total = names.len();
    let shown: Vec<&str> = names.take(MAX_LISTED_NAMES).collect();
    let rest = total - shown.len();
    if rest == 0 {
        format!("[{}]", shown.join(", "))
    } else {
        format!("[{}, ... and {rest} more]", shown.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn problem(arguments: Value) -> String {
        match read(arguments) {
            Ok(target) => panic!("read {target:?}"),
            Err(error) => error.text(),
        }
    }

    #[test]
    fn reads_objects_and_encoded_objects() {
        let expected = Target {
            name: "convert".to_owned(),
            arguments: json!({"amount": 1}),
            fingerprint: None,
        };
        let call = json!({"name": "convert", "arguments": {"amount": 1}});
        assert_eq!(read(call.clone()), Ok(expected));
        let encoded = read(Value::String(call.to_string())).map(|target| target.name);
        assert_eq!(encoded, Ok("convert".to_owned()));
        let bare = read(json!({"name": "ping"})).map(|target| target.arguments);
        assert_eq!(bare, Ok(Value::Null));
        let carried = read(json!({"name": "ping", "fingerprint": "0f"})).map(|t| t.fingerprint);
        assert_eq!(carried, Ok(Some("0f".to_owned())));
    }

    #[test]
    fn says_what_is_wrong() {
        assert!(problem(json!({"arguments": {}})).contains("name is missing"));
        assert!(problem(json!({"name": 3})).contains("name must be a string"));
        assert!(problem(json!({"name": " "})).contains("name is empty"));
        assert!(problem(json!({"name": "a", "fingerprint": 1})).contains("fingerprint must be"));
        assert!(problem(json!([1])).contains("must be a JSON object"));
        assert!(problem(json!("{\"name\": ")).contains("not valid JSON"));
        let stray = problem(json!({"name": "convert", "amount": 1, "rate": 2}));
        assert!(stray.contains("'amount' (and 1 other)"), "{stray}");
    }

    #[test]
    fn bounds_lists_of_names() {
        let names: Vec<String> = (0..120).map(|i| format!("t{i}")).collect();
        let listed = bounded_list(names.iter().map(String::as_str));
        assert!(listed.starts_with("[t0, t1,") && listed.ends_with("t49, ... and 70 more]"));
        assert_eq!(bounded_list(["a", "b"].into_iter()), "[a, b]");
    }
}
