//! Log messages from tools (`McpRequest::log`): sent only as severe as the client asked for,
//! with `logging/setLevel` on a 2025-11-25 connection or the request's `_meta` `logLevel` on
//! 2026-07-28, which has no `logging/setLevel`.

mod support;

use lazytool_mcp::{LogLevel, McpRequest, McpServer};
use lazytool_runtime::{DynamicTool, Registry};
use serde_json::{Value, json};
use support::{Client, meta};

/// A tool that logs at debug, info and error; answers which of the three were sent.
fn server() -> McpServer {
    let work = DynamicTool::new(
        "work",
        "Works and logs.",
        json!({"type": "object"}),
        |_, context| async move {
            let request = McpRequest::of(&context).ok_or("not called over MCP")?;
            let mut sent = Vec::new();
            for level in [LogLevel::Debug, LogLevel::Info, LogLevel::Error] {
                let data = json!({"step": level.as_str()});
                sent.push(request.log(level, data).await.map_err(|_| "closed")?);
            }
            Ok::<_, &str>(json!(sent))
        },
    );
    let registry = Registry::builder()
        .without_inventory()
        .tool(work)
        .build()
        .expect("valid tools");
    McpServer::new(registry)
}

fn call(meta: Option<Value>) -> Value {
    let mut params = json!({"name": "work", "arguments": {}});
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    params
}

/// Which of its three messages the tool says were sent.
fn sent(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
}

/// The messages' levels, in the order they came, taken from the client's notifications.
fn logged(client: &mut Client) -> Vec<Value> {
    let messages = client
        .notifications
        .iter()
        .filter(|notification| notification["method"] == "notifications/message")
        .map(|notification| notification["params"].clone())
        .collect();
    client.notifications.clear();
    messages
}

#[tokio::test]
async fn a_stateful_client_gets_the_messages_as_severe_as_its_level() {
    let mut client = Client::connect(server());
    let initialized = client.initialize("2025-11-25").await;
    assert_eq!(initialized["result"]["capabilities"]["logging"], json!({}));
    // No level asked for: no message.
    let answer = client.request(1, "tools/call", call(None)).await;
    assert_eq!(sent(&answer), "[false,false,false]", "{answer}");
    assert_eq!(logged(&mut client), Vec::<Value>::new());

    let set = client
        .request(2, "logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(set["result"], json!({}), "{set}");
    let answer = client.request(3, "tools/call", call(None)).await;
    assert_eq!(sent(&answer), "[false,true,true]");
    assert_eq!(
        logged(&mut client),
        [
            json!({"level": "info", "data": {"step": "info"}}),
            json!({"level": "error", "data": {"step": "error"}}),
        ]
    );

    client
        .request(4, "logging/setLevel", json!({"level": "debug"}))
        .await;
    let answer = client.request(5, "tools/call", call(None)).await;
    assert_eq!(sent(&answer), "[true,true,true]");
    assert_eq!(logged(&mut client).len(), 3);
}

#[tokio::test]
async fn a_level_that_is_none_is_refused() {
    let mut client = Client::connect(server());
    client.initialize("2025-11-25").await;
    let set = client
        .request(1, "logging/setLevel", json!({"level": "loud"}))
        .await;
    assert_eq!(set["error"]["code"], -32602, "{set}");
}

#[tokio::test]
async fn a_newest_request_gets_messages_only_when_its_meta_asks() {
    let mut client = Client::connect(server());
    let answer = client.request(1, "tools/call", call(Some(meta()))).await;
    assert_eq!(sent(&answer), "[false,false,false]", "{answer}");
    assert_eq!(logged(&mut client), Vec::<Value>::new());

    let mut asking = meta();
    asking["io.modelcontextprotocol/logLevel"] = json!("error");
    let answer = client.request(2, "tools/call", call(Some(asking))).await;
    assert_eq!(sent(&answer), "[false,false,true]");
    assert_eq!(
        logged(&mut client),
        [json!({"level": "error", "data": {"step": "error"}})]
    );
    // The level is the request's own: the next request without one gets none.
    let answer = client.request(3, "tools/call", call(Some(meta()))).await;
    assert_eq!(sent(&answer), "[false,false,false]");
}

#[tokio::test]
async fn the_newest_revision_has_no_set_level() {
    let mut client = Client::connect(server());
    let set = client
        .request(
            1,
            "logging/setLevel",
            json!({"level": "debug", "_meta": meta()}),
        )
        .await;
    assert_eq!(set["error"]["code"], -32601, "{set}");
}
