//! Reading message histories: the format-independent driver behind
//! [`Session::from_history`], over each provider module's reading of its own items.
//!
//! Every message goes to every format's reader ([`FORMATS`](super::FORMATS)); a reader
//! reports the tool calls and results it recognizes to a [`HistoryScan`], which matches each
//! result to the latest call with its id that came before it and keeps, of the results of
//! discovery calls, the [`DiscoveredSet`] they stand for. Compaction markers are searched
//! in every message's texts. Only the top level of the history is walked and nothing is
//! parsed but the results of discovery calls, so the cost is linear in the history's size.

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use super::FORMATS;
use crate::call::DiscoveredSet;
use crate::discovery::{compaction, read_result, read_result_text};
use crate::registry::Registry;
use crate::session::{Session, SessionOptions};
use crate::tool::DISCOVERY_TOOL_NAME;

impl Session {
    /// Rebuilds a conversation's session from its message history, as a stateless server
    /// does on every request.
    ///
    /// Reads OpenAI Chat (`tool_calls` / `tool_call_id`), TanStack AI (`ModelMessage`
    /// `toolCalls` / `toolCallId`, and `UIMessage` `tool-call` / `tool-result` parts and the
    /// `output` of a `tool-call` part), Anthropic (`tool_use` / `tool_result` blocks,
    /// `tool_reference` answers), OpenAI Responses (`function_call` / `function_call_output`
    /// items, client-executed `tool_search_call` / `tool_search_output` items) and Gemini
    /// (`functionCall` / `functionResponse` parts), even mixed, and compaction markers
    /// ([`Session::compaction_marker`]) in any message's text. Only results of calls to the
    /// discovery tool count, matched by call id; malformed entries are skipped; tools that
    /// no longer exist, are not lazy, or are not allowed are ignored.
    ///
    /// ```
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry, Session};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("forecast", "Weather forecast.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    ///
    /// let history = [
    ///     json!({"role": "user", "content": "Weather tomorrow?"}),
    ///     json!({"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///         "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{\"toolNames\":[\"forecast\"]}"}}]}),
    ///     json!({"role": "tool", "tool_call_id": "call_1",
    ///         "content": "{\"tools\":[{\"name\":\"forecast\",\"description\":\"Weather forecast.\",\"inputSchema\":{}}]}"}),
    /// ];
    /// let session = Session::from_history(&registry, &history);
    /// assert_eq!(session.discovered().tools, ["forecast"]);
    /// assert_eq!(session.active_tools()[0].name, "forecast");
    /// ```
    pub fn from_history(registry: &Registry, history: &[Value]) -> Session {
        Session::from_history_with(registry, history, SessionOptions::default())
    }

    /// [`Session::from_history`] with options: gating, and with a
    /// signing key (`SessionOptions::signing_key`, `signing` feature), only discoveries carrying a valid
    /// signature count.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, Session, SessionOptions};
    ///
    /// // The history claims a discovery; this user may not use lazy tools, so it counts for nothing.
    /// let history = [
    ///     json!({"role": "assistant", "tool_calls": [{"id": "call_1", "type": "function",
    ///         "function": {"name": DISCOVERY_TOOL_NAME, "arguments": "{\"toolNames\":[\"get_forecast\"]}"}}]}),
    ///     json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"tools\":[{\"name\":\"get_forecast\"}]}"}),
    /// ];
    /// assert_eq!(Session::from_history(&registry, &history).discovered().tools, ["get_forecast"]);
    /// let options = SessionOptions::new().allow(|tool| !tool.is_lazy());
    /// assert!(Session::from_history_with(&registry, &history, options).discovered().tools.is_empty());
    /// ```
    pub fn from_history_with(
        registry: &Registry,
        history: &[Value],
        options: SessionOptions,
    ) -> Session {
        let mut scan = HistoryScan::default();
        let mut markers = Vec::new();
        for message in history {
            let Some(message) = message.as_object() else {
                continue;
            };
            for text in message_texts(message) {
                markers.extend(compaction::markers_in(text));
            }
            for read in FORMATS {
                read(message, &mut scan);
            }
        }
        Session::from_records(registry, markers.into_iter().chain(scan.records), options)
    }
}

