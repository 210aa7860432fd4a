//! The streamable HTTP server, spoken to with raw HTTP requests: its guard (Origin, Host,
//! tokens, body limit, malformed bodies), stateless 2026-07-28 lists per principal, and
//! stateful sessions (discovery, `DELETE`, idle expiry, one principal per session).

use std::time::Duration;

use lazytool_mcp::{McpServer, Principal};
use lazytool_runtime::{
    CALL_THROUGH_TOOL_NAME, CancellationToken, DISCOVERY_TOOL_NAME, Registry, tool,
};
use reqwest::StatusCode;
use reqwest::header::HeaderMap;
use serde_json::{Value, json};

/// Lists the products.
#[tool(name = "getProducts")]
async fn get_products() -> Vec<u32> {
    vec![1, 2]
}

/// Calculates a monthly payment.
#[tool(lazy, name = "calculateFinancing")]
async fn calculate_financing(price: f64, months: u32) -> f64 {
    price / f64::from(months)
}

/// Deletes every order.
#[tool(lazy, name = "purgeOrders")]
async fn purge_orders() -> &'static str {
    "purged"
}

const NEWEST: &str = "2026-07-28";
const TIMEOUT: Duration = Duration::from_secs(10);

/// A server on a free port, stopped when dropped.
struct Served {
    url: String,
    stop: CancellationToken,
    client: reqwest::Client,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn serve(configure: impl FnOnce(lazytool_mcp::McpHttp) -> lazytool_mcp::McpHttp) -> Served {
    let registry = Registry::from_inventory().expect("valid tools");
    let server = McpServer::new(registry)
        .allow_for(|principal, tool| principal.name() == "admin" || tool.name() != "purgeOrders");
    let stop = CancellationToken::new();
    let http = configure(server.http().shutdown_on(stop.clone()));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
    tokio::spawn(http.serve_on(listener));
    Served {
        url,
        stop,
        client: reqwest::Client::new(),
    }
}

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    text: String,
}

impl Reply {
    /// The JSON-RPC message: the body, or the last message of an SSE stream.
    fn message(&self) -> Value {
        let json = if self.text.trim_start().starts_with('{') {
            self.text.as_str()
        } else {
            self.text
                .lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .map(str::trim)
                .rfind(|data| data.starts_with('{'))
                .unwrap_or_default()
        };
        serde_json::from_str(json).unwrap_or_else(|_| panic!("a JSON-RPC message: {}", self.text))
    }

    fn session_id(&self) -> String {
        let id = self.headers.get("mcp-session-id").expect("a session id");
        id.to_str().expect("text").to_owned()
    }
}

impl Served {
    async fn send(&self, request: reqwest::RequestBuilder) -> Reply {
        let response = tokio::time::timeout(TIMEOUT, request.send())
            .await
            .expect("answered in time")
            .expect("the server answers");
        let (status, headers) = (response.status(), response.headers().clone());
        let text = tokio::time::timeout(TIMEOUT, response.text())
            .await
            .expect("read in time")
            .expect("a body");
        Reply {
            status,
            headers,
            text,
        }
    }

    fn post(&self, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
        self.client
            .post(&self.url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(body)
    }

    /// A 2026-07-28 request, with the headers and `_meta` that version requires.
    fn stateless(&self, id: u32, method: &str, mut params: Value) -> reqwest::RequestBuilder {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": NEWEST,
            "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        let mut request = self
            .post(
                json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
            )
            .header("mcp-protocol-version", NEWEST)
            .header("mcp-method", method);
        if let Some(name) = params.get("name").and_then(Value::as_str) {
            request = request.header("mcp-name", name);
        }
        request
    }

    /// A 2025-11-25 request of `session` (none for `initialize`).
    fn in_session(&self, session: Option<&str>, message: Value) -> reqwest::RequestBuilder {
        let mut request = self
            .post(message.to_string())
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        request
    }

    async fn initialize(&self, token: Option<&str>) -> String {
        let params = json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        });
        let mut request = self.in_session(
            None,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}),
        );
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        let reply = self.send(request).await;
        assert_eq!(reply.status, StatusCode::OK, "{}", reply.text);
        let session = reply.session_id();
        let mut initialized = self.in_session(
            Some(&session),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        );
        if let Some(token) = token {
            initialized = initialized.bearer_auth(token);
        }
        assert_eq!(self.send(initialized).await.status, StatusCode::ACCEPTED);
        session
    }
}

fn names(message: &Value) -> Vec<&str> {
    let tools = message["result"]["tools"].as_array().expect("a tool list");
    tools
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect()
}

