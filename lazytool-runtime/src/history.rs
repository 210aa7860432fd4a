//! Scanning chat message histories for tool calls and tool results.
//!
//! [`scan`] understands five provider formats, which may be mixed in one
//! history:
//!
//! - OpenAI Chat Completions: assistant `tool_calls` and `role: "tool"`
//!   messages with `tool_call_id`.
//! - TanStack AI: the camelCase `toolCalls` / `toolCallId` equivalents, with or
//!   without the `function` wrapper.
//! - Anthropic Messages: `tool_use` and `tool_result` content blocks.
//! - OpenAI Responses API: top-level `function_call` and
//!   `function_call_output` items, matched by `call_id`; a client-executed
//!   `tool_search_call` is a call of the discovery tool
//!   ([`DISCOVERY_TOOL_NAME`]) and its `tool_search_output` the discovery
//!   result `{"tools": [{"name"}]}` of the tools it loaded.
//! - Gemini: `functionCall` / `functionResponse` parts (and the snake_case
//!   `function_call` / `function_response` of the Python SDK). Calls and
//!   responses without an id get a synthesized id `gemini:{name}:{k}`, where
//!   `k` counts (from 0) the id-less calls, respectively responses, of that
//!   name seen so far, so they pair up in order per name.
//!
//! Only the top-level list is walked; message contents are never recursed
//! into, so the cost is linear in the size of the history.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::DISCOVERY_TOOL_NAME;

/// A tool call found in a message history.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryCall {
    /// The call id that results refer to (for Gemini possibly synthesized).
    pub id: String,
    /// The name of the called tool.
    pub name: String,
    /// The arguments: parsed JSON when given as a JSON string, the string
    /// itself when it does not parse, and an empty object when absent or blank.
    pub arguments: Value,
}

/// A tool result found in a message history.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryResult {
    /// The id of the call this result answers.
    pub call_id: String,
    /// The result: its text parsed as JSON, or the text as a JSON string when
    /// it is not valid JSON; structured Gemini responses are unwrapped.
    pub content: Value,
    /// Whether the result reports a failure: Anthropic `is_error: true`, a
    /// Gemini response with a non-null `error` key, or, for the OpenAI Chat
    /// Completions, TanStack and Responses formats, text starting with
    /// `Error:`.
    pub is_error: bool,
}

/// What a history holds, in order of appearance.
///
/// Besides the public lists, a scan remembers which call each result answers
/// (see [`results_of`]); equality compares only `calls` and `results`.
#[derive(Clone, Debug, Default)]
pub struct HistoryScan {
    /// Every tool call, in order of appearance.
    pub calls: Vec<HistoryCall>,
    /// Every tool result, in order of appearance, matched or not.
    pub results: Vec<HistoryResult>,
    /// For each result, the index in `calls` of the call it answers.
    matches: Vec<Option<usize>>,
}

impl PartialEq for HistoryScan {
    fn eq(&self, other: &Self) -> bool {
        self.calls == other.calls && self.results == other.results
    }
}

/// Scans messages of any supported format (formats may even be mixed);
/// malformed entries are skipped, never an error or panic.
///
/// A result answers the most recent call with the same id that precedes it,
/// so with duplicate ids a later call takes over for the later results, and a
/// result appearing before any call with its id answers no call.
#[cfg(test)]
#[must_use]
pub fn scan(messages: &[Value]) -> HistoryScan {
    scan_with(messages, None)
}

/// The results of calls to `tool_name`, in order (a result answers the most recent call
/// with its id that precedes it); the other results are not even parsed (a stateless server rebuilds its session from the history on
/// every request, and most results answer other tools).
#[must_use]
pub fn results_of_tool(messages: &[Value], tool_name: &str) -> Vec<HistoryResult> {
    scan_with(messages, Some(tool_name)).results
}

fn scan_with(messages: &[Value], only_results_of: Option<&str>) -> HistoryScan {
    let mut scanner = Scanner {
        only_results_of,
        ..Scanner::default()
    };
    for message in messages {
        scanner.message(message);
    }
    scanner.scan
}

