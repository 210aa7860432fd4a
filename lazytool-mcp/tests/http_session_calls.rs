//! A session's routine requests, which the guard hands to the session's handler itself: they
//! behave as the session's service answered them. What the handler sends on the way rides the
//! call's stream before the answer, numbered after its priming event; a client's
//! `notifications/cancelled` cancels the call; a request the tool makes of the client rides the
//! call's stream, and the client's answer (a POST of its own) reaches the tool.

mod http_support;

use std::net::SocketAddr;

use http_support::*;
use lazytool_mcp::McpRequest;
use lazytool_runtime::{ToolContext, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Semaphore;

/// Permits added when `until_cancelled` starts, and when it stops (its cancellation seen, or
/// its future dropped: the handler stops a cancelled call).
static WAITING: Semaphore = Semaphore::const_new(0);
static CANCELLED: Semaphore = Semaphore::const_new(0);

struct Stopped;

impl Drop for Stopped {
    fn drop(&mut self) {
        CANCELLED.add_permits(1);
    }
}

/// Counts to three, reporting progress.
#[tool]
async fn count(ctx: ToolContext) -> Result<String, String> {
    let request = McpRequest::of(&ctx).ok_or("not called over MCP")?;
    for step in 1..=3 {
        let progress = request.progress(f64::from(step), Some(3.0), Some("counting"));
        progress.await.map_err(|error| error.to_string())?;
    }
    Ok("counted".to_owned())
}

/// Waits until cancelled.
#[tool]
async fn until_cancelled(ctx: ToolContext) -> &'static str {
    let _stopped = Stopped;
    WAITING.add_permits(1);
    ctx.cancellation().cancelled().await;
    "cancelled"
}

/// Waits until its call is dropped: it takes only its arguments, so nothing else tells it its
/// call was cancelled.
#[tool]
async fn until_dropped() -> &'static str {
    let _stopped = Stopped;
    WAITING.add_permits(1);
    std::future::pending::<()>().await;
    "never"
}

/// Halves an even integer.
#[tool]
fn halve(n: i64) -> Result<i64, String> {
    if n % 2 == 0 {
        Ok(n / 2)
    } else {
        Err(format!("{n} is odd"))
    }
}

/// Asks the user's name.
#[tool]
async fn ask_name(ctx: ToolContext) -> Result<String, String> {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let elicited = ctx.elicit("name", "Your name?", schema).await?;
    let content = elicited.content.unwrap_or_default();
    Ok(format!("hello {}", content["name"]))
}

/// Opens a 2025-11-25 session whose client answers elicitations.
async fn open_eliciting_session(addr: SocketAddr) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
        "clientInfo": {"name": "test", "version": "1"}}});
    let headers = [("MCP-Protocol-Version", "2025-11-25")];
    let answer = exchange(addr, &post(addr, &headers, &initialize)).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.header("mcp-session-id").expect("a session id");
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = exchange(addr, &in_session(addr, session, None, &initialized)).await;
    assert_eq!(accepted.status, 202, "{accepted:?}");
    session.to_owned()
}

/// One SSE event: its id and its message (`None`: the priming event).
#[derive(Debug)]
struct Event {
    id: String,
    message: Option<Value>,
}

/// The events of an SSE body (chunk sizes are lines of their own, neither `id:` nor `data:`).
fn events(body: &str) -> Vec<Event> {
    let mut events = Vec::new();
    let (mut id, mut data) = (None, None);
    for line in body.lines() {
        if let Some(value) = line.strip_prefix("id:") {
            id = Some(value.trim().to_owned());
        } else if let Some(value) = line.strip_prefix("data:") {
            data = Some(value.trim().to_owned());
        } else if line.is_empty()
            && let Some(id) = id.take()
        {
            let data = data.take().unwrap_or_default();
            let message = (!data.is_empty())
                .then(|| serde_json::from_str(&data).expect("an event's data is JSON"));
            events.push(Event { id, message });
        }
    }
    events
}

/// An event id's stream and index (`3.1`: the second event of stream 3).
fn numbers(id: &str) -> (u64, u64) {
    let (stream, index) = id.split_once('.').expect("STREAM.INDEX");
    (
        stream.parse().expect("a number"),
        index.parse().expect("a number"),
    )
}

