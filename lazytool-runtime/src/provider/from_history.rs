//! Reading message histories: [`Session::from_history`], the format-independent driver over
//! each provider module's reading of its own items.
//!
//! Every message goes to every format's reader ([`FORMATS`]); a reader reports the tool calls
//! and results it recognizes to a [`HistoryScan`] (`history.rs`). Compaction markers are
//! searched in every message's texts. Only the top level of the history is walked and
//! nothing is parsed but the results of discovery calls, so the cost is linear in the
//! history's size.

use serde_json::{Map, Value};

use super::history::{HistoryScan, member};
use super::{anthropic, gemini, openai_chat, openai_responses, tanstack};
use crate::discovery::compaction;
use crate::registry::Registry;
use crate::session::{Session, SessionOptions};

/// What reads one format's items of a history message into a [`HistoryScan`].
type HistoryReader = for<'m> fn(&'m Map<String, Value>, &mut HistoryScan<'m>);

/// The history readers of every format, each run on every message.
const FORMATS: &[HistoryReader] = &[
    openai_chat::read_history,
    tanstack::read_history,
    anthropic::read_history,
    openai_responses::read_history,
    gemini::read_history,
];

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