/// The results whose call (matched by call id) was a call of the tool
/// `tool_name`, each with its call, in order. A result with no matching call,
/// or matching a call of another tool, is not returned.
///
/// Matching follows the rule described on [`scan`]. For a [`HistoryScan`] not
/// built by [`scan`], or whose results were changed since, the order of calls
/// relative to results is unknown and each result matches the last call with
/// its id.
#[cfg(test)]
#[must_use]
pub fn results_of<'a>(
    scan: &'a HistoryScan,
    tool_name: &str,
) -> Vec<(&'a HistoryCall, &'a HistoryResult)> {
    if scan.matches.len() == scan.results.len() {
        scan.results
            .iter()
            .zip(&scan.matches)
            .filter_map(|(result, &index)| {
                let call = scan.calls.get(index?)?;
                (call.id == result.call_id && call.name == tool_name).then_some((call, result))
            })
            .collect()
    } else {
        let latest: HashMap<&str, &HistoryCall> = scan
            .calls
            .iter()
            .map(|call| (call.id.as_str(), call))
            .collect();
        scan.results
            .iter()
            .filter_map(|result| {
                let call = *latest.get(result.call_id.as_str())?;
                (call.name == tool_name).then_some((call, result))
            })
            .collect()
    }
}

#[derive(Default)]
struct Scanner<'a> {
    scan: HistoryScan,
    /// Keep (and parse) only the results of calls to this tool.
    only_results_of: Option<&'a str>,
    latest_call: HashMap<String, usize>,
    gemini_calls: HashMap<&'a str, usize>,
    gemini_responses: HashMap<&'a str, usize>,
}

impl<'a> Scanner<'a> {
    fn message(&mut self, message: &'a Value) {
        let Some(message) = message.as_object() else {
            return;
        };
        match str_field(message, "type") {
            Some("function_call") => return self.responses_call(message),
            Some("function_call_output") => return self.responses_output(message),
            Some("tool_search_call") => return self.responses_tool_search_call(message),
            Some("tool_search_output") => return self.responses_tool_search_output(message),
            _ => {}
        }
        if let Some(Value::Array(blocks)) = member(message, "content") {
            for block in blocks {
                self.anthropic_block(block);
            }
        }
        for key in ["tool_calls", "toolCalls"] {
            if let Some(Value::Array(items)) = member(message, key) {
                for item in items {
                    self.openai_call(item);
                }
            }
        }
        if str_field(message, "role") == Some("tool") {
            self.openai_result(message);
        }
        if let Some(Value::Array(parts)) = member(message, "parts") {
            for part in parts {
                self.gemini_part(part);
            }
        }
    }

    /// Records a call; `arguments` parses its arguments, which a scan for one tool's results
    /// never needs (its calls keep `null`).
    fn push_call(&mut self, id: String, name: &str, arguments: impl FnOnce() -> Value) {
        self.latest_call.insert(id.clone(), self.scan.calls.len());
        let arguments = match self.only_results_of {
            Some(_) => Value::Null,
            None => arguments(),
        };
        self.scan.calls.push(HistoryCall {
            id,
            name: name.to_owned(),
            arguments,
        });
    }

    /// Records a result; `content` gives its content and whether it reports a failure, and
    /// is only run for results that are kept.
    fn push_result(&mut self, call_id: &str, content: impl FnOnce() -> (Value, bool)) {
        let call = self.latest_call.get(call_id).copied();
        if let Some(tool) = self.only_results_of
            && call
                .and_then(|index| self.scan.calls.get(index))
                .is_none_or(|c| c.name != tool)
        {
            return;
        }
        let (content, is_error) = content();
        self.scan.matches.push(call);
        self.scan.results.push(HistoryResult {
            call_id: call_id.to_owned(),
            content,
            is_error,
        });
    }

    fn openai_call(&mut self, item: &Value) {
        let Some(item) = item.as_object() else {
            return;
        };
        let Some(id) = id_field(item, "id") else {
            return;
        };
        let function = member(item, "function")
            .and_then(Value::as_object)
            .unwrap_or(item);
        let Some(name) = str_field(function, "name") else {
            return;
        };
        self.push_call(id.to_owned(), name, || {
            arguments(member(function, "arguments"))
        });
    }

    fn openai_result(&mut self, message: &Map<String, Value>) {
        let Some(call_id) =
            id_field(message, "tool_call_id").or_else(|| id_field(message, "toolCallId"))
        else {
            return;
        };
        self.push_result(call_id, || text_content(member(message, "content")));
    }

    fn anthropic_block(&mut self, block: &Value) {
        let Some(block) = block.as_object() else {
            return;
        };
        match str_field(block, "type") {
            Some("tool_use") => {
                if let (Some(id), Some(name)) = (id_field(block, "id"), str_field(block, "name")) {
                    self.push_call(id.to_owned(), name, || arguments(member(block, "input")));
                }
            }
            Some("tool_result") => {
                if let Some(call_id) = id_field(block, "tool_use_id") {
                    self.push_result(call_id, || {
                        let (content, _) = text_content(member(block, "content"));
                        let is_error =
                            member(block, "is_error").and_then(Value::as_bool) == Some(true);
                        (content, is_error)
                    });
                }
            }
            _ => {}
        }
    }

