//! McpSource and McpCatalog against a real child process (tests/mcp/gateway/faulty_server.py,
//! run by `python3`) and a real streamable HTTP server: paging, mixing with `#[tool]`s on every
//! path, validation before forwarding, cancellation, list_changed, collisions, failed starts.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use lazytool_mcp::McpServer;

use lazytool_mcp_client::{McpCatalog, McpSource, ToolSelection, Upstream};
use lazytool_runtime::source::ToolSource;
use lazytool_runtime::{
    CancellationToken, DISCOVERY_TOOL_NAME, DiscoveryMode, DynamicTool, Registry, SessionOptions,
    ToolContext, ToolErrorKind, tool,
};
use serde_json::{Value, json};
use support::{Client, TIMEOUT, eventually, text};

/// Adds two numbers: a tool of this program, next to the upstream's.
#[tool(name = "localAdd")]
async fn local_add(a: i64, b: i64) -> i64 {
    a + b
}

const FAULTY_TOOLS: [&str; 6] = ["crash", "echo", "fail", "grow", "image", "slow"];

fn faulty(mode: &str, log: Option<&Path>) -> Upstream {
    let log = log.map(|log| log.display().to_string());
    support::python_server(
        "faulty_server.py",
        std::iter::once(mode.to_owned()).chain(log),
    )
}

fn log_file(name: &str) -> PathBuf {
    support::fresh_path("source", name)
}

fn logged(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

fn exposed(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| format!("faulty__{name}")).collect()
}

#[tokio::test]
async fn every_page_is_listed_and_mixes_with_tool_functions_on_every_path() {
    let source = McpSource::new("faulty", faulty("ok", None)).selection(
        ToolSelection::new()
            .eager(["echo", "fail"])
            .expect("a pattern"),
    );
    let catalog = McpCatalog::start(Registry::builder, [source])
        .await
        .expect("builds");
    let registry = catalog.registry();
    let names: Vec<&str> = registry.tools().map(|tool| tool.name()).collect();
    let mut expected = exposed(&FAULTY_TOOLS);
    expected.push("localAdd".to_owned());
    assert_eq!(
        names, expected,
        "six tools over two pages, and the program's own"
    );
    let echo = registry.get("faulty__echo").expect("listed");
    assert!(!echo.is_lazy(), "eager by selection");
    assert!(
        registry
            .get("faulty__slow")
            .is_some_and(|tool| tool.is_lazy())
    );
    assert_eq!(echo.input_schema()["required"], json!(["text"]));

    // In process: a session, its discovery, the upstream's answer as MCP content.
    let session = registry.session();
    let found = session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["faulty__image"]}))
        .await;
    assert!(!found.is_error(), "{}", found.text());
    session.begin_turn();
    let image = session.call("faulty__image", json!({})).await;
    assert_eq!(json!(image.parts())[1]["mimeType"], "image/png");
    assert_eq!(
        session
            .call("localAdd", json!({"a": 2, "b": 3}))
            .await
            .content(),
        &json!(5)
    );

    // Over MCP: both kinds of tools on one connection.
    let mut client = Client::connect(McpServer::live(catalog.live()));
    client.initialize("2025-11-25").await;
    let call = |name: &str, arguments: Value| json!({"name": name, "arguments": arguments});
    let echoed = client
        .request(
            1,
            "tools/call",
            call("faulty__echo", json!({"text": "over MCP"})),
        )
        .await;
    assert_eq!(
        echoed["result"]["content"],
        json!([{"type": "text", "text": "over MCP"}])
    );
    let added = client
        .request(2, "tools/call", call("localAdd", json!({"a": 1, "b": 1})))
        .await;
    assert_eq!(text(&added), "2");
    let failed = client
        .request(3, "tools/call", call("faulty__fail", json!({})))
        .await;
    assert_eq!(
        failed["result"]["isError"], true,
        "upstream isError stays isError"
    );
    assert_eq!(text(&failed), "the upstream refused");
    catalog.shutdown().await;
}

/// The faulty server's tools alone in a registry, logging to `log`.
async fn faulty_registry(log: &Path) -> (McpSource, Registry) {
    let source = McpSource::new("faulty", faulty("ok", Some(log)));
    let registry = support::registry_of(&source).await;
    (source, registry)
}

