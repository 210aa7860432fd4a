//! Prompts and resources: an `McpServer` of lazytool's own offering them from a provider
//! (over streamable HTTP in 2026-07-28, pages of two), read by `McpSource`s, joined by an
//! `McpCatalog` and served again by an `McpServer` to a stateful client: every page, names
//! `SERVER__PROMPT`, URIs routed to their server, clashes, cleaning, `list_changed` and the
//! errors of the specification.

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lazytool_mcp::rmcp::model::{
    ErrorData, GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage,
    ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role,
};
use lazytool_mcp::{
    CompletionFuture, McpServer, PromptFuture, PromptProvider, ReadFuture, ResourceProvider,
};
use lazytool_mcp_client::{McpCatalog, McpSource, Upstream};
use lazytool_runtime::{CancellationToken, Registry};
use serde_json::{Value, json};
use support::{Client, eventually, meta};
use tokio::sync::watch;

/// Prompts and resources a test changes while they are served.
#[derive(Clone)]
struct Shelf {
    /// The URI scheme of its resources, `notes` say: `notes://N` reads "note N".
    scheme: &'static str,
    prompts: Arc<Mutex<Vec<Prompt>>>,
    resources: Arc<Mutex<Vec<Resource>>>,
    prompts_changed: watch::Sender<u64>,
    resources_changed: watch::Sender<u64>,
    /// The URIs of its resources whose contents changed.
    updated: tokio::sync::broadcast::Sender<String>,
}

impl Shelf {
    fn new(scheme: &'static str, prompts: &[&str], resources: usize) -> Shelf {
        let prompts = prompts
            .iter()
            .map(|name| {
                let topic = PromptArgument::new("topic").with_required(true);
                Prompt::new(
                    *name,
                    Some(format!("The {name} prompt.")),
                    Some(vec![topic]),
                )
            })
            .collect();
        let resources = (1..=resources)
            .map(|n| Resource::new(format!("{scheme}://{n}"), format!("note {n}")))
            .collect();
        Shelf {
            scheme,
            prompts: Arc::new(Mutex::new(prompts)),
            resources: Arc::new(Mutex::new(resources)),
            prompts_changed: watch::Sender::new(0),
            resources_changed: watch::Sender::new(0),
            updated: tokio::sync::broadcast::Sender::new(16),
        }
    }

    fn add_prompt(&self, prompt: Prompt) {
        self.prompts.lock().expect("not poisoned").push(prompt);
        self.prompts_changed.send_modify(|n| *n += 1);
    }

    fn add_resource(&self, resource: Resource) {
        self.resources.lock().expect("not poisoned").push(resource);
        self.resources_changed.send_modify(|n| *n += 1);
    }
}

impl PromptProvider for Shelf {
    fn prompts(&self) -> Vec<Prompt> {
        self.prompts.lock().expect("not poisoned").clone()
    }

    fn get_prompt(&self, name: String, arguments: JsonObject) -> PromptFuture<'_> {
        Box::pin(async move {
            if !self.prompts().iter().any(|prompt| prompt.name == name) {
                return Err(ErrorData::invalid_params(
                    format!("no prompt `{name}`"),
                    None,
                ));
            }
            let topic = arguments
                .get("topic")
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    ErrorData::invalid_params("the argument `topic` is required", None)
                })?;
            let text = format!("{name} from {} about {topic}", self.scheme);
            Ok(GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                text,
            )]))
        })
    }

    fn changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.prompts_changed.subscribe())
    }

    fn complete(
        &self,
        prompt: String,
        argument: String,
        value: String,
        context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        let scheme = self.scheme;
        Box::pin(async move {
            Ok(vec![format!(
                "{scheme}:{prompt}:{argument}:{value}:{}",
                context.len()
            )])
        })
    }
}

impl ResourceProvider for Shelf {
    fn resources(&self) -> Vec<Resource> {
        self.resources.lock().expect("not poisoned").clone()
    }