    fn responses_call(&mut self, item: &Map<String, Value>) {
        if let (Some(id), Some(name)) = (id_field(item, "call_id"), str_field(item, "name")) {
            self.push_call(id.to_owned(), name, || arguments(member(item, "arguments")));
        }
    }

    fn responses_output(&mut self, item: &Map<String, Value>) {
        if let Some(call_id) = id_field(item, "call_id") {
            self.push_result(call_id, || text_content(member(item, "output")));
        }
    }

    /// Hosted tool searches (`"execution": "server"`) are the API's own business and skipped.
    fn responses_tool_search_call(&mut self, item: &Map<String, Value>) {
        if str_field(item, "execution") == Some("client")
            && let Some(id) = id_field(item, "call_id")
        {
            self.push_call(id.to_owned(), DISCOVERY_TOOL_NAME, || {
                arguments(member(item, "arguments"))
            });
        }
    }

    fn responses_tool_search_output(&mut self, item: &Map<String, Value>) {
        if str_field(item, "execution") != Some("client") {
            return;
        }
        let Some(call_id) = id_field(item, "call_id") else {
            return;
        };
        self.push_result(call_id, || (loaded_tools(item), false));
    }

    fn gemini_part(&mut self, part: &'a Value) {
        let Some(part) = part.as_object() else {
            return;
        };
        let field = |camel, snake| {
            member(part, camel)
                .or_else(|| member(part, snake))
                .and_then(Value::as_object)
        };
        if let Some(call) = field("functionCall", "function_call") {
            let Some(name) = str_field(call, "name") else {
                return;
            };
            let id = match id_field(call, "id") {
                Some(id) => id.to_owned(),
                None => synthesize_id(&mut self.gemini_calls, name),
            };
            self.push_call(id, name, || arguments(member(call, "args")));
        } else if let Some(response) = field("functionResponse", "function_response") {
            let id = match (id_field(response, "id"), str_field(response, "name")) {
                (Some(id), _) => id.to_owned(),
                (None, Some(name)) => synthesize_id(&mut self.gemini_responses, name),
                (None, None) => return,
            };
            self.push_result(&id, || gemini_content(member(response, "response")));
        }
    }
}

/// `object[key]`. Messages have a handful of members: comparing keys is cheaper than hashing
/// them (serde_json's maps hash with SipHash), and this runs over every message of a history
/// on every request of a stateless server.
fn member<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    if object.len() <= 8 {
        object
            .iter()
            .find(|(name, _)| name.as_str() == key)
            .map(|(_, value)| value)
    } else {
        object.get(key)
    }
}

fn str_field<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    member(object, key).and_then(Value::as_str)
}

/// Like [`str_field`], but an empty id counts as absent.
fn id_field<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    str_field(object, key).filter(|id| !id.is_empty())
}

fn synthesize_id<'a>(counters: &mut HashMap<&'a str, usize>, name: &'a str) -> String {
    let counter = counters.entry(name).or_default();
    let id = format!("gemini:{name}:{counter}");
    *counter += 1;
    id
}

fn arguments(value: Option<&Value>) -> Value {
    match value {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(text)) if text.trim().is_empty() => Value::Object(Map::new()),
        Some(Value::String(text)) => {
            serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
        }
        Some(other) => other.clone(),
    }
}

/// A `tool_search_output` item as the discovery result it stands for: `{"tools": [{"name"}]}`
/// with the loaded functions, and the functions inside loaded namespaces.
fn loaded_tools(item: &Map<String, Value>) -> Value {
    let mut names = Vec::new();
    for tool in member(item, "tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(tool) = tool.as_object() else {
            continue;
        };
        match (str_field(tool, "type"), member(tool, "tools")) {
            (Some("namespace"), Some(Value::Array(inner))) => names.extend(
                inner
                    .iter()
                    .filter_map(Value::as_object)
                    .filter_map(|tool| str_field(tool, "name")),
            ),
            _ => names.extend(str_field(tool, "name")),
        }
    }
    discovery_result(names)
}

fn parse_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

/// The content of a text-based result, and whether its text starts with
/// `Error:`. Arrays of content parts contribute the text of their text parts.
fn text_content(content: Option<&Value>) -> (Value, bool) {
    if let Some(Value::Array(parts)) = content
        && let Some(references) = tool_references(parts)
    {
        return (references, false);
    }
    let text = match content {
        None | Some(Value::Null) => Cow::Borrowed(""),
        Some(Value::String(text)) => Cow::Borrowed(text.as_str()),
        Some(Value::Array(parts)) => Cow::Owned(concat_text(parts)),
        Some(other) => return (other.clone(), false),
    };
    (parse_text(&text), text.trim_start().starts_with("Error:"))
}

