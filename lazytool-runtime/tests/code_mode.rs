//! Code mode as a model meets it: the code tool in the list, declarations in its
//! description, scripts whose tool calls are ordinary calls, and their results.
#![cfg(feature = "code-mode")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use lazytool_runtime::{
    CODE_TOOL_NAME, CodeMode, DISCOVERY_TOOL_NAME, DynamicTool, Registry, Session, SessionOptions,
    ToolContext, ToolErrorKind, ToolResult,
};
use serde_json::{Value, json};

fn registry() -> Registry {
    let price = DynamicTool::new(
        "get_price",
        "The price of a product.",
        json!({"type": "object", "properties": {"sku": {"type": "string", "description": "The product's SKU."}}, "required": ["sku"]}),
        |arguments, _| async move {
            match arguments["sku"].as_str() {
                Some("desk") => Ok(json!({"sku": "desk", "price": 480})),
                Some("lamp") => Ok(json!({"sku": "lamp", "price": 35})),
                _ => Err("no such product"),
            }
        },
    )
    .output_schema(json!({"type": "object", "properties": {"sku": {"type": "string"}, "price": {"type": "number"}}, "required": ["sku", "price"]}));
    let skus = DynamicTool::new(
        "list_skus",
        "Every SKU.",
        json!({"type": "object"}),
        |_, _| async { Ok::<_, String>(json!(["desk", "lamp"])) },
    );
    let order = DynamicTool::new(
        "place_order",
        "Places an order.",
        json!({"type": "object", "properties": {"items": {"type": "array", "items": {"type": "string"}}}, "required": ["items"]}),
        |arguments, context: ToolContext| async move {
            Ok::<_, String>(json!({"items": arguments["items"], "id": context.call_id()}))
        },
    )
    .lazy(true);
    Registry::builder()
        .without_inventory()
        .tools([price, skus, order])
        .build()
        .expect("a registry of valid tools")
}

fn code_session(registry: &Registry, code: CodeMode) -> Session {
    registry.session_with(SessionOptions::new().code_mode(code))
}

async fn script(session: &Session, code: &str) -> ToolResult {
    session.call(CODE_TOOL_NAME, json!({ "code": code })).await
}

fn names(session: &Session) -> Vec<String> {
    session
        .active_tools()
        .into_iter()
        .map(|tool| tool.name)
        .collect()
}

#[test]
fn code_mode_alone_offers_discovery_and_the_code_tool() {
    let registry = registry();
    let session = code_session(&registry, CodeMode::new());
    assert_eq!(names(&session), [DISCOVERY_TOOL_NAME, CODE_TOOL_NAME]);
    let beside = code_session(&registry, CodeMode::new().direct_calls(true));
    assert_eq!(
        names(&beside),
        [
            "get_price",
            "list_skus",
            DISCOVERY_TOOL_NAME,
            CODE_TOOL_NAME
        ]
    );
}

#[test]
fn the_description_declares_the_eager_tools_and_names_the_lazy_ones() {
    let session = code_session(&registry(), CodeMode::new());
    let tools = session.active_tools();
    let description = &tools.last().expect("the code tool").description;
    assert!(
        description.contains("declare const tools: {"),
        "{description}"
    );
    assert!(
        description.contains("  /** The price of a product. */\n  get_price(args: { /** The product's SKU. */ sku: string }): Promise<{ sku: string; price: number }>;"),
        "{description}"
    );
    assert!(
        description.contains("list_skus(args?: Record<string, unknown>): Promise<unknown>;"),
        "{description}"
    );
    assert!(description.ends_with("place_order"), "{description}");
}

