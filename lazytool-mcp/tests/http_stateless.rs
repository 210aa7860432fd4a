//! Stateless (2026-07-28) calls answered on lanes, the rmcp services the server keeps between
//! requests, or without one (a tool that takes only its arguments): the same answers as rmcp's
//! own path gives, event streams for calls that report progress, a call cancelled when its
//! client goes away, a call in flight at the shutdown answered, and calls beyond the lanes
//! answered by rmcp.

use std::sync::OnceLock;
use std::time::Duration;

use lazytool_mcp::{McpRequest, McpServer};
use lazytool_runtime::{CancellationToken, Registry, ToolContext, tool};
use reqwest::StatusCode;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use tokio::sync::Semaphore;

const NEWEST: &str = "2026-07-28";
const TIMEOUT: Duration = Duration::from_secs(10);
/// More calls at once than the server keeps lanes (64).
const BEYOND_THE_LANES: usize = 72;

/// Adds two integers.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Divides two integers.
#[tool]
fn divide(a: i64, b: i64) -> Result<i64, String> {
    a.checked_div(b)
        .ok_or_else(|| format!("cannot divide {a} by {b}"))
}

/// The first three primes: structured output that is not an object.
#[tool(output_schema)]
fn primes() -> Vec<u32> {
    vec![2, 3, 5]
}

/// Counts to three, reporting progress.
#[tool]
async fn count(ctx: ToolContext) -> Result<String, String> {
    let request = McpRequest::of(&ctx).ok_or("not called over MCP")?;
    for step in 1..=3 {
        let progress = request.progress(f64::from(step), Some(3.0), Some("counting"));
        progress.await.map_err(|error| error.to_string())?;
    }
    Ok(format!("counted for {}", request.principal().name()))
}

/// Asks the client's name: answered with `input_required` until the client gives it.
#[tool]
async fn ask_name(ctx: ToolContext) -> Result<String, String> {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    let elicited = ctx.elicit("name", "Your name?", schema).await?;
    Ok(format!(
        "hello {}",
        elicited.content.unwrap_or_default()["name"]
    ))
}

static WAIT_STARTED: Semaphore = Semaphore::const_new(0);
/// The cancellation of the `wait` call.
static WAIT_CANCELLATION: OnceLock<CancellationToken> = OnceLock::new();

/// Waits until cancelled.
#[tool]
async fn wait(ctx: ToolContext) -> &'static str {
    WAIT_CANCELLATION.get_or_init(|| ctx.cancellation().clone());
    WAIT_STARTED.add_permits(1);
    ctx.cancellation().cancelled().await;
    "cancelled"
}

/// Calls of a tool that wait until the test releases them.
struct Gate {
    started: Semaphore,
    release: Semaphore,
}

impl Gate {
    const fn new() -> Self {
        Gate {
            started: Semaphore::const_new(0),
            release: Semaphore::const_new(0),
        }
    }

    async fn pass(&self) -> &'static str {
        self.started.add_permits(1);
        match self.release.acquire().await {
            Ok(permit) => permit.forget(),
            Err(_) => return "closed",
        }
        "released"
    }

    /// Waits until `calls` calls have started.
    async fn started(&self, calls: u32) {
        tokio::time::timeout(TIMEOUT, self.started.acquire_many(calls))
            .await
            .expect("the calls started")
            .expect("open")
            .forget();
    }
}

static HOLD: Gate = Gate::new();
static LINGER: Gate = Gate::new();

/// Waits until released. It takes its context: its calls take lanes.
#[tool]
async fn hold(_context: ToolContext) -> &'static str {
    HOLD.pass().await
}

/// Waits until released (apart from `hold`, whose test runs at the same time). It takes only
/// its arguments: its calls take no lane.
#[tool]
async fn linger() -> &'static str {
    LINGER.pass().await
}

/// `linger` on a lane.
#[tool]
async fn linger_on_a_lane(_context: ToolContext) -> &'static str {
    LINGER.pass().await
}

static STALL_STARTED: Semaphore = Semaphore::const_new(0);
/// Set when a `stall` call is dropped.
static STALL_DROPPED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Sets [`STALL_DROPPED`] when dropped.
struct Dropped;

