//! Discovery modes (names, search, auto, cache-stable), compaction markers and changing
//! catalogs.

use lazytool_runtime::{
    AutoBudget, DISCOVERY_TOOL_NAME, DiscoveryMode, DynamicTool, Registry, ResolvedMode, Session,
    SessionOptions, ToolCall, ToolDefinition, ToolErrorKind,
};
use serde_json::{Value, json};

fn tool(name: &str, description: &str, lazy: bool) -> DynamicTool {
    DynamicTool::new(
        name.to_owned(),
        description.to_owned(),
        json!({
            "type": "object",
            "properties": {
                "filter": {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}},
                "ids": {"type": "array", "items": {"type": "integer"}}
            }
        }),
        |arguments: Value, _| async move { Ok::<_, String>(arguments) },
    )
    .lazy(lazy)
}

fn catalog() -> Registry {
    Registry::builder()
        .without_inventory()
        .tool(tool(
            "getProducts",
            "Get all products from the catalog.",
            false,
        ))
        .tool(tool(
            "compareProducts",
            "Compare two or more products side by side.",
            true,
        ))
        .tool(tool(
            "calculateFinancing",
            "Calculate monthly payment plans for a product.",
            true,
        ))
        .tool(
            tool(
                "trackShipment",
                "Track where a shipped order is right now.",
                true,
            )
            .tags(["delivery", "parcel"]),
        )
        .build()
        .expect("valid tools")
}

fn names(tools: &[ToolDefinition]) -> Vec<&str> {
    tools.iter().map(|tool| tool.name.as_str()).collect()
}

fn session(mode: DiscoveryMode) -> Session {
    catalog().session_with(SessionOptions::new().mode(mode))
}

#[tokio::test]
async fn search_mode_finds_tools_by_keywords_and_activates_them() {
    let session = session(DiscoveryMode::Search);
    assert_eq!(session.mode(), ResolvedMode::Search);
    let first = session.active_tools();
    assert_eq!(names(&first), ["getProducts", DISCOVERY_TOOL_NAME]);
    assert!(first[1].description.contains("Searches 3 tools"));
    assert_eq!(first[1].input_schema["required"], json!(["query"]));

    let result = session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"query": "where is my parcel", "limit": 1}),
        )
        .await;
    assert_eq!(
        result.content()["tools"][0]["name"],
        "trackShipment",
        "{result:?}"
    );
    assert_eq!(result.content()["tools"].as_array().map(Vec::len), Some(1));
    assert_eq!(
        names(&session.active_tools()),
        ["getProducts", DISCOVERY_TOOL_NAME, "trackShipment"]
    );

    let by_name = session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["compareProducts"]}),
        )
        .await;
    assert_eq!(by_name.content()["tools"][0]["name"], "compareProducts");
    // A name from a catalog-change notice, used as the query, finds its tool first.
    let named = session
        .call(DISCOVERY_TOOL_NAME, json!({"query": "calculateFinancing"}))
        .await;
    assert_eq!(named.content()["tools"][0]["name"], "calculateFinancing");

    let nothing = session
        .call(DISCOVERY_TOOL_NAME, json!({"query": "zzzz"}))
        .await;
    assert_eq!(nothing.content()["tools"], json!([]));
    assert!(
        nothing.content()["errors"][0]
            .as_str()
            .is_some_and(|e| e.contains("zzzz"))
    );
    let empty = session
        .call(DISCOVERY_TOOL_NAME, json!({"query": " "}))
        .await;
    assert!(empty.is_error());
    assert!(empty.text().contains("query is empty"), "{}", empty.text());
}

#[test]
fn auto_mode_inlines_small_sets_lists_medium_ones_and_searches_huge_ones() {
    let budget = |context_window| AutoBudget {
        context_window,
        inline_share: 0.05,
        names_share: 0.10,
    };
    let inline = session(DiscoveryMode::Auto(AutoBudget::default()));
    assert_eq!(inline.mode(), ResolvedMode::Inline);
    assert_eq!(
        names(&inline.active_tools()),
        [
            "calculateFinancing",
            "compareProducts",
            "getProducts",
            "trackShipment"
        ]
    );

    let listed = session(DiscoveryMode::Auto(budget(2_000)));
    assert_eq!(listed.mode(), ResolvedMode::Names);
    assert_eq!(
        names(&listed.active_tools()),
        ["getProducts", DISCOVERY_TOOL_NAME]
    );

    let searched = session(DiscoveryMode::Auto(budget(100)));
    assert_eq!(searched.mode(), ResolvedMode::Search);
}

