//! Requests an upstream server sends its client during a call (sampling, elicitation) and
//! its progress notifications, passed on by McpSource to the MCP client of that call, or
//! refused with a JSON-RPC error that says why, or answered by the source's `Elicitor`;
//! against tests/mcp/gateway/asking_server.py (run by `python3`) and a client of this file's
//! own that answers.

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use lazytool_mcp::rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction};
use lazytool_mcp::{McpServer, Relay};
use lazytool_mcp_client::{Elicited, Elicitor, McpSource, ToolSelection, Upstream};
use serde_json::{Value, json};
use support::{Client, eventually, text};

const CALL: u32 = 7;

fn asking(state: Option<&Path>) -> Upstream {
    let state = state.map(|state| state.display().to_string());
    support::python_server("asking_server.py", state)
}

fn state_file(name: &str) -> PathBuf {
    support::fresh_path("upreq", name)
}

/// The asking server's tools, eager, served with `relay` by an `McpServer`.
async fn serve(source: McpSource, relay: &Relay) -> (McpServer, McpSource) {
    let source = source.relay(relay.clone());
    let registry = support::registry_of(&source).await;
    (McpServer::new(registry).relay(relay.clone()), source)
}

fn eager(source: McpSource) -> McpSource {
    source.selection(ToolSelection::new().eager(["*"]).expect("a valid pattern"))
}

async fn initialize(client: &mut Client, capabilities: Value) {
    let params = json!({
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "answering-client", "version": "1"},
    });
    client.request(0, "initialize", params).await;
    client
        .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
}

/// What the client does with the server's requests during a call.
enum Answers {
    /// Answers sampling with "4" and elicitation with the name Ada.
    Answer,
    /// Never answers.
    Ignore,
}

/// Calls `tool` and returns its response, with the requests the server sent the client
/// during the call (answered as `answers` says).
async fn call(
    client: &mut Client,
    tool: &str,
    meta: Option<Value>,
    answers: Answers,
) -> (Value, Vec<Value>) {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    client
        .send(json!({"jsonrpc": "2.0", "id": CALL, "method": "tools/call", "params": params}))
        .await;
    let mut requests = Vec::new();
    loop {
        let message = client.next().await;
        match (message.get("id"), message["method"].as_str()) {
            (Some(id), Some(method)) => {
                let result = match method {
                    "sampling/createMessage" => json!({"role": "assistant", "model": "test-model",
                        "content": {"type": "text", "text": "4"}, "stopReason": "endTurn"}),
                    "elicitation/create" => json!({"action": "accept", "content": {"name": "Ada"}}),
                    _ => json!({}),
                };
                if matches!(answers, Answers::Answer) {
                    client
                        .send(json!({"jsonrpc": "2.0", "id": id, "result": result}))
                        .await;
                }
                requests.push(message);
            }
            (Some(_), None) => return (message, requests),
            (None, _) => client.notifications.push(message),
        }
    }
}

fn answered(response: &Value) -> Value {
    serde_json::from_str(text(response)).expect("the asking server answers JSON text")
}

