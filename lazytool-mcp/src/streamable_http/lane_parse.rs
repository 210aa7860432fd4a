//! A lane's request (or a session's routine request) read from its body ([`lane_parse`]): the `tools/call` or `tools/list`
//! request rmcp's parse of the body gives, read without the untagged unions that parse goes
//! through. rmcp reads a message by buffering it and trying each shape of message in turn,
//! then each of the client's 22 requests in turn, each failed try an error built and dropped
//! (about 50,000 instructions for a `tools/call` of `add`). What a lane takes is one of two
//! requests, known by its `method`: read as that request type directly, it is the same value.
//! A `tools/call` (the request the `Mcp-Method` header names) is read in one pass, its
//! parameters with it, without buffering them as rmcp's reading of `params` and `_meta` does.

use std::borrow::Cow;

use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, CallToolRequestParams, ClientRequest, ConstString,
    JsonRpcRequest, JsonRpcVersion2_0, ListToolsRequest, ListToolsRequestMethod, RequestId,
};
use serde::Deserialize;
use serde::de::IgnoredAny;

/// The request in `body` if it is a `tools/call` or `tools/list` request that rmcp's parse
/// reads as one; `None` for anything else (the caller leaves it to rmcp), and for the rare
/// bodies this reading refuses where rmcp's might not (a repeated top-level key, say).
///
/// rmcp takes a JSON object as a request when it has `method` and `id` and neither `result`
/// nor `error`; of the client's requests it takes the first whose type reads the object,
/// and no request before `tools/call` and `tools/list` in that order reads either method
/// (each names its own), so a body read here as one of them is what rmcp reads too.
///
/// `method` is the method the caller takes the request to have (what a stateless request's
/// `Mcp-Method` header says, or what a session request's body names); the body must say the
/// same. A `tools/call` is read with its parameters in one pass.
pub(super) fn lane_parse(body: &[u8], method: &str) -> Option<JsonRpcRequest<ClientRequest>> {
    if method == CallToolRequestMethod::VALUE {
        return call_parse(body);
    }
    let envelope: Envelope<'_, IgnoredAny> = serde_json::from_slice(body).ok()?;
    if envelope.result.0 || envelope.error.0 || envelope.method != method {
        return None;
    }
    let request = match &*envelope.method {
        CallToolRequestMethod::VALUE => {
            ClientRequest::CallToolRequest(serde_json::from_slice::<CallToolRequest>(body).ok()?)
        }
        ListToolsRequestMethod::VALUE => {
            ClientRequest::ListToolsRequest(serde_json::from_slice::<ListToolsRequest>(body).ok()?)
        }
        _ => return None,
    };
    Some(JsonRpcRequest {
        jsonrpc: envelope.jsonrpc,
        id: envelope.id,
        request,
    })
}

/// A `tools/call` read in one pass: rmcp's `Request` keeps the parameters' `_meta` in its
/// extensions (as a `RequestMetaObject`), not in the parameters.
fn call_parse(body: &[u8]) -> Option<JsonRpcRequest<ClientRequest>> {
    let envelope: Envelope<'_, CallToolRequestParams> = serde_json::from_slice(body).ok()?;
    if envelope.result.0 || envelope.error.0 || envelope.method != CallToolRequestMethod::VALUE {
        return None;
    }
    let mut params = envelope.params?;
    let mut request = CallToolRequest::new(CallToolRequestParams::default());
    if let Some(meta) = params.meta.take() {
        request.extensions.insert(meta);
    }
    request.params = params;
    Some(JsonRpcRequest {
        jsonrpc: envelope.jsonrpc,
        id: envelope.id,
        request: ClientRequest::CallToolRequest(request),
    })
}

/// What rmcp reads of a message before its request: the version, the id, the method, and
/// whether it also has a `result` or an `error` (then it is no request); and its `params`,
/// as `P` (`IgnoredAny`: whatever they are), `None` if they are missing or `null`.
#[derive(Deserialize)]
struct Envelope<'a, P> {
    jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(borrow)]
    method: Cow<'a, str>,
    params: Option<P>,
    #[serde(default)]
    result: Present,
    #[serde(default)]
    error: Present,
}

/// Whether a key is there, whatever its value (`null` too).
#[derive(Default)]
struct Present(bool);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(deserializer).map(|_| Present(true))
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ClientJsonRpcMessage, GetMeta};

    use super::*;

    /// What rmcp's own parse gives `body`, if it is a request.
    fn rmcp_parse(body: &str) -> Option<JsonRpcRequest<ClientRequest>> {
        match serde_json::from_str(body).ok()? {
            ClientJsonRpcMessage::Request(request) => Some(request),
            _ => None,
        }
    }

    #[test]
    fn reads_what_rmcp_reads() {
        let meta = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}"#;
        let bodies = [
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":-2.5,"c":[null,"x"]}},{meta}}}}}"#
            ),
            format!(
                r#"{{"params":{{{meta},"name":"add"}},"method":"tools/call","id":"s-1","jsonrpc":"2.0","extra":1}}"#
            ),
            format!(r#"{{"jsonrpc":"2.0","id":8,"method":"tools/list","params":{{{meta}}}}}"#),
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"c"}}"#.to_owned(),
        ];
        for body in &bodies {
            let theirs = rmcp_parse(body).expect("rmcp reads it");
            let ours = lane_parse(body.as_bytes(), theirs.request.method()).expect("read");
            assert_eq!(ours.request.method(), theirs.request.method(), "{body}");
            // What each is, `_meta` (kept in the extensions) included.
            let value = |request| serde_json::to_value(request).expect("serialisable");
            assert_eq!(value(&ours), value(&theirs), "{body}");
            assert_eq!(ours.request.get_meta(), theirs.request.get_meta(), "{body}");
        }
    }

    #[test]
    fn reads_only_the_method_the_header_names() {
        let call = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#;
        let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
        assert!(lane_parse(call.as_bytes(), "tools/list").is_none());
        assert!(lane_parse(list.as_bytes(), "tools/call").is_none());
        assert!(lane_parse(call.as_bytes(), "ping").is_none());
    }

    #[test]
    fn leaves_anything_else_to_rmcp() {
        let bodies = [
            // Not requests, in rmcp's reading.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"},"result":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"},"error":null}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add"}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"add"}}"#,
            // Other requests, and calls rmcp reads as custom requests.
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":5}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]"#,
            "{",
        ];
        for body in bodies {
            for method in ["tools/call", "tools/list"] {
                assert!(
                    lane_parse(body.as_bytes(), method).is_none(),
                    "{method}: {body}"
                );
            }
            assert!(
                !matches!(
                    rmcp_parse(body).map(|request| request.request),
                    Some(ClientRequest::CallToolRequest(_) | ClientRequest::ListToolsRequest(_))
                ),
                "{body}"
            );
        }
    }
}
