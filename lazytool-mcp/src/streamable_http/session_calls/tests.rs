use http::{HeaderMap, HeaderValue, Request};
use rmcp::model::RequestId;

use super::*;

const CALL: &str =
    r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{}}}"#;

/// The parts of a session's `tools/call` as the official clients send it (2025-11-25), with
/// `change` applied to its headers.
fn parts(change: impl FnOnce(&mut HeaderMap)) -> Parts {
    let mut request = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .header("mcp-session-id", "s-1")
        .body(())
        .expect("a request");
    change(request.headers_mut());
    request.into_parts().0
}

fn taken(parts: &Parts, body: &str) -> Option<RequestId> {
    session_request(parts, body.as_bytes()).map(|call| call.request.id)
}

#[test]
fn the_guard_reads_only_session_requests_rmcp_would_take_as_they_are() {
    let plain = parts(|_| {});
    assert_eq!(taken(&plain, CALL), Some(RequestId::Number(7)));
    let list = r#"{"jsonrpc":"2.0","id":"l","method":"tools/list"}"#;
    assert!(taken(&plain, list).is_some());
    // No protocol version header: rmcp reads 2025-03-26, a revision with sessions.
    assert!(
        taken(
            &parts(|headers| drop(headers.remove("mcp-protocol-version"))),
            CALL
        )
        .is_some()
    );

    let refused: Vec<(&str, Parts, &str)> = vec![
        (
            "no session",
            parts(|headers| drop(headers.remove("mcp-session-id"))),
            CALL,
        ),
        (
            "two session ids",
            parts(|headers| {
                headers.append("mcp-session-id", HeaderValue::from_static("s-2"));
            }),
            CALL,
        ),
        (
            "a revision without sessions",
            parts(|headers| {
                headers.insert(
                    "mcp-protocol-version",
                    HeaderValue::from_static("2026-07-28"),
                );
            }),
            CALL,
        ),
        (
            "a revision rmcp does not know",
            parts(|headers| {
                headers.insert(
                    "mcp-protocol-version",
                    HeaderValue::from_static("2024-01-01"),
                );
            }),
            CALL,
        ),
        (
            "accepting JSON only",
            parts(|headers| {
                headers.insert("accept", HeaderValue::from_static("application/json"));
            }),
            CALL,
        ),
        (
            "sending text",
            parts(|headers| {
                headers.insert("content-type", HeaderValue::from_static("text/plain"));
            }),
            CALL,
        ),
        (
            "another method naming tools/call in a string",
            parts(|_| {}),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"x":"tools/call"}}}"#,
        ),
        (
            "a notification",
            parts(|_| {}),
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"add"}}"#,
        ),
        (
            "a protocol version in _meta",
            parts(|_| {}),
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}"#,
        ),
        (
            "a repeated key",
            parts(|_| {}),
            r#"{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/call","params":{"name":"add"}}"#,
        ),
        ("not JSON", parts(|_| {}), r#"{"method":"tools/call""#),
    ];
    for (case, parts, body) in refused {
        assert!(taken(&parts, body).is_none(), "{case}: left to rmcp");
    }
}
