//! The floor of MCP in rmcp's types: the bare hyper server of `hyper_add`, but reading the
//! stateless (2026-07-28) `tools/call add {a, b}` and answering it through rmcp's model
//! types, as a server that keeps those types must at least: the request read into
//! `CallToolRequestParams` in one pass (lazytool's lane parse), its `_meta` read for the
//! protocol version and the client's capabilities once each, the arguments read into the
//! tool's parameters, the answer a `CallToolResult` in a `ServerJsonRpcMessage` serialised by
//! serde. No guard, session, handler, dispatch or tool context: what lazytool pays above this
//! server is its own, and what this server pays above `hyper_add` is MCP in rmcp's types.
//!
//! Anything but a `POST` to `/mcp` whose body is a 2026-07-28 `tools/call` of `add` with
//! integer `a` and `b` is answered `400` with the reason.
//!
//! ```sh
//! floor_add [PORT]     # prints `listening http://127.0.0.1:PORT/mcp` on stdout
//! ```

use std::borrow::Cow;

use bytes::Bytes;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ContentBlock, JsonRpcVersion2_0, RequestId,
    ServerJsonRpcMessage, ServerResult,
};
use serde::Deserialize;

#[path = "../bare_server.rs"]
mod bare_server;
#[path = "../listener.rs"]
mod listener;

/// A JSON-RPC request as lazytool's lane reads one: the method borrowed, the params typed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "jsonrpc")]
    _jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: CallToolRequestParams,
}

#[derive(Deserialize)]
struct Arguments {
    a: i64,
    b: i64,
}

/// The answer to a request's body: `add`'s through rmcp's types, or why it is none.
fn answer(body: &[u8]) -> Result<Bytes, String> {
    let call: Envelope<'_> =
        serde_json::from_slice(body).map_err(|error| format!("not a tools/call: {error}"))?;
    if call.method != "tools/call" || call.params.name != "add" {
        return Err(format!(
            "only tools/call of add is served, not {} of {}",
            call.method, call.params.name
        ));
    }
    let meta = call.params.meta.ok_or("no _meta")?;
    let version = meta
        .protocol_version()
        .ok_or("no protocol version in _meta")?;
    if version.has_initialize() {
        return Err(format!("{version} is not a stateless protocol version"));
    }
    let _capabilities = meta
        .client_capabilities()
        .ok_or("no client capabilities in _meta")?;
    let arguments = call.params.arguments.ok_or("no arguments")?;
    let Arguments { a, b } = serde_json::from_value(serde_json::Value::Object(arguments))
        .map_err(|error| format!("not integers a and b: {error}"))?;
    let sum = a
        .checked_add(b)
        .ok_or_else(|| format!("{a} + {b} overflows a 64-bit integer"))?;
    let result = CallToolResult::success(vec![ContentBlock::text(sum.to_string())]);
    let message = ServerJsonRpcMessage::response(ServerResult::CallToolResult(result), call.id);
    serde_json::to_vec(&message)
        .map(Bytes::from)
        .map_err(|error| format!("the answer: {error}"))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    bare_server::serve("floor_add", answer).await
}

#[cfg(test)]
mod tests {
    use super::*;

    const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}"#;

    #[test]
    fn answers_as_lazytool_does() {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":-5}},{META}}}}}"#
        );
        // What lazytool_add answered `add(2, -5)` with id 7 (as in `hyper_add`).
        assert_eq!(
            String::from_utf8(answer(body.as_bytes()).expect("answered").to_vec()).expect("UTF-8"),
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"-3"}],"isError":false}}"#
        );
    }

    #[test]
    fn refuses_what_is_not_a_stateless_call_of_add() {
        let old = META.replace("2026-07-28", "2025-11-25");
        for body in [
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"sub","arguments":{{"a":1,"b":1}},{META}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":1}},{old}}}}}"#
            ),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":1}}}"#.to_owned(),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","arguments":{{"a":"1","b":1}},{META}}}}}"#
            ),
        ] {
            assert!(answer(body.as_bytes()).is_err(), "{body}");
        }
    }
}
