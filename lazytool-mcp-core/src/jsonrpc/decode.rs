//! One line of client input: a message for rmcp, or the JSON-RPC error it is answered with.

use rmcp::model::{ClientJsonRpcMessage, ErrorCode};
use serde_json::{Value, json};

use super::request_id;

/// What a line of input amounts to.
pub enum Decoded {
    Message(Box<ClientJsonRpcMessage>),
    /// Nothing to answer: a blank line, or a notification that is not a valid message
    /// (JSON-RPC never answers notifications).
    Skip,
    /// The error reply, a whole line.
    Reply(Vec<u8>),
}

pub fn decode(line: &[u8]) -> Decoded {
    let line = line
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(line)
        .trim_ascii();
    if line.is_empty() {
        return Decoded::Skip;
    }
    match serde_json::from_slice::<ClientJsonRpcMessage>(line) {
        Ok(message) => Decoded::Message(Box::new(message)),
        Err(error) if error.classify() == serde_json::error::Category::Data => {
            not_a_message(line, &error)
        }
        // Syntax errors include nesting deeper than serde_json's recursion limit.
        Err(error) => parse_error(line, &error),
    }
}

/// The answer to a line longer than `max` bytes, of which `prefix` was kept.
pub fn oversized(prefix: &[u8], max: usize) -> Vec<u8> {
    reply(
        request_id::scan(prefix),
        ErrorCode::INVALID_REQUEST,
        &format!("Invalid request: the message is longer than the server's limit of {max} bytes"),
    )
}

/// Well-formed JSON that rmcp cannot take as a message.
fn not_a_message(line: &[u8], error: &serde_json::Error) -> Decoded {
    // The typed parse may stop at the first wrong field, before reaching a syntax error.
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return parse_error(line, error);
    };
    let id = value
        .get("id")
        .filter(|id| id.is_string() || id.is_number())
        .cloned();
    let method = value.get("method").and_then(Value::as_str);
    let versioned = value.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    tracing::debug!(target: "lazytool::mcp", %error, "not an MCP message");
    Decoded::Reply(match (method, id) {
        (Some(_), None) if value.get("id").is_none() => return Decoded::Skip,
        // JSON-RPC allows any number; MCP (and rmcp) take integers that fit 64 signed bits.
        (_, Some(id)) if id.is_number() && id.as_i64().is_none() => reply(
            Some(id),
            ErrorCode::INVALID_REQUEST,
            "Invalid request: a numeric request id must be an integer from -2^63 to 2^63-1; use such an integer or a string",
        ),
        (Some(method), Some(id)) if versioned => reply(
            Some(id),
            ErrorCode::INVALID_PARAMS,
            &format!("Invalid params: {method} takes an object of the shape MCP defines"),
        ),
        (_, id) => reply(
            id,
            ErrorCode::INVALID_REQUEST,
            "Invalid request: not a JSON-RPC 2.0 request, notification or response",
        ),
    })
}

fn parse_error(line: &[u8], error: &serde_json::Error) -> Decoded {
    Decoded::Reply(reply(
        request_id::scan(line),
        ErrorCode::PARSE_ERROR,
        &format!("Parse error: {error}"),
    ))
}

/// A JSON-RPC error response line; `id` is `null` when it could not be read, as JSON-RPC 2.0
/// requires (rmcp's own type would leave it out).
pub fn reply(id: Option<Value>, code: ErrorCode, message: &str) -> Vec<u8> {
    let reply = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code.0, "message": message},
    });
    let mut line = reply.to_string().into_bytes();
    line.push(b'\n');
    line
}

#[cfg(test)]
mod tests;
