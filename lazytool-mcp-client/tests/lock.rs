//! McpSource and McpCatalog with a lock, against tests/mcp/gateway/shifting_server.py (run by
//! `python3`), whose tools change after a number of calls: listed from the lock without a
//! start, started on first call (once for concurrent calls), stopped when idle and started
//! again, a failed first start retried after the backoff, and every kind of change pinned, of
//! tools, prompts, resources and resource templates.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use lazytool_mcp::rmcp::model::JsonObject;
use lazytool_mcp::{PromptProvider, ResourceProvider};
use lazytool_mcp_client::{Lock, LockState, McpCatalog, McpSource, Pin, Upstream};
use lazytool_runtime::{Registry, ToolErrorKind, ToolResult};
use serde_json::{Value, json};
use support::eventually;

fn shifting(args: &[&str], state: &Path) -> Upstream {
    let state = ["--state".to_owned(), state.display().to_string()];
    let args = args.iter().map(|arg| (*arg).to_owned()).chain(state);
    support::python_server("shifting_server.py", args)
}

fn scratch(name: &str) -> PathBuf {
    support::fresh_path("lock", name)
}

fn starts(state: &Path) -> Vec<u32> {
    (std::fs::read_to_string(state).unwrap_or_default().lines())
        .filter_map(|line| line.strip_prefix("started ")?.parse().ok())
        .collect()
}

fn alive(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // A zombie (`Z`) has exited; its parent has not reaped it yet.
    stat.split_whitespace()
        .nth(2)
        .is_some_and(|state| state != "Z")
}

/// A lock of the server as it starts, pinned by a source of its own that is then stopped.
async fn pinned(upstream: &Upstream) -> Lock {
    let source = McpSource::new("shifting", upstream.clone());
    let mut lock = Lock::new();
    lock.set("shifting", source.pin_now().await.expect("pinned"));
    source.shutdown().await;
    lock
}

async fn call(registry: &Registry, tool: &str) -> ToolResult {
    registry
        .call(&format!("shifting__{tool}"), json!({"text": "hi"}))
        .await
}