    fn resource_templates(&self) -> Vec<ResourceTemplate> {
        let template = format!("{}://{{id}}/details", self.scheme);
        vec![
            ResourceTemplate::new(template, "details")
                .with_description("Details\u{200b} of a note."),
        ]
    }

    fn read_resource(&self, uri: String) -> ReadFuture<'_> {
        Box::pin(async move {
            let listed = self.resources().iter().any(|resource| resource.uri == uri);
            let templated =
                uri.starts_with(&format!("{}://", self.scheme)) && uri.ends_with("/details");
            if !listed && !templated {
                return Err(ErrorData::resource_not_found(
                    format!("no resource `{uri}`"),
                    None,
                ));
            }
            let text = format!("{} read {uri}", self.scheme);
            Ok(ReadResourceResult::new(vec![ResourceContents::text(
                text, uri,
            )]))
        })
    }

    fn changes(&self) -> Option<watch::Receiver<u64>> {
        Some(self.resources_changed.subscribe())
    }

    fn updates(&self) -> Option<tokio::sync::broadcast::Receiver<String>> {
        Some(self.updated.subscribe())
    }

    fn complete(
        &self,
        template: String,
        argument: String,
        value: String,
        _context: HashMap<String, String>,
    ) -> CompletionFuture<'_> {
        Box::pin(async move { Ok(vec![format!("{template}:{argument}:{value}")]) })
    }
}

/// How long a change may take to reach the client on a loaded machine.
const PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

fn empty_registry() -> Registry {
    Registry::builder()
        .without_inventory()
        .build()
        .expect("builds")
}

/// Serves `shelf` over streamable HTTP on a free port of 127.0.0.1 in pages of two, until
/// `stop`; its URL.
async fn serve_shelf(shelf: &Shelf, stop: &CancellationToken) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("bound"));
    let http = McpServer::new(empty_registry())
        .prompts(shelf.clone())
        .resources(shelf.clone())
        .page_size(2)
        .http()
        .shutdown_on(stop.clone());
    tokio::spawn(http.serve_on(listener));
    url
}

/// A catalog of two upstreams, `notes` (three prompts, five resources) and `more` (one
/// prompt, two resources of which `notes://1` is notes' too), served in pages of two.
struct Setup {
    notes: Shelf,
    more: Shelf,
    catalog: McpCatalog,
    client: Client,
    stop: CancellationToken,
}

async fn setup() -> Setup {
    let stop = CancellationToken::new();
    let notes = Shelf::new("notes", &["summarize", "critique", "translate\u{200b}"], 5);
    let more = Shelf::new("more", &["brainstorm"], 1);
    more.resources
        .lock()
        .expect("not poisoned")
        .push(Resource::new("notes://1", "a copy"));
    let sources = [
        McpSource::new("notes", Upstream::url(serve_shelf(&notes, &stop).await)),
        McpSource::new("more", Upstream::url(serve_shelf(&more, &stop).await)),
    ];
    let catalog = McpCatalog::start(|| Registry::builder().without_inventory(), sources)
        .await
        .expect("builds");
    let server = McpServer::live(catalog.live())
        .prompts(catalog.clone())
        .resources(catalog.clone())
        .page_size(2);
    let mut client = Client::connect(server);
    client.initialize("2025-06-18").await;
    Setup {
        notes,
        more,
        catalog,
        client,
        stop,
    }
}

/// Every item of a paginated list, following `nextCursor`, and the number of pages.
async fn list_all(client: &mut Client, method: &str, key: &str) -> (Vec<Value>, usize) {
    let (mut items, mut pages, mut cursor) = (Vec::new(), 0, None::<Value>);
    loop {
        let params = cursor.map_or_else(|| json!({}), |cursor| json!({"cursor": cursor}));
        let response = client.request(100 + pages as u32, method, params).await;
        let result = &response["result"];
        items.extend(result[key].as_array().expect("a list").iter().cloned());
        pages += 1;
        match result.get("nextCursor") {
            Some(next) => cursor = Some(next.clone()),
            None => return (items, pages),
        }
    }
}

