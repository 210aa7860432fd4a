//! The gateway binary in front of an HTTP MCP server protected by OAuth, with no token
//! stored: the server is reported ("run `lazytool-gateway login NAME`") and left out, the
//! other server keeps working, and nothing waits for a browser; `login` refuses what it
//! cannot log in to.

mod support;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use std::collections::HashMap;

use axum::extract::Query;
use axum::response::Redirect;
use axum::routing::{get, post};
use axum::{Json, Router};
use lazytool_mcp::McpServer;
use lazytool_runtime::{CancellationToken, DynamicTool};
use serde_json::{Value, json};
use support::{Run, Scratch, WATCHDOG, finish, gateway_command};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

/// An MCP server with one tool, `echo`, over streamable HTTP on `listener`, answering only
/// requests with `Authorization: Bearer ACCESS_TOKEN` (others get a 401 challenge); stops
/// when `stop` is cancelled.
fn serve_echo(
    listener: tokio::net::TcpListener,
    stop: &CancellationToken,
    token: Option<&str>,
    app: Router,
) {
    let echo = DynamicTool::new(
        "echo",
        "Returns its input.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |arguments: Value, _context| async move { Ok::<_, String>(arguments["text"].clone()) },
    );
    let registry = (lazytool_runtime::Registry::builder().without_inventory())
        .tool(echo)
        .build()
        .expect("a valid registry");
    let mut http = McpServer::new(registry).http();
    if let Some(token) = token {
        http = http.bearer_token(token);
    }
    let app = app.merge(http.router());
    let stop = stop.clone();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await
    });
}

/// The access token the protected server's authorization server issues.
const ACCESS_TOKEN: &str = "access-7f3a";

/// An MCP server protected by OAuth, and its authorization server on the same origin:
/// protected resource metadata (RFC 9728), authorization server metadata (RFC 8414), an
/// authorization endpoint that approves at once (redirects back with a code) and a token
/// endpoint that issues [`ACCESS_TOKEN`].
async fn protected_server(stop: &CancellationToken) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let origin = format!("http://{}", listener.local_addr().expect("its address"));
    let resource = json!({"resource": format!("{origin}/mcp"), "authorization_servers": [origin]});
    let metadata = json!({
        "issuer": origin,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
    });
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(move || async move { Json(resource) }),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || async move { Json(metadata) }),
        )
        .route(
            "/authorize",
            get(|Query(query): Query<HashMap<String, String>>| async move {
                let redirect = query.get("redirect_uri").cloned().unwrap_or_default();
                let state = query.get("state").cloned().unwrap_or_default();
                Redirect::to(&format!("{redirect}?code=code-1&state={state}"))
            }),
        )
        .route(
            "/token",
            post(|| async {
                Json(json!({"access_token": ACCESS_TOKEN, "token_type": "Bearer", "expires_in": 3600, "refresh_token": "refresh-1"}))
            }),
        );
    serve_echo(listener, stop, Some(ACCESS_TOKEN), app);
    format!("{origin}/mcp")
}

/// An MCP server with one tool, `echo`, open to all; stops when `stop` is cancelled.
async fn open_server(stop: &CancellationToken) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
    serve_echo(listener, stop, None, Router::new());
    url
}

/// The config of `tracker` (OAuth, no token) and `shop` (open, its tools eager).
fn write_config(dir: &Path, tracker: &str, shop: &str) -> PathBuf {
    let config = json!({
        "mcpServers": {"tracker": {"url": tracker}, "shop": {"url": shop}},
        "lazytool": {"servers": {
            "tracker": {"oauth": {"clientId": "lazytool", "clientSecret": "n0t-for-logs"}, "eager": ["*"]},
            "shop": {"eager": ["*"]},
        }},
    });
    let path = dir.join("mcp.json");
    std::fs::write(&path, config.to_string()).expect("writes the config");
    path
}

