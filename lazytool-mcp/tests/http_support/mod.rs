//! What the tests of HTTP serving's bounds, routes and drain share: a server on a free port
//! with tools that wait until released, and a raw HTTP/1.1 client (slow clients need one).

#![allow(dead_code, unreachable_pub)]

use std::net::SocketAddr;
use std::time::Duration;

use lazytool_mcp::{McpError, McpHttp, McpServer, Principal};
use lazytool_runtime::{CancellationToken, Registry, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

pub const TIMEOUT: Duration = Duration::from_secs(10);

/// Permits added when a `hold` call starts.
pub static STARTED: Semaphore = Semaphore::const_new(0);
/// Permits a `hold` call takes to finish.
pub static RELEASE: Semaphore = Semaphore::const_new(0);

/// Waits until released, then says so.
#[tool]
async fn hold() -> &'static str {
    STARTED.add_permits(1);
    match RELEASE.acquire().await {
        Ok(permit) => permit.forget(),
        Err(_) => return "closed",
    }
    "released"
}

/// Lists the products.
#[tool(name = "getProducts")]
async fn get_products() -> Vec<u32> {
    vec![1, 2]
}

/// A server on a free port; stopped when dropped.
pub struct Served {
    pub addr: SocketAddr,
    pub stop: CancellationToken,
    pub serving: JoinHandle<Result<(), McpError>>,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

pub async fn serve(configure: impl FnOnce(McpHttp) -> McpHttp) -> Served {
    let registry = Registry::from_inventory().expect("valid tools");
    let stop = CancellationToken::new();
    let http = configure(McpServer::new(registry).http().shutdown_on(stop.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("bound");
    let serving = tokio::spawn(http.serve_on(listener));
    Served {
        addr,
        stop,
        serving,
    }
}

/// An answer as read off the wire.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.trim().eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }

    /// The JSON-RPC message: the body, or the last `data:` of an SSE stream (a chunked
    /// body's sizes are lines of their own, never JSON).
    pub fn message(&self) -> Value {
        let json = self
            .body
            .lines()
            .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
            .rfind(|line| line.starts_with('{'))
            .unwrap_or_default();
        serde_json::from_str(json).unwrap_or_else(|_| panic!("a JSON-RPC message: {self:?}"))
    }
}

/// Sends `request` (whole, as text) on a new connection and reads until the server closes it.
pub async fn exchange(addr: SocketAddr, request: &str) -> Answer {
    let mut stream = TcpStream::connect(addr).await.expect("connected");
    stream
        .write_all(request.as_bytes())
        .await
        .expect("request sent");
    read_answer(&mut stream).await
}

pub async fn read_answer(stream: &mut TcpStream) -> Answer {
    let mut bytes = Vec::new();
    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut bytes))
        .await
        .expect("the server closes the connection in time")
        .expect("readable");
    parse(&bytes)
}

pub fn parse(bytes: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(bytes);
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_default();
    Answer {
        status,
        head: head.to_owned(),
        body: body.to_owned(),
    }
}

/// A `POST /mcp` with `Connection: close`, as text.
pub fn post(addr: SocketAddr, headers: &[(&str, &str)], body: &Value) -> String {
    let body = body.to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    request
}

/// A `GET` of `path` with `Connection: close` (and `Host: ADDR` unless `headers` has one),
/// as text.
pub fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> String {
    let mut request = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    if !headers
        .iter()
        .any(|(name, _)| name.eq_ignore_ascii_case("host"))
    {
        request.push_str(&format!("Host: {addr}\r\n"));
    }
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request
}

pub fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}})
}

/// Opens a 2025-11-25 session (with `token`, if any) and returns its id.
pub async fn open_session(addr: SocketAddr, token: Option<&str>) -> String {
    let bearer = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![("MCP-Protocol-Version", "2025-11-25")];
    if let Some(bearer) = &bearer {
        headers.push(("Authorization", bearer));
    }
    let answer = exchange(addr, &post(addr, &headers, &initialize())).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    headers.push(("Mcp-Session-Id", &session));
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = exchange(addr, &post(addr, &headers, &initialized)).await;
    assert_eq!(accepted.status, 202, "{accepted:?}");
    session
}

/// The `GET` that opens `session`'s stream of server messages (2025-11-25).
pub fn stream_of(addr: SocketAddr, session: &str) -> String {
    stream_after(addr, session, None)
}

/// The `GET` that resumes a stream of `session` after event `last_event_id` (`Last-Event-ID`),
/// or without one opens the session's stream of server messages.
pub fn stream_after(addr: SocketAddr, session: &str, last_event_id: Option<&str>) -> String {
    let mut headers = vec![
        ("Accept", "text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Mcp-Session-Id", session),
    ];
    if let Some(id) = last_event_id {
        headers.push(("Last-Event-ID", id));
    }
    get(addr, "/mcp", &headers)
}

/// A request of `session` (2025-11-25), with `token` if any.
pub fn in_session(addr: SocketAddr, session: &str, token: Option<&str>, message: &Value) -> String {
    let bearer = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![
        ("MCP-Protocol-Version", "2025-11-25"),
        ("Mcp-Session-Id", session),
    ];
    if let Some(bearer) = &bearer {
        headers.push(("Authorization", bearer));
    }
    post(addr, &headers, message)
}

pub fn call(id: u32, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}})
}

pub fn alice_and_bob(http: McpHttp) -> McpHttp {
    http.bearer_token_for("alice-token", Principal::new("alice"))
        .bearer_token_for("bob-token", Principal::new("bob"))
}

/// Never finishes (until the server cuts it).
#[tool]
async fn forever() -> &'static str {
    STARTED.add_permits(1);
    std::future::pending::<()>().await;
    "never"
}

/// Waits until a `hold` or `forever` call has started.
pub async fn started() {
    let permit = tokio::time::timeout(TIMEOUT, STARTED.acquire())
        .await
        .expect("the call starts in time")
        .expect("open");
    permit.forget();
}