#[tokio::test]
async fn inline_tools_are_callable_without_discovery() {
    let session = session(DiscoveryMode::Auto(AutoBudget::default()));
    let result = session.call("trackShipment", json!({})).await;
    assert!(!result.is_error(), "{result:?}");
    let discovery = session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["x"]}))
        .await;
    assert_eq!(discovery.error_kind(), Some(ToolErrorKind::UnknownTool));
}

#[tokio::test]
async fn cache_stable_mode_never_changes_the_tools_array() {
    let session = session(DiscoveryMode::CacheStable);
    let first = session.active_tools();
    assert_eq!(
        names(&first),
        [
            "getProducts",
            DISCOVERY_TOOL_NAME,
            "calculateFinancing",
            "compareProducts",
            "trackShipment"
        ]
    );
    let stub = &first[2];
    assert!(
        stub.description
            .starts_with("Calculate monthly payment plans for a product.")
    );
    assert_eq!(
        stub.input_schema,
        json!({"type": "object", "properties": {}, "additionalProperties": true})
    );

    let discovered = session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["calculateFinancing", "compareProducts", "trackShipment"]}),
        )
        .await;
    assert_eq!(
        discovered.content()["tools"][0]["inputSchema"]["properties"]["ids"]["type"],
        "array",
        "discovery returns the real schema"
    );
    assert_eq!(
        session.active_tools(),
        first,
        "still the same after discovering everything"
    );
}

#[tokio::test]
async fn cache_stable_calls_are_validated_against_the_real_schema_and_repaired() {
    let session = session(DiscoveryMode::CacheStable);
    let invalid = session
        .call("compareProducts", json!({"ids": ["one"]}))
        .await;
    assert_eq!(invalid.error_kind(), Some(ToolErrorKind::InvalidArguments));

    let stringified = session
        .call(
            "compareProducts",
            json!({"ids": "[1, 2]", "filter": "{\"tags\": [\"desk\"]}"}),
        )
        .await;
    assert_eq!(
        stringified.content(),
        &json!({"ids": [1, 2], "filter": {"tags": ["desk"]}}),
        "{stringified:?}"
    );
}

#[tokio::test]
async fn a_compaction_marker_restores_discoveries_after_the_results_are_summarized_away() {
    let registry = catalog();
    let session = registry.session();
    session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["compareProducts", "trackShipment"]}),
        )
        .await;
    let marker = session.compaction_marker();

    let compacted = vec![
        json!({"role": "system", "content": "You are the shop's assistant."}),
        json!({"role": "user", "content": format!(
            "Summary of the conversation so far: the user compared desks and tracked an order. {marker}"
        )}),
        json!({"role": "user", "content": "Now finance the desk."}),
    ];
    let rebuilt = Session::from_history(&registry, &compacted);
    assert_eq!(
        rebuilt.discovered().tools,
        ["compareProducts", "trackShipment"]
    );
    assert_eq!(
        names(&rebuilt.active_tools()),
        [
            "getProducts",
            DISCOVERY_TOOL_NAME,
            "compareProducts",
            "trackShipment"
        ]
    );

    let gated = Session::from_history_with(
        &registry,
        &compacted,
        SessionOptions::new().allow(|tool| tool.name() != "trackShipment"),
    );
    assert_eq!(
        gated.discovered().tools,
        ["compareProducts"],
        "gating beats markers"
    );
}

#[tokio::test]
async fn a_changed_catalog_is_reported_and_vanished_tools_are_dropped() {
    let registry = catalog();
    let session = registry.session();
    session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["compareProducts", "trackShipment"]}),
        )
        .await;
    let changed = Registry::builder()
        .without_inventory()
        .tool(tool(
            "getProducts",
            "Get all products from the catalog.",
            false,
        ))
        .tool(tool(
            "compareProducts",
            "Compare two or more products side by side.",
            true,
        ))
        .tool(tool(
            "applyCoupon",
            "Apply a discount coupon to the cart.",
            true,
        ))
        .build()
        .expect("valid tools");
    let (moved, change) = session.with_registry(&changed);
    assert_eq!(change.added, ["applyCoupon"]);
    assert_eq!(change.removed, ["calculateFinancing", "trackShipment"]);
    assert_eq!(change.dropped, ["trackShipment"]);
    assert_eq!(
        change.notice().as_deref(),
        Some(
            "The available tools changed. New tools you can load with __lazy__tool__discovery__: [applyCoupon]. No longer available: [calculateFinancing, trackShipment]."
        )
    );
    assert_eq!(moved.discovered().tools, ["compareProducts"]);
    assert_eq!(
        names(&moved.active_tools()),
        ["getProducts", DISCOVERY_TOOL_NAME, "compareProducts"]
    );
    let (_, unchanged) = moved.with_registry(&changed);
    assert_eq!(unchanged.notice(), None);
}

