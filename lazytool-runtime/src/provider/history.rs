//! What a format's history reader reports to: a [`HistoryScan`], which matches each tool
//! result to the latest call with its id that came before it and keeps, of the results of
//! discovery calls, the [`DiscoveredSet`] they stand for; and the readers' shared lookups
//! (`member`, `str_field`, `id_field`, `record_of_content`). The driver that hands every
//! message to every format is [`Session::from_history`] (`from_history.rs`).
//!
//! [`Session::from_history`]: crate::Session::from_history

use std::borrow::Cow;
use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::call::DiscoveredSet;
use crate::discovery::{read_result, read_result_text};
use crate::tool::DISCOVERY_TOOL_NAME;

/// What the readers of a history have found so far.
#[derive(Default)]
pub(crate) struct HistoryScan<'m> {
    /// Whether the latest call with each id called the discovery tool.
    calls: HashMap<Cow<'m, str>, bool>,
    /// How many calls, respectively results, without an id each tool name had so far.
    unnamed_calls: HashMap<&'m str, usize>,
    unnamed_results: HashMap<&'m str, usize>,
    /// What the results of discovery calls handed out, in history order.
    pub(super) records: Vec<DiscoveredSet>,
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
