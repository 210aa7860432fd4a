//! HTTP serving's bounds, with raw TCP clients: slow headers and bodies are cut, connections
//! (with none idle to close), sessions and long-lived streams over their caps get 503 (429 per
//! principal) with `Retry-After` and a JSON-RPC error, and the least recently used idle
//! session makes room.

mod http_support;

use std::time::Duration;

use http_support::*;
use lazytool_mcp::HttpLimits;
use lazytool_runtime::tool;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

fn short_reads(limits: HttpLimits) -> HttpLimits {
    limits
        .header_read_timeout(Duration::from_millis(300))
        .body_read_timeout(Duration::from_millis(300))
}

/// Whether the server closed `stream` before `TIMEOUT`, while a byte is sent every 100 ms.
async fn closed_while_trickling(stream: &mut TcpStream) -> bool {
    let trickle = async {
        let mut buffer = [0u8; 512];
        loop {
            if stream.write_all(b"X").await.is_err() {
                return;
            }
            let read = tokio::time::timeout(Duration::from_millis(100), stream.read(&mut buffer));
            // Bytes read (hyper's 408 before the close) or none yet: trickle on.
            if let Ok(Ok(0) | Err(_)) = read.await {
                return;
            }
        }
    };
    tokio::time::timeout(TIMEOUT, trickle).await.is_ok()
}

#[tokio::test]
async fn slow_headers_and_idle_connections_are_cut() {
    let served = serve(|http| http.limits(short_reads(HttpLimits::default()))).await;
    let mut slow = TcpStream::connect(served.addr).await.expect("connected");
    slow.write_all(b"POST /mcp HTTP/1.1\r\nX-Slow: ")
        .await
        .expect("sent");
    assert!(
        closed_while_trickling(&mut slow).await,
        "a header trickling one byte at a time is cut"
    );

    let mut idle = TcpStream::connect(served.addr).await.expect("connected");
    let mut buffer = Vec::new();
    let read = tokio::time::timeout(TIMEOUT, idle.read_to_end(&mut buffer)).await;
    assert!(read.is_ok(), "an idle connection is closed");

    let healthy = exchange(served.addr, &get(served.addr, "/healthz", &[])).await;
    assert_eq!(healthy.status, 200, "still serving: {healthy:?}");
}

#[tokio::test]
async fn a_body_that_never_ends_gets_408_with_a_json_rpc_error() {
    let served = serve(|http| http.limits(short_reads(HttpLimits::default()))).await;
    let mut stream = TcpStream::connect(served.addr).await.expect("connected");
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{{\r\n",
        served.addr
    );
    stream.write_all(head.as_bytes()).await.expect("sent");
    let answer = read_answer(&mut stream).await;
    assert_eq!(answer.status, 408, "{answer:?}");
    assert_eq!(
        answer.message()["error"]["code"],
        json!(-32700),
        "{answer:?}"
    );
}

/// Permits added when an `occupy` call starts.
static OCCUPIED: Semaphore = Semaphore::const_new(0);

/// Holds its connection until the client goes away.
#[tool]
async fn occupy() -> &'static str {
    OCCUPIED.add_permits(1);
    std::future::pending::<()>().await;
    "never"
}

#[tokio::test]
async fn connections_over_the_cap_with_none_idle_get_503_and_room_comes_back() {
    let served = serve(|http| http.limits(HttpLimits::default().max_connections(2))).await;
    let addr = served.addr;
    let session = open_session(addr, None).await;
    let mut busy = Vec::new();
    for id in 1..=2 {
        let mut stream = TcpStream::connect(addr).await.expect("connected");
        let request = in_session(addr, &session, None, &call(id, "occupy"));
        stream.write_all(request.as_bytes()).await.expect("sent");
        busy.push(stream);
    }
    let occupied = tokio::time::timeout(TIMEOUT, OCCUPIED.acquire_many(2))
        .await
        .expect("both calls start in time")
        .expect("open");
    occupied.forget();
    let refused = exchange(addr, &get(addr, "/healthz", &[])).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(refused.message()["error"]["code"], json!(-32000));

    drop(busy.pop());
    let served_again = async {
        loop {
            let answer = exchange(addr, &get(addr, "/healthz", &[])).await;
            if answer.status == 200 {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(TIMEOUT, served_again)
        .await
        .expect("a closed connection frees its place");
}

#[tokio::test]
async fn the_least_recently_used_idle_session_makes_room_and_busy_ones_stay() {
    let served = serve(|http| http.limits(HttpLimits::default().max_sessions(1))).await;
    let addr = served.addr;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});

    let first = open_session(addr, None).await;
    let held = in_session(addr, &first, None, &call(2, "hold"));
    let call = tokio::spawn(async move { exchange(addr, &held).await });
    started().await;
    let headers = [("MCP-Protocol-Version", "2025-11-25")];
    let refused = exchange(addr, &post(addr, &headers, &initialize())).await;
    assert_eq!(refused.status, 503, "the only session is busy: {refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(
        (
            &refused.message()["id"],
            &refused.message()["error"]["code"]
        ),
        (&json!(0), &json!(-32000))
    );

    RELEASE.add_permits(1);
    let answer = call.await.expect("the call's task");
    assert!(answer.body.contains("released"), "{answer:?}");
    let second = open_session(addr, None).await;
    let gone = exchange(addr, &in_session(addr, &first, None, &list)).await;
    assert_eq!(gone.status, 404, "the idle session made room: {gone:?}");
    let kept = exchange(addr, &in_session(addr, &second, None, &list)).await;
    assert_eq!(kept.status, 200, "{kept:?}");
}

#[tokio::test]
async fn a_principal_over_its_cap_loses_its_own_oldest_session_only() {
    let served = serve(|http| {
        alice_and_bob(http).limits(HttpLimits::default().max_sessions_per_principal(1))
    })
    .await;
    let addr = served.addr;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let bob = open_session(addr, Some("bob-token")).await;
    let alice = open_session(addr, Some("alice-token")).await;
    let again = open_session(addr, Some("alice-token")).await;
    let status = |session: &str, token: &str| {
        let request = in_session(addr, session, Some(token), &list);
        async move { exchange(addr, &request).await.status }
    };
    assert_eq!(status(&alice, "alice-token").await, 404);
    assert_eq!(status(&again, "alice-token").await, 200);
    assert_eq!(status(&bob, "bob-token").await, 200);
}

#[tokio::test]
async fn streams_over_the_cap_get_503() {
    let served = serve(|http| http.limits(HttpLimits::default().max_streams(1))).await;
    let addr = served.addr;
    let session = open_session(addr, None).await;
    let stream_request = stream_of(addr, &session);
    let mut open = TcpStream::connect(addr).await.expect("connected");
    open.write_all(stream_request.as_bytes())
        .await
        .expect("sent");
    let mut head = [0u8; 12];
    tokio::time::timeout(TIMEOUT, open.read_exact(&mut head))
        .await
        .expect("the stream opens in time")
        .expect("read");
    assert_eq!(&head, b"HTTP/1.1 200");

    let refused = exchange(addr, &stream_request).await;
    assert_eq!(refused.status, 503, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
}