/// What the readers of a history have found so far.
#[derive(Default)]
pub(crate) struct HistoryScan<'m> {
    /// Whether the latest call with each id called the discovery tool.
    calls: HashMap<Cow<'m, str>, bool>,
    /// How many calls, respectively results, without an id each tool name had so far.
    unnamed_calls: HashMap<&'m str, usize>,
    unnamed_results: HashMap<&'m str, usize>,
    /// What the results of discovery calls handed out, in history order.
    records: Vec<DiscoveredSet>,
}

impl<'m> HistoryScan<'m> {
    /// A call of the tool `name` under `id`.
    pub(crate) fn call(&mut self, id: impl Into<Cow<'m, str>>, name: &str) {
        self.calls.insert(id.into(), name == DISCOVERY_TOOL_NAME);
    }

    /// A result answering the call `call_id`: `record` reads what it handed out, and is
    /// only run when that call was a discovery.
    pub(crate) fn result(&mut self, call_id: &str, record: impl FnOnce() -> DiscoveredSet) {
        if self.calls.get(call_id).copied() == Some(true) {
            self.records.push(record());
        }
    }

    /// An id for a call of `name` that came without one (Gemini's ids are optional):
    /// `gemini:{name}:{k}`, `k` counting such calls of `name`, so that they pair with the
    /// id-less results of [`unnamed_result_id`](Self::unnamed_result_id) in order.
    pub(crate) fn unnamed_call_id(&mut self, name: &'m str) -> String {
        next_unnamed(&mut self.unnamed_calls, name)
    }

    /// The id of a result of `name` that came without one; see
    /// [`unnamed_call_id`](Self::unnamed_call_id).
    pub(crate) fn unnamed_result_id(&mut self, name: &'m str) -> String {
        next_unnamed(&mut self.unnamed_results, name)
    }
}

fn next_unnamed<'m>(counters: &mut HashMap<&'m str, usize>, name: &'m str) -> String {
    let counter = counters.entry(name).or_default();
    let id = format!("gemini:{name}:{counter}");
    *counter += 1;
    id
}

/// The [`DiscoveredSet`] of a result's content in the shapes every format uses: text (a
/// string, or an array of content parts whose text parts are concatenated) holding a
/// discovery result's JSON, or that JSON as it is. Anything else hands out nothing.
pub(crate) fn record_of_content(content: Option<&Value>) -> DiscoveredSet {
    match content {
        Some(object @ Value::Object(_)) => read_result(object),
        _ => read_result_text(&text_of(content)),
    }
}

/// The text of a result's content in the shapes every format uses: a string, or an array of
/// content parts whose text parts are concatenated.
fn text_of(content: Option<&Value>) -> Cow<'_, str> {
    match content {
        Some(Value::String(text)) => Cow::Borrowed(text),
        Some(Value::Array(parts)) => Cow::Owned(
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
                .collect(),
        ),
        _ => Cow::Borrowed(""),
    }
}

/// The texts of a message in any format, where compaction markers may be: a string
/// `content`, and the `text` of `content` parts (OpenAI, Anthropic, Responses) or of Gemini
/// `parts`, or the `content` of TanStack's text parts (`{"type": "text", "content"}`).
fn message_texts(message: &Map<String, Value>) -> impl Iterator<Item = &str> {
    let content = member(message, "content");
    let whole = content.and_then(Value::as_str);
    let parts = [content, member(message, "parts")]
        .into_iter()
        .flatten()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|part| {
            let text = part.get("text").and_then(Value::as_str);
            let tanstack = || {
                (part.get("type").and_then(Value::as_str) == Some("text"))
                    .then(|| part.get("content").and_then(Value::as_str))
                    .flatten()
            };
            text.or_else(tanstack)
        });
    whole.into_iter().chain(parts)
}

/// `object[key]`. Messages have a handful of members: comparing keys is cheaper than hashing
/// them (serde_json's maps hash with SipHash), and this runs over every message of a history
/// on every request of a stateless server.
pub(crate) fn member<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v Value> {
    if object.len() <= 8 {
        object
            .iter()
            .find(|(name, _)| name.as_str() == key)
            .map(|(_, value)| value)
    } else {
        object.get(key)
    }
}

pub(crate) fn str_field<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    member(object, key).and_then(Value::as_str)
}

/// Like [`str_field`], but an empty id counts as absent.
pub(crate) fn id_field<'v>(object: &'v Map<String, Value>, key: &str) -> Option<&'v str> {
    str_field(object, key).filter(|id| !id.is_empty())
}
