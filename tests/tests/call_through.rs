//! Call-through sessions (`SessionOptions::call_through`): a tool list that never changes, and
//! lazy tools run through `__lazy__tool__call__` with every guarantee of a direct call.

use std::time::Duration;

use lazytool_runtime::{
    CALL_THROUGH_TOOL_NAME, CallLimits, DISCOVERY_TOOL_NAME, DiscoveryMode, DynamicTool, Registry,
    Session, SessionOptions, ToolErrorKind, ToolNameError, ToolResult, catalog_tools, tool,
    validate_tool_name,
};
use serde_json::{Value, json};

/// Get all products from the catalog.
#[tool(name = "getProducts")]
async fn get_products() -> Vec<u32> {
    vec![1, 2]
}

/// Calculate monthly payment plans for a product.
#[tool(lazy, name = "calculateFinancing", rename_all = "camelCase")]
async fn calculate_financing(product_id: u32, #[schemars(range(min = 1))] months: u32) -> Value {
    json!({"productId": product_id, "monthly": 300.0 / f64::from(months)})
}

/// Compare two or more products side by side.
#[tool(lazy, name = "compareProducts", rename_all = "camelCase")]
async fn compare_products(#[schemars(length(min = 2))] product_ids: Vec<u32>) -> Vec<u32> {
    product_ids
}

/// Always panics.
#[tool(lazy)]
async fn explode() -> u32 {
    panic!("boom")
}

/// Sleeps far longer than any test's timeout.
#[tool(lazy)]
async fn linger() -> u32 {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    1
}

/// Returns a large text.
#[tool(lazy)]
async fn flood() -> String {
    "x".repeat(10_000)
}

/// Deletes every order. Only for administrators.
#[tool(lazy, name = "purgeOrders")]
async fn purge_orders() -> &'static str {
    "purged"
}

fn shop_with(limits: CallLimits) -> Registry {
    Registry::builder()
        .limits(limits)
        .build()
        .expect("valid tools")
}

fn shop() -> Registry {
    shop_with(CallLimits::default())
}

fn through(registry: &Registry) -> Session {
    registry.session_with(SessionOptions::new().call_through(true))
}

fn names(session: &Session) -> Vec<String> {
    session
        .active_tools()
        .into_iter()
        .map(|tool| tool.name)
        .collect()
}

async fn run(session: &Session, call: Value) -> ToolResult {
    session.call(CALL_THROUGH_TOOL_NAME, call).await
}

#[tokio::test]
async fn the_list_is_fixed_whatever_is_discovered() {
    let registry = shop();
    let session = through(&registry);
    let first = session.active_tools();
    assert_eq!(
        names(&session),
        ["getProducts", DISCOVERY_TOOL_NAME, CALL_THROUGH_TOOL_NAME]
    );
    let every_lazy: Vec<String> = session.lazy_tool_names().to_vec();
    let found = session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": every_lazy}))
        .await;
    assert!(!found.is_error());
    assert_eq!(
        session.active_tools(),
        first,
        "discoveries never change the list"
    );
    assert_eq!(
        through(&registry).active_tools(),
        first,
        "nor does the session"
    );

    let discovery = &first[1];
    assert!(discovery.description.contains(CALL_THROUGH_TOOL_NAME));
    assert!(!discovery.description.contains("next turn"));
    let call_through = &first[2];
    assert_eq!(call_through.input_schema["required"], json!(["name"]));
    assert_eq!(
        call_through.input_schema["properties"]["arguments"]["type"],
        "object"
    );
}

#[tokio::test]
async fn discovery_results_say_how_to_run_the_tools() {
    let session = through(&shop());
    let found = session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"toolNames": ["calculateFinancing"]}),
        )
        .await;
    assert_eq!(found.content()["tools"][0]["name"], "calculateFinancing");
    let how = found.content()["howToCall"].as_str().unwrap_or_default();
    assert!(how.contains(CALL_THROUGH_TOOL_NAME), "{how}");

    // Nothing found, nothing to run: no instruction.
    let unknown = session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["nope"]}))
        .await;
    assert!(unknown.content().get("howToCall").is_none());
    assert!(unknown.content()["errors"][0].as_str().is_some());
}

#[tokio::test]
async fn runs_the_named_tool_with_objects_or_encoded_objects() {
    let session = through(&shop());
    let expected = json!({"productId": 1, "monthly": 25.0});
    let call = json!({"name": "calculateFinancing", "arguments": {"productId": 1, "months": 12}});
    assert_eq!(run(&session, call.clone()).await.content(), &expected);
    // The whole call as a JSON-encoded string (OpenAI), and the arguments alone.
    let encoded = run(&session, Value::String(call.to_string())).await;
    assert_eq!(encoded.content(), &expected);
    let inner =
        json!({"name": "calculateFinancing", "arguments": "{\"productId\": 1, \"months\": 12}"});
    assert_eq!(run(&session, inner).await.content(), &expected);
    // Eager tools can be run through it too; no arguments at all is `{}`.
    let products = run(&session, json!({"name": "getProducts"})).await;
    assert_eq!(products.content(), &json!([1, 2]));
}

