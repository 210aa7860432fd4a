//! Reading an answer: a JSON body or an SSE stream, the JSON-RPC response of a request in it,
//! and whether a `tools/call add` result holds the right sum.

use serde_json::Value;

/// Why a call does not count as a success.
#[derive(Debug)]
pub enum CallError {
    /// The connection failed or closed; the client opens a new one.
    Transport(String),
    /// No answer within the call timeout; the client opens a new connection.
    Timeout,
    /// An HTTP status other than the one expected.
    Status(u16, String),
    /// An answer that is not the JSON-RPC response expected.
    Protocol(String),
    /// A JSON-RPC error, or a result with `isError: true`.
    Refused(String),
    /// A result whose sum is not `a + b`.
    WrongSum { expected: i64, found: String },
}

impl CallError {
    /// Whether the connection can no longer be used.
    pub fn breaks_connection(&self) -> bool {
        matches!(self, CallError::Transport(_) | CallError::Timeout)
    }
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Transport(error) => write!(f, "transport: {error}"),
            CallError::Timeout => write!(f, "no answer within the call timeout"),
            CallError::Status(status, body) => write!(f, "HTTP {status}: {body}"),
            CallError::Protocol(error) => write!(f, "protocol: {error}"),
            CallError::Refused(error) => write!(f, "refused: {error}"),
            CallError::WrongSum { expected, found } => {
                write!(f, "expected {expected}, got {found}")
            }
        }
    }
}

/// The JSON-RPC response to request `id` in `body`, a JSON message (or batch) or an SSE stream
/// as its content type says.
pub fn response(content_type: Option<&str>, body: &[u8], id: u64) -> Result<Value, CallError> {
    let is_sse = content_type.is_some_and(|value| value.starts_with("text/event-stream"));
    let messages = if is_sse {
        sse_messages(body)?
    } else {
        vec![json(body)?]
    };
    messages
        .into_iter()
        .flat_map(|message| match message {
            Value::Array(batch) => batch,
            single => vec![single],
        })
        .find(|message| message.get("id").and_then(Value::as_u64) == Some(id))
        .ok_or_else(|| {
            CallError::Protocol(format!("no response to request {id} in {}", excerpt(body)))
        })
}

/// Checks that `response` is a successful `tools/call` result whose text (or structured
/// `result`) is `expected`.
pub fn check_sum(response: &Value, expected: i64) -> Result<(), CallError> {
    if let Some(error) = response.get("error") {
        return Err(CallError::Refused(error.to_string()));
    }
    let result = response
        .get("result")
        .ok_or_else(|| CallError::Protocol(format!("neither result nor error: {response}")))?;
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        return Err(CallError::Refused(result.to_string()));
    }
    let text = result
        .get("content")
        .and_then(Value::as_array)
        .and_then(|blocks| blocks.iter().find_map(|block| block.get("text")?.as_str()));
    let structured = result
        .get("structuredContent")
        .and_then(|value| value.get("result"));
    let sum = match (text, structured) {
        (Some(text), _) => text.trim().parse::<i64>().ok(),
        (None, Some(value)) => value.as_i64(),
        (None, None) => None,
    };
    if sum == Some(expected) {
        Ok(())
    } else {
        Err(CallError::WrongSum {
            expected,
            found: result.to_string(),
        })
    }
}

fn json(body: &[u8]) -> Result<Value, CallError> {
    serde_json::from_slice(body)
        .map_err(|error| CallError::Protocol(format!("{error} in {}", excerpt(body))))
}

/// The JSON of every event's `data` (events without data, such as priming events, skipped).
fn sse_messages(body: &[u8]) -> Result<Vec<Value>, CallError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| CallError::Protocol("an SSE stream that is not UTF-8".to_owned()))?;
    let mut messages = Vec::new();
    let mut data = String::new();
    for line in text.lines().chain(std::iter::once("")) {
        if line.is_empty() {
            if !data.is_empty() {
                messages.push(json(data.as_bytes())?);
                data.clear();
            }
        } else if let Some(value) = line.strip_prefix("data:") {
            if !data.is_empty() {
                data.push('\n');
            }
            data.push_str(value.strip_prefix(' ').unwrap_or(value));
        }
    }
    Ok(messages)
}

/// The start of `body`, for error messages.
pub fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(200) {
        Some((end, _)) => format!("{}...", &text[..end]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_json_and_sse_answers() {
        let body = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"5"}]}}"#;
        let found = response(Some("application/json"), body, 3).expect("a JSON answer");
        assert!(check_sum(&found, 5).is_ok());

        let sse = "id: 0\nretry: 3000\ndata:\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"-2\"}],\"isError\":false}}\n\n";
        let found = response(Some("text/event-stream"), sse.as_bytes(), 4).expect("an SSE answer");
        assert!(check_sum(&found, -2).is_ok());
    }

    #[test]
    fn wrong_and_refused_answers_are_errors() {
        let wrong = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "4"}]}});
        assert!(matches!(
            check_sum(&wrong, 5),
            Err(CallError::WrongSum { expected: 5, .. })
        ));
        let refused = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "5"}], "isError": true}});
        assert!(matches!(check_sum(&refused, 5), Err(CallError::Refused(_))));
        let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "bad"}});
        assert!(matches!(check_sum(&error, 5), Err(CallError::Refused(_))));
        let structured = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "structuredContent": {"result": 5}}});
        assert!(check_sum(&structured, 5).is_ok());
        assert!(matches!(
            response(Some("application/json"), b"{\"id\":2}", 1),
            Err(CallError::Protocol(_))
        ));
    }
}
