//! Hostile scripts: each reaches a limit or tries to get out, and gets an error result
//! naming what stopped it, never a panic, a hang, or an effect on the next script.
#![cfg(feature = "code-mode")]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lazytool_runtime::{
    CODE_TOOL_NAME, CodeMode, DynamicTool, Registry, Session, SessionOptions, ToolContext,
    ToolErrorKind, ToolResult,
};
use serde_json::json;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// What the tools saw: calls of `secret`, a started `wait` and its cancellation token.
#[derive(Default)]
struct Seen {
    secret_calls: AtomicUsize,
    waiting: Notify,
    token: Mutex<Option<CancellationToken>>,
}

impl Seen {
    fn wait_was_cancelled(&self) -> bool {
        let token = self.token.lock().expect("the token's lock");
        token.as_ref().is_some_and(CancellationToken::is_cancelled)
    }
}

fn registry(seen: &Arc<Seen>) -> Registry {
    let echo = DynamicTool::new(
        "echo",
        "Echoes a text.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |arguments, _| async move { Ok::<_, String>(arguments["text"].clone()) },
    );
    let seen_secret = Arc::clone(seen);
    let secret = DynamicTool::new(
        "secret",
        "Admins only.",
        json!({"type": "object"}),
        move |_, _| {
            seen_secret.secret_calls.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, String>(json!("the secret")) }
        },
    );
    let seen_wait = Arc::clone(seen);
    let wait = DynamicTool::new(
        "wait",
        "Waits until cancelled.",
        json!({"type": "object"}),
        move |_, context: ToolContext| {
            let seen = Arc::clone(&seen_wait);
            async move {
                let token = context.cancellation().clone();
                *seen.token.lock().expect("the token's lock") = Some(token.clone());
                seen.waiting.notify_one();
                token.cancelled().await;
                Ok::<_, String>(json!("cancelled"))
            }
        },
    );
    let take = DynamicTool::new(
        "take",
        "Echoes its arguments.",
        json!({"type": "object"}),
        |arguments, _| async move { Ok::<_, String>(arguments) },
    );
    Registry::builder()
        .without_inventory()
        .tools([echo, secret, wait, take])
        .build()
        .expect("valid tools")
}

fn session_with(code: CodeMode) -> (Session, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    let options = SessionOptions::new()
        .code_mode(code)
        .allow(|tool| tool.name() != "secret");
    (registry(&seen).session_with(options), seen)
}

/// A session whose scripts stop after a second (short: hostile scripts run to their limit).
fn hostile_session() -> (Session, Arc<Seen>) {
    session_with(
        CodeMode::new()
            .wall_time(Duration::from_secs(1))
            .max_memory_bytes(16 << 20),
    )
}

async fn script(session: &Session, code: &str) -> ToolResult {
    session.call(CODE_TOOL_NAME, json!({ "code": code })).await
}

/// A session whose scripts reach their limits (memory, arguments, output) before any wall
/// time, however loaded the machine.
fn memory_session() -> (Session, Arc<Seen>) {
    session_with(
        CodeMode::new()
            .wall_time(Duration::from_secs(600))
            .max_memory_bytes(16 << 20),
    )
}

fn assert_stopped_by(result: &ToolResult, limit: &str) {
    assert!(result.is_error(), "{}", result.text());
    assert!(result.text().contains(limit), "{}", result.text());
}

#[tokio::test]
async fn a_busy_loop_ends_at_the_wall_time() {
    let (session, _) = hostile_session();
    let result = script(&session, "while (true) {}").await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::TimedOut));
    assert_stopped_by(&result, "wall time limit of 1s");
}

#[tokio::test]
async fn a_busy_loop_inside_a_promise_ends_at_the_wall_time() {
    let (session, _) = hostile_session();
    let result = script(&session, "await null;\nfor (;;) {}").await;
    assert_stopped_by(&result, "wall time limit of 1s");
    let result = script(
        &session,
        "Promise.resolve().then(() => { for (;;) {} });\nawait new Promise(() => {});",
    )
    .await;
    assert!(result.is_error(), "{}", result.text());
    assert!(result.text().contains("time limit"), "{}", result.text());
}