#[tokio::test]
async fn a_script_chains_calls_and_only_its_answer_comes_back() {
    let session = code_session(&registry(), CodeMode::new());
    let result = script(
        &session,
        "const skus = await tools.list_skus();\n\
         const prices = await Promise.all(skus.map((sku) => tools.get_price({ sku })));\n\
         return { total: prices.reduce((sum, p) => sum + p.price, 0) };",
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    assert_eq!(result.content(), &json!({"total": 515}));
    // An object is structured (MCP `structuredContent`), its text its JSON.
    assert_eq!(result.structured(), Some(&json!({"total": 515})));
    assert_eq!(result.text(), r#"{"total":515}"#);
}

#[tokio::test]
async fn console_lines_follow_the_value() {
    let session = code_session(&registry(), CodeMode::new());
    let result = script(
        &session,
        "console.log('checking', {n: 1}); return {ok: true};",
    )
    .await;
    assert_eq!(result.structured(), Some(&json!({"ok": true})));
    assert_eq!(result.text(), "{\"ok\":true}\nchecking {\"n\":1}");
    let result = script(&session, "console.log('a'); return 'done';").await;
    assert_eq!(result.text(), "done\na");
}

#[tokio::test]
async fn a_tool_error_is_an_exception_with_the_tools_text() {
    let session = code_session(&registry(), CodeMode::new());
    let caught = script(
        &session,
        "try { await tools.get_price({ sku: 'sofa' }); } catch (e) { return e.message; }",
    )
    .await;
    assert_eq!(caught.content(), "no such product");
    let uncaught = script(&session, "return await tools.get_price({ sku: 'sofa' });").await;
    assert_eq!(uncaught.error_kind(), Some(ToolErrorKind::ToolFailed));
    assert!(
        uncaught
            .text()
            .starts_with("Error: the script threw Error: no such product"),
        "{}",
        uncaught.text()
    );
    let invalid = script(&session, "return await tools.get_price({ sku: 7 });").await;
    assert!(invalid.text().contains("/sku"), "{}", invalid.text());
}

#[tokio::test]
async fn a_call_that_finishes_at_once_is_still_a_promise() {
    let session = code_session(&registry(), CodeMode::new());
    let result = script(
        &session,
        "const price = tools.get_price({ sku: 'desk' });\n\
         const failed = tools.get_price({ sku: 'sofa' }).catch((e) => e.message);\n\
         return [price instanceof Promise, await price.then((p) => p.price), await failed];",
    )
    .await;
    assert_eq!(
        result.content(),
        &json!([true, 480, "no such product"]),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn an_exception_carries_the_scripts_own_stack() {
    let session = code_session(&registry(), CodeMode::new());
    let result = script(
        &session,
        "const a = 1;\nfunction f() { throw new TypeError('bad'); }\nf();",
    )
    .await;
    let text = result.text();
    assert!(
        text.starts_with("Error: the script threw TypeError: bad"),
        "{text}"
    );
    assert!(text.contains("script.js:2:"), "{text}");
    assert!(!text.contains(".rs") && !text.contains("/src/"), "{text}");
}

#[tokio::test]
async fn a_syntax_error_gives_the_line_and_column_of_the_source() {
    let session = code_session(&registry(), CodeMode::new());
    let result = script(&session, "const a = 1;\nconst b = a +;\n").await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::InvalidArguments));
    assert!(
        result
            .text()
            .starts_with("Error: the script has a syntax error at line 2, column 14"),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn arguments_are_repaired_like_a_direct_calls() {
    let session = code_session(&registry(), CodeMode::new());
    let result = script(
        &session,
        "return await tools.get_price(JSON.stringify({ sku: 'lamp' }));",
    )
    .await;
    // A JSON-encoded object for the arguments themselves is taken as the object.
    assert_eq!(result.content()["price"], 35, "{}", result.text());
}

#[tokio::test]
async fn arguments_are_read_as_the_engines_json_stringify_writes_them() {
    let received = Arc::new(std::sync::Mutex::new(Value::Null));
    let keep = Arc::clone(&received);
    let echo = DynamicTool::new(
        "echo",
        "Keeps its arguments.",
        json!({"type": "object"}),
        move |arguments, _| {
            *keep.lock().expect("not poisoned") = arguments;
            async { Ok::<_, String>(json!(true)) }
        },
    );
    let registry = (Registry::builder().without_inventory().tool(echo).build())
        .expect("a registry of valid tools");
    let session = code_session(&registry, CodeMode::new());
    let result = script(
        &session,
        "const args = { n: 3.0, half: 0.5, big: 2 ** 53, huge: 1e300, nan: NaN, gone: undefined, f() {},\n\
           when: new Date(0), list: [undefined, () => 1, 'a', -0], nested: { deep: { er: [true, null] } },\n\
           own: Object.assign(Object.create({ inherited: 1 }), { mine: 2 }), custom: { toJSON: () => 'mine' },\n\
           [Symbol('s')]: 1, map: new Map([[1, 2]]), proxied: new Proxy({ a: 1 }, {}), text: 'caf\\u00e9 \\ud83d\\ude00' };\n\
         await tools.echo(args);\n\
         return JSON.parse(JSON.stringify(args));",
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    let read = received.lock().expect("not poisoned").clone();
    assert_eq!(
        &read,
        result.content(),
        "the host reads what JSON.stringify writes"
    );
    assert_eq!(
        read,
        json!({
            "n": 3, "half": 0.5, "big": 9_007_199_254_740_992u64, "huge": 1e300, "nan": null,
            "when": "1970-01-01T00:00:00.000Z", "list": [null, null, "a", 0],
            "nested": {"deep": {"er": [true, null]}}, "own": {"mine": 2}, "custom": "mine",
            "map": {}, "proxied": {"a": 1}, "text": "café 😀"
        })
    );
    assert!(read["n"].is_u64(), "an integral number is an integer");

    for (code, why) in [
        (
            "const a = {}; a.self = a; return await tools.echo(a);",
            "circular",
        ),
        ("return await tools.echo({ n: 1n });", "BigInt"),
    ] {
        let refused = script(&session, code).await;
        assert!(refused.is_error(), "{code}: {}", refused.text());
        assert!(
            refused
                .text()
                .contains("the arguments of echo are not JSON")
                && refused.text().contains(why),
            "{code}: {}",
            refused.text()
        );
    }
}

#[tokio::test]
async fn a_lazy_tool_is_called_once_discovered_and_discovery_answers_in_typescript() {
    let session = code_session(&registry(), CodeMode::new());
    let early = script(
        &session,
        "return await tools.place_order({ items: ['desk'] });",
    )
    .await;
    assert!(
        early.text().contains("must be discovered first"),
        "{}",
        early.text()
    );

    let found = session
        .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["place_order"]}))
        .await;
    assert_eq!(found.content()["tools"], json!([{"name": "place_order"}]));
    let declarations = found.content()["declarations"]
        .as_str()
        .expect("declarations");
    assert!(
        declarations.contains("place_order(args: { items: string[] }): Promise<unknown>;"),
        "{declarations}"
    );
    assert_eq!(
        found.discovered().expect("a discovered set").tools,
        ["place_order"]
    );

    session.begin_turn();
    let result = session
        .call_with_context(
            CODE_TOOL_NAME,
            json!({"code": "return await tools.place_order({ items: ['desk'] });"}),
            ToolContext::new().with_call_id("call_9"),
        )
        .await;
    // The script's calls are children of its own: their ids say so.
    assert_eq!(
        result.content(),
        &json!({"items": ["desk"], "id": "call_9/1"})
    );
}

#[tokio::test]
async fn direct_calls_are_refused_when_code_mode_is_alone() {
    let registry = registry();
    let session = code_session(&registry, CodeMode::new());
    let refused = session.call("get_price", json!({"sku": "desk"})).await;
    assert_eq!(refused.error_kind(), Some(ToolErrorKind::UnknownTool));
    assert!(
        refused.text().contains(CODE_TOOL_NAME),
        "{}",
        refused.text()
    );
    let beside = code_session(&registry, CodeMode::new().direct_calls(true));
    let direct = beside.call("get_price", json!({"sku": "desk"})).await;
    assert_eq!(direct.content()["price"], 480);
}

#[tokio::test]
async fn promise_all_runs_calls_concurrently_within_the_bound() {
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    // Each call waits for a second one to be in flight: run one at a time, they would never
    // finish (the script's wall time would end them).
    let gate = Arc::new(tokio::sync::Barrier::new(2));
    let (counter, peak) = (Arc::clone(&in_flight), Arc::clone(&most));
    let pair = DynamicTool::new(
        "pair",
        "Waits for a partner.",
        json!({"type": "object"}),
        move |_, _| {
            let (counter, peak, gate) =
                (Arc::clone(&counter), Arc::clone(&peak), Arc::clone(&gate));
            async move {
                let now = counter.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                gate.wait().await;
                counter.fetch_sub(1, Ordering::SeqCst);
                Ok::<_, String>(json!(now))
            }
        },
    );
    let registry = Registry::builder()
        .without_inventory()
        .tool(pair)
        .build()
        .expect("a valid tool");
    let session = code_session(&registry, CodeMode::new().max_concurrent_calls(2));
    let result = script(
        &session,
        "const all = await Promise.all([1, 2, 3, 4].map(() => tools.pair()));\nreturn all.length;",
    )
    .await;
    assert_eq!(result.content(), &json!(4), "{}", result.text());
    assert_eq!(most.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn undefined_and_non_json_values_come_back_as_null() {
    let session = code_session(&registry(), CodeMode::new());
    assert_eq!(
        script(&session, "const x = 1;").await.content(),
        &Value::Null
    );
    assert_eq!(
        script(&session, "return [1, 'a'];").await.content(),
        &json!([1, "a"])
    );
}