#[tokio::test]
async fn arguments_are_validated_against_the_named_tools_schema() {
    let session = through(&shop());
    let invalid = run(
        &session,
        json!({"name": "calculateFinancing", "arguments": {"productId": 1, "months": 0}}),
    )
    .await;
    assert_eq!(invalid.error_kind(), Some(ToolErrorKind::InvalidArguments));
    assert!(
        invalid.text().contains("'calculateFinancing'"),
        "{}",
        invalid.text()
    );
    assert!(invalid.text().contains("/months"), "{}", invalid.text());

    let missing = run(
        &session,
        json!({"name": "calculateFinancing", "arguments": {"months": 12}}),
    )
    .await;
    assert!(missing.text().contains("productId"), "{}", missing.text());

    for (arguments, what) in [
        (json!([1, 2]), "an array"),
        (json!(7), "a number"),
        (json!("\"just a string\""), "a string"),
    ] {
        let refused = run(
            &session,
            json!({"name": "compareProducts", "arguments": arguments}),
        )
        .await;
        assert_eq!(refused.error_kind(), Some(ToolErrorKind::InvalidArguments));
        assert!(
            refused
                .text()
                .contains(&format!("must be a JSON object, not {what}")),
            "{}",
            refused.text()
        );
    }
    let broken = run(
        &session,
        json!({"name": "compareProducts", "arguments": "{\"productIds\": ["}),
    )
    .await;
    assert!(
        broken.text().contains("not valid JSON"),
        "{}",
        broken.text()
    );
    let stray = run(
        &session,
        json!({"name": "compareProducts", "productIds": [1, 2]}),
    )
    .await;
    assert!(
        stray.text().contains("inside \"arguments\""),
        "{}",
        stray.text()
    );
}

#[tokio::test]
async fn limits_apply_to_the_whole_call_before_anything_else() {
    let limits = CallLimits::default()
        .max_argument_depth(8)
        .max_argument_bytes(1024);
    let session = through(&shop_with(limits));
    // Built by hand: `json!` would copy the nested value recursively.
    let mut deep = json!(1);
    for _ in 0..100_000 {
        deep = Value::Array(vec![deep]);
    }
    let mut arguments = serde_json::Map::new();
    arguments.insert("productIds".to_owned(), deep);
    let mut call = serde_json::Map::new();
    call.insert("name".to_owned(), json!("compareProducts"));
    call.insert("arguments".to_owned(), Value::Object(arguments));
    let too_deep = run(&session, Value::Object(call)).await;
    assert_eq!(too_deep.error_kind(), Some(ToolErrorKind::InvalidArguments));
    assert!(
        too_deep
            .text()
            .contains("nested deeper than the limit of 8"),
        "{}",
        too_deep.text()
    );

    let large = json!({"name": "compareProducts", "arguments": {"productIds": [1, 2], "pad": "x".repeat(5000)}});
    let too_large = run(&session, large.clone()).await;
    assert!(
        too_large.text().contains("larger than the limit of 1024"),
        "{}",
        too_large.text()
    );
    let encoded = run(&session, Value::String(large.to_string())).await;
    assert!(
        encoded.text().contains("larger than the limit"),
        "{}",
        encoded.text()
    );

    // Arguments that fit are never refused for the envelope around them.
    // `{"p": "<1010 bytes>"}` is 1,018 bytes; with its envelope, over 1,024.
    let fits = json!({"p": "x".repeat(1010)});
    let at_the_limit = run(&session, json!({"name": "getProducts", "arguments": fits})).await;
    assert_eq!(at_the_limit.content(), &json!([1, 2]));
}

#[tokio::test]
async fn panics_timeouts_and_large_outputs_are_contained() {
    let limits = CallLimits::default()
        .timeout(Some(Duration::from_millis(50)))
        .max_output_bytes(500);
    let session = through(&shop_with(limits));
    let panicked = run(&session, json!({"name": "explode"})).await;
    assert_eq!(panicked.error_kind(), Some(ToolErrorKind::Panicked));
    let timed_out = run(&session, json!({"name": "linger"})).await;
    assert_eq!(timed_out.error_kind(), Some(ToolErrorKind::TimedOut));
    let flooded = run(&session, json!({"name": "flood"})).await;
    assert!(flooded.text().len() < 1000, "cut to the output limit");
    let products = run(&session, json!({"name": "getProducts"})).await;
    assert!(!products.is_error(), "the session stays usable");
}