impl Drop for Dropped {
    fn drop(&mut self) {
        STALL_DROPPED.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Never answers; it takes only its arguments, so nothing but being dropped tells it its
/// client went away.
#[tool]
async fn stall() -> &'static str {
    let _dropped = Dropped;
    STALL_STARTED.add_permits(1);
    std::future::pending::<()>().await;
    "answered"
}

/// A server on a free port, stopped when dropped.
struct Served {
    addr: std::net::SocketAddr,
    url: String,
    stop: CancellationToken,
    client: reqwest::Client,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn serve() -> Served {
    serve_server(McpServer::new(
        Registry::from_inventory().expect("valid tools"),
    ))
    .await
}

async fn serve_server(server: McpServer) -> Served {
    let stop = CancellationToken::new();
    let http = server.http().shutdown_on(stop.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let addr = listener.local_addr().expect("bound");
    let url = format!("http://{addr}/mcp");
    tokio::spawn(http.serve_on(listener));
    Served {
        addr,
        url,
        stop,
        client: reqwest::Client::new(),
    }
}

/// Which path a request is meant to take: a lane, or rmcp's own (a weighted `Accept`, which
/// lanes leave to rmcp, means the same to it).
#[derive(Clone, Copy, Debug)]
enum Path {
    Lane,
    Rmcp,
}

struct Reply {
    status: StatusCode,
    content_type: String,
    messages: Vec<Value>,
}

impl Served {
    fn request(
        &self,
        path: Path,
        id: u32,
        method: &str,
        mut params: Value,
    ) -> reqwest::RequestBuilder {
        let meta = params
            .as_object_mut()
            .expect("params are an object")
            .entry("_meta")
            .or_insert_with(|| json!({}));
        meta["io.modelcontextprotocol/protocolVersion"] = json!(NEWEST);
        meta["io.modelcontextprotocol/clientInfo"] = json!({"name": "test", "version": "1"});
        // A test's own capabilities stay; `null` leaves them out.
        match meta.get("io.modelcontextprotocol/clientCapabilities") {
            None => meta["io.modelcontextprotocol/clientCapabilities"] = json!({}),
            Some(Value::Null) => {
                let _ = meta
                    .as_object_mut()
                    .expect("_meta is an object")
                    .remove("io.modelcontextprotocol/clientCapabilities");
            }
            Some(_) => {}
        }
        let accept = match path {
            Path::Lane => "application/json, text/event-stream",
            Path::Rmcp => "application/json;q=1, text/event-stream;q=0.9",
        };
        let mut request = self
            .client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", accept)
            .header("mcp-protocol-version", NEWEST)
            .header("mcp-method", method)
            .body(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
            );
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            request = request.header("mcp-name", name);
        }
        request
    }

    async fn send(&self, request: reqwest::RequestBuilder) -> Reply {
        let response = tokio::time::timeout(TIMEOUT, request.send())
            .await
            .expect("answered in time")
            .expect("the server answers");
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = tokio::time::timeout(TIMEOUT, response.text())
            .await
            .expect("read in time")
            .expect("a body");
        let messages = if content_type.starts_with("text/event-stream") {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .filter(|data| !data.is_empty())
                .map(|data| serde_json::from_str(data).expect("JSON events"))
                .collect()
        } else {
            vec![serde_json::from_str(&text).unwrap_or_else(|_| panic!("JSON: {text}"))]
        };
        Reply {
            status,
            content_type,
            messages,
        }
    }

    async fn call(&self, path: Path, id: u32, method: &str, params: Value) -> Reply {
        self.send(self.request(path, id, method, params)).await
    }
}

/// `messages` with each round's `requestState` replaced by whether it was there: the state is
/// sealed with a fresh nonce every time.
fn without_state(mut messages: Vec<Value>) -> Vec<Value> {
    for message in &mut messages {
        if let Some(result) = message.get_mut("result").and_then(Value::as_object_mut)
            && let Some(state) = result.remove("requestState")
        {
            let sealed = state.as_str().is_some_and(|state| !state.is_empty());
            result.insert("requestState".to_owned(), json!(sealed));
        }
    }
    messages
}

/// Asserts that each of `requests` gets the same answer from `served` on a lane (or without
/// one) as on rmcp's own path.
async fn same_answers(served: &Served, requests: &[(&str, Value)]) {
    for (id, (method, params)) in (1..).zip(requests) {
        let lane = served.call(Path::Lane, id, method, params.clone()).await;
        let rmcp = served.call(Path::Rmcp, id, method, params.clone()).await;
        assert_eq!(lane.status, rmcp.status, "{method} {params}");
        assert_eq!(lane.content_type, rmcp.content_type, "{method} {params}");
        assert_eq!(
            without_state(lane.messages),
            without_state(rmcp.messages),
            "{method} {params}"
        );
    }
}

#[tokio::test]
async fn lanes_answer_what_rmcp_answers() {
    let served = serve().await;
    let requests = [
        ("tools/list", json!({})),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": "two", "b": 3}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 9223372036854775807_i64, "b": 1}}),
        ),
        ("tools/call", json!({"name": "nothing", "arguments": {}})),
        (
            "tools/call",
            json!({"name": "count", "_meta": {"progressToken": "p-1"}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3},
                "_meta": {"io.modelcontextprotocol/clientCapabilities": null}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3},
                "_meta": {"io.modelcontextprotocol/clientCapabilities": "none"}}),
        ),
        (
            "tools/list",
            json!({"_meta": {"io.modelcontextprotocol/clientCapabilities": []}}),
        ),
        (
            "tools/call",
            json!({"name": "ask_name", "arguments": {},
                "_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}),
        ),
        ("tools/call", json!({"name": "ask_name", "arguments": {}})),
        // Tools that take only their arguments: answered without a lane.
        (
            "tools/call",
            json!({"name": "divide", "arguments": {"a": 7, "b": 2}}),
        ),
        (
            "tools/call",
            json!({"name": "divide", "arguments": {"a": 7, "b": 0}}),
        ),
        ("tools/call", json!({"name": "divide"})),
        (
            "tools/call",
            json!({"name": "divide", "arguments": {"a": 7, "b": 2, "c": 1}}),
        ),
        (
            "tools/call",
            json!({"name": "divide", "arguments": {"a": "7", "b": 2.0}}),
        ),
        ("tools/call", json!({"name": "primes", "arguments": {}})),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3},
                "_meta": {"progressToken": 4, "io.modelcontextprotocol/logLevel": "debug"}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3},
                "_meta": {"io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3},
                "_meta": {"x": [1, {"y": null}], "io.modelcontextprotocol/clientCapabilities": {"roots": {}}}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}, "inputResponses": null}),
        ),
        // A round's answers or state take a lane, which reads them.
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3},
                "inputResponses": {"name": {"action": "accept", "content": {"name": "x"}}}}),
        ),
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}, "requestState": "forged"}),
        ),
    ];
    same_answers(&served, &requests).await;
    let sum = served
        .call(
            Path::Lane,
            9,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
    assert_eq!(sum.status, StatusCode::OK);
    assert_eq!(sum.messages[0]["result"]["content"][0]["text"], json!("5"));
}