#[tokio::test]
async fn progress_rides_the_call_stream_before_the_answer() {
    let served = serve(|http| http).await;
    let session = open_session(served.addr, None).await;
    for id in 1..=3 {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": id}}});
        let answer = exchange(
            served.addr,
            &in_session(served.addr, &session, None, &message),
        )
        .await;
        assert_eq!(answer.status, 200, "{answer:?}");
        let events = events(&answer.body);
        assert_eq!(
            events.len(),
            5,
            "priming, 3 progress, the answer: {events:?}"
        );
        assert!(events[0].message.is_none(), "primed first: {events:?}");
        let progress: Vec<&Value> = events[1..4]
            .iter()
            .flat_map(|event| &event.message)
            .collect();
        for (step, sent) in progress.iter().enumerate() {
            assert_eq!(sent["method"], json!("notifications/progress"), "{sent}");
            assert_eq!(sent["params"]["progressToken"], json!(id));
            assert_eq!(sent["params"]["progress"], json!(step as f64 + 1.0));
        }
        let answered = events[4].message.as_ref().expect("the answer");
        assert_eq!(answered["id"], json!(id));
        assert_eq!(answered["result"]["content"][0]["text"], json!("counted"));
        let ids: Vec<(u64, u64)> = events.iter().map(|event| numbers(&event.id)).collect();
        assert!(
            ids.windows(2)
                .all(|pair| pair[0].0 == pair[1].0 && pair[0].1 + 1 == pair[1].1),
            "one stream, numbered in order: {ids:?}"
        );
    }
}

#[tokio::test]
async fn a_client_cancels_a_call_of_its_session() {
    // The handler's own tool, and one that takes only its arguments (called without it).
    for tool in ["until_cancelled", "until_dropped"] {
        let served = serve(|http| http).await;
        let session = open_session(served.addr, None).await;
        let addr = served.addr;
        let request = in_session(addr, &session, None, &call(5, tool));
        let waiting = tokio::spawn(async move { exchange(addr, &request).await });
        tokio::time::timeout(TIMEOUT, WAITING.acquire())
            .await
            .expect("the call starts in time")
            .expect("open")
            .forget();

        // Another request's cancellation, or a cancellation of another session, cancels nothing.
        let other = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 6}});
        let accepted = exchange(addr, &in_session(addr, &session, None, &other)).await;
        assert_eq!(accepted.status, 202, "{accepted:?}");
        let elsewhere = open_session(addr, None).await;
        let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 5, "reason": "changed my mind"}});
        let accepted = exchange(addr, &in_session(addr, &elsewhere, None, &cancel)).await;
        assert_eq!(accepted.status, 202, "{accepted:?}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        assert_eq!(CANCELLED.available_permits(), 0, "not cancelled yet");

        let accepted = exchange(addr, &in_session(addr, &session, None, &cancel)).await;
        assert_eq!(accepted.status, 202, "{accepted:?}");
        tokio::time::timeout(TIMEOUT, CANCELLED.acquire())
            .await
            .expect("the call stops in time")
            .expect("open")
            .forget();
        let ended = tokio::time::timeout(TIMEOUT, waiting)
            .await
            .expect("the call's stream ends")
            .expect("the exchange ran");
        let answered = events(&ended.body)
            .into_iter()
            .filter_map(|event| event.message)
            .find(|message| message["id"] == json!(5));
        assert!(
            answered.is_none(),
            "a cancelled request is not answered: {ended:?}"
        );
    }
}