/// The gateway with `args`, no display (so no browser) and its home in `dir`.
fn gateway(dir: &Path, args: &[&str]) -> Command {
    let mut command = gateway_command(args);
    command
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir.join("config"))
        .stdin(Stdio::null());
    command
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_needs_a_login_is_reported_and_left_out_while_the_other_serves() {
    let stop = CancellationToken::new();
    let (tracker, shop) = (protected_server(&stop).await, open_server(&stop).await);
    let scratch = Scratch::new("oauth", "serve");
    let config = write_config(&scratch.0, &tracker, &shop);
    let config = config.to_str().expect("a UTF-8 path");

    let check = finish(
        gateway(&scratch.0, &["--config", config, "--check"])
            .spawn()
            .expect("starts"),
    )
    .await;
    assert!(!check.success, "a server failed: exit 1");
    assert!(
        check.stdout.contains("tracker: FAILED: "),
        "{}",
        check.stdout
    );
    assert!(
        check
            .stdout
            .contains("the MCP server `tracker`: OAuth login:"),
        "{}",
        check.stdout
    );
    assert!(
        check
            .stdout
            .contains("run `lazytool-gateway login tracker`"),
        "{}",
        check.stdout
    );
    assert!(check.stdout.contains("shop: 1 tool,"), "{}", check.stdout);

    let mut serving = gateway(&scratch.0, &["--config", config])
        .stdin(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdin = serving.stdin.take().expect("piped");
    let mut lines = BufReader::new(serving.stdout.take().expect("piped")).lines();
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "shop__echo", "arguments": {"text": "still here"}}}),
    ];
    let mut answers = Vec::new();
    for request in requests {
        let expects_answer = request.get("id").is_some();
        stdin
            .write_all(format!("{request}\n").as_bytes())
            .await
            .expect("the gateway reads");
        if expects_answer {
            let line = tokio::time::timeout(WATCHDOG, lines.next_line())
                .await
                .expect("an answer")
                .expect("readable")
                .expect("a line");
            answers.push(serde_json::from_str::<Value>(&line).expect("JSON-RPC"));
        }
    }
    drop(stdin);
    let mut rest = String::new();
    while let Ok(Some(line)) = lines.next_line().await {
        rest.push_str(&line);
    }
    let serving = finish(serving).await;
    assert!(serving.success, "{}", serving.stderr);
    let names: Vec<&str> = (answers[1]["result"]["tools"].as_array())
        .expect("a tool list")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert_eq!(names, ["shop__echo"], "{:?}", answers[1]);
    assert_eq!(
        answers[2]["result"]["content"][0]["text"], "still here",
        "{:?}",
        answers[2]
    );
    assert!(
        serving
            .stderr
            .contains("run `lazytool-gateway login tracker`"),
        "{}",
        serving.stderr
    );
    for output in [&check.stdout, &check.stderr, &serving.stderr, &rest] {
        assert!(!output.contains("n0t-for-logs"), "a secret shown: {output}");
    }
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_refuses_what_it_cannot_log_in_to() {
    let stop = CancellationToken::new();
    let (tracker, shop) = (protected_server(&stop).await, open_server(&stop).await);
    let scratch = Scratch::new("oauth", "login");
    let config = write_config(&scratch.0, &tracker, &shop);
    let config = config.to_str().expect("a UTF-8 path");
    let store = scratch.0.join("tokens.json");
    let store = store.to_str().expect("a UTF-8 path");
    let cases = [
        (
            "nothere",
            "no server `nothere` in the configuration (its servers: tracker, shop)",
        ),
        ("shop", "`shop` has no OAuth settings"),
    ];
    for (server, expected) in cases {
        let args = ["--config", config, "login", server, "--token-store", store];
        let run = finish(gateway(&scratch.0, &args).spawn().expect("starts")).await;
        assert!(!run.success, "{server}: exit 1");
        assert!(run.stderr.contains(expected), "{server}: {}", run.stderr);
        assert!(
            !run.stdout.contains("http"),
            "{server}: no URL shown: {}",
            run.stdout
        );
        assert!(!run.stderr.contains("n0t-for-logs"), "{}", run.stderr);
    }
    assert!(!Path::new(store).exists(), "no login, no token file");
    stop.cancel();
}