#[tokio::test]
async fn calls_of_tools_a_principal_may_not_use_answer_what_rmcp_answers() {
    let server = McpServer::new(Registry::from_inventory().expect("valid tools"))
        .allow_for(|_, tool| !matches!(tool.name(), "add" | "divide"))
        .withheld_tools(|name| {
            (name == "divide").then(|| "`divide` waits for approval".to_owned())
        });
    let served = serve_server(server).await;
    let requests = [
        (
            "tools/call",
            json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
        ),
        (
            "tools/call",
            json!({"name": "divide", "arguments": {"a": 7, "b": 2}}),
        ),
        ("tools/call", json!({"name": "primes", "arguments": {}})),
    ];
    same_answers(&served, &requests).await;
    let withheld = served
        .call(Path::Lane, 9, "tools/call", requests[1].1.clone())
        .await;
    assert_eq!(
        withheld.messages[0]["result"]["content"][0]["text"],
        json!("`divide` waits for approval")
    );
    let unknown = served
        .call(Path::Lane, 10, "tools/call", requests[0].1.clone())
        .await;
    assert_eq!(unknown.messages[0]["error"]["code"], json!(-32602));
}

#[tokio::test]
async fn a_call_that_reports_progress_is_answered_as_an_event_stream() {
    let served = serve().await;
    let counted = served
        .call(
            Path::Lane,
            1,
            "tools/call",
            json!({"name": "count", "_meta": {"progressToken": "p-1"}}),
        )
        .await;
    assert_eq!(counted.status, StatusCode::OK);
    assert!(
        counted.content_type.starts_with("text/event-stream"),
        "{}",
        counted.content_type
    );
    let progress: Vec<&Value> = counted
        .messages
        .iter()
        .filter(|message| message["method"] == "notifications/progress")
        .collect();
    assert_eq!(progress.len(), 3, "{:?}", counted.messages);
    assert_eq!(progress[2]["params"]["progressToken"], json!("p-1"));
    let answer = counted.messages.last().expect("an answer");
    assert_eq!(answer["id"], json!(1));
    assert_eq!(
        answer["result"]["content"][0]["text"],
        json!("counted for anonymous")
    );

    // Without a progress token the same call is one JSON answer, and the lanes serve on.
    for id in 2..5 {
        let quiet = served
            .call(Path::Lane, id, "tools/call", json!({"name": "count"}))
            .await;
        assert_eq!(quiet.status, StatusCode::OK);
        assert_eq!(quiet.content_type, "application/json");
        assert_eq!(quiet.messages[0]["id"], json!(id));
    }
}