#[tokio::test]
async fn arguments_are_validated_before_anything_is_forwarded() {
    let log = log_file("validated.log");
    let (source, registry) = faulty_registry(&log).await;
    let wrong = registry.call("faulty__echo", json!({"text": 7})).await;
    assert_eq!(wrong.error_kind(), Some(ToolErrorKind::InvalidArguments));
    assert!(wrong.text().contains("text"), "{}", wrong.text());
    let right = registry.call("faulty__echo", json!({"text": "ok"})).await;
    assert_eq!(json!(right.parts())[0]["text"], "ok");
    assert_eq!(
        logged(&log).matches("call echo").count(),
        1,
        "only the valid call went upstream"
    );
    source.shutdown().await;
}

#[tokio::test]
async fn cancelling_a_call_cancels_it_upstream() {
    let log = log_file("cancelled.log");
    let (source, registry) = faulty_registry(&log).await;
    let cancel = CancellationToken::new();
    let context = ToolContext::new().with_cancellation(cancel.clone());
    let call = registry.call_with_context("faulty__slow", json!({"seconds": 600}), context);
    let (result, ()) = tokio::join!(call, async {
        eventually(|| logged(&log).contains("call slow")).await;
        cancel.cancel();
    });
    assert!(result.is_error());
    // rmcp sends `notifications/cancelled` when the dropped request is cleaned up.
    eventually(|| logged(&log).contains("cancelled ")).await;
    source.shutdown().await;
}

#[tokio::test]
async fn list_changed_upstream_republishes_and_sessions_follow() {
    let catalog = McpCatalog::start(
        Registry::builder,
        [McpSource::new("faulty", faulty("ok", None))],
    )
    .await
    .expect("builds");
    let mut changes = catalog.live().watch();
    changes.mark_unchanged();
    let mut client = Client::connect(McpServer::live(catalog.live()));
    client.initialize("2025-11-25").await;
    let session = catalog.registry().session();
    session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["faulty__grow"]}))
        .await;
    session.begin_turn();
    assert_eq!(
        json!(session.call("faulty__grow", json!({})).await.parts())[0]["text"],
        "grown"
    );
    tokio::time::timeout(TIMEOUT, changes.changed())
        .await
        .expect("in time")
        .expect("published");
    let (session, change) = catalog.live().follow(&session);
    assert_eq!(change.added, ["faulty__extra"]);
    assert!(change.notice().expect("a notice").contains("faulty__extra"));
    assert_eq!(
        session.discovered().tools,
        ["faulty__grow"],
        "discoveries survive the change"
    );

    // A stateful MCP client is told, and lists the new tool.
    let listed = client.request(1, "tools/list", json!({})).await;
    let announced = client
        .notifications
        .iter()
        .any(|n| n["method"] == "notifications/tools/list_changed");
    assert!(announced, "{:?}", client.notifications);
    let tools = listed["result"]["tools"].as_array().expect("tools");
    let discovery = &tools
        .iter()
        .find(|tool| tool["name"] == DISCOVERY_TOOL_NAME)
        .expect("listed")["description"];
    assert!(
        discovery
            .as_str()
            .is_some_and(|text| text.contains("faulty__extra")),
        "{discovery}"
    );
    catalog.shutdown().await;
}

#[tokio::test]
async fn taken_names_and_failed_starts_are_reported_and_the_rest_served() {
    let hanging =
        McpSource::new("hangs", faulty("hang", None)).start_timeout(Duration::from_millis(500));
    let sources = [
        McpSource::new("faulty", faulty("ok", None)),
        McpSource::new("again", faulty("ok", None)).prefix("faulty"),
        McpSource::new(
            "missing",
            Upstream::command("lazytool-no-such-command", [] as [&str; 0]),
        ),
        hanging,
        McpSource::new("garbage", faulty("garbage", None)).start_timeout(Duration::from_secs(2)),
    ];
    let catalog = McpCatalog::start(Registry::builder, sources)
        .await
        .expect("builds");
    let reports = catalog.reports();
    assert_eq!(reports[0].tools.as_deref().map(<[String]>::len), Ok(6));
    assert_eq!(reports[1].tools, Ok(Vec::new()));
    let mut collisions = reports[1].collisions.clone();
    collisions.sort();
    assert_eq!(collisions, exposed(&FAULTY_TOOLS));
    let failure = |index: usize| reports[index].tools.clone().expect_err("failed");
    assert!(
        failure(2).contains("cannot start `lazytool-no-such-command`"),
        "{}",
        failure(2)
    );
    assert!(failure(3).contains("within 500ms"), "{}", failure(3));
    // rmcp skips lines that are not JSON-RPC: garbage is a start that never completes.
    assert!(failure(4).contains("failed to start"), "{}", failure(4));
    assert_eq!(catalog.registry().len(), 7);
    catalog.shutdown().await;
}

