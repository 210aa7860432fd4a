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
    CallToolRequest, CallToolRequestMethod, CallToolRequestParams, ClientCapabilities,
    ClientRequest, ConstString, JsonObject, JsonRpcRequest, JsonRpcVersion2_0, ListToolsRequest,
    ListToolsRequestMethod, ProtocolVersion, RequestId,
};
use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess};
use serde_json::Value;

use crate::connection::PlainCall;
use crate::request_facts::{META_KEY_CLIENT_CAPABILITIES, META_KEY_PROTOCOL_VERSION};

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

/// A stateless `tools/call` of the tool `name` read straight into a [`PlainCall`]: the request
/// [`lane_parse`] reads, whose `_meta` names 2026-07-28 as its version and holds the client's
/// capabilities (what `lane_request` checks of a lane's), and which brings no input responses
/// or request state. `_meta` is checked, not kept (the tool sees none of it): its other
/// entries are skipped, not built into values. `None` for anything else, which `lane_parse`
/// reads then: a body this reading refuses is never one it takes that rmcp would not.
///
/// The caller has found that a call of `name` is plain ([`PlainCall::is_plain`]).
pub(super) fn plain_parse(body: &[u8], name: &str) -> Option<PlainCall> {
    let envelope: Envelope<'_, PlainParams<'_>> = serde_json::from_slice(body).ok()?;
    if envelope.result.0 || envelope.error.0 || envelope.method != CallToolRequestMethod::VALUE {
        return None;
    }
    let params = envelope.params?;
    let meta = params.meta?;
    let current = meta.version.as_deref() == Some(ProtocolVersion::V_2026_07_28.as_str());
    if params.answers || params.name.as_deref() != Some(name) || !current || !meta.capabilities {
        return None;
    }
    let name = Cow::Owned(name.to_owned());
    Some(PlainCall::new(envelope.id, name, params.arguments))
}

/// A plain call's parameters as [`plain_parse`] reads them: a JSON object (as rmcp's
/// `CallToolRequestParams`, keys it does not know skipped).
#[derive(Default)]
struct PlainParams<'a> {
    name: Option<Cow<'a, str>>,
    arguments: Option<JsonObject>,
    meta: Option<PlainMeta<'a>>,
    /// `inputResponses` or `requestState` is there, whatever its value.
    answers: bool,
    /// The keys read so far, one bit each.
    seen: u8,
}

/// A plain call's `_meta`: a JSON object, of which only the version it names and whether it
/// holds the client's capabilities (a value rmcp reads as `ClientCapabilities`, as
/// `missing_required_keys` does) are kept.
#[derive(Default)]
struct PlainMeta<'a> {
    version: Option<Cow<'a, str>>,
    capabilities: bool,
    seen: u8,
}

/// What a reading of a JSON object keeps of its entries ([`Entries::of`]).
trait Entries<'de>: Default {
    const EXPECTING: &'static str;

    /// Reads `key`'s value from `map`; which bit of `seen` the key is (0: none).
    fn entry<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<u8, A::Error>;

    /// The keys read so far.
    fn seen(&mut self) -> &mut u8;

    /// The entries of the JSON object `deserializer` holds. A repeated key is refused (rmcp's
    /// map would keep the last), and so is anything but an object (serde's derived structs
    /// also read a list).
    fn of<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Entries<'de>> serde::de::Visitor<'de> for Visitor<T> {
            type Value = T;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str(T::EXPECTING)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
                let mut entries = T::default();
                while let Some(Text(key)) = map.next_key()? {
                    let bit = entries.entry(&key, &mut map)?;
                    if *entries.seen() & bit != 0 {
                        return Err(serde::de::Error::custom(format_args!("`{key}` twice")));
                    }
                    *entries.seen() |= bit;
                }
                Ok(entries)
            }
        }
        deserializer.deserialize_map(Visitor(std::marker::PhantomData))
    }
}

impl<'de> Entries<'de> for PlainParams<'de> {
    const EXPECTING: &'static str = "a tools/call request's params";

    fn entry<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<u8, A::Error> {
        Ok(match key {
            "name" => {
                self.name = Some(map.next_value::<Text<'de>>()?.0);
                1
            }
            "arguments" => {
                self.arguments = map.next_value()?;
                2
            }
            "_meta" => {
                self.meta = map.next_value()?;
                4
            }
            "inputResponses" | "requestState" => {
                map.next_value::<IgnoredAny>()?;
                self.answers = true;
                if key == "inputResponses" { 8 } else { 16 }
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
                0
            }
        })
    }

    fn seen(&mut self) -> &mut u8 {
        &mut self.seen
    }
}