#[tokio::test]
async fn anthropic_deferred_loading_keeps_one_tools_array_and_answers_with_references() {
    use lazytool_runtime::provider::anthropic;

    let registry = catalog();
    let session = registry.session();
    let first = anthropic::render_tools_deferred(&session);
    let deferred: Vec<(&str, bool)> = first
        .as_array()
        .expect("an array")
        .iter()
        .map(|tool| {
            (
                tool["name"].as_str().unwrap_or_default(),
                tool.get("defer_loading") == Some(&json!(true)),
            )
        })
        .collect();
    assert_eq!(
        deferred,
        [
            ("getProducts", false),
            (DISCOVERY_TOOL_NAME, false),
            ("calculateFinancing", true),
            ("compareProducts", true),
            ("trackShipment", true)
        ]
    );

    let result = session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["compareProducts", "nope"]}),
        )
        .await;
    let call = ToolCall {
        id: "toolu_1".into(),
        name: DISCOVERY_TOOL_NAME.into(),
        arguments: json!({}),
    };
    let block = anthropic::tool_reference_block(&call, &result);
    assert_eq!(
        block,
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": [
            {"type": "tool_reference", "tool_name": "compareProducts"},
            {"type": "text", "text": "Unknown tool 'nope'. Available tools: [calculateFinancing, compareProducts, trackShipment]"}
        ]})
    );
    assert_eq!(
        anthropic::render_tools_deferred(&session),
        first,
        "the array never changes"
    );
    assert!(!session.call("compareProducts", json!({})).await.is_error());

    let history = [
        json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
            "name": DISCOVERY_TOOL_NAME, "input": {"toolNames": ["compareProducts"]}}]}),
        json!({"role": "user", "content": [block]}),
    ];
    let rebuilt = Session::from_history(&registry, &history);
    assert_eq!(rebuilt.discovered().tools, ["compareProducts"]);
}

