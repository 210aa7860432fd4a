//! HTTP serving under pressure, against raw TCP clients of its own (on 127.0.0.1, bounded in
//! count): connections that never finish their headers and long-lived streams never lock a
//! normal client out (it is answered within 5 s), a session's streams are capped, and a flood
//! of handshakes leaves nothing behind the sessions it evicts.

mod http_support;

use std::net::SocketAddr;
use std::time::Duration;

use http_support::*;
use lazytool_mcp::{HttpLimits, McpServer};
use lazytool_runtime::source::LiveRegistry;
use lazytool_runtime::{CancellationToken, Registry};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a normal client waits for its answer during an attack.
const SERVED_WITHIN: Duration = Duration::from_secs(5);

/// The cap the attacks below run into.
const CONNECTIONS: usize = 8;

fn capped() -> HttpLimits {
    HttpLimits::default().max_connections(CONNECTIONS)
}

/// A normal client's `GET /healthz` and `initialize`, each answered within [`SERVED_WITHIN`].
async fn a_normal_client_is_served(addr: SocketAddr) {
    let healthz = tokio::time::timeout(SERVED_WITHIN, exchange(addr, &get(addr, "/healthz", &[])))
        .await
        .expect("/healthz answered within 5 s");
    assert_eq!(healthz.status, 200, "{healthz:?}");
    let headers = [("MCP-Protocol-Version", "2025-11-25")];
    let request = post(addr, &headers, &initialize());
    let handshake = tokio::time::timeout(SERVED_WITHIN, exchange(addr, &request))
        .await
        .expect("initialize answered within 5 s");
    assert_eq!(handshake.status, 200, "{handshake:?}");
}

/// Sends `request` on a new connection and returns it with the status line's first bytes
/// (`HTTP/1.1 NNN`), the connection left open.
async fn held(addr: SocketAddr, request: &str) -> (TcpStream, String) {
    let mut stream = TcpStream::connect(addr).await.expect("connected");
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut head = [0u8; 12];
    let read = tokio::time::timeout(TIMEOUT, stream.read_exact(&mut head)).await;
    let head = match read {
        Ok(Ok(_)) => String::from_utf8_lossy(&head).into_owned(),
        _ => String::new(),
    };
    (stream, head)
}

/// `request` without `Connection: close`: what an attacker holding connections sends.
fn keep_alive(request: &str) -> String {
    request.replace("Connection: close\r\n", "")
}

#[tokio::test]
async fn connections_that_never_finish_their_headers_make_room_for_a_normal_client() {
    let served = serve(|http| http.limits(capped())).await;
    let mut attack = Vec::new();
    for _ in 0..3 * CONNECTIONS {
        let mut stream = TcpStream::connect(served.addr).await.expect("connected");
        // A connection already shed to make room for the next may refuse the bytes.
        let _sent = stream.write_all(b"POST /mcp HTTP/1.1\r\nX-Slow: ").await;
        attack.push(stream);
    }
    a_normal_client_is_served(served.addr).await;
}

#[tokio::test]
async fn streams_never_hold_every_connection() {
    let served = serve(|http| http.limits(capped())).await;
    let addr = served.addr;
    let mut attack = Vec::new();
    let mut opened = 0;
    for _ in 0..3 {
        let session = open_session(addr, None).await;
        for _ in 0..CONNECTIONS {
            let (stream, head) = held(addr, &keep_alive(&stream_of(addr, &session))).await;
            opened += usize::from(head == "HTTP/1.1 200");
            attack.push(stream);
        }
    }
    assert!(
        opened <= CONNECTIONS / 2,
        "at most half the connections are streams: {opened} opened"
    );
    a_normal_client_is_served(addr).await;
}

#[tokio::test]
async fn a_session_over_its_streams_gets_429() {
    let served = serve(|http| http.limits(HttpLimits::default().max_streams_per_session(2))).await;
    let addr = served.addr;
    let session = open_session(addr, None).await;
    let mut open = Vec::new();
    for _ in 0..2 {
        let (stream, head) = held(addr, &stream_of(addr, &session)).await;
        assert_eq!(head, "HTTP/1.1 200");
        open.push(stream);
    }
    let refused = exchange(addr, &stream_of(addr, &session)).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert!(
        refused.message()["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("2 streams open")),
        "names the bound: {refused:?}"
    );

    let other = open_session(addr, None).await;
    let (_stream, head) = held(addr, &stream_of(addr, &other)).await;
    assert_eq!(head, "HTTP/1.1 200", "another session's stream opens");
    drop(open.pop());
    let reopened = async {
        loop {
            let (stream, head) = held(addr, &stream_of(addr, &session)).await;
            if head == "HTTP/1.1 200" {
                return stream;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    };
    tokio::time::timeout(TIMEOUT, reopened)
        .await
        .expect("a closed stream frees its place");
}

/// The tasks alive in the runtime, once they stop changing for a moment.
async fn settled_tasks() -> usize {
    let metrics = tokio::runtime::Handle::current().metrics();
    let mut last = metrics.num_alive_tasks();
    loop {
        tokio::time::sleep(Duration::from_millis(200)).await;
        let now = metrics.num_alive_tasks();
        if now == last {
            return now;
        }
        last = now;
    }
}

#[tokio::test]
async fn a_flood_of_handshakes_leaves_nothing_behind_the_sessions_it_evicts() {
    // A live catalog: each session follows its changes with a task of its own.
    let catalog = LiveRegistry::new(Registry::from_inventory().expect("valid tools"));
    let stop = CancellationToken::new();
    let http = McpServer::live(&catalog)
        .http()
        .limits(HttpLimits::default().max_sessions(4))
        .shutdown_on(stop.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("bound");
    let _serving = tokio::spawn(http.serve_on(listener));
    let _stop = stop.drop_guard();

    for _ in 0..4 {
        open_session(addr, None).await;
    }
    let full = settled_tasks().await;
    for _ in 0..40 {
        open_session(addr, None).await;
    }
    let settled = async {
        loop {
            let now = settled_tasks().await;
            if now <= full + 4 {
                return now;
            }
        }
    };
    let after = tokio::time::timeout(TIMEOUT, settled).await;
    assert!(
        after.is_ok(),
        "40 evicted sessions left tasks behind: {full} alive with the table full, {} after",
        tokio::runtime::Handle::current()
            .metrics()
            .num_alive_tasks()
    );
}