#[tokio::test]
async fn a_server_that_failed_to_start_says_why_in_discovery_search_and_calls() {
    let typo = Upstream::command("lazytool-no-such-command-tme", [] as [&str; 0]);
    let sources = [
        McpSource::new("faulty", faulty("ok", None)),
        // A retry far away keeps its announcement in the future while the test runs.
        McpSource::new("time", typo)
            .restart_backoff(Duration::from_secs(600), Duration::from_secs(600)),
    ];
    let catalog = McpCatalog::start(|| Registry::builder().without_inventory(), sources)
        .await
        .expect("builds");
    let down = |text: &str| {
        text.contains(
            "the MCP server `time` failed to start: cannot start `lazytool-no-such-command-tme`",
        ) && text.contains("; its next start attempt is in ")
    };
    let registry = catalog.registry();
    let errors = |result: &lazytool_runtime::ToolResult| -> Vec<String> {
        serde_json::from_value(result.content()["errors"].clone()).unwrap_or_default()
    };

    let found = (registry.session())
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["time__get_current_time"]}),
        )
        .await;
    let [error] = &errors(&found)[..] else {
        panic!("{:?}", found.content())
    };
    assert!(
        error.starts_with("'time__get_current_time' is not available now: "),
        "{error}"
    );
    assert!(down(error), "{error}");
    assert!(!error.contains("Unknown tool"), "{error}");

    let search = registry.session_with(SessionOptions::new().mode(DiscoveryMode::Search));
    let found = search
        .call(DISCOVERY_TOOL_NAME, json!({"query": "current time"}))
        .await;
    let note = (errors(&found).into_iter())
        .find(|error| error.starts_with("The MCP server `time`"))
        .unwrap_or_else(|| panic!("{:?}", found.content()));
    assert!(down(&note.replacen("The", "the", 1)), "{note}");
    assert!(
        note.ends_with("none of its tools is searched until it starts."),
        "{note}"
    );

    let called = (registry.session())
        .call("time__get_current_time", json!({"timezone": "UTC"}))
        .await;
    assert_eq!(called.error_kind(), Some(ToolErrorKind::Unavailable));
    let text = called.content().as_str().unwrap_or_default();
    assert!(down(text), "{text}");
    // A name of no configured server stays an unknown tool.
    let unknown = registry.session().call("weather__today", json!({})).await;
    assert_eq!(unknown.error_kind(), Some(ToolErrorKind::UnknownTool));
    catalog.shutdown().await;
}

/// Greets someone, over HTTP.
fn greet() -> DynamicTool {
    let schema =
        json!({"type": "object", "properties": {"who": {"type": "string"}}, "required": ["who"]});
    DynamicTool::new(
        "greet",
        "Greets someone.",
        schema,
        |arguments: Value, _| async move {
            Ok::<_, String>(json!(format!(
                "hello, {}",
                arguments["who"].as_str().unwrap_or_default()
            )))
        },
    )
    .lazy(true)
}

#[tokio::test]
async fn a_streamable_http_upstream_is_a_source_too() {
    let registry = Registry::builder()
        .without_inventory()
        .tool(greet())
        .build()
        .expect("builds");
    let stop = CancellationToken::new();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
    let http = McpServer::new(registry)
        .http()
        .bearer_token("secret")
        .shutdown_on(stop.clone());
    tokio::spawn(http.serve_on(listener));

    let remote = McpSource::new(
        "remote",
        Upstream::url(url).header("Authorization", "Bearer secret"),
    );
    let tools = remote
        .list_tools(CancellationToken::new())
        .await
        .expect("lists");
    let names: Vec<&str> = tools.iter().map(DynamicTool::name).collect();
    // lazytool's server speaks 2026-07-28, so the source does: the stateless list, its
    // discovery tool and the call-through tool.
    assert_eq!(remote.protocol_version().as_deref(), Some("2026-07-28"));
    assert_eq!(
        names,
        [
            format!("remote__{DISCOVERY_TOOL_NAME}"),
            "remote____lazy__tool__call__".to_owned()
        ]
    );
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()
        .expect("builds");
    let found = registry
        .call(
            &format!("remote__{DISCOVERY_TOOL_NAME}"),
            json!({"toolNames": ["greet"]}),
        )
        .await;
    assert!(
        json!(found.parts())[0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("greet"))
    );
    let greeted = registry
        .call(
            "remote____lazy__tool__call__",
            json!({"name": "greet", "arguments": {"who": "Ada"}}),
        )
        .await;
    assert!(!greeted.is_error(), "{:?}", greeted.parts());
    assert_eq!(json!(greeted.parts())[0]["text"], "hello, Ada");
    remote.shutdown().await;
    stop.cancel();
}