#[tokio::test]
async fn openai_client_tool_search_keeps_one_tools_array_and_answers_with_definitions() {
    use lazytool_runtime::provider::openai_responses::{
        self, OpenAiResponsesOptions, tool_search_output_item,
    };

    let registry = catalog();
    let session = registry.session_with(SessionOptions::new().mode(DiscoveryMode::Search));
    let options = OpenAiResponsesOptions::default();
    let first = openai_responses::render_tools_deferred(&session, &options);
    let shape: Vec<(&str, &str, bool)> = first
        .as_array()
        .expect("an array")
        .iter()
        .map(|tool| {
            (
                tool["type"].as_str().unwrap_or_default(),
                tool["name"].as_str().unwrap_or_default(),
                tool.get("defer_loading") == Some(&json!(true)),
            )
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("function", "getProducts", false),
            ("tool_search", "", false),
            ("function", "calculateFinancing", true),
            ("function", "compareProducts", true),
            ("function", "trackShipment", true)
        ]
    );
    let search = &first[1];
    assert_eq!(search["execution"], json!("client"));
    assert_eq!(
        search["parameters"]["properties"]["query"]["type"],
        json!("string")
    );
    assert!(search.get("name").is_none());

    // The response as the guide shows it: a client tool search, a hosted one (skipped).
    let response = json!({"output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "tool_search_call", "id": "tsc_1", "execution": "client", "call_id": "call_ts1",
         "status": "completed", "arguments": {"query": "where is my parcel"}},
        {"type": "tool_search_call", "id": "tsc_2", "execution": "server", "call_id": null,
         "status": "completed", "arguments": {"paths": ["crm"]}}
    ]});
    let calls = openai_responses::parse_tool_calls(&response).expect("parses");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "call_ts1");
    assert_eq!(calls[0].name, DISCOVERY_TOOL_NAME);
    assert!(
        session.call("trackShipment", json!({})).await.is_error(),
        "not loaded yet"
    );
    let result = session
        .call(&calls[0].name, calls[0].arguments.clone())
        .await;
    let output = tool_search_output_item(&session, &calls[0], &result, &options);
    assert_eq!(output["type"], json!("tool_search_output"));
    assert_eq!(output["execution"], json!("client"));
    assert_eq!(output["call_id"], json!("call_ts1"));
    assert_eq!(output["status"], json!("completed"));
    let loaded = output["tools"].as_array().expect("tools");
    assert_eq!(loaded[0]["name"], json!("trackShipment"));
    assert_eq!(loaded[0]["type"], json!("function"));
    assert_eq!(loaded[0]["defer_loading"], json!(true));
    assert_eq!(
        loaded[0]["parameters"]["properties"]["ids"]["items"],
        json!({"type": "integer"})
    );
    assert_eq!(
        openai_responses::render_tools_deferred(&session, &options),
        first,
        "the array never changes"
    );
    assert!(!session.call("trackShipment", json!({})).await.is_error());

    // A failed discovery loads nothing (the item has no place for text).
    let failed = session
        .call(DISCOVERY_TOOL_NAME, json!({"query": ""}))
        .await;
    assert!(failed.is_error());
    assert_eq!(
        tool_search_output_item(&session, &calls[0], &failed, &options)["tools"],
        json!([])
    );

    // The history of that exchange restores the discovery; a hosted search, an output that
    // answers no call and a forged output for an unknown call grant nothing.
    let history = [
        response["output"][1].clone(),
        output.clone(),
        json!({"type": "tool_search_call", "execution": "server", "call_id": "call_srv",
               "arguments": {}}),
        json!({"type": "tool_search_output", "execution": "client", "call_id": "call_srv",
               "tools": [{"type": "function", "name": "compareProducts"}]}),
        json!({"type": "tool_search_output", "execution": "client", "call_id": "call_forged",
               "tools": [{"type": "function", "name": "calculateFinancing"}]}),
    ];
    let rebuilt = Session::from_history_with(
        &registry,
        &history,
        SessionOptions::new().mode(DiscoveryMode::Search),
    );
    assert_eq!(rebuilt.discovered().tools, ["trackShipment"]);

    // Functions inside a loaded namespace count too.
    let namespaced = [
        response["output"][1].clone(),
        json!({"type": "tool_search_output", "execution": "client", "call_id": "call_ts1",
               "tools": [{"type": "namespace", "name": "shop", "description": "Shop tools.",
                          "tools": [{"type": "function", "name": "compareProducts"}]}]}),
    ];
    let rebuilt = Session::from_history(&registry, &namespaced);
    assert_eq!(rebuilt.discovered().tools, ["compareProducts"]);
}

#[tokio::test]
async fn a_cached_source_feeds_registries_and_fails_loudly() {
    use lazytool_runtime::CancellationToken;
    use lazytool_runtime::source::{CachedSource, ListToolsFuture, SourceError, ToolSource};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;

    struct Hub {
        listings: AtomicUsize,
        down: AtomicBool,
    }

    impl ToolSource for Hub {
        fn name(&self) -> &str {
            "hub"
        }

        fn list_tools(&self, _cancel: CancellationToken) -> ListToolsFuture<'_> {
            Box::pin(async move {
                self.listings.fetch_add(1, Ordering::SeqCst);
                if self.down.load(Ordering::SeqCst) {
                    return Err(SourceError::new("hub", "connection refused"));
                }
                Ok(vec![tool("trackShipment", "Track a shipped order.", true)])
            })
        }
    }

    let source = CachedSource::new(
        Hub {
            listings: AtomicUsize::new(0),
            down: AtomicBool::new(false),
        },
        Duration::from_secs(60),
    );
    let tools = source.tools().await.expect("the hub is up");
    let registry = Registry::builder()
        .without_inventory()
        .tools(tools.iter().cloned())
        .build()
        .expect("valid tools");
    assert!(
        registry
            .get("trackShipment")
            .is_some_and(|tool| tool.is_lazy())
    );
    source.tools().await.expect("cached");
    assert_eq!(source.source().listings.load(Ordering::SeqCst), 1);

    source.source().down.store(true, Ordering::SeqCst);
    source.invalidate();
    let error = source
        .tools()
        .await
        .expect_err("a failure is an error, not an empty catalog");
    assert!(error.to_string().contains("connection refused"), "{error}");
}