/// Waits for the notification `method`, asking the server something meanwhile: a
/// notification is read with the answers.
async fn await_notification(client: &mut Client, method: &str) {
    let deadline = tokio::time::Instant::now() + PATIENCE;
    let mut id = 1000;
    while !client
        .notifications
        .iter()
        .any(|sent| sent["method"] == method)
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no {method}: {:?}",
            client.notifications
        );
        client.request(id, "ping", json!({})).await;
        id += 1;
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

fn field<'a>(items: &'a [Value], key: &str) -> Vec<&'a str> {
    items.iter().filter_map(|item| item[key].as_str()).collect()
}

#[tokio::test]
async fn every_page_of_every_upstream_is_served_again_page_by_page() {
    let Setup {
        catalog,
        mut client,
        stop,
        ..
    } = setup().await;
    let (prompts, pages) = list_all(&mut client, "prompts/list", "prompts").await;
    // Hidden characters are cleaned from what the model reads, but the name maps them
    // away like a tool name's: `translate` with a zero-width space gets a stable hash.
    let names = field(&prompts, "name");
    assert_eq!(names[..2], ["notes__summarize", "notes__critique"]);
    assert!(names[2].starts_with("notes__translate__"), "{names:?}");
    assert_eq!(names[3], "more__brainstorm");
    assert_eq!((names.len(), pages), (4, 2));
    assert_eq!(prompts[0]["arguments"][0]["name"], "topic");

    let (resources, pages) = list_all(&mut client, "resources/list", "resources").await;
    let uris = field(&resources, "uri");
    // `notes://1` is the first server's: the second's copy is left out.
    assert_eq!(
        uris,
        [
            "notes://1",
            "notes://2",
            "notes://3",
            "notes://4",
            "notes://5",
            "more://1"
        ]
    );
    assert_eq!(field(&resources, "name")[0], "note 1");
    assert_eq!(pages, 3);

    let (templates, _) =
        list_all(&mut client, "resources/templates/list", "resourceTemplates").await;
    assert_eq!(
        field(&templates, "uriTemplate"),
        ["notes://{id}/details", "more://{id}/details"]
    );
    assert_eq!(templates[0]["description"], "Details of a note.");

    let offered = catalog.prompts_and_resources();
    let counts: Vec<(String, usize, usize, usize)> = offered
        .into_iter()
        .map(|(name, offered)| {
            let offered = offered.expect("fetched");
            (
                name,
                offered.prompts.len(),
                offered.resources.len(),
                offered.resource_templates.len(),
            )
        })
        .collect();
    assert_eq!(
        counts,
        [("notes".to_owned(), 3, 5, 1), ("more".to_owned(), 1, 2, 1)]
    );
    client.close().await;
    catalog.shutdown().await;
    stop.cancel();
}

