//! Surviving context compaction: a marker that records the discovered tools in the summary
//! that replaces the discovery results.

use serde_json::Value;

const OPEN: &str = "<lazytool-discovered>";
const CLOSE: &str = "</lazytool-discovered>";

/// The marker text for `tools`: put it in the message that summarizes the compacted part of
/// the conversation, and [`Session::from_history`](crate::Session::from_history) restores
/// the tools from it.
pub(crate) fn marker(tools: &[String]) -> String {
    let list = serde_json::to_string(tools).unwrap_or_else(|_| "[]".to_owned());
    format!("{OPEN}{list}{CLOSE}")
}

/// The tools recorded by every marker in the texts of `history`, in order.
pub(crate) fn recorded_tools(history: &[Value]) -> Vec<String> {
    let mut tools = Vec::new();
    for message in history {
        for text in message_texts(message) {
            let mut rest = text;
            while let Some(start) = rest.find(OPEN) {
                let after = &rest[start + OPEN.len()..];
                let Some(end) = after.find(CLOSE) else { break };
                if let Ok(names) = serde_json::from_str::<Vec<String>>(&after[..end]) {
                    tools.extend(names);
                }
                rest = &after[end + CLOSE.len()..];
            }
        }
    }
    tools
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
        let text = format!(
            "Summary of earlier work. {}",
            marker(&["a".into(), "b".into()])
        );
        let history = [
            json!({"role": "system", "content": text}),
            json!({"role": "user", "content": [{"type": "text", "text": marker(&["c".into()])}]}),
            json!({"role": "user", "parts": [{"text": marker(&["d".into()])}]}),
            json!({"role": "user", "content": "<lazytool-discovered>not json</lazytool-discovered>"}),
            json!({"role": "user", "content": "<lazytool-discovered>[\"unterminated\"]"}),
        ];
        assert_eq!(recorded_tools(&history), ["a", "b", "c", "d"]);
    }
}