/// Anthropic's `tool_reference` blocks (the answer to a discovery in deferred-loading mode)
/// as the discovery result they stand for: `{"tools": [{"name": ...}]}`.
fn tool_references(parts: &[Value]) -> Option<Value> {
    let names: Vec<&str> = parts
        .iter()
        .filter_map(Value::as_object)
        .filter(|part| str_field(part, "type") == Some("tool_reference"))
        .filter_map(|part| str_field(part, "tool_name"))
        .collect();
    (!names.is_empty()).then(|| discovery_result(names))
}

/// The discovery result a provider's own answer to a discovery stands for:
/// `{"tools": [{"name": ...}]}`.
fn discovery_result(names: Vec<&str>) -> Value {
    let tools: Vec<Value> = names
        .into_iter()
        .map(|name| json!({ "name": name }))
        .collect();
    json!({ "tools": tools })
}

fn concat_text(parts: &[Value]) -> String {
    parts
        .iter()
        .filter_map(Value::as_object)
        .filter(|part| {
            matches!(
                str_field(part, "type"),
                None | Some("text" | "input_text" | "output_text")
            )
        })
        .filter_map(|part| str_field(part, "text"))
        .collect()
}

fn gemini_content(response: Option<&Value>) -> (Value, bool) {
    let object = match response {
        Some(Value::Object(object)) => object,
        Some(Value::String(text)) => return (parse_text(text), false),
        Some(other) => return (other.clone(), false),
        None => return (Value::Null, false),
    };
    let is_error = member(object, "error").is_some_and(|error| !error.is_null());
    let mut entries = object.iter();
    if let (Some((key, inner)), None) = (entries.next(), entries.next())
        && matches!(key.as_str(), "result" | "output" | "content")
    {
        let content = match inner {
            Value::String(text) => parse_text(text),
            other => other.clone(),
        };
        return (content, is_error);
    }
    (Value::Object(object.clone()), is_error)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, name: &str, arguments: Value) -> HistoryCall {
        HistoryCall {
            id: id.to_owned(),
            name: name.to_owned(),
            arguments,
        }
    }

    fn result(call_id: &str, content: Value, is_error: bool) -> HistoryResult {
        HistoryResult {
            call_id: call_id.to_owned(),
            content,
            is_error,
        }
    }

    fn pairs(scan: &HistoryScan, tool: &str) -> Vec<(String, Value)> {
        results_of(scan, tool)
            .into_iter()
            .map(|(call, result)| (call.id.clone(), result.content.clone()))
            .collect()
    }

    #[test]
    fn openai_chat_completions() {
        let history = [
            json!({"role": "system", "content": "You are helpful."}),
            json!({"role": "user", "content": "Weather in Paris and Rome?"}),
            json!({
                "role": "assistant",
                "content": null,
                "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                    {"id": "call_2", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":"}}
                ]
            }),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"temp\":21}"}),
            json!({"role": "tool", "tool_call_id": "call_2",
                   "content": [{"type": "text", "text": "Error: "}, {"type": "text", "text": "bad city"}]}),
            json!({"role": "assistant", "content": "Paris is 21°C; Rome failed."}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_3", "type": "function", "function": {"name": "now", "arguments": ""}}
            ]}),
            json!({"role": "tool", "tool_call_id": "call_3", "content": "12:00"}),
        ];
        let scan = scan(&history);
        assert_eq!(
            scan.calls,
            [
                call("call_1", "get_weather", json!({"city": "Paris"})),
                call("call_2", "get_weather", json!("{\"city\":")),
                call("call_3", "now", json!({})),
            ]
        );
        assert_eq!(
            scan.results,
            [
                result("call_1", json!({"temp": 21}), false),
                result("call_2", json!("Error: bad city"), true),
                result("call_3", json!("12:00"), false),
            ]
        );
        assert_eq!(
            pairs(&scan, "get_weather"),
            [
                ("call_1".into(), json!({"temp": 21})),
                ("call_2".into(), json!("Error: bad city"))
            ]
        );
    }

    #[test]
    fn tanstack_camel_case() {
        let history = [
            json!({"role": "user", "content": "Add 2 and 3, then search."}),
            json!({"role": "assistant", "content": "", "toolCalls": [
                {"id": "tc_1", "type": "function",
                 "function": {"name": "add", "arguments": "{\"a\":2,\"b\":3}"}}
            ]}),
            json!({"role": "tool", "toolCallId": "tc_1", "content": "5"}),
            json!({"role": "assistant", "content": "Now searching.", "toolCalls": [
                {"id": "tc_2", "name": "search", "arguments": {"q": "rust"}}
            ]}),
            json!({"role": "tool", "toolCallId": "tc_2", "content": "Error: offline"}),
            json!({"role": "assistant", "content": "2 + 3 = 5, search is offline."}),
        ];
        let scan = scan(&history);
        assert_eq!(
            scan.calls,
            [
                call("tc_1", "add", json!({"a": 2, "b": 3})),
                call("tc_2", "search", json!({"q": "rust"})),
            ]
        );
        assert_eq!(
            scan.results,
            [
                result("tc_1", json!(5), false),
                result("tc_2", json!("Error: offline"), true),
            ]
        );
        assert_eq!(pairs(&scan, "add"), [("tc_1".into(), json!(5))]);
    }

    #[test]
    fn anthropic_messages() {
        let history = [
            json!({"role": "user", "content": "Look up order 42 and 43."}),
            json!({"role": "assistant", "content": [
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_order", "input": {"id": 42}},
                {"type": "tool_use", "id": "toolu_2", "name": "get_order", "input": {"id": 43}}
            ]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1",
                 "content": [{"type": "text", "text": "{\"status\":"},
                             {"type": "image", "source": {"type": "base64", "data": "AAAA"}},
                             {"type": "text", "text": "\"shipped\"}"}]},
                {"type": "tool_result", "tool_use_id": "toolu_2",
                 "content": "order not found", "is_error": true}
            ]}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "42 shipped."}]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Error: late duplicate"}
            ]}),
        ];
        let scan = scan(&history);
        assert_eq!(
            scan.calls,
            [
                call("toolu_1", "get_order", json!({"id": 42})),
                call("toolu_2", "get_order", json!({"id": 43})),
            ]
        );
        assert_eq!(
            scan.results,
            [
                result("toolu_1", json!({"status": "shipped"}), false),
                result("toolu_2", json!("order not found"), true),
                // Anthropic has an explicit flag, so the text prefix is ignored.
                result("toolu_1", json!("Error: late duplicate"), false),
            ]
        );
    }

    #[test]
    fn anthropic_is_error_needs_boolean_true() {
        let history = [
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "x", "input": {}}
            ]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "a", "is_error": false},
                {"type": "tool_result", "tool_use_id": "t1", "content": "b", "is_error": "true"},
                {"type": "tool_result", "tool_use_id": "t1", "content": "c", "is_error": true},
                {"type": "tool_result", "tool_use_id": "t1"}
            ]}),
        ];
        let errors: Vec<_> = scan(&history)
            .results
            .iter()
            .map(|r| (r.content.clone(), r.is_error))
            .collect();
        assert_eq!(
            errors,
            [
                (json!("a"), false),
                (json!("b"), false),
                (json!("c"), true),
                (json!(""), false)
            ]
        );
    }

    #[test]
    fn openai_responses_items() {
        let history = [
            json!({"role": "user", "content": "What's 6*7?"}),
            json!({"type": "message", "role": "assistant",
                   "content": [{"type": "output_text", "text": "Calculating."}]}),
            json!({"type": "function_call", "id": "fc_abc", "call_id": "call_1",
                   "name": "calc", "arguments": "{\"expr\":\"6*7\"}", "status": "completed"}),
            json!({"type": "function_call_output", "call_id": "call_1", "output": "42"}),
            json!({"type": "function_call", "id": "fc_def", "call_id": "call_2",
                   "name": "calc", "arguments": "{\"expr\":\"1/0\"}"}),
            json!({"type": "function_call_output", "call_id": "call_2",
                   "output": [{"type": "input_text", "text": "Error: division by zero"}]}),
            json!({"type": "function_call_output", "call_id": "fc_abc", "output": "by item id"}),
        ];
        let scan = scan(&history);
        assert_eq!(
            scan.calls,
            [
                call("call_1", "calc", json!({"expr": "6*7"})),
                call("call_2", "calc", json!({"expr": "1/0"})),
            ]
        );
        assert_eq!(scan.results[0], result("call_1", json!(42), false));
        assert_eq!(
            scan.results[1],
            result("call_2", json!("Error: division by zero"), true)
        );
        // Matching is by `call_id`, never by the item `id`.
        assert_eq!(
            pairs(&scan, "calc"),
            [
                ("call_1".into(), json!(42)),
                ("call_2".into(), json!("Error: division by zero"))
            ]
        );
    }

    #[test]
    fn gemini_contents() {
        let history = [
            json!({"role": "user", "parts": [{"text": "Find flights and hotels."}]}),
            json!({"role": "model", "parts": [
                {"text": "Searching."},
                {"functionCall": {"name": "flights", "args": {"to": "NYC"}, "id": "fc-9"}},
                {"functionCall": {"name": "hotels", "args": {"city": "NYC"}}}
            ]}),
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "flights", "id": "fc-9",
                                      "response": {"result": "[\"AF11\",\"DL2\"]"}}},
                {"functionResponse": {"name": "hotels",
                                      "response": {"error": "rate limited"}}}
            ]}),
            json!({"role": "model", "parts": [{"text": "Hotels failed."}]}),
        ];
        let scan = scan(&history);
        assert_eq!(
            scan.calls,
            [
                call("fc-9", "flights", json!({"to": "NYC"})),
                call("gemini:hotels:0", "hotels", json!({"city": "NYC"})),
            ]
        );
        assert_eq!(
            scan.results,
            [
                result("fc-9", json!(["AF11", "DL2"]), false),
                result("gemini:hotels:0", json!({"error": "rate limited"}), true),
            ]
        );
        assert_eq!(results_of(&scan, "hotels").len(), 1);
    }

    #[test]
    fn gemini_id_synthesis_pairs_per_name_in_order() {
        let history = [
            json!({"role": "model", "parts": [
                {"functionCall": {"name": "a", "args": {"n": 0}}},
                {"functionCall": {"name": "b", "args": {"n": 0}}},
                {"functionCall": {"name": "a", "args": {"n": 1}, "id": "explicit"}},
                {"functionCall": {"name": "a", "args": {"n": 2}}}
            ]}),
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "a", "response": {"output": "first"}}},
                {"functionResponse": {"name": "b", "response": {"content": {"k": 1}}}},
                {"functionResponse": {"name": "a", "id": "explicit", "response": {"v": 1}}},
                {"functionResponse": {"name": "a", "response": {"result": "second"}}},
                {"functionResponse": {"name": "a", "response": {"result": "extra"}}}
            ]}),
        ];
        let scan = scan(&history);
        let ids: Vec<_> = scan.calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids, ["gemini:a:0", "gemini:b:0", "explicit", "gemini:a:1"]);
        assert_eq!(
            pairs(&scan, "a"),
            [
                ("gemini:a:0".into(), json!("first")),
                ("explicit".into(), json!({"v": 1})),
                ("gemini:a:1".into(), json!("second")),
            ]
        );
        assert_eq!(pairs(&scan, "b"), [("gemini:b:0".into(), json!({"k": 1}))]);
        assert_eq!(scan.results[4].call_id, "gemini:a:2");
    }

    #[test]
    fn gemini_python_snake_case() {
        let history = [
            json!({"role": "model", "parts": [
                {"function_call": {"name": "lookup", "args": {"q": "x"}, "id": null}}
            ]}),
            json!({"role": "user", "parts": [
                {"function_response": {"name": "lookup", "id": null,
                                       "response": {"result": {"hits": 3}}}}
            ]}),
        ];
        let scan = scan(&history);
        assert_eq!(
            scan.calls,
            [call("gemini:lookup:0", "lookup", json!({"q": "x"}))]
        );
        assert_eq!(
            scan.results,
            [result("gemini:lookup:0", json!({"hits": 3}), false)]
        );
    }

    #[test]
    fn gemini_response_unwrapping() {
        let response = |value: Value| {
            let history = [json!({"role": "user", "parts": [
                {"functionResponse": {"name": "f", "id": "1", "response": value}}
            ]})];
            let scan = scan(&history);
            (scan.results[0].content.clone(), scan.results[0].is_error)
        };
        assert_eq!(
            response(json!({"result": "{\"a\":1}"})),
            (json!({"a": 1}), false)
        );
        assert_eq!(
            response(json!({"output": "plain"})),
            (json!("plain"), false)
        );
        assert_eq!(response(json!({"content": [1, 2]})), (json!([1, 2]), false));
        assert_eq!(
            response(json!({"result": 1, "extra": 2})),
            (json!({"result": 1, "extra": 2}), false)
        );
        assert_eq!(
            response(json!({"output": "x", "error": {"code": 500}})),
            (json!({"output": "x", "error": {"code": 500}}), true)
        );
        assert_eq!(
            response(json!({"error": null})),
            (json!({"error": null}), false)
        );
        assert_eq!(response(json!("[1]")), (json!([1]), false));
    }

    #[test]
    fn content_json_parsing() {
        let content = |text: &str| {
            let history = [json!({"role": "tool", "tool_call_id": "c", "content": text})];
            scan(&history).results[0].content.clone()
        };
        assert_eq!(content("{\"a\": [1, 2]}"), json!({"a": [1, 2]}));
        assert_eq!(content("[true, null]"), json!([true, null]));
        assert_eq!(content("3.5"), json!(3.5));
        assert_eq!(content("\"quoted\""), json!("quoted"));
        assert_eq!(content("null"), Value::Null);
        assert_eq!(content("{not json"), json!("{not json"));
        assert_eq!(content("plain words"), json!("plain words"));
        assert_eq!(content(""), json!(""));
        let deep = "[".repeat(10_000);
        assert_eq!(content(&deep), Value::String(deep.clone()));
    }

    #[test]
    fn mixed_formats() {
        let history = [
            json!({"role": "user", "content": "Do everything."}),
            json!({"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_a", "type": "function", "function": {"name": "search", "arguments": "{}"}}
            ]}),
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_b", "name": "search", "input": {"q": "b"}}
            ]}),
            json!({"type": "function_call", "call_id": "call_c", "name": "fetch", "arguments": "{}"}),
            json!({"role": "model", "parts": [{"functionCall": {"name": "search", "args": {}}}]}),
            json!({"role": "user", "parts": [
                {"functionResponse": {"name": "search", "response": {"result": "g"}}}
            ]}),
            json!({"type": "function_call_output", "call_id": "call_c", "output": "c"}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_b", "content": "b"}
            ]}),
            json!({"role": "tool", "toolCallId": "call_a", "content": "a"}),
        ];
        let scan = scan(&history);
        assert_eq!(scan.calls.len(), 4);
        assert_eq!(scan.results.len(), 4);
        assert_eq!(
            pairs(&scan, "search"),
            [
                ("gemini:search:0".into(), json!("g")),
                ("toolu_b".into(), json!("b")),
                ("call_a".into(), json!("a")),
            ]
        );
        assert_eq!(pairs(&scan, "fetch"), [("call_c".into(), json!("c"))]);
    }

    #[test]
    fn malformed_entries_are_skipped() {
        let history = [
            Value::Null,
            json!(42),
            json!("a plain string"),
            json!(true),
            json!([{"type": "function_call", "call_id": "nested", "name": "x"}]),
            json!({}),
            json!({"role": "assistant", "tool_calls": "nope"}),
            json!({"role": "assistant", "tool_calls": [null, 1, "x", [], {}]}),
            json!({"tool_calls": [{"type": "function", "function": {"name": "x", "arguments": "{}"}}]}),
            json!({"tool_calls": [{"id": 5, "function": {"name": "x"}}]}),
            json!({"tool_calls": [{"id": "", "function": {"name": "x"}}]}),
            json!({"tool_calls": [{"id": "c1", "function": {"arguments": "{}"}}]}),
            json!({"tool_calls": [{"id": "c2", "function": {"name": 7}}]}),
            json!({"toolCalls": {"id": "c3", "name": "x"}}),
            json!({"role": "tool", "content": "no id"}),
            json!({"role": "tool", "tool_call_id": null, "content": "x"}),
            json!({"role": "tool", "tool_call_id": "", "content": "x"}),
            json!({"role": "tool", "toolCallId": {"id": "x"}, "content": "x"}),
            json!({"role": ["tool"], "tool_call_id": "c4"}),
            json!({"role": "assistant", "content": [{"type": "tool_use", "name": "x"}]}),
            json!({"role": "assistant", "content": [{"type": "tool_use", "id": "t1"}]}),
            json!({"role": "user", "content": [{"type": "tool_result", "content": "x"}]}),
            json!({"role": "user", "content": [null, 3, "str", {"type": 5}, {"tool_use_id": "t"}]}),
            json!({"type": "function_call", "name": "x", "arguments": "{}"}),
            json!({"type": "function_call", "call_id": "c5", "arguments": "{}"}),
            json!({"type": "function_call_output", "output": "x"}),
            json!({"type": "function_call_output", "call_id": 9, "output": "x"}),
            json!({"role": "model", "parts": "nope"}),
            json!({"role": "model", "parts": [null, 1, {"functionCall": "str"}]}),
            json!({"role": "model", "parts": [{"functionCall": {"args": {}}}]}),
            json!({"role": "model", "parts": [{"function_call": {"name": ["x"]}}]}),
            json!({"role": "user", "parts": [{"functionResponse": {"response": {"result": 1}}}]}),
            json!({"role": "user", "parts": [{"functionResponse": null}]}),
        ];
        assert!(history.len() > 30);
        assert_eq!(scan(&history), HistoryScan::default());

        let mut with_valid = history.to_vec();
        with_valid.insert(
            17,
            json!({"tool_calls": [{"id": "ok", "function": {"name": "x", "arguments": 5}}]}),
        );
        with_valid.push(json!({"role": "tool", "tool_call_id": "ok", "content": {"raw": 1}}));
        let scan = scan(&with_valid);
        assert_eq!(scan.calls, [call("ok", "x", json!(5))]);
        assert_eq!(scan.results, [result("ok", json!({"raw": 1}), false)]);
        assert_eq!(results_of(&scan, "x").len(), 1);
    }

    #[test]
    fn result_before_call_is_not_matched() {
        let history = [
            json!({"role": "tool", "tool_call_id": "call_1", "content": "early"}),
            json!({"role": "assistant", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "x", "arguments": "{}"}}
            ]}),
            json!({"role": "tool", "tool_call_id": "call_1", "content": "late"}),
        ];
        let scan = scan(&history);
        assert_eq!(scan.results.len(), 2);
        assert_eq!(pairs(&scan, "x"), [("call_1".into(), json!("late"))]);
    }

    #[test]
    fn unknown_call_id_is_not_matched() {
        let history = [
            json!({"role": "assistant", "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "x", "arguments": "{}"}}
            ]}),
            json!({"role": "tool", "tool_call_id": "call_404", "content": "orphan"}),
        ];
        let scan = scan(&history);
        assert_eq!(scan.results.len(), 1);
        assert!(results_of(&scan, "x").is_empty());
    }

    #[test]
    fn duplicate_ids_match_most_recent_preceding_call() {
        let history = [
            json!({"type": "function_call", "call_id": "dup", "name": "first", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "dup", "output": "1"}),
            json!({"type": "function_call", "call_id": "dup", "name": "second", "arguments": "{}"}),
            json!({"type": "function_call_output", "call_id": "dup", "output": "2"}),
        ];
        let scan = scan(&history);
        assert_eq!(pairs(&scan, "first"), [("dup".into(), json!(1))]);
        assert_eq!(pairs(&scan, "second"), [("dup".into(), json!(2))]);
    }

    #[test]
    fn results_of_filters_by_tool_name() {
        let history = [
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a"}},
                {"type": "tool_use", "id": "t2", "name": "write", "input": {"path": "b"}},
                {"type": "tool_use", "id": "t3", "name": "read", "input": {"path": "c"}}
            ]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t3", "content": "C"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "ok"},
                {"type": "tool_result", "tool_use_id": "t1", "content": "A"}
            ]}),
        ];
        let scan = scan(&history);
        let reads = results_of(&scan, "read");
        assert_eq!(reads.len(), 2);
        assert_eq!(reads[0].0.arguments, json!({"path": "c"}));
        assert_eq!(reads[0].1.content, json!("C"));
        assert_eq!(reads[1].0.id, "t1");
        assert_eq!(pairs(&scan, "write"), [("t2".into(), json!("ok"))]);
        assert!(results_of(&scan, "delete").is_empty());
    }

    #[test]
    fn hand_built_scan_matches_last_call_with_id() {
        let mut scan = HistoryScan::default();
        scan.calls.push(call("c1", "x", json!({})));
        scan.results.push(result("c1", json!("r"), false));
        scan.results.push(result("c2", json!("orphan"), false));
        assert_eq!(pairs(&scan, "x"), [("c1".into(), json!("r"))]);
    }

    #[test]
    fn results_of_one_tool_skip_the_others_unparsed() {
        let history = [
            json!({"role": "assistant", "tool_calls": [
                {"id": "a", "function": {"name": "lookup", "arguments": "{}"}},
                {"id": "b", "function": {"name": "other", "arguments": "{}"}}
            ]}),
            json!({"role": "tool", "tool_call_id": "b", "content": "{\"ignored\": true}"}),
            json!({"role": "tool", "tool_call_id": "a", "content": "{\"found\": 1}"}),
            json!({"role": "tool", "tool_call_id": "nobody", "content": "{}"}),
        ];
        let results = results_of_tool(&history, "lookup");
        assert_eq!(results.len(), 1);
        assert_eq!(results[0].call_id, "a");
        assert_eq!(results[0].content, json!({"found": 1}));
        let full = scan(&history);
        assert_eq!(
            results_of(&full, "lookup")
                .into_iter()
                .map(|(_, result)| result.clone())
                .collect::<Vec<_>>(),
            results
        );
    }
}