/// `%XX` escapes of a query value decoded.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let escape = (bytes[at] == b'%')
            .then(|| text.get(at + 1..at + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escape {
            Some(byte) => {
                decoded.push(byte);
                at += 3;
            }
            None => {
                decoded.push(bytes[at]);
                at += 1;
            }
        }
    }
    String::from_utf8(decoded).expect("UTF-8")
}

/// What a browser does with the authorization URL: asks the authorization server, which
/// approves at once, and follows its redirect to the gateway's loopback address.
async fn approve(authorization_url: &str) {
    let query = authorization_url.split_once('?').expect("a query").1;
    let parameter = |name: &str| {
        (query.split('&'))
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .map(percent_decoded)
            .unwrap_or_else(|| panic!("no {name} in {authorization_url}"))
    };
    let redirect = parameter("redirect_uri");
    let state = parameter("state");
    let address = (redirect.strip_prefix("http://"))
        .and_then(|rest| rest.split_once('/'))
        .expect("a loopback redirect")
        .0
        .to_owned();
    assert!(address.starts_with("127.0.0.1:"), "{redirect}");
    let mut stream = tokio::net::TcpStream::connect(&address)
        .await
        .expect("the gateway listens");
    let request = format!(
        "GET /callback?code=code-1&state={state} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(request.as_bytes()).await.expect("sent");
    let mut answer = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stream, &mut answer)
        .await
        .expect("an answer");
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
}

/// `login tracker` with the tokens in `store`, approved as a browser would: its run, and
/// what it printed after the URL.
async fn log_in(dir: &Path, config: &str, tracker: &str, store: &str) -> (Run, String) {
    let mut login = gateway(
        dir,
        &[
            "--config",
            config,
            "--token-store",
            store,
            "login",
            "tracker",
        ],
    )
    .spawn()
    .expect("starts");
    let mut lines = BufReader::new(login.stdout.take().expect("piped")).lines();
    let mut shown = Vec::new();
    let url = loop {
        let line = tokio::time::timeout(WATCHDOG, lines.next_line())
            .await
            .expect("the URL is printed")
            .expect("readable")
            .unwrap_or_else(|| panic!("no URL printed: {shown:?}"));
        shown.push(line.clone());
        if let Some(url) = line.trim().strip_prefix("http://") {
            break format!("http://{url}");
        }
    };
    assert!(
        url.starts_with(&tracker.replace("/mcp", "/authorize?")),
        "{url}"
    );
    for parameter in [
        "code_challenge_method=S256",
        "resource=",
        "client_id=lazytool",
    ] {
        assert!(url.contains(parameter), "{parameter} in {url}");
    }
    approve(&url).await;
    let mut rest = String::new();
    while let Ok(Some(line)) = lines.next_line().await {
        rest.push_str(&line);
        rest.push('\n');
    }
    (finish(login).await, rest)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_a_login_the_protected_server_serves_its_tools() {
    let stop = CancellationToken::new();
    let (tracker, shop) = (protected_server(&stop).await, open_server(&stop).await);
    let scratch = Scratch::new("oauth", "flow");
    let config = write_config(&scratch.0, &tracker, &shop);
    let config = config.to_str().expect("a UTF-8 path");
    let store = scratch.0.join("state").join("tokens.json");
    let store_arg = store.to_str().expect("a UTF-8 path");

    let (login, rest) = log_in(&scratch.0, config, &tracker, store_arg).await;
    assert!(login.success, "{}", login.stderr);
    assert_eq!(
        rest.trim(),
        format!("The tokens of `tracker` are stored in {store_arg}.")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&store)
            .expect("stored")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the user's alone");
    }
    assert!(
        std::fs::read_to_string(&store)
            .expect("readable")
            .contains(ACCESS_TOKEN),
        "the tokens are in the store"
    );

    let check = finish(
        gateway(
            &scratch.0,
            &["--config", config, "--token-store", store_arg, "--check"],
        )
        .spawn()
        .expect("starts"),
    )
    .await;
    assert!(check.success, "{}\n{}", check.stdout, check.stderr);
    assert!(
        check.stdout.contains("tracker: 1 tool,"),
        "{}",
        check.stdout
    );
    assert!(check.stdout.contains("shop: 1 tool,"), "{}", check.stdout);
    for output in [&check.stdout, &check.stderr, &login.stderr, &rest] {
        assert!(!output.contains(ACCESS_TOKEN), "a token shown: {output}");
        assert!(!output.contains("n0t-for-logs"), "a secret shown: {output}");
    }
    stop.cancel();
}