#[tokio::test]
async fn prompts_and_reads_reach_the_server_that_offers_them() {
    let Setup {
        catalog,
        mut client,
        stop,
        ..
    } = setup().await;
    let got = client
        .request(
            1,
            "prompts/get",
            json!({"name": "more__brainstorm", "arguments": {"topic": "rust"}}),
        )
        .await;
    assert_eq!(
        got["result"]["messages"][0]["content"]["text"],
        "brainstorm from more about rust"
    );
    assert_eq!(got["result"]["messages"][0]["role"], "user");

    let read = |uri: &str| json!({"uri": uri});
    for (id, uri, server) in [
        (2, "notes://1", "notes"),
        (3, "more://1", "more"),
        (4, "more://7/details", "more"),
        (5, "notes://9/details", "notes"),
    ] {
        let answer = client.request(id, "resources/read", read(uri)).await;
        let contents = &answer["result"]["contents"][0];
        assert_eq!(contents["text"], format!("{server} read {uri}"), "{answer}");
        assert_eq!(contents["uri"], uri);
    }

    // The errors of the specification: an unknown prompt or a missing argument is -32602
    // (the latter the upstream's own), an unknown resource -32002, a foreign cursor -32602.
    let unknown = client
        .request(6, "prompts/get", json!({"name": "notes__nothing"}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .expect("a message")
            .contains("notes__nothing")
    );
    let missing = client
        .request(7, "prompts/get", json!({"name": "notes__summarize"}))
        .await;
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert!(
        missing["error"]["message"]
            .as_str()
            .expect("a message")
            .contains("topic"),
        "{missing}"
    );
    let nowhere = client
        .request(8, "resources/read", read("elsewhere://1"))
        .await;
    assert_eq!(nowhere["error"]["code"], -32002, "{nowhere}");
    assert!(
        nowhere["error"]["message"]
            .as_str()
            .expect("a message")
            .contains("elsewhere://1")
    );
    let gone = client
        .request(9, "resources/read", read("notes://99"))
        .await;
    assert_eq!(gone["error"]["code"], -32002, "{gone}");
    let cursor = client
        .request(10, "prompts/list", json!({"cursor": "bogus"}))
        .await;
    assert_eq!(cursor["error"]["code"], -32602, "{cursor}");
    client.close().await;
    catalog.shutdown().await;
    stop.cancel();
}

#[tokio::test]
async fn upstream_changes_reach_the_client_as_list_changed() {
    let Setup {
        notes,
        more,
        catalog,
        mut client,
        stop,
    } = setup().await;
    notes.add_prompt(Prompt::new("outline", Some("Outline a note."), None));
    await_notification(&mut client, "notifications/prompts/list_changed").await;
    let (prompts, _) = list_all(&mut client, "prompts/list", "prompts").await;
    assert!(field(&prompts, "name").contains(&"notes__outline"));

    more.add_resource(Resource::new("more://2", "another"));
    await_notification(&mut client, "notifications/resources/list_changed").await;
    let (resources, _) = list_all(&mut client, "resources/list", "resources").await;
    assert!(field(&resources, "uri").contains(&"more://2"));
    let catalog_sees = catalog.clone();
    eventually(move || {
        catalog_sees.prompts_and_resources()[1]
            .1
            .as_ref()
            .is_some_and(|offered| offered.resources.len() == 3)
    })
    .await;
    client.close().await;
    catalog.shutdown().await;
    stop.cancel();
}

#[tokio::test]
async fn only_a_server_with_providers_offers_prompts_and_resources() {
    let mut plain = Client::connect(McpServer::new(empty_registry()));
    let init = plain.initialize("2025-06-18").await;
    let capabilities = &init["result"]["capabilities"];
    assert!(capabilities.get("prompts").is_none() && capabilities.get("resources").is_none());
    for (id, method) in [
        (1, "prompts/list"),
        (2, "resources/list"),
        (3, "resources/templates/list"),
    ] {
        let answer = plain.request(id, method, json!({})).await;
        assert_eq!(answer["error"]["code"], -32601, "{method}: {answer}");
    }
    plain.close().await;

    let shelf = Shelf::new("notes", &["summarize"], 1);
    let server = McpServer::new(empty_registry())
        .prompts(shelf.clone())
        .resources(shelf.clone());
    let mut offering = Client::connect(server.clone());
    let init = offering.initialize("2025-06-18").await;
    let capabilities = &init["result"]["capabilities"];
    assert_eq!(capabilities["prompts"], json!({"listChanged": true}));
    // The shelf announces its resources' updates: they may be subscribed to.
    assert_eq!(
        capabilities["resources"],
        json!({"listChanged": true, "subscribe": true})
    );
    assert_eq!(capabilities["completions"], json!({}));
    offering.close().await;

    // Stateless requests (2026-07-28) are answered the same, with cache hints.
    let mut stateless = Client::connect(server);
    let listed = stateless
        .request(1, "prompts/list", json!({"_meta": meta()}))
        .await;
    assert_eq!(
        listed["result"]["prompts"][0]["name"], "summarize",
        "{listed}"
    );
    assert!(listed["result"]["ttlMs"].is_u64(), "{listed}");
    let read = stateless
        .request(
            2,
            "resources/read",
            json!({"_meta": meta(), "uri": "notes://404"}),
        )
        .await;
    // The 2026-07-28 revision reports an unknown resource as -32602.
    assert_eq!(read["error"]["code"], -32602, "{read}");
    stateless.close().await;
}

#[tokio::test]
async fn a_source_asked_for_a_prompt_first_lists_its_prompts_then_gets_it() {
    let stop = CancellationToken::new();
    let shelf = Shelf::new("notes", &["summarize"], 1);
    let source = McpSource::new("notes", Upstream::url(serve_shelf(&shelf, &stop).await));
    let mut arguments = JsonObject::new();
    arguments.insert("topic".to_owned(), json!("bees"));
    let got = source
        .get_prompt("notes__summarize", arguments)
        .await
        .expect("started, listed, got");
    let text = serde_json::to_value(&got.messages[0]).expect("serializable");
    assert_eq!(text["content"]["text"], "summarize from notes about bees");
    let unknown = source
        .get_prompt("notes__other", JsonObject::new())
        .await
        .expect_err("no such prompt");
    assert_eq!(unknown.code.0, -32602);
    source.shutdown().await;
    stop.cancel();
}

#[tokio::test]
async fn completions_reach_the_server_that_offers_the_prompt_or_template() {
    let Setup {
        mut client, stop, ..
    } = setup().await;
    let prompt = json!({
        "ref": {"type": "ref/prompt", "name": "more__brainstorm"},
        "argument": {"name": "topic", "value": "ri"},
        "context": {"arguments": {"mood": "calm"}},
    });
    let answer = client.request(1, "completion/complete", prompt).await;
    // The upstream is asked under its own name, with the context.
    assert_eq!(
        answer["result"]["completion"]["values"],
        json!(["more:brainstorm:topic:ri:1"]),
        "{answer}"
    );
    let template = json!({
        "ref": {"type": "ref/resource", "uri": "notes://{id}/details"},
        "argument": {"name": "id", "value": "4"},
    });
    let answer = client.request(2, "completion/complete", template).await;
    assert_eq!(
        answer["result"]["completion"]["values"],
        json!(["notes://{id}/details:id:4"]),
        "{answer}"
    );
    let unknown = json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "a", "value": ""}});
    let answer = client.request(3, "completion/complete", unknown).await;
    assert_eq!(answer["error"]["code"], -32602, "{answer}");
    stop.cancel();
}

