//! The tool parts of TanStack's `UIMessage`, as `chat()` turns them into model messages.

use serde_json::Value;

use crate::provider::history::{HistoryScan, id_field, member, record_of_content, str_field};

/// The states of a `tool-call` part whose call `chat()` sends to the model.
const SENT_CALL_STATES: &[&str] = &[
    "input-complete",
    "complete",
    "approval-requested",
    "approval-responded",
    "error",
];

/// The states of a `tool-result` part that `chat()` sends as a result.
const SENT_RESULT_STATES: &[&str] = &["complete", "error"];

/// Reads an assistant `UIMessage`'s `parts` as `chat()` converts them: a `tool-call` part is
/// a call once its input is complete (or it has an `output`); a `tool-result` part in state
/// `complete` or `error` is its call's result; a call's `output` is its result when no such
/// `tool-result` part answers it.
pub(super) fn read_parts<'m>(parts: &'m [Value], scan: &mut HistoryScan<'m>) {
    let parts: Vec<_> = parts.iter().filter_map(Value::as_object).collect();
    let answered: Vec<&str> = (parts.iter())
        .filter(|part| str_field(part, "type") == Some("tool-result"))
        .filter(|part| {
            str_field(part, "state").is_some_and(|state| SENT_RESULT_STATES.contains(&state))
        })
        .filter_map(|part| id_field(part, "toolCallId"))
        .collect();
    for part in &parts {
        match str_field(part, "type") {
            Some("tool-call") => {
                let output = member(part, "output");
                let sent = output.is_some()
                    || str_field(part, "state")
                        .is_some_and(|state| SENT_CALL_STATES.contains(&state));
                let (Some(id), Some(name), true) =
                    (id_field(part, "id"), str_field(part, "name"), sent)
                else {
                    continue;
                };
                scan.call(id, name);
                if let (Some(output), false) = (output, answered.contains(&id)) {
                    scan.result(id, || record_of_content(Some(output)));
                }
            }
            Some("tool-result") => {
                let sent = str_field(part, "state")
                    .is_some_and(|state| SENT_RESULT_STATES.contains(&state));
                if let (Some(call_id), true) = (id_field(part, "toolCallId"), sent) {
                    scan.result(call_id, || record_of_content(member(part, "content")));
                }
            }
            _ => {}
        }
    }
}