impl<'de> Entries<'de> for PlainMeta<'de> {
    const EXPECTING: &'static str = "a request's _meta";

    fn entry<A: MapAccess<'de>>(&mut self, key: &str, map: &mut A) -> Result<u8, A::Error> {
        Ok(match key {
            // A version that is not text is refused here, and by the lanes.
            META_KEY_PROTOCOL_VERSION => {
                self.version = Some(map.next_value::<Text<'de>>()?.0);
                1
            }
            META_KEY_CLIENT_CAPABILITIES => {
                let value = map.next_value::<Value>()?;
                self.capabilities = ClientCapabilities::deserialize(&value).is_ok();
                2
            }
            _ => {
                map.next_value::<IgnoredAny>()?;
                0
            }
        })
    }

    fn seen(&mut self) -> &mut u8 {
        &mut self.seen
    }
}

impl<'de> Deserialize<'de> for PlainParams<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::of(deserializer)
    }
}

impl<'de> Deserialize<'de> for PlainMeta<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Self::of(deserializer)
    }
}

/// A JSON string, borrowed from the body unless it has escapes (serde reads a `Cow` as a new
/// `String` every time).
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Text<'de>;

            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a string")
            }

            fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(text)))
            }

            fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(text.to_owned())))
            }

            fn visit_string<E>(self, text: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(text)))
            }
        }
        deserializer.deserialize_str(Visitor)
    }
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

    /// A stateless call's `_meta` with `extra` entries before its own.
    fn current_meta(extra: &str) -> String {
        format!(
            r#"{{{extra}"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{{"name":"t","version":"1"}},"io.modelcontextprotocol/clientCapabilities":{{"elicitation":{{}}}}}}"#
        )
    }

    #[test]
    fn a_plain_call_is_read_as_rmcp_reads_it() {
        let meta = current_meta(r#""progressToken":"p","x":[1,{"y":null}],"#);
        let escaped = current_meta("").replace("protocolVersion", "protocol\\u0056ersion");
        let bodies = [
            format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"add","arguments":{{"a":1,"b":-2.5,"c":[null,"x"]}},"_meta":{meta}}}}}"#
            ),
            format!(
                r#"{{"params":{{"_meta":{meta},"name":"add","other":{{"k":1}}}},"method":"tools/call","id":"s-1","jsonrpc":"2.0","extra":1}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"name":"add","arguments":null,"_meta":{escaped}}}}}"#
            ),
        ];
        for body in &bodies {
            let call = plain_parse(body.as_bytes(), "add").expect("a plain call");
            let theirs = rmcp_parse(body).expect("rmcp reads it");
            let ClientRequest::CallToolRequest(request) = &theirs.request else {
                panic!("rmcp reads a tools/call: {body}");
            };
            let (id, name, arguments) = call.read();
            assert_eq!(id, &theirs.id, "{body}");
            assert_eq!(name, request.params.name, "{body}");
            assert_eq!(arguments, request.params.arguments.as_ref(), "{body}");
            // What the lanes check of a call's `_meta`, in rmcp's reading.
            let meta = theirs.request.get_meta();
            assert_eq!(
                meta.get(META_KEY_PROTOCOL_VERSION),
                Some(&Value::from("2026-07-28")),
                "{body}"
            );
            assert!(meta.client_capabilities().is_some(), "{body}");
        }
    }

    #[test]
    fn a_call_plain_parse_leaves_is_read_by_lane_parse_or_by_rmcp() {
        let meta = current_meta("");
        let call = |params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
        };
        let bodies = [
            // Another tool than the header names, another method, no request.
            call(&format!(r#"{{"name":"sub","_meta":{meta}}}"#)),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{{"name":"add","_meta":{meta}}}}}"#
            ),
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"add","_meta":{meta}}},"result":{{}}}}"#
            ),
            // A round's answers or state, whatever their value.
            call(&format!(
                r#"{{"name":"add","_meta":{meta},"inputResponses":{{}}}}"#
            )),
            call(&format!(
                r#"{{"name":"add","_meta":{meta},"requestState":null}}"#
            )),
            // A `_meta` without the version or the capabilities the lanes require.
            call(r#"{"name":"add"}"#),
            call(r#"{"name":"add","_meta":null}"#),
            call(&format!(
                r#"{{"name":"add","_meta":{}}}"#,
                meta.replace("2026-07-28", "2025-11-25")
            )),
            call(&format!(
                r#"{{"name":"add","_meta":{}}}"#,
                meta.replace(r#""2026-07-28""#, "20260728")
            )),
            call(
                r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
            ),
            call(
                r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":"none"}}"#,
            ),
            call(
                r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}"#,
            ),
            // What no map of rmcp's reads: `_meta` or params as a list, a key twice.
            call(r#"{"name":"add","_meta":["2026-07-28",{}]}"#),
            call(&format!(r#"["add",null,{meta}]"#)),
            call(&format!(r#"{{"name":"add","name":"add","_meta":{meta}}}"#)),
            call(&format!(
                r#"{{"name":"add","_meta":{}}}"#,
                current_meta(r#""io.modelcontextprotocol/protocolVersion":"2025-11-25","#)
            )),
            call(&format!(
                r#"{{"name":"add","arguments":[1,2],"_meta":{meta}}}"#
            )),
        ];
        for body in &bodies {
            assert!(plain_parse(body.as_bytes(), "add").is_none(), "{body}");
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