fn text(result: &ToolResult) -> String {
    match result.content() {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[tokio::test]
async fn a_locked_server_is_listed_from_the_lock_and_started_by_its_first_calls_once() {
    let state = scratch("first-use");
    let upstream = shifting(&[], &state);
    let lock = pinned(&upstream).await;
    assert_eq!(starts(&state).len(), 1);
    // The lock survives its file.
    let lock = Lock::parse(&lock.to_text(), "lazytool.lock").expect("reads back");
    let source = McpSource::new("shifting", upstream).lock(&lock);
    assert_eq!(source.lock_state(), LockState::Locked);
    let catalog = McpCatalog::start(Registry::builder, [source])
        .await
        .expect("builds");
    let registry = catalog.registry();
    let names: Vec<&str> = registry.tools().map(|tool| tool.name()).collect();
    assert_eq!(
        names,
        ["shifting__doomed", "shifting__drifting", "shifting__stable"]
    );
    assert_eq!(starts(&state).len(), 1, "listed without a start");
    assert!(!catalog.reports()[0].running);
    assert_eq!(catalog.reports()[0].protocol.as_deref(), Some("2025-11-25"));
    // Not started yet is not down: a name the lock does not list stays an unknown tool.
    let unlisted = registry.call("shifting__newcomer", json!({})).await;
    assert_eq!(unlisted.error_kind(), Some(ToolErrorKind::UnknownTool));
    assert_eq!(starts(&state).len(), 1, "still not started");

    let mut calls = tokio::task::JoinSet::new();
    for _ in 0..5 {
        let registry = registry.clone();
        calls.spawn(async move { call(&registry, "stable").await });
    }
    while let Some(result) = calls.join_next().await {
        let result = result.expect("joined");
        assert!(!result.is_error(), "{result:?}");
        assert_eq!(text(&result), "hi");
    }
    assert_eq!(
        starts(&state).len(),
        2,
        "concurrent first calls start it once"
    );
    catalog.shutdown().await;
}

#[tokio::test]
async fn an_idle_server_is_stopped_and_started_again_by_the_next_call() {
    let state = scratch("idle");
    let upstream = shifting(&[], &state);
    let lock = pinned(&upstream).await;
    let source = McpSource::new("shifting", upstream)
        .lock(&lock)
        .idle_timeout(Duration::from_millis(300));
    let catalog = McpCatalog::start(Registry::builder, [source])
        .await
        .expect("builds");
    let registry = catalog.registry();
    assert!(!call(&registry, "stable").await.is_error());
    let first = *starts(&state).last().expect("started");
    eventually(|| !alive(first)).await;
    assert!(!call(&registry, "drifting").await.is_error());
    let runs = starts(&state);
    assert_eq!(runs.len(), 3, "pinned, first use, after the idle stop");
    assert!(alive(runs[2]));
    catalog.shutdown().await;
}

#[tokio::test]
async fn a_failed_first_start_is_explained_and_retried_after_the_backoff() {
    let state = scratch("failing");
    let blocker = scratch("failing-blocker");
    let blocker_arg = blocker.display().to_string();
    let upstream = shifting(&["--fail-if", &blocker_arg], &state);
    let lock = pinned(&upstream).await;
    std::fs::write(&blocker, "").expect("written");
    let source = McpSource::new("shifting", upstream)
        .lock(&lock)
        .restart_backoff(Duration::from_millis(100), Duration::from_millis(100));
    let catalog = McpCatalog::start(Registry::builder, [source])
        .await
        .expect("builds");
    let registry = catalog.registry();
    let failed = call(&registry, "stable").await;
    assert!(failed.is_error());
    assert!(
        text(&failed).contains("refusing to start while"),
        "{}",
        text(&failed)
    );
    std::fs::remove_file(&blocker).expect("removed");
    tokio::time::sleep(Duration::from_millis(150)).await;
    let retried = call(&registry, "stable").await;
    assert!(!retried.is_error(), "{retried:?}");
    catalog.shutdown().await;
}

/// Calls `stable` once, which makes the server change every definition, and returns the
/// catalog once the change is seen (announced, or found at the next start).
async fn changed_catalog(pin: Pin, notify: bool, name: &str) -> (McpCatalog, Lock) {
    let state = scratch(name);
    let mut args = vec!["--after", "1", "--change", "description,schema,add,remove"];
    if notify {
        args.push("--notify");
    }
    let upstream = shifting(&args, &state);
    let lock = pinned(&upstream).await;
    let source = McpSource::new("shifting", upstream)
        .lock(&lock)
        .pin(pin)
        .approval_command("lazytool-gateway --config mcp.json lock --update shifting")
        .idle_timeout(Duration::from_millis(200));
    let catalog = McpCatalog::start(Registry::builder, [source])
        .await
        .expect("builds");
    assert!(!call(&catalog.registry(), "stable").await.is_error());
    if notify {
        // Announced: once the catalog has listed the server again. (A call racing the
        // notice goes by the definitions checked before it.)
        eventually(|| catalog.reports()[0].pinning.len() == 3).await;
    } else {
        // Unannounced, the change is found when the server next starts.
        let run = *starts(&state).last().expect("started");
        eventually(|| !alive(run)).await;
    }
    (catalog, lock)
}

#[tokio::test]
async fn changed_tools_are_blocked_with_and_without_list_changed() {
    for notify in [true, false] {
        let name = format!("block-{notify}");
        let (catalog, _) = changed_catalog(Pin::Block, notify, &name).await;
        let registry = catalog.registry();
        let drifting = call(&registry, "drifting").await;
        assert!(drifting.is_error());
        assert_eq!(
            text(&drifting),
            "the tool `drifting` of the MCP server `shifting` is blocked: its description, inputSchema changed since it was approved in the lock; to accept the change, run `lazytool-gateway --config mcp.json lock --update shifting`"
        );
        let doomed = call(&registry, "doomed").await;
        assert!(
            text(&doomed).contains("the server no longer offers it"),
            "{doomed:?}"
        );
        assert!(
            !call(&registry, "stable").await.is_error(),
            "unchanged tools keep working"
        );
        // The relisted catalog keeps the approved definition and leaves the new tool out.
        eventually(|| catalog.reports()[0].pinning.len() == 3).await;
        let registry = catalog.registry();
        assert!(registry.get("shifting__newcomer").is_none());
        assert_eq!(
            catalog.withheld_tool("shifting__newcomer").as_deref(),
            Some(
                "the tool `newcomer` of the MCP server `shifting` is blocked: it is new (not in the lock) since it was approved in the lock; to accept the change, run `lazytool-gateway --config mcp.json lock --update shifting`"
            )
        );
        assert_eq!(catalog.withheld_tool("shifting__stable"), None);
        let drifting = registry.get("shifting__drifting").expect("kept");
        assert_eq!(drifting.description(), "Returns its text.");
        assert_eq!(drifting.input_schema()["required"], json!(["text"]));
        let notes: Vec<String> = catalog.reports()[0]
            .pinning
            .iter()
            .map(|note| format!("{}: {}", note.tool, note.note))
            .collect();
        assert!(
            notes.contains(
                &"newcomer: it is new (not in the lock); blocked: not offered".to_owned()
            ),
            "{notes:?}"
        );
        catalog.shutdown().await;
    }
}

#[tokio::test]
async fn warn_serves_the_changes_and_off_ignores_them() {
    let (catalog, _) = changed_catalog(Pin::Warn, true, "warn").await;
    eventually(|| catalog.registry().get("shifting__newcomer").is_some()).await;
    let registry = catalog.registry();
    assert!(
        registry
            .get("shifting__drifting")
            .expect("served")
            .description()
            .contains("id_rsa")
    );
    assert!(!call(&registry, "newcomer").await.is_error());
    assert!(
        call(&registry, "doomed").await.is_error(),
        "a tool that is gone answers an error"
    );
    catalog.shutdown().await;

    let (catalog, _) = changed_catalog(Pin::Off, true, "off").await;
    eventually(|| catalog.registry().get("shifting__doomed").is_none()).await;
    assert!(!call(&catalog.registry(), "newcomer").await.is_error());
    catalog.shutdown().await;
}

#[tokio::test]
async fn a_catalog_pins_its_sources_and_a_catalog_with_the_lock_starts_none() {
    let state = scratch("catalog");
    let upstream = shifting(&[], &state);
    let catalog = McpCatalog::start(
        Registry::builder,
        [McpSource::new("shifting", upstream.clone())],
    )
    .await
    .expect("builds");
    let lock = catalog.pin_now().await.expect("pinned");
    catalog.shutdown().await;
    let path = scratch("catalog.lock");
    lock.write(&path).expect("written");
    let lock = Lock::load(&path).expect("read back");
    let tools: Vec<&String> = lock
        .server("shifting")
        .expect("an entry")
        .tools
        .keys()
        .collect();
    assert_eq!(tools, ["doomed", "drifting", "stable"]);
    let started = starts(&state).len();
    let catalog = McpCatalog::start(
        Registry::builder,
        [McpSource::new("shifting", upstream).lock(&lock)],
    )
    .await
    .expect("builds");
    assert_eq!(catalog.registry().len(), 3);
    assert_eq!(starts(&state).len(), started);
    catalog.shutdown().await;
}

#[tokio::test]
async fn an_entry_for_another_command_is_ignored_and_the_server_started_at_once() {
    let state = scratch("mismatch");
    let lock = pinned(&shifting(&["--after", "9"], &state)).await;
    let source = McpSource::new("shifting", shifting(&[], &state)).lock(&lock);
    assert_eq!(source.lock_state(), LockState::Mismatch);
    let catalog = McpCatalog::start(Registry::builder, [source])
        .await
        .expect("builds");
    assert!(catalog.reports()[0].running);
    assert_eq!(catalog.reports()[0].lock, LockState::Mismatch);
    assert_eq!(starts(&state).len(), 2);
    catalog.shutdown().await;
}

fn prompt_names(catalog: &McpCatalog) -> Vec<String> {
    PromptProvider::prompts(catalog)
        .into_iter()
        .map(|prompt| prompt.name)
        .collect()
}

fn greeting() -> JsonObject {
    let mut arguments = JsonObject::new();
    arguments.insert("who".to_owned(), json!("Ada"));
    arguments
}

#[tokio::test]
async fn prompts_and_resources_are_pinned_and_listed_from_the_lock_until_first_use() {
    let state = scratch("offers-first-use");
    let upstream = shifting(&[], &state);
    let lock = pinned(&upstream).await;
    let entry = lock.server("shifting").expect("an entry");
    let keys = |pins: &std::collections::BTreeMap<String, lazytool_mcp_client::Pinned>| {
        pins.keys().cloned().collect::<Vec<_>>()
    };
    assert_eq!(keys(&entry.prompts), ["greet", "steady"], "upstream names");
    assert_eq!(keys(&entry.resources), ["shifting://notes"]);
    assert_eq!(keys(&entry.resource_templates), ["shifting://items/{id}"]);
    assert_eq!(entry.prompts["greet"].definition["name"], "greet");
    let lock = Lock::parse(&lock.to_text(), "lazytool.lock").expect("reads back");

    let source = McpSource::new("shifting", upstream).lock(&lock);
    let catalog = McpCatalog::start(Registry::builder, [source])
        .await
        .expect("builds");
    assert_eq!(
        prompt_names(&catalog),
        ["shifting__greet", "shifting__steady"]
    );
    let resources = ResourceProvider::resources(&catalog);
    assert_eq!(resources[0].uri, "shifting://notes");
    let templates = ResourceProvider::resource_templates(&catalog);
    assert_eq!(templates[0].uri_template, "shifting://items/{id}");
    assert_eq!(starts(&state).len(), 1, "listed without a start");

    let got = catalog
        .get_prompt("shifting__greet".to_owned(), greeting())
        .await
        .expect("started and got");
    assert!(format!("{:?}", got.messages).contains("Hello, Ada!"));
    assert_eq!(starts(&state).len(), 2, "started by its first use");
    let read = catalog
        .read_resource("shifting://items/7".to_owned())
        .await
        .expect("read");
    assert_eq!(read.contents.len(), 1);
    catalog.shutdown().await;
}

/// A locked catalog whose server changes its prompts, resources and templates after one
/// call (announced), under `pin`; returned once the change was judged.
async fn shifted_offers(pin: Pin, name: &str) -> McpCatalog {
    let state = scratch(name);
    let args = [
        "--after",
        "1",
        "--change",
        "prompt,prompt-add,resource,template",
        "--notify",
    ];
    let upstream = shifting(&args, &state);
    let lock = pinned(&upstream).await;
    let source = McpSource::new("shifting", upstream)
        .lock(&lock)
        .pin(pin)
        .approval_command("lazytool-gateway --config mcp.json lock --update shifting");
    let catalog = McpCatalog::start(Registry::builder, [source])
        .await
        .expect("builds");
    assert!(!call(&catalog.registry(), "stable").await.is_error());
    eventually(|| catalog.reports()[0].pinning.len() == 4).await;
    catalog
}

#[tokio::test]
async fn changed_prompts_and_resources_are_blocked_and_named() {
    let catalog = shifted_offers(Pin::Block, "offers-block").await;
    let notes: Vec<String> = (catalog.reports()[0].pinning.iter())
        .map(|note| format!("{}: {}", note.tool, note.note))
        .collect();
    assert!(
        notes.contains(
            &"prompt intruder: it is new (not in the lock); blocked: not offered".to_owned()
        ),
        "{notes:?}"
    );
    eventually(|| {
        PromptProvider::prompts(&catalog)
            .iter()
            .all(|prompt| prompt.name != "shifting__intruder")
            && prompt_names(&catalog).len() == 2
    })
    .await;
    let greet = PromptProvider::prompts(&catalog)
        .into_iter()
        .find(|prompt| prompt.name == "shifting__greet")
        .expect("the approved one is listed");
    assert_eq!(greet.description.as_deref(), Some("Greets someone."));
    let refused = catalog
        .get_prompt("shifting__greet".to_owned(), greeting())
        .await
        .expect_err("blocked");
    assert_eq!(
        refused.message,
        "the prompt `greet` of the MCP server `shifting` is blocked: its description changed since it was approved in the lock; to accept the change, run `lazytool-gateway --config mcp.json lock --update shifting`"
    );
    let intruder = catalog
        .get_prompt("shifting__intruder".to_owned(), JsonObject::new())
        .await
        .expect_err("not offered");
    assert!(intruder.message.contains("no prompt"), "{intruder:?}");
    assert!(
        (catalog
            .get_prompt("shifting__steady".to_owned(), JsonObject::new())
            .await)
            .is_ok(),
        "an unchanged prompt keeps working"
    );
    let notes = catalog
        .read_resource("shifting://notes".to_owned())
        .await
        .expect_err("blocked");
    assert!(
        notes.message.contains("the resource `shifting://notes` of the MCP server `shifting` is blocked: its description changed"),
        "{notes:?}"
    );
    let item = catalog
        .read_resource("shifting://items/7".to_owned())
        .await
        .expect_err("blocked");
    assert!(
        item.message
            .contains("the resource template `shifting://items/{id}`"),
        "{item:?}"
    );
    let resources = ResourceProvider::resources(&catalog);
    assert_eq!(resources[0].description.as_deref(), Some("The notes."));
    catalog.shutdown().await;
}

#[tokio::test]
async fn warn_serves_changed_prompts_and_resources() {
    let catalog = shifted_offers(Pin::Warn, "offers-warn").await;
    eventually(|| prompt_names(&catalog).contains(&"shifting__intruder".to_owned())).await;
    let got = catalog
        .get_prompt("shifting__greet".to_owned(), greeting())
        .await
        .expect("served with a warning");
    assert!(format!("{:?}", got.messages).contains("Hello, Ada!"));
    assert!(
        (catalog.read_resource("shifting://notes".to_owned()).await).is_ok(),
        "served with a warning"
    );
    catalog.shutdown().await;
}
