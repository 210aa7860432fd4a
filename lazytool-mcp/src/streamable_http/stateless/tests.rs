use http::{HeaderMap, HeaderValue, Request};
use lazytool_runtime::Registry;
use serde_json::json;

use super::*;

const CALL: &str = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;

/// The parts of a stateless `tools/call` of `add` as the official clients send it, with
/// `change` applied to its headers.
fn parts(change: impl FnOnce(&mut HeaderMap)) -> Parts {
    let mut request = Request::post("/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "add")
        .body(())
        .expect("a request");
    change(request.headers_mut());
    request.into_parts().0
}

fn set(name: &'static str, value: &'static str) -> impl FnOnce(&mut HeaderMap) {
    move |headers| {
        headers.insert(name, HeaderValue::from_static(value));
    }
}

/// A server with `add`, and `locate`, whose `region` is also sent as a header (SEP-2243).
fn server() -> McpServer {
    let tool = |name: &str, schema: serde_json::Value| {
        lazytool_runtime::DynamicTool::new(name, "A tool.", schema, |_, _| async {
            Ok::<_, String>(json!(1))
        })
    };
    let registry = Registry::builder()
        .without_inventory()
        .tool(tool("add", json!({"type": "object"})))
        .tool(tool(
            "locate",
            json!({"type": "object", "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}}),
        ))
        .build()
        .expect("a registry");
    McpServer::new(registry)
}

#[test]
fn a_lane_takes_only_requests_rmcp_would_take_as_they_are() {
    let lanes = Lanes::new(Arc::new(server()), CancellationToken::new(), None);
    let lane_request = |parts: &Parts, body: &[u8]| lane_request(parts, body, &lanes);
    let Some(LaneRequest::Routine(taken)) = lane_request(&parts(|_| {}), CALL.as_bytes()) else {
        panic!("a lane request");
    };
    assert_eq!(taken.id, RequestId::Number(7));
    assert!(
        lane_request(
            &parts(set("content-type", "application/json; charset=utf-8")),
            CALL.as_bytes()
        )
        .is_some()
    );
    let list = CALL
        .replace("tools/call", "tools/list")
        .replace(r#""name":"add","arguments":{},"#, "");
    let listing = parts(|headers| {
        headers.insert("mcp-method", HeaderValue::from_static("tools/list"));
        headers.remove("mcp-name");
    });
    assert!(lane_request(&listing, list.as_bytes()).is_some());

    let refused: Vec<(&str, Parts, String)> = vec![
        (
            "a session",
            parts(set("mcp-session-id", "s")),
            CALL.to_owned(),
        ),
        (
            "another version",
            parts(set("mcp-protocol-version", "2025-11-25")),
            CALL.to_owned(),
        ),
        (
            "no version header",
            parts(|headers| {
                headers.remove("mcp-protocol-version");
            }),
            CALL.to_owned(),
        ),
        (
            "two version headers",
            parts(|headers| {
                headers.append(
                    "mcp-protocol-version",
                    HeaderValue::from_static("2026-07-28"),
                );
            }),
            CALL.to_owned(),
        ),
        (
            "weighted Accept",
            parts(set("accept", "application/json;q=1, text/event-stream")),
            CALL.to_owned(),
        ),
        (
            "no event streams",
            parts(set("accept", "application/json")),
            CALL.to_owned(),
        ),
        (
            "not JSON",
            parts(set("content-type", "text/plain")),
            CALL.to_owned(),
        ),
        (
            "another Mcp-Method",
            parts(set("mcp-method", "tools/list")),
            CALL.to_owned(),
        ),
        (
            "no Mcp-Name",
            parts(|headers| {
                headers.remove("mcp-name");
            }),
            CALL.to_owned(),
        ),
        (
            "another Mcp-Name",
            parts(set("mcp-name", "sub")),
            CALL.to_owned(),
        ),
        (
            "a Base64 Mcp-Name",
            parts(set("mcp-name", "=?base64?YWRk?=")),
            CALL.to_owned(),
        ),
        (
            "_meta without client capabilities",
            parts(|_| {}),
            CALL.replace(r#","io.modelcontextprotocol/clientCapabilities":{}"#, ""),
        ),
        (
            "client capabilities that are not an object",
            parts(|_| {}),
            CALL.replace(r#"clientCapabilities":{}"#, r#"clientCapabilities":"none""#),
        ),
        (
            "_meta without a version",
            parts(|_| {}),
            CALL.replace(
                r#""io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
                "",
            ),
        ),
        (
            "a version that is not text",
            parts(|_| {}),
            CALL.replace(
                r#"protocolVersion":"2026-07-28""#,
                r#"protocolVersion":20260728"#,
            ),
        ),
        (
            "_meta of another version",
            parts(|_| {}),
            CALL.replace(
                r#"protocolVersion":"2026-07-28""#,
                r#"protocolVersion":"2025-11-25""#,
            ),
        ),
        (
            "a notification",
            parts(|_| {}),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_owned(),
        ),
        (
            "another method",
            parts(set("mcp-method", "ping")),
            CALL.replace("tools/call", "ping"),
        ),
        ("a batch", parts(|_| {}), format!("[{CALL}]")),
        (
            "a tool with header parameters, which rmcp checks",
            parts(set("mcp-name", "locate")),
            CALL.replace(r#""name":"add""#, r#""name":"locate""#),
        ),
        ("not JSON-RPC", parts(|_| {}), "{".to_owned()),
    ];
    for (why, parts, body) in refused {
        assert!(lane_request(&parts, body.as_bytes()).is_none(), "{why}");
    }
}

fn lanes() -> Arc<Lanes> {
    let registry = Registry::builder()
        .without_inventory()
        .build()
        .expect("a registry");
    Arc::new(Lanes::new(
        Arc::new(McpServer::new(registry)),
        CancellationToken::new(),
        None,
    ))
}

fn open(lanes: &Lanes) -> usize {
    lanes.open.load(Ordering::Acquire)
}

#[tokio::test]
async fn answered_lanes_serve_again_and_the_pool_stays_within_its_bound() {
    let lanes = lanes();
    let mut leases: Vec<Lease> = (0..MAX_LANES)
        .map(|_| lanes.lease().expect("a lane"))
        .collect();
    assert_eq!(open(&lanes), MAX_LANES);
    assert!(lanes.lease().is_none(), "every lane is busy");

    leases[0].release();
    let again = lanes.lease().expect("the answered lane serves again");
    assert_eq!(open(&lanes), MAX_LANES);

    // A lease dropped unanswered (its client went away) closes its lane.
    drop(again);
    assert_eq!(open(&lanes), MAX_LANES - 1);
    leases.truncate(MAX_LANES - 3);
    assert_eq!(open(&lanes), MAX_LANES - 4);
    drop(leases);
    assert_eq!(open(&lanes), 0);
    let mut fresh = lanes.lease().expect("a new lane");
    fresh.release();
    assert_eq!(open(&lanes), 1);
}

#[tokio::test]
async fn a_stopped_server_lends_no_lanes() {
    let lanes = lanes();
    let mut lease = lanes.lease().expect("a lane");
    lanes.stopped.cancel();
    lease.release();
    assert_eq!(
        open(&lanes),
        0,
        "a lane answering when the server stopped is closed"
    );
    assert!(lanes.lease().is_none());
}