#[tokio::test]
async fn a_subscription_through_the_catalog_reaches_the_server_and_its_updates_come_back() {
    let Setup {
        notes,
        mut client,
        stop,
        ..
    } = setup().await;
    let subscribed = client
        .request(1, "resources/subscribe", json!({"uri": "notes://2"}))
        .await;
    assert_eq!(subscribed["result"], json!({}), "{subscribed}");
    // The upstream (2026-07-28 over HTTP) watches it on a subscriptions/listen stream, opened
    // before the answer: an update now reaches the client.
    let deadline = tokio::time::Instant::now() + PATIENCE;
    loop {
        notes.updated.send("notes://3".to_owned()).ok();
        notes.updated.send("notes://2".to_owned()).ok();
        client.request(2, "ping", json!({})).await;
        let updated: Vec<&Value> = (client.notifications.iter())
            .filter(|sent| sent["method"] == "notifications/resources/updated")
            .collect();
        if !updated.is_empty() {
            assert!(
                updated
                    .iter()
                    .all(|sent| sent["params"]["uri"] == "notes://2"),
                "{updated:?}"
            );
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "no update came");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let unknown = client
        .request(3, "resources/subscribe", json!({"uri": "nowhere://1"}))
        .await;
    assert!(unknown.get("error").is_some(), "{unknown}");
    stop.cancel();
}
