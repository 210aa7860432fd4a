//! Surviving context compaction: a marker that records the discovered tools in the summary
//! that replaces the discovery results.

use serde_json::Value;

const OPEN: &str = "<lazytool-discovered>";
const CLOSE: &str = "</lazytool-discovered>";

/// The marker text for `tools` (with the signature of the set when the server signs):
/// put it in the message that summarizes the compacted part of the conversation, and
/// [`Session::from_history`](crate::Session::from_history) restores the tools from it.
pub(crate) fn marker(tools: &[String], signature: Option<String>) -> String {
    let mut record = serde_json::json!({ "tools": tools });
    if let Some(signature) = signature {
        record["signature"] = Value::String(signature);
    }
    format!("{OPEN}{record}{CLOSE}")
}

/// What one marker records: the names and the signature it carries, if any.
pub(crate) struct Recorded {
    pub(crate) tools: Vec<String>,
    pub(crate) signature: Option<String>,
}

/// Every marker in the texts of `history`, in order.
/// Where the next marker opens in `text`: found by its first byte (a `memchr` search; every
/// message of a history is searched on every request of a stateless server).
fn find_open(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(offset) = text[from..].find('<') {
        let at = from + offset;
        if text[at..].starts_with(OPEN) {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

pub(crate) fn recorded(history: &[Value]) -> Vec<Recorded> {
    let mut records = Vec::new();
    for message in history {
        for text in message_texts(message) {
            let mut rest = text;
            while let Some(start) = find_open(rest) {
                let after = &rest[start + OPEN.len()..];
                let Some(end) = after.find(CLOSE) else { break };
                if let Ok(record) = serde_json::from_str::<Value>(&after[..end]) {
                    let tools = record.get("tools").and_then(Value::as_array);
                    records.push(Recorded {
                        tools: tools
                            .into_iter()
                            .flatten()
                            .filter_map(|name| name.as_str().map(str::to_owned))
                            .collect(),
                        signature: record
                            .get("signature")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                    });
                }
                rest = &after[end + CLOSE.len()..];
            }
        }
    }
    records
}

/// The texts of a message in any supported format: a string `content`, `text` of content
/// parts (OpenAI, Anthropic, Responses), `text` of Gemini `parts`.
fn message_texts(message: &Value) -> Vec<&str> {
    let mut texts = Vec::new();
    if let Some(text) = message.get("content").and_then(Value::as_str) {
        texts.push(text);
    }
    for key in ["content", "parts"] {
        if let Some(Value::Array(parts)) = message.get(key) {
            texts.extend(
                parts
                    .iter()
                    .filter_map(|part| part.get("text").and_then(Value::as_str)),
            );
        }
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn markers_round_trip_in_every_message_shape() {
        let signed = marker(&["a".into(), "b".into()], Some("5ig".into()));
        let history = [
            json!({"role": "system", "content": format!("Summary of earlier work. {signed}")}),
            json!({"role": "user", "content": [{"type": "text", "text": marker(&["c".into()], None)}]}),
            json!({"role": "user", "parts": [{"text": marker(&["d".into()], None)}]}),
            json!({"role": "user", "content": "<lazytool-discovered>not json</lazytool-discovered>"}),
            json!({"role": "user", "content": "<lazytool-discovered>{\"tools\": [\"cut\"]}"}),
        ];
        let records = recorded(&history);
        let tools: Vec<&str> = records
            .iter()
            .flat_map(|record| record.tools.iter().map(String::as_str))
            .collect();
        assert_eq!(tools, ["a", "b", "c", "d"]);
        assert_eq!(records[0].signature.as_deref(), Some("5ig"));
        assert_eq!(records[1].signature, None);
    }
}