/// A raw connection on which `served` was sent the `tools/call` of `tool`, so that going away
/// is closing it.
async fn called_on_a_raw_connection(served: &Served, tool: &str) -> tokio::net::TcpStream {
    let request = served
        .request(Path::Lane, 1, "tools/call", json!({"name": tool}))
        .build()
        .expect("a request");
    let body = request
        .body()
        .and_then(|body| body.as_bytes())
        .expect("a body");
    let mut head = format!(
        "POST {} HTTP/1.1\r\nhost: {}\r\ncontent-length: {}\r\n",
        request.url().path(),
        served.addr,
        body.len()
    );
    for (name, value) in request.headers() {
        head.push_str(&format!("{name}: {}\r\n", value.to_str().expect("text")));
    }
    head.push_str("\r\n");
    let mut connection = tokio::net::TcpStream::connect(served.addr)
        .await
        .expect("connected");
    connection.write_all(head.as_bytes()).await.expect("sent");
    connection.write_all(body).await.expect("sent");
    connection
}

/// Waits until a call has added its permit to `started`.
async fn started(started: &Semaphore) {
    tokio::time::timeout(TIMEOUT, started.acquire())
        .await
        .expect("the call started")
        .expect("open")
        .forget();
}

#[tokio::test]
async fn a_client_that_goes_away_cancels_its_call() {
    let served = serve().await;
    let connection = called_on_a_raw_connection(&served, "wait").await;
    started(&WAIT_STARTED).await;
    drop(connection);
    tokio::time::timeout(TIMEOUT, async {
        while !WAIT_CANCELLATION
            .get()
            .is_some_and(CancellationToken::is_cancelled)
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the call is cancelled");

    let sum = served
        .call(
            Path::Lane,
            2,
            "tools/call",
            json!({"name": "add", "arguments": {"a": 1, "b": 1}}),
        )
        .await;
    assert_eq!(sum.messages[0]["result"]["content"][0]["text"], json!("2"));
}

#[tokio::test]
async fn a_client_that_goes_away_drops_a_call_made_without_a_lane() {
    let served = serve().await;
    let connection = called_on_a_raw_connection(&served, "stall").await;
    started(&STALL_STARTED).await;
    assert!(!STALL_DROPPED.load(std::sync::atomic::Ordering::SeqCst));
    drop(connection);
    tokio::time::timeout(TIMEOUT, async {
        while !STALL_DROPPED.load(std::sync::atomic::Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the call is dropped");
}

#[tokio::test]
async fn calls_beyond_the_lanes_are_answered_by_rmcp() {
    let served = serve().await;
    let calls: Vec<_> = (0..BEYOND_THE_LANES)
        .map(|id| {
            let request =
                served.request(Path::Lane, id as u32, "tools/call", json!({"name": "hold"}));
            let served = &served;
            async move { served.send(request).await }
        })
        .collect();
    let all = futures_util::future::join_all(calls);
    let release = async {
        // Every call is running at once before any is released.
        HOLD.started(BEYOND_THE_LANES as u32).await;
        HOLD.release.add_permits(BEYOND_THE_LANES);
    };
    let (replies, ()) = tokio::join!(all, release);
    for (id, reply) in replies.iter().enumerate() {
        assert_eq!(reply.status, StatusCode::OK);
        assert_eq!(reply.messages[0]["id"], json!(id));
        assert_eq!(
            reply.messages[0]["result"]["content"][0]["text"],
            json!("released")
        );
    }
}

#[tokio::test]
async fn a_call_in_flight_at_the_shutdown_gets_its_answer() {
    for tool in ["linger", "linger_on_a_lane"] {
        let served = serve().await;
        let request = served.request(Path::Lane, 1, "tools/call", json!({"name": tool}));
        let call = tokio::spawn(request.send());
        LINGER.started(1).await;
        served.stop.cancel();
        LINGER.release.add_permits(1);
        let response = tokio::time::timeout(TIMEOUT, call)
            .await
            .expect("answered in time")
            .expect("the call's task")
            .expect("an answer");
        assert_eq!(response.status(), StatusCode::OK, "{tool}");
        let message: Value = response.json().await.expect("JSON");
        assert_eq!(
            message["result"]["content"][0]["text"],
            json!("released"),
            "{tool}"
        );
    }
}
