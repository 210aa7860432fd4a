//! `resources/subscribe` and `resources/unsubscribe` (2025-11-25): a subscriber is sent
//! `notifications/resources/updated` for the URIs it subscribed to, and only while it is
//! subscribed; a URI the principal may not see is refused as unknown; a provider that
//! announces no updates offers no subscriptions.

mod support;

use lazytool_mcp::rmcp::model::{ReadResourceResult, Resource, ResourceContents};
use lazytool_mcp::{McpServer, Principal, ReadFuture, ResourceProvider};
use lazytool_runtime::Registry;
use serde_json::{Value, json};
use support::{Client, meta};
use tokio::sync::broadcast;

/// Two notes, `notes://a` and `notes://b`, whose updates a test announces.
#[derive(Clone)]
struct Notes {
    updated: Option<broadcast::Sender<String>>,
}

impl ResourceProvider for Notes {
    fn resources(&self) -> Vec<Resource> {
        vec![
            Resource::new("notes://a", "a"),
            Resource::new("notes://b", "b"),
            Resource::new("notes://hidden", "hidden"),
        ]
    }

    fn read_resource(&self, uri: String) -> ReadFuture<'_> {
        Box::pin(async move {
            Ok(ReadResourceResult::new(vec![ResourceContents::text(
                "a note", uri,
            )]))
        })
    }

    fn updates(&self) -> Option<broadcast::Receiver<String>> {
        self.updated.as_ref().map(broadcast::Sender::subscribe)
    }
}

fn server(notes: Notes) -> McpServer {
    let registry = Registry::builder()
        .without_inventory()
        .build()
        .expect("no tools");
    McpServer::new(registry)
        .resources(notes)
        .allow_offers_for(|_: &Principal, uri: &str| uri != "notes://hidden")
}

fn uri(uri: &str) -> Value {
    json!({ "uri": uri })
}

/// The URI of the next `resources/updated` notification (none came before it).
async fn next_update(client: &mut Client) -> String {
    let message = client.next().await;
    assert_eq!(
        message["method"], "notifications/resources/updated",
        "{message}"
    );
    message["params"]["uri"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_subscriber_is_told_of_the_updates_it_subscribed_to_until_it_unsubscribes() {
    let sender = broadcast::Sender::new(16);
    let mut client = Client::connect(server(Notes {
        updated: Some(sender.clone()),
    }));
    let initialized = client.initialize("2025-11-25").await;
    assert_eq!(
        initialized["result"]["capabilities"]["resources"]["subscribe"], true,
        "{initialized}"
    );
    let subscribed = client
        .request(1, "resources/subscribe", uri("notes://a"))
        .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");

    // In order: b's update (not subscribed) is dropped, a's is sent.
    sender.send("notes://b".to_owned()).expect("a receiver");
    sender.send("notes://a".to_owned()).expect("a receiver");
    assert_eq!(next_update(&mut client).await, "notes://a");

    let unsubscribed = client
        .request(2, "resources/unsubscribe", uri("notes://a"))
        .await;
    assert_eq!(unsubscribed["result"], json!({}), "{unsubscribed}");
    client
        .request(3, "resources/subscribe", uri("notes://b"))
        .await;
    sender.send("notes://a".to_owned()).expect("a receiver");
    sender.send("notes://b".to_owned()).expect("a receiver");
    // b's update comes after a's, which was dropped: a is no longer subscribed.
    assert_eq!(next_update(&mut client).await, "notes://b");
    // Unsubscribing from what was never subscribed is no error.
    let again = client
        .request(4, "resources/unsubscribe", uri("notes://a"))
        .await;
    assert_eq!(again["result"], json!({}), "{again}");
}

#[tokio::test]
async fn a_uri_the_principal_may_not_see_is_refused_as_unknown() {
    let mut client = Client::connect(server(Notes {
        updated: Some(broadcast::Sender::new(16)),
    }));
    client.initialize("2025-11-25").await;
    let refused = client
        .request(1, "resources/subscribe", uri("notes://hidden"))
        .await;
    assert_eq!(refused["error"]["code"], -32002, "{refused}");
    assert_eq!(refused["error"]["data"], json!({"uri": "notes://hidden"}));
}

#[tokio::test]
async fn resources_without_updates_offer_no_subscriptions() {
    let mut client = Client::connect(server(Notes { updated: None }));
    let initialized = client.initialize("2025-11-25").await;
    let resources = &initialized["result"]["capabilities"]["resources"];
    assert!(resources.get("subscribe").is_none(), "{initialized}");
    let refused = client
        .request(1, "resources/subscribe", uri("notes://a"))
        .await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
}

#[tokio::test]
async fn the_newest_revision_subscribes_with_subscriptions_listen_instead() {
    let mut client = Client::connect(server(Notes {
        updated: Some(broadcast::Sender::new(16)),
    }));
    let mut params = uri("notes://a");
    params["_meta"] = meta();
    let refused = client.request(1, "resources/subscribe", params).await;
    assert_eq!(refused["error"]["code"], -32601, "{refused}");
}