fn text(message: &Value) -> &str {
    message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

#[tokio::test]
async fn foreign_origins_hosts_and_missing_tokens_are_refused() {
    let served = serve(|http| http.bearer_token("secret")).await;
    let list = || served.stateless(1, "tools/list", json!({}));

    let foreign = served
        .send(list().header("origin", "http://evil.example.com"))
        .await;
    assert_eq!(
        foreign.status,
        StatusCode::FORBIDDEN,
        "Origin is checked first"
    );
    assert_eq!(foreign.message()["error"]["code"], json!(-32600));

    let anonymous = served.send(list()).await;
    assert_eq!(anonymous.status, StatusCode::UNAUTHORIZED);
    assert_eq!(anonymous.headers["www-authenticate"], "Bearer");
    let wrong = served.send(list().bearer_auth("secreT")).await;
    assert_eq!(wrong.status, StatusCode::UNAUTHORIZED);

    let local = served
        .send(
            list()
                .bearer_auth("secret")
                .header("origin", "http://localhost:5173"),
        )
        .await;
    assert_eq!(local.status, StatusCode::OK, "{}", local.text);
    assert_eq!(
        names(&local.message()),
        ["getProducts", DISCOVERY_TOOL_NAME, CALL_THROUGH_TOOL_NAME]
    );
    let rebound = served
        .send(
            list()
                .bearer_auth("secret")
                .header("host", "evil.example.com"),
        )
        .await;
    assert_eq!(rebound.status, StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn malformed_bodies_get_json_rpc_errors_and_the_server_keeps_serving() {
    let served = serve(|http| http.max_body_bytes(1024)).await;
    let oversized = format!(
        r#"{{"jsonrpc":"2.0","id":"big","method":"tools/list","params":{{"pad":"{}"}}}}"#,
        "x".repeat(100_000)
    );
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{{"a":{}{}}}}}"#,
        "[".repeat(200),
        "]".repeat(200)
    );
    let cases: Vec<(String, StatusCode, Value, i64)> = vec![
        (
            oversized,
            StatusCode::PAYLOAD_TOO_LARGE,
            json!("big"),
            -32600,
        ),
        (deep, StatusCode::BAD_REQUEST, json!(8), -32700),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","#.to_owned(),
            StatusCode::BAD_REQUEST,
            json!(7),
            -32700,
        ),
        (
            "not json".to_owned(),
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32700,
        ),
        (String::new(), StatusCode::BAD_REQUEST, Value::Null, -32700),
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_owned(),
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32600,
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":5}"#.to_owned(),
            StatusCode::BAD_REQUEST,
            json!(9),
            -32602,
        ),
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#.to_owned(),
            StatusCode::BAD_REQUEST,
            Value::Null,
            -32600,
        ),
    ];
    for (body, status, id, code) in cases {
        let reply = served.send(served.post(body.clone())).await;
        assert_eq!(reply.status, status, "{body:.80}: {}", reply.text);
        let message = reply.message();
        assert_eq!(
            (&message["id"], &message["error"]["code"]),
            (&id, &json!(code)),
            "{body:.80}: {message}"
        );
        let listed = served
            .send(served.stateless(2, "tools/list", json!({})))
            .await;
        assert_eq!(listed.status, StatusCode::OK, "still serving");
    }

    let unknown_method = served
        .send(served.stateless(3, "prompts/list", json!({})))
        .await;
    assert_eq!(unknown_method.message()["error"]["code"], json!(-32601));
    assert_eq!(unknown_method.message()["id"], json!(3));
    let unknown_session = served
        .send(served.in_session(
            Some("no-such-session"),
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}),
        ))
        .await;
    assert_eq!(unknown_session.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn stateless_lists_depend_on_the_principal_only() {
    let served = serve(|http| {
        http.bearer_token_for("alice-token", Principal::new("alice"))
            .bearer_token_for("admin-token", Principal::new("admin"))
    })
    .await;
    let list = |token: &str| {
        served
            .stateless(1, "tools/list", json!({}))
            .bearer_auth(token)
    };
    let first = served.send(list("alice-token")).await;
    let lazy_names = |reply: &Reply| {
        let listed = reply.message();
        // The discovery tool's description ends with the lazy tools it lists.
        listed["result"]["tools"][1]["description"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        lazy_names(&first).ends_with("[calculateFinancing]"),
        "{}",
        first.text
    );
    assert_eq!(first.message()["result"]["ttlMs"], json!(300_000));

    // Discover and call in between: the next list is byte for byte the same.
    let discover =
        json!({"name": DISCOVERY_TOOL_NAME, "arguments": {"toolNames": ["calculateFinancing"]}});
    let found = served
        .send(
            served
                .stateless(2, "tools/call", discover)
                .bearer_auth("alice-token"),
        )
        .await;
    assert!(
        text(&found.message()).contains("howToCall"),
        "{}",
        found.text
    );
    let run = json!({"name": CALL_THROUGH_TOOL_NAME, "arguments": {"name": "calculateFinancing", "arguments": {"price": 480.0, "months": 12}}});
    let called = served
        .send(
            served
                .stateless(3, "tools/call", run)
                .bearer_auth("alice-token"),
        )
        .await;
    assert_eq!(text(&called.message()), "40.0");
    let second = served.send(list("alice-token")).await;
    assert_eq!(first.text, second.text);

    let admin = served.send(list("admin-token")).await;
    assert!(
        lazy_names(&admin).ends_with("[calculateFinancing, purgeOrders]"),
        "{}",
        admin.text
    );
    let purge = json!({"name": CALL_THROUGH_TOOL_NAME, "arguments": {"name": "purgeOrders"}});
    let refused = served
        .send(
            served
                .stateless(4, "tools/call", purge.clone())
                .bearer_auth("alice-token"),
        )
        .await;
    let refused = refused.message();
    assert_eq!(refused["result"]["isError"], json!(true), "{refused}");
    assert!(text(&refused).contains("[calculateFinancing]"), "{refused}");
    let purged = served
        .send(
            served
                .stateless(5, "tools/call", purge)
                .bearer_auth("admin-token"),
        )
        .await;
    assert_eq!(text(&purged.message()), "purged");
}

#[tokio::test]
async fn sessions_discover_end_on_delete_and_belong_to_one_principal() {
    let served = serve(|http| {
        http.bearer_token_for("alice-token", Principal::new("alice"))
            .bearer_token_for("bob-token", Principal::new("bob"))
    })
    .await;
    let request = |id: u32, method: &str, params: Value| json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let alice = served.initialize(Some("alice-token")).await;
    let other = served.initialize(Some("alice-token")).await;
    let in_alice = |message: Value| {
        served
            .in_session(Some(&alice), message)
            .bearer_auth("alice-token")
    };

    let listed = served
        .send(in_alice(request(1, "tools/list", json!({}))))
        .await;
    assert_eq!(
        names(&listed.message()),
        ["getProducts", DISCOVERY_TOOL_NAME]
    );
    let discover =
        json!({"name": DISCOVERY_TOOL_NAME, "arguments": {"toolNames": ["calculateFinancing"]}});
    let found = served
        .send(in_alice(request(2, "tools/call", discover)))
        .await;
    assert_eq!(
        found.message()["result"]["isError"],
        json!(false),
        "{}",
        found.text
    );
    let listed = served
        .send(in_alice(request(3, "tools/list", json!({}))))
        .await;
    // Alice may discover nothing else, so the discovery tool is no longer listed.
    assert_eq!(
        names(&listed.message()),
        ["getProducts", "calculateFinancing"]
    );
    let call = json!({"name": "calculateFinancing", "arguments": {"price": 480.0, "months": 12}});
    let called = served.send(in_alice(request(4, "tools/call", call))).await;
    assert_eq!(text(&called.message()), "40.0");
    let elsewhere = served
        .send(
            served
                .in_session(Some(&other), request(5, "tools/list", json!({})))
                .bearer_auth("alice-token"),
        )
        .await;
    assert_eq!(
        names(&elsewhere.message()),
        ["getProducts", DISCOVERY_TOOL_NAME]
    );

    let stolen = served
        .send(
            served
                .in_session(Some(&alice), request(6, "tools/list", json!({})))
                .bearer_auth("bob-token"),
        )
        .await;
    assert_eq!(
        stolen.message()["error"]["code"],
        json!(-32600),
        "{}",
        stolen.text
    );

    let deleted = served
        .send(
            served
                .client
                .delete(&served.url)
                .header("mcp-session-id", &alice)
                .bearer_auth("alice-token"),
        )
        .await;
    assert_eq!(deleted.status, StatusCode::NO_CONTENT);
    let gone = served
        .send(in_alice(request(7, "tools/list", json!({}))))
        .await;
    assert_eq!(gone.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn idle_sessions_expire() {
    let served = serve(|http| http.session_idle_timeout(Duration::from_millis(100))).await;
    let session = served.initialize(None).await;
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
    let expired = async {
        loop {
            let reply = served
                .send(served.in_session(Some(&session), list.clone()))
                .await;
            if reply.status == StatusCode::NOT_FOUND {
                return;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    };
    tokio::time::timeout(TIMEOUT, expired)
        .await
        .expect("the idle session is closed");
}