/// Sends `request` to a gateway on stdio and returns the answer with its id, skipping the
/// notifications before it (which `seen` collects).
async fn ask(
    stdin: &mut tokio::process::ChildStdin,
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    request: Value,
    seen: &mut Vec<Value>,
) -> Value {
    stdin
        .write_all(format!("{request}\n").as_bytes())
        .await
        .expect("the gateway reads");
    loop {
        let message = next_message(lines).await;
        if message.get("id") == request.get("id") {
            return message;
        }
        seen.push(message);
    }
}

async fn next_message(
    lines: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
) -> Value {
    let line = tokio::time::timeout(WATCHDOG, lines.next_line())
        .await
        .expect("a message")
        .expect("readable")
        .expect("a line");
    serde_json::from_str(&line).expect("JSON-RPC")
}

fn tool_names(answer: &Value) -> Vec<String> {
    (answer["result"]["tools"].as_array())
        .expect("a tool list")
        .iter()
        .filter_map(|tool| tool["name"].as_str().map(str::to_owned))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_while_serving_brings_the_server_in_without_a_restart() {
    let stop = CancellationToken::new();
    let (tracker, shop) = (protected_server(&stop).await, open_server(&stop).await);
    let scratch = Scratch::new("oauth", "join");
    let config = write_config(&scratch.0, &tracker, &shop);
    let config = config.to_str().expect("a UTF-8 path");
    let store = scratch.0.join("tokens.json");
    let store = store.to_str().expect("a UTF-8 path");

    let mut serving = gateway(&scratch.0, &["--config", config, "--token-store", store])
        .stdin(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut stdin = serving.stdin.take().expect("piped");
    let mut lines = BufReader::new(serving.stdout.take().expect("piped")).lines();
    let mut seen = Vec::new();
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}});
    ask(&mut stdin, &mut lines, initialize, &mut seen).await;
    stdin
        .write_all(b"{\"jsonrpc\": \"2.0\", \"method\": \"notifications/initialized\"}\n")
        .await
        .expect("the gateway reads");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
    let before = ask(&mut stdin, &mut lines, list.clone(), &mut seen).await;
    assert_eq!(tool_names(&before), ["shop__echo"]);

    let (login, _) = log_in(&scratch.0, config, &tracker, store).await;
    assert!(login.success, "{}", login.stderr);
    let changed = |message: &Value| message["method"] == "notifications/tools/list_changed";
    while !seen.iter().any(changed) {
        seen.push(next_message(&mut lines).await);
    }
    let after = ask(&mut stdin, &mut lines, list, &mut seen).await;
    assert_eq!(tool_names(&after), ["shop__echo", "tracker__echo"]);
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "tracker__echo", "arguments": {"text": "authorized"}}});
    let answer = ask(&mut stdin, &mut lines, call, &mut seen).await;
    assert_eq!(
        answer["result"]["content"][0]["text"], "authorized",
        "{answer}"
    );
    drop(stdin);
    while let Ok(Some(_)) = lines.next_line().await {}
    let serving = finish(serving).await;
    assert!(serving.success, "{}", serving.stderr);
    stop.cancel();
}