#[tokio::test]
async fn string_doubling_reaches_the_memory_limit() {
    let (session, _) = memory_session();
    let result = script(&session, "let s = 'x';\nwhile (true) s = s.repeat(2);").await;
    assert_stopped_by(&result, "memory limit of 16 MiB");
    // Concatenation builds ropes, which take little memory: the engine's own bound on a
    // string's length ends it.
    let result = script(&session, "let s = 'x';\nwhile (true) s = s + s;").await;
    assert_stopped_by(&result, "string too long");
}

#[tokio::test]
async fn array_growth_reaches_the_memory_limit() {
    let (session, _) = memory_session();
    let result = script(
        &session,
        "const a = [];\nwhile (true) a.push({ n: a.length });",
    )
    .await;
    assert_stopped_by(&result, "memory limit of 16 MiB");
}

#[tokio::test]
async fn deep_recursion_reaches_the_stack_limit() {
    let (session, _) = hostile_session();
    let result = script(
        &session,
        "function f(n) { return f(n + 1) + 1; }\nreturn f(0);",
    )
    .await;
    assert_stopped_by(&result, "stack limit of 256 KiB");
}

#[tokio::test]
async fn a_huge_console_log_reaches_the_output_limit() {
    let (session, _) = hostile_session();
    let result = script(&session, "for (;;) console.log('x'.repeat(1000));").await;
    assert_stopped_by(&result, "output limit of 100000 bytes");
    let result = script(&session, "console.log('x'.repeat(200000)); return 1;").await;
    assert_stopped_by(&result, "output limit");
}

#[tokio::test]
async fn a_catastrophic_regular_expression_ends_at_the_wall_time() {
    let (session, _) = hostile_session();
    let result = script(&session, "return /(a+)+$/.test('a'.repeat(40) + 'b');").await;
    assert_stopped_by(&result, "wall time limit of 1s");
}

#[tokio::test]
async fn a_polluted_prototype_or_tools_object_does_not_reach_the_next_script() {
    let (session, _) = hostile_session();
    let polluted = script(
        &session,
        "Object.prototype.polluted = 'yes';\nArray.prototype.map = null;\nJSON.parse = () => 'forged';\n\
         globalThis.tools = { echo: async () => 'forged' };\nglobalThis.leak = 1;\nreturn 'done';",
    )
    .await;
    assert_eq!(polluted.content(), "done");
    let next = script(
        &session,
        "return [({}).polluted ?? null, typeof [].map, typeof globalThis.leak, await tools.echo({ text: 'real' })];",
    )
    .await;
    assert_eq!(
        next.content(),
        &json!([null, "function", "undefined", "real"])
    );
    // Nor another session's.
    let (other, _) = hostile_session();
    let clean = script(&other, "return ({}).polluted ?? null;").await;
    assert_eq!(clean.content(), &json!(null));
}

#[tokio::test]
async fn eval_and_function_stay_in_the_sandbox() {
    let (session, _) = hostile_session();
    let result = script(
        &session,
        "const g = Function('return this')();\n\
         return [eval('1 + 1'), ...['require', 'process', 'std', 'os', 'setTimeout', 'setInterval', 'fetch', 'XMLHttpRequest', 'Deno', 'Bun']\n\
           .map((name) => typeof g[name])];",
    )
    .await;
    let mut expected = vec![json!(2)];
    expected.extend(std::iter::repeat_n(json!("undefined"), 10));
    assert_eq!(result.content(), &json!(expected), "{}", result.text());
    let imported = script(&session, "return await import('fs');").await;
    assert!(imported.is_error(), "{}", imported.text());
}