#[tokio::test]
async fn sampling_elicitation_and_progress_reach_the_client_of_the_call() {
    let relay = Relay::new("test-gateway");
    let (server, source) = serve(eager(McpSource::new("asking", asking(None))), &relay).await;
    let mut client = Client::connect(server);
    initialize(&mut client, json!({"sampling": {}, "elicitation": {}})).await;

    // Started (listed) before the client announced anything, the upstream is started again
    // at its next use to announce what the client can answer.
    let (response, _) = call(&mut client, "asking__capabilities", None, Answers::Answer).await;
    let announced = answered(&response);
    assert!(announced.get("sampling").is_some(), "{announced}");
    assert!(announced.get("elicitation").is_some(), "{announced}");

    let meta = json!({"progressToken": "client-token"});
    let (response, requests) = call(&mut client, "asking__ask", Some(meta), Answers::Answer).await;
    let methods: Vec<&str> = (requests.iter())
        .filter_map(|request| request["method"].as_str())
        .collect();
    assert_eq!(methods, ["sampling/createMessage", "elicitation/create"]);
    assert_eq!(
        requests[0]["params"]["messages"][0]["content"]["text"],
        "What is 2 + 2?"
    );
    assert_eq!(requests[1]["params"]["message"], "Who are you?");
    let answers = answered(&response);
    assert_eq!(answers["sampling"]["content"]["text"], "4", "{answers}");
    assert_eq!(answers["sampling"]["model"], "test-model");
    assert_eq!(answers["elicitation"]["action"], "accept", "{answers}");
    assert_eq!(answers["elicitation"]["content"]["name"], "Ada");

    // The upstream's progress, under the client's own token.
    let progress: Vec<(Value, Value, Value)> = (client.notifications.iter())
        .filter(|message| message["method"] == "notifications/progress")
        .map(|message| {
            let params = &message["params"];
            (
                params["progressToken"].clone(),
                params["progress"].clone(),
                params["message"].clone(),
            )
        })
        .collect();
    assert_eq!(
        progress,
        [
            (
                json!("client-token"),
                json!(1.0),
                json!("asking for a sampling")
            ),
            (
                json!("client-token"),
                json!(2.0),
                json!("asking for an elicitation")
            ),
            (json!("client-token"), json!(3.0), json!("done")),
        ]
    );
    source.shutdown().await;
}

#[tokio::test]
async fn a_client_that_did_not_announce_a_capability_gets_no_request_and_the_server_a_clear_error()
{
    let relay = Relay::new("test-gateway");
    let (server, source) = serve(eager(McpSource::new("asking", asking(None))), &relay).await;
    let mut client = Client::connect(server);
    initialize(&mut client, json!({"elicitation": {}})).await;

    let (response, _) = call(&mut client, "asking__capabilities", None, Answers::Answer).await;
    let announced = answered(&response);
    assert!(announced.get("sampling").is_none(), "{announced}");
    assert!(announced.get("elicitation").is_some(), "{announced}");

    // No progress token: the upstream's progress is not passed on.
    let (response, requests) = call(&mut client, "asking__ask", None, Answers::Answer).await;
    let methods: Vec<&str> = (requests.iter())
        .filter_map(|request| request["method"].as_str())
        .collect();
    assert_eq!(methods, ["elicitation/create"]);
    let answers = answered(&response);
    let refusal = &answers["sampling"]["error"];
    assert_eq!(refusal["code"], -32601, "{answers}");
    assert_eq!(
        refusal["message"],
        "test-gateway cannot pass `sampling/createMessage` from the MCP server `asking` on to its client: the client did not announce the `sampling` capability"
    );
    assert_eq!(answers["elicitation"]["content"]["name"], "Ada");
    assert!(
        !(client.notifications.iter()).any(|message| message["method"] == "notifications/progress"),
        "{:?}",
        client.notifications
    );
    source.shutdown().await;
}

#[tokio::test]
async fn a_request_outside_any_call_is_refused_and_one_the_client_never_answers_ends_with_the_call()
{
    let state = state_file("outside.jsonl");
    let relay = Relay::new("test-gateway");
    let source =
        McpSource::new("asking", asking(Some(&state))).call_timeout(Duration::from_secs(2));
    let (server, source) = serve(eager(source), &relay).await;

    // Right after its handshake the server asks for a sampling, in no call.
    let first = |text: &str| text.lines().next().map(str::to_owned);
    eventually(|| first(&std::fs::read_to_string(&state).unwrap_or_default()).is_some()).await;
    let refusal: Value = serde_json::from_str(
        &first(&std::fs::read_to_string(&state).unwrap_or_default()).unwrap_or_default(),
    )
    .expect("a JSON line");
    assert_eq!(refusal["error"]["code"], -32602, "{refusal}");
    assert_eq!(
        refusal["error"]["message"],
        "test-gateway cannot pass `sampling/createMessage` from the MCP server `asking` on to its client: no call of this server is in flight (requests to the client are passed on only during a tool call)"
    );

    // A client that never answers: the call ends at its timeout, and so does the request.
    let mut client = Client::connect(server);
    initialize(&mut client, json!({"sampling": {}, "elicitation": {}})).await;
    let (response, requests) = call(&mut client, "asking__ask", None, Answers::Ignore).await;
    assert_eq!(requests[0]["method"], "sampling/createMessage");
    assert_eq!(response["result"]["isError"], true, "{response}");
    assert!(
        text(&response).contains("did not answer within 2s"),
        "{response}"
    );
    source.shutdown().await;
}