#[tokio::test]
async fn unknown_and_gated_tools_get_a_bounded_list_of_what_can_run() {
    let registry = shop();
    let session = registry.session_with(
        SessionOptions::new()
            .call_through(true)
            .allow(|tool| tool.name() != "purgeOrders"),
    );
    for name in [
        "purgeOrders",
        "deleteEverything",
        DISCOVERY_TOOL_NAME,
        CALL_THROUGH_TOOL_NAME,
    ] {
        let refused = run(&session, json!({"name": name})).await;
        assert_eq!(
            refused.error_kind(),
            Some(ToolErrorKind::InvalidArguments),
            "{name}"
        );
        let text = refused.text();
        assert!(text.contains(&format!("'{name}'")), "{text}");
        assert!(
            text.contains("calculateFinancing, compareProducts"),
            "{text}"
        );
        assert!(
            !text.contains("purgeOrders, "),
            "a gated tool is never listed: {text}"
        );
    }
    // Called by its own name, a gated tool is unknown as ever.
    let direct = session.call("purgeOrders", json!({})).await;
    assert_eq!(direct.error_kind(), Some(ToolErrorKind::UnknownTool));

    let catalog = lazytool_tests::github_catalog::json();
    let tools = catalog_tools(&catalog, |_, _, _| async { Ok::<_, String>(Value::Null) })
        .expect("the catalog reads");
    let github = Registry::builder()
        .without_inventory()
        .tools(tools.into_iter().map(|tool| tool.lazy(true)))
        .build()
        .expect("valid tools");
    let refused = run(&through(&github), json!({"name": "nope"})).await;
    let text = refused.text();
    assert!(text.contains("... and 67 more]"), "{text}");
    assert!(text.len() < 2000, "bounded: {} bytes", text.len());
}

#[tokio::test]
async fn lazy_tools_called_by_name_run_validated_without_discovery() {
    let session = through(&shop());
    let direct = session
        .call("calculateFinancing", json!({"productId": 1, "months": 12}))
        .await;
    assert_eq!(direct.content()["monthly"], 25.0);
    let invalid = session
        .call(
            "calculateFinancing",
            json!({"productId": "one", "months": 12}),
        )
        .await;
    assert!(invalid.text().contains("/productId"), "{}", invalid.text());
}

#[tokio::test]
async fn search_mode_calls_through_too() {
    let registry = shop();
    let session = registry.session_with(
        SessionOptions::new()
            .mode(DiscoveryMode::Search)
            .call_through(true),
    );
    let tools = session.active_tools();
    assert_eq!(tools[1].name, DISCOVERY_TOOL_NAME);
    assert!(tools[1].description.contains(CALL_THROUGH_TOOL_NAME));
    assert_eq!(tools[2].name, CALL_THROUGH_TOOL_NAME);
    let found = session
        .call(
            DISCOVERY_TOOL_NAME,
            json!({"query": "monthly payment plans"}),
        )
        .await;
    assert_eq!(found.content()["tools"][0]["name"], "calculateFinancing");
    assert!(found.content()["howToCall"].is_string());
    assert_eq!(session.active_tools(), tools);
}

#[tokio::test]
async fn without_lazy_tools_nothing_changes() {
    let registry = Registry::builder()
        .filter(|spec| spec.name() == "getProducts")
        .build()
        .expect("valid tools");
    let session = through(&registry);
    assert_eq!(names(&session), ["getProducts"]);
    let unknown = run(&session, json!({"name": "getProducts"})).await;
    assert_eq!(unknown.error_kind(), Some(ToolErrorKind::UnknownTool));
    // Inline and cache-stable sessions list every tool already: they are left as they are.
    let stable = shop().session_with(
        SessionOptions::new()
            .mode(DiscoveryMode::CacheStable)
            .call_through(true),
    );
    assert!(
        !names(&stable)
            .iter()
            .any(|name| name == CALL_THROUGH_TOOL_NAME)
    );
}

#[test]
fn the_name_is_reserved() {
    assert_eq!(
        validate_tool_name(CALL_THROUGH_TOOL_NAME),
        Err(ToolNameError::Reserved)
    );
    let impostor = DynamicTool::new(
        CALL_THROUGH_TOOL_NAME,
        "Pretends.",
        json!({"type": "object"}),
        |_: Value, _| async { Ok::<_, String>(Value::Null) },
    );
    let built = Registry::builder()
        .without_inventory()
        .tool(impostor)
        .build();
    let error = built.expect_err("a reserved name is refused");
    assert!(
        error.to_string().contains(CALL_THROUGH_TOOL_NAME),
        "{error}"
    );
}