#[tokio::test]
async fn a_tool_the_principal_may_not_call_is_refused() {
    let (session, seen) = hostile_session();
    let result = script(&session, "return await tools.secret({});").await;
    assert!(result.is_error());
    assert!(result.text().contains("secret"), "{}", result.text());
    assert!(!result.text().contains("the secret"), "{}", result.text());
    assert_eq!(seen.secret_calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn the_code_tool_and_discovery_cannot_be_called_from_a_script() {
    let (session, _) = hostile_session();
    for name in [
        CODE_TOOL_NAME,
        "__lazy__tool__discovery__",
        "__lazy__tool__call__",
    ] {
        let result = script(
            &session,
            &format!("return await tools['{name}']({{ code: 'return 1', toolNames: ['echo'] }});"),
        )
        .await;
        assert!(result.is_error(), "{name}: {}", result.text());
        assert!(
            result.text().contains("cannot be called from a script"),
            "{name}: {}",
            result.text()
        );
    }
}

#[tokio::test]
async fn tool_calls_past_the_limit_stop_the_script_even_when_caught() {
    let (session, _) = session_with(CodeMode::new().max_tool_calls(3));
    let result = script(
        &session,
        "let ok = 0;\nfor (let i = 0; i < 5; i++) { try { await tools.echo({ text: 'a' }); ok++; } catch {} }\nreturn ok;",
    )
    .await;
    assert_stopped_by(&result, "limit of 3 tool calls");
}

#[tokio::test]
async fn a_script_over_the_source_limit_is_refused() {
    let (session, _) = session_with(CodeMode::new().max_source_bytes(100));
    let result = script(&session, &format!("return '{}';", "x".repeat(200))).await;
    assert_eq!(result.error_kind(), Some(ToolErrorKind::InvalidArguments));
    assert_stopped_by(&result, "source size limit of 100 bytes");
}

#[tokio::test]
async fn a_cancelled_script_cancels_the_tool_call_it_awaits() {
    let (session, seen) = session_with(CodeMode::new());
    let token = CancellationToken::new();
    let call = session.call_with_context(
        CODE_TOOL_NAME,
        json!({"code": "return await tools.wait({});"}),
        ToolContext::new().with_cancellation(token.clone()),
    );
    let running = tokio::spawn(call);
    seen.waiting.notified().await;
    token.cancel();
    let result = running.await.expect("the script's task");
    assert_stopped_by(&result, "the script was cancelled");
    assert!(seen.wait_was_cancelled());
}

#[tokio::test]
async fn a_dropped_script_cancels_the_tool_call_it_awaits() {
    let (session, seen) = session_with(CodeMode::new());
    let call = session.call(
        CODE_TOOL_NAME,
        json!({"code": "return await tools.wait({});"}),
    );
    let running = tokio::spawn(call);
    seen.waiting.notified().await;
    assert!(!seen.wait_was_cancelled());
    running.abort();
    assert!(running.await.is_err_and(|error| error.is_cancelled()));
    assert!(seen.wait_was_cancelled());
}

#[tokio::test]
async fn a_huge_return_value_is_cut_to_the_output_limit() {
    let (session, _) = memory_session();
    let result = script(&session, "return 'x'.repeat(500000);").await;
    assert!(!result.is_error(), "{}", result.text());
    assert!(result.text().len() <= 100_000, "{}", result.text().len());
}

#[tokio::test]
async fn a_script_awaiting_what_nothing_will_settle_ends_at_once() {
    // A wall time longer than any test: only seeing that nothing can settle ends it.
    let (session, _) = session_with(CodeMode::new().wall_time(Duration::from_secs(3600)));
    let result = script(&session, "await new Promise(() => {});\nreturn 1;").await;
    assert_stopped_by(&result, "nothing will settle");
    // Calls in flight are not mistaken for a stall.
    let result = script(
        &session,
        "const [a, b] = await Promise.all([tools.echo({ text: 'a' }), tools.echo({ text: 'b' })]);\nreturn a + b;",
    )
    .await;
    assert_eq!(result.content(), "ab");
}

/// What a script's failed call threw, as the script read it (`error.message`).
async fn thrown_by_call(session: &Session, arguments: &str) -> String {
    let result = script(
        session,
        &format!("{arguments}\ntry {{ await tools.take(args); return 'called'; }} catch (error) {{ return error.message; }}"),
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    result.content().as_str().unwrap_or_default().to_owned()
}

const TOO_LARGE: &str =
    "Error: the arguments of take are larger than the limit of 1048576 bytes; send less data.";

#[tokio::test]
async fn a_sparse_arrays_length_is_counted_before_its_items() {
    let (session, _) = memory_session();
    for length in ["2 ** 31 - 1", "2 ** 32 - 1", "1 << 20"] {
        let arguments = format!("const a = []; a.length = {length}; const args = {{ a }};");
        assert_eq!(
            thrown_by_call(&session, &arguments).await,
            TOO_LARGE,
            "{length}"
        );
    }
    // A proxy says what length it likes: counted all the same.
    let proxied = "const args = { a: new Proxy([], { get: (target, key) => key === 'length' ? 2 ** 31 : undefined }) };";
    assert_eq!(thrown_by_call(&session, proxied).await, TOO_LARGE);
}

#[tokio::test]
async fn shared_children_are_counted_at_every_visit() {
    let (session, _) = memory_session();
    // 61 levels, each array holding the same child twice: 2^60 leaves, under the depth limit.
    let arguments = "let x = 0;\nfor (let i = 0; i < 61; i++) x = [x, x];\nconst args = { x };";
    assert_eq!(thrown_by_call(&session, arguments).await, TOO_LARGE);
    let objects =
        "let x = {};\nfor (let i = 0; i < 61; i++) x = { a: x, b: x };\nconst args = { x };";
    assert_eq!(thrown_by_call(&session, objects).await, TOO_LARGE);
}

#[tokio::test]
async fn a_huge_string_is_counted_by_its_length() {
    let (session, _) = memory_session();
    for text in [
        "'x'.repeat(8 << 20)",
        "'é'.repeat(2 << 20)",
        "'x'.repeat(1 << 20)",
    ] {
        let arguments = format!("const args = {{ text: {text} }};");
        assert_eq!(
            thrown_by_call(&session, &arguments).await,
            TOO_LARGE,
            "{text}"
        );
    }
    let key = "const args = { ['k'.repeat(2 << 20)]: 1 };";
    assert_eq!(thrown_by_call(&session, key).await, TOO_LARGE);
    // Just under the limit: the call is made.
    let fits = "const args = { text: 'x'.repeat((1 << 20) - 20) };";
    assert_eq!(thrown_by_call(&session, fits).await, "called");
}

#[tokio::test]
async fn arguments_json_cannot_carry_are_refused_naming_why() {
    let (session, _) = memory_session();
    let cases = [
        (
            "const args = { n: 1n };",
            "Error: the arguments of take are not JSON: a BigInt is not JSON (convert it with String() or Number()).",
        ),
        (
            "const args = {}; args.self = args;",
            "Error: the arguments of take are not JSON: circular: an array or object contains itself.",
        ),
        (
            "let x = 1; for (let i = 0; i < 65; i++) x = [x]; const args = { x };",
            "Error: the arguments of take are not JSON: nested deeper than the limit of 64 levels.",
        ),
        (
            "const args = { text: 'a\\ud800b' };",
            "Error: the arguments of take are not JSON: a string holds a lone surrogate (half of a UTF-16 pair), which JSON cannot carry.",
        ),
        (
            "const args = { ['\\udc00']: 1 };",
            "Error: the arguments of take are not JSON: a string holds a lone surrogate (half of a UTF-16 pair), which JSON cannot carry.",
        ),
        (
            "const args = () => 1;",
            "Error: the arguments of take are not JSON: a function is not JSON.",
        ),
    ];
    for (arguments, expected) in cases {
        assert_eq!(
            thrown_by_call(&session, arguments).await,
            expected,
            "{arguments}"
        );
    }
    // 64 levels are within the limit, as they are for any call.
    let deep = "let x = 1; for (let i = 0; i < 63; i++) x = [x]; const args = { x };";
    assert_eq!(thrown_by_call(&session, deep).await, "called");
}

#[tokio::test]
async fn a_throwing_getter_in_the_arguments_throws_its_own_error() {
    let (session, _) = memory_session();
    let getter = "const args = { get text() { throw new RangeError('mine'); } };";
    assert_eq!(thrown_by_call(&session, getter).await, "mine");
    let to_json = "const args = { a: { toJSON() { throw new Error('from toJSON'); } } };";
    assert_eq!(thrown_by_call(&session, to_json).await, "from toJSON");
    let trap = "const args = new Proxy({}, { ownKeys() { throw new Error('from a trap'); } });";
    assert_eq!(thrown_by_call(&session, trap).await, "from a trap");
    // `toJSON` and proxies are read as JSON.stringify reads them.
    let read = script(
        &session,
        "return await tools.take({ d: { toJSON: (key) => 'at ' + key }, p: new Proxy([1, 2], {}) });",
    )
    .await;
    assert_eq!(read.content(), &json!({"d": "at d", "p": [1, 2]}));
}

#[tokio::test]
async fn an_interrupt_while_the_arguments_are_read_cannot_be_caught() {
    let (session, _) = hostile_session();
    for evil in [
        "{ get text() { for (;;) {} } }",
        "{ text: { toJSON() { for (;;) {} } } }",
        "new Proxy({}, { ownKeys() { for (;;) {} } })",
        "new Proxy([], { get() { for (;;) {} } })",
    ] {
        let result = script(
            &session,
            &format!("const evil = {evil};\nfor (;;) try {{ await tools.take(evil); }} catch {{}}"),
        )
        .await;
        assert_eq!(
            result.error_kind(),
            Some(ToolErrorKind::TimedOut),
            "{evil}: {}",
            result.text()
        );
        assert_stopped_by(&result, "wall time limit of 1s");
    }
}

/// The error a script's return value gives.
async fn returned_error(session: &Session, code: &str) -> String {
    let result = script(session, code).await;
    assert!(result.is_error(), "{code}: a success: {}", result.text());
    result.text()
}

const NOT_JSON: &str = "Error: the script's return value is not JSON: ";

#[tokio::test]
async fn a_return_value_json_cannot_carry_is_an_error_never_null() {
    let (session, _) = memory_session();
    let cases = [
        (
            "const a = []; a.push(a); return a;",
            "circular: an array or object contains itself",
        ),
        (
            "const o = { n: 1 }; o.o = o; return o;",
            "circular: an array or object contains itself",
        ),
        (
            "return 10n;",
            "a BigInt is not JSON (convert it with String() or Number())",
        ),
        (
            "return { n: [1, 2n] };",
            "a BigInt is not JSON (convert it with String() or Number())",
        ),
        (
            "let x = 1; for (let i = 0; i < 65; i++) x = [x]; return x;",
            "nested deeper than the limit of 64 levels",
        ),
        (
            "let x = 1; for (let i = 0; i < 128; i++) x = { x }; return x;",
            "nested deeper than the limit of 64 levels",
        ),
        (
            "return 'a\\ud800';",
            "a string holds a lone surrogate (half of a UTF-16 pair), which JSON cannot carry",
        ),
        (
            "return { ['\\udfff']: 1 };",
            "a string holds a lone surrogate (half of a UTF-16 pair), which JSON cannot carry",
        ),
        (
            "return { toJSON() { throw new Error('nope'); } };",
            "reading it threw Error: nope",
        ),
        (
            "return { a: { toJSON() { return { b: { toJSON() { throw new TypeError('deeper'); } } }; } } };",
            "reading it threw TypeError: deeper",
        ),
        (
            "return { get x() { throw new Error('mine'); } };",
            "reading it threw Error: mine",
        ),
        ("return () => 1;", "a function is not JSON"),
        ("return Symbol('s');", "a symbol is not JSON"),
    ];
    for (code, why) in cases {
        let text = returned_error(&session, code).await;
        assert_eq!(
            text,
            format!(
                "{NOT_JSON}{why}. Return plain data: objects, arrays, strings, numbers, booleans or null."
            ),
            "{code}"
        );
    }
    // The console lines still come back with the error.
    let text = returned_error(&session, "console.log('before');\nreturn 1n;").await;
    assert!(text.ends_with("\nconsole:\nbefore"), "{text}");
}

#[tokio::test]
async fn undefined_and_null_returns_stay_successes() {
    let (session, _) = memory_session();
    for code in [
        "return;",
        "return undefined;",
        "return null;",
        "const x = 1;",
    ] {
        let result = script(&session, code).await;
        assert!(!result.is_error(), "{code}: {}", result.text());
        assert_eq!(result.content(), &json!(null), "{code}");
    }
    // What JSON.stringify leaves out of a value is left out, as it would be.
    let result = script(
        &session,
        "return { a: undefined, f() {}, b: [undefined, () => 1], n: NaN };",
    )
    .await;
    assert_eq!(result.content(), &json!({"b": [null, null], "n": null}));
}

#[tokio::test]
async fn an_interrupt_while_the_return_value_is_read_ends_at_the_wall_time() {
    let (session, _) = hostile_session();
    let result = script(&session, "return { get x() { for (;;) {} } };").await;
    assert_stopped_by(&result, "wall time limit of 1s");
    let result = script(&session, "return { toJSON() { for (;;) {} } };").await;
    assert_stopped_by(&result, "wall time limit of 1s");
}

#[tokio::test]
async fn a_return_value_over_the_output_limit_is_cut_not_parsed() {
    let (session, _) = memory_session();
    // Far more values than the output limit holds: given as text, cut with a notice.
    let result = script(&session, "return new Array(1 << 17).fill([0]);").await;
    assert!(!result.is_error(), "{}", result.text());
    assert!(result.text().len() <= 100_000, "{}", result.text().len());
    assert!(
        result.text().starts_with("[[0],[0]"),
        "{}",
        &result.text()[..20]
    );
    // A cycle past the limit is still a cycle.
    let text = returned_error(
        &session,
        "const a = new Array(1 << 17).fill(0); a.push(a); return a;",
    )
    .await;
    assert!(text.starts_with(NOT_JSON), "{text}");
}

#[tokio::test]
async fn a_console_line_with_a_lone_surrogate_is_written_with_a_replacement() {
    let (session, _) = memory_session();
    let result = script(
        &session,
        "console.log('a\\ud800b', '\\udc00');\nconsole.log({ s: '\\ud800' });\nreturn 'done';",
    )
    .await;
    assert!(!result.is_error(), "{}", result.text());
    assert!(
        result.text().contains("a\u{FFFD}b \u{FFFD}"),
        "{}",
        result.text()
    );
    // JSON.stringify escapes it instead.
    assert!(
        result.text().contains(r#"{"s":"\ud800"}"#),
        "{}",
        result.text()
    );
}

#[tokio::test]
async fn a_script_that_closes_its_wrapper_gets_a_syntax_error() {
    let (session, seen) = memory_session();
    for code in [
        "}); (() => {",
        "}); (async () => {",
        "}, async () => {",
        "}); tools.secret({}); (async () => {",
        "})(); (async () => {",
    ] {
        let result = script(&session, code).await;
        assert_eq!(
            result.error_kind(),
            Some(ToolErrorKind::InvalidArguments),
            "{code}: {}",
            result.text()
        );
        assert!(
            result
                .text()
                .starts_with("Error: the script has a syntax error at line 1"),
            "{code}: {}",
            result.text()
        );
        assert!(!result.text().contains("convert"), "{}", result.text());
    }
    assert_eq!(seen.secret_calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn no_binding_text_reaches_the_model() {
    let (session, _) = memory_session();
    for code in [
        "return await tools['\\ud800']({});",
        "return await tools.take({ text: 'a' }, 2, 3);",
        "return await tools.take();",
        "return await tools.take(null);",
    ] {
        let result = script(&session, code).await;
        let text = result.text();
        assert!(
            !text.contains("converting") && !text.contains("rquickjs") && !text.contains("FromJs"),
            "{code}: {text}"
        );
    }
}

/// A registry with an eager and a lazy tool of each kind: open ones, and `*secret*` ones
/// a principal may be refused.
fn rights_registry() -> Registry {
    let tool = |name: &str, lazy: bool| {
        DynamicTool::new(
            name.to_owned(),
            format!("The {name} tool."),
            json!({"type": "object"}),
            |_, _| async { Ok::<_, String>(json!("done")) },
        )
        .lazy(lazy)
    };
    Registry::builder()
        .without_inventory()
        .tools([
            tool("open_eager", false),
            tool("secret_eager", false),
            tool("open_lazy", true),
            tool("secret_lazy", true),
        ])
        .build()
        .expect("valid tools")
}

fn offered(session: &Session) -> Vec<String> {
    (session.active_definitions().iter())
        .map(|tool| tool.name.clone())
        .collect()
}

#[tokio::test]
async fn a_principal_that_may_call_no_tool_is_offered_no_code_tool() {
    let registry = rights_registry();
    for direct_calls in [false, true] {
        let options = SessionOptions::new()
            .code_mode(CodeMode::new().direct_calls(direct_calls))
            .allow(|_| false);
        let session = registry.session_with(options);
        assert!(offered(&session).is_empty(), "{:?}", offered(&session));
        let result = script(&session, "return 1;").await;
        let unknown = session.call("no_such_tool", json!({})).await;
        assert_eq!(
            result.error_kind(),
            Some(ToolErrorKind::UnknownTool),
            "{}",
            result.text()
        );
        assert_eq!(result.error_kind(), unknown.error_kind());
    }
    // One lazy tool is enough.
    let options = SessionOptions::new()
        .code_mode(CodeMode::new())
        .allow(|tool| tool.name() == "open_lazy");
    let session = registry.session_with(options);
    assert!(offered(&session).contains(&CODE_TOOL_NAME.to_owned()));
}

#[tokio::test]
async fn the_code_tools_declarations_list_only_what_the_principal_may_call() {
    let registry = rights_registry();
    let options = SessionOptions::new()
        .code_mode(CodeMode::new())
        .allow(|tool| !tool.name().contains("secret"));
    let session = registry.session_with(options);
    let definitions = session.active_definitions();
    let code = (definitions.iter())
        .find(|tool| tool.name == CODE_TOOL_NAME)
        .expect("the code tool");
    assert!(
        code.description.contains("open_eager"),
        "{}",
        code.description
    );
    assert!(
        code.description.contains("open_lazy"),
        "{}",
        code.description
    );
    assert!(!code.description.contains("secret"), "{}", code.description);
    assert_eq!(session.lazy_tool_names(), ["open_lazy"]);
    let found = session
        .call(
            "__lazy__tool__discovery__",
            json!({"toolNames": ["open_lazy", "secret_lazy"]}),
        )
        .await;
    let declarations = found.content()["declarations"].as_str().unwrap_or_default();
    assert!(declarations.contains("open_lazy"), "{}", found.text());
    assert!(!found.text().contains("secret_lazy("), "{}", found.text());
    let refused = script(&session, "return await tools.secret_eager({});").await;
    assert!(refused.is_error(), "{}", refused.text());
}
