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
    Registry::builder()
        .without_inventory()
        .tools([echo, secret, wait])
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

/// A session whose scripts reach their memory limit before any wall time, however loaded
/// the machine.
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
    let (session, _) = hostile_session();
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