#[tokio::test]
async fn with_calls_of_two_clients_in_flight_a_stdio_servers_request_is_refused_as_ambiguous() {
    let relay = Relay::new("test-gateway");
    let (server, source) = serve(eager(McpSource::new("asking", asking(None))), &relay).await;
    let (mut first, mut second) = (Client::connect(server.clone()), Client::connect(server));
    for client in [&mut first, &mut second] {
        initialize(client, json!({"sampling": {}})).await;
    }
    // Both calls are running when the server asks: nothing on stdio says for which.
    let ((first, _), (second, _)) = tokio::join!(
        call(&mut first, "asking__ask_together", None, Answers::Answer),
        call(&mut second, "asking__ask_together", None, Answers::Answer),
    );
    for response in [first, second] {
        let refusal = &answered(&response)["sampling"]["error"];
        assert_eq!(refusal["code"], -32602, "{response}");
        assert_eq!(
            refusal["message"],
            "test-gateway cannot pass `sampling/createMessage` from the MCP server `asking` on to its client: 2 calls of different clients are in flight and nothing tells which one this request belongs to"
        );
    }
    source.shutdown().await;
}

/// Accepts every elicitation with the name Grace, counting them and recording the message
/// and server of the last.
#[derive(Clone, Default)]
struct Grace {
    asked: Arc<AtomicUsize>,
    last: Arc<std::sync::Mutex<String>>,
}

impl Elicitor for Grace {
    fn elicit<'a>(&'a self, server: &'a str, request: ElicitRequestParams) -> Elicited<'a> {
        Box::pin(async move {
            self.asked.fetch_add(1, Ordering::SeqCst);
            if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
                *self.last.lock().expect("not poisoned") = format!("{server}: {message}");
            }
            Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({"name": "Grace"})))
        })
    }
}

#[tokio::test]
async fn an_elicitor_answers_what_no_client_can_and_a_client_that_can_is_asked_first() {
    let grace = Grace::default();
    let source = McpSource::new("asking", asking(None)).elicitor(grace.clone());
    let registry = support::registry_of(&source).await;
    let direct = |name: &'static str| {
        let registry = &registry;
        async move {
            let result = registry.call(name, json!({})).await;
            assert!(!result.is_error(), "{}", result.text());
            let text = result.content().as_str().expect("a text answer").to_owned();
            serde_json::from_str::<Value>(&text).expect("JSON text")
        }
    };

    // With no client at all, the source announces elicitation: its elicitor answers.
    let announced = direct("asking__capabilities").await;
    assert!(announced.get("elicitation").is_some(), "{announced}");
    assert!(announced.get("sampling").is_none(), "{announced}");
    let answers = direct("asking__ask").await;
    assert_eq!(answers["elicitation"]["action"], "accept", "{answers}");
    assert_eq!(answers["elicitation"]["content"]["name"], "Grace");
    assert_eq!(
        *grace.last.lock().expect("not poisoned"),
        "asking: Who are you?"
    );
    assert_eq!(answers["sampling"]["error"]["code"], -32601, "{answers}");
    assert_eq!(
        answers["sampling"]["error"]["message"],
        "lazytool cannot pass `sampling/createMessage` from the MCP server `asking` on to its client: the call was not made by an MCP client"
    );
    assert_eq!(grace.asked.load(Ordering::SeqCst), 1);
    source.shutdown().await;

    // A client of the call that announced elicitation answers it; the elicitor is not asked.
    let relay = Relay::new("test-gateway");
    let source = eager(McpSource::new("asking", asking(None)).elicitor(grace.clone()));
    let (server, source) = serve(source, &relay).await;
    let mut client = Client::connect(server);
    initialize(&mut client, json!({"elicitation": {}})).await;
    let (response, requests) = call(&mut client, "asking__ask", None, Answers::Answer).await;
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert_eq!(answered(&response)["elicitation"]["content"]["name"], "Ada");
    assert_eq!(grace.asked.load(Ordering::SeqCst), 1, "the client answered");
    source.shutdown().await;
}