#[tokio::test]
async fn a_tool_asks_the_client_on_its_call_stream_and_gets_the_answer() {
    let served = serve(|http| http).await;
    let addr = served.addr;
    let session = open_eliciting_session(addr).await;
    let mut stream = TcpStream::connect(addr).await.expect("connects");
    let request = in_session(addr, &session, None, &call(9, "ask_name"));
    stream
        .write_all(request.as_bytes())
        .await
        .expect("request sent");

    // The elicitation arrives on the call's own stream.
    let mut read = Vec::new();
    let asked = tokio::time::timeout(TIMEOUT, async {
        loop {
            let mut chunk = [0; 4096];
            let n = stream.read(&mut chunk).await.expect("readable");
            assert!(n > 0, "closed: {}", String::from_utf8_lossy(&read));
            read.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&read);
            let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body);
            if let Some(asked) = events(body)
                .into_iter()
                .filter_map(|event| event.message)
                .find(|message| message["method"] == json!("elicitation/create"))
            {
                return asked;
            }
        }
    })
    .await
    .expect("the elicitation in time");
    assert_eq!(asked["params"]["message"], json!("Your name?"), "{asked}");

    let reply = json!({"jsonrpc": "2.0", "id": asked["id"],
        "result": {"action": "accept", "content": {"name": "Ada"}}});
    let accepted = exchange(addr, &in_session(addr, &session, None, &reply)).await;
    assert_eq!(accepted.status, 202, "{accepted:?}");

    tokio::time::timeout(TIMEOUT, stream.read_to_end(&mut read))
        .await
        .expect("the stream ends in time")
        .expect("readable");
    let rest = parse(&read);
    let answered = events(&rest.body)
        .into_iter()
        .filter_map(|event| event.message)
        .find(|message| message["id"] == json!(9))
        .unwrap_or_else(|| panic!("the answer on the call's stream: {rest:?}"));
    assert_eq!(
        answered["result"]["content"][0]["text"],
        json!("hello \"Ada\"")
    );
}

/// The first three primes: structured output that is not an object, which rmcp takes out of
/// answers to clients of versions before 2026-07-28.
#[tool(output_schema)]
fn primes() -> Vec<u32> {
    vec![2, 3, 5]
}

/// Opens a session of protocol `version` whose client declares no capabilities.
async fn open_session_of(addr: SocketAddr, version: &str) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version, "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"}}});
    let headers = [("MCP-Protocol-Version", version)];
    let answer = exchange(addr, &post(addr, &headers, &initialize)).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let session = answer.header("mcp-session-id").expect("a session id");
    let headers = [
        ("MCP-Protocol-Version", version),
        ("Mcp-Session-Id", session),
    ];
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let accepted = exchange(addr, &post(addr, &headers, &initialized)).await;
    assert_eq!(accepted.status, 202, "{accepted:?}");
    session.to_owned()
}

#[tokio::test]
async fn routine_requests_are_answered_as_rmcp_answers_them() {
    let served = serve(|http| http).await;
    let addr = served.addr;
    let requests = [
        json!({"method": "tools/list", "params": {}}),
        json!({"method": "tools/call", "params": {"name": "primes", "arguments": {}}}),
        json!({"method": "tools/call", "params": {"name": "primes", "arguments": {"extra": 1}}}),
        json!({"method": "tools/call", "params": {"name": "nothing", "arguments": {}}}),
        json!({"method": "tools/call", "params": {"name": "ask_name", "arguments": {}}}),
        json!({"method": "tools/call", "params": {"name": "halve", "arguments": {"n": 8}}}),
        json!({"method": "tools/call", "params": {"name": "halve", "arguments": {"n": 7}}}),
        json!({"method": "tools/call", "params": {"name": "halve", "arguments": {"n": "8"}}}),
        json!({"method": "tools/call", "params": {"name": "halve"}}),
    ];
    for version in ["2025-11-25", "2025-06-18", "2025-03-26"] {
        let session = open_session_of(addr, version).await;
        let headers = [
            ("MCP-Protocol-Version", version),
            ("Mcp-Session-Id", &session),
        ];
        for (id, request) in (1..).zip(&requests) {
            let mut message = request.clone();
            message["jsonrpc"] = json!("2.0");
            message["id"] = json!(id);
            // The session's handler answers the usual `Accept`; rmcp's HTTP layer a weighted
            // one, which means the same to it.
            let direct = post(addr, &headers, &message);
            let through_rmcp = direct.replace(
                "Accept: application/json, text/event-stream",
                "Accept: application/json;q=1, text/event-stream;q=0.9",
            );
            let (direct, through_rmcp) = (
                exchange(addr, &direct).await,
                exchange(addr, &through_rmcp).await,
            );
            let answer = |body: &str| {
                events(body)
                    .into_iter()
                    .filter_map(|event| event.message)
                    .find(|message| message["id"] == json!(id))
            };
            assert_eq!(direct.status, through_rmcp.status, "{version} {message}");
            let answered = answer(&direct.body);
            assert!(answered.is_some(), "{version} {message}: {direct:?}");
            assert_eq!(answered, answer(&through_rmcp.body), "{version} {message}");
        }
    }
}
