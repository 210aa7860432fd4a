//! Per-turn cost of a stateless server: rebuilding the session from the message history
//! (`Session::from_history`), building the active tool list, and rendering it as the OpenAI
//! Chat `tools` array, for 10 to 10,000 dynamic tools (names mode, half of them lazy, 5
//! discovered) and histories of 10 to 1,000 OpenAI Chat messages.
//!
//! Three functions per case, each including the previous one's work, to show what share of
//! the turn is JSON:
//!
//! - `build`: `Session::from_history` + `active_definitions()` (the shared definitions, not
//!   copied);
//! - `render`: + `openai_chat::render_tools` (the `serde_json::Value` tree);
//! - `serialize`: + `serde_json::to_string` (the request's bytes).
//!
//! And `session_new`: a new session alone, what a stateless MCP request starts with, ungated
//! (`registry.session()`, whose tool list is built once per registry) and gated by a rule
//! that allows every tool (which walks the tools on every session).
//!
//! `cargo bench -p lazytool-runtime --bench turn`

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use lazytool_runtime::provider::openai_chat::{self, OpenAiChatOptions};
use lazytool_runtime::{
    DISCOVERY_TOOL_NAME, DynamicTool, Registry, Session, SessionOptions, ToolCall,
};
use serde_json::{Value, json};

const TOOL_COUNTS: [usize; 4] = [10, 100, 1_000, 10_000];
const HISTORY_LENGTHS: [usize; 3] = [10, 100, 1_000];
const DISCOVERED: usize = 5;

fn tool_name(index: usize) -> String {
    format!("tool_{index:05}")
}

/// `count` tools with a schema of a typical size (four described properties); the odd ones
/// are lazy.
fn registry(count: usize) -> Registry {
    let tools = (0..count).map(|index| {
        let schema = json!({
            "type": "object",
            "properties": {
                "owner": {"type": "string", "description": "The account that owns the repository."},
                "repo": {"type": "string", "description": "The repository's name."},
                "page": {"type": "integer", "minimum": 1, "description": "The page of results, from 1."},
                "state": {"type": "string", "enum": ["open", "closed", "all"], "description": "Which items to list."}
            },
            "required": ["owner", "repo"]
        });
        DynamicTool::new(
            tool_name(index),
            format!("Tool number {index}: lists the items of a repository, a page at a time."),
            schema,
            |_: Value, _| async { Ok::<_, String>(json!({"items": []})) },
        )
        .lazy(!index.is_multiple_of(2))
    });
    Registry::builder()
        .without_inventory()
        .tools(tools)
        .build()
        .expect("valid tools")
}

fn assistant_call(id: &str, name: &str, arguments: &Value) -> Value {
    json!({
        "role": "assistant",
        "content": null,
        "tool_calls": [{
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": arguments.to_string()}
        }]
    })
}

/// An OpenAI Chat history of exactly `length` messages: a discovery of 2 lazy tools at the
/// start and of 3 more in the middle (each a call and its real result), the rest ordinary
/// rounds (a user message, a call of an eager or discovered tool, its result, the
/// assistant's answer).
async fn history(registry: &Registry, length: usize) -> Vec<Value> {
    let session = registry.session();
    let lazy: Vec<String> = (0..DISCOVERED).map(|k| tool_name(2 * k + 1)).collect();
    let mut discoveries = vec![(0, &lazy[..2]), (length / 2, &lazy[2..])];
    let mut messages = vec![json!({"role": "system", "content": "You are a helpful assistant."})];
    let mut round = 0;
    while messages.len() < length {
        if let Some(&(at, names)) = discoveries.first()
            && messages.len() >= at
            && length - messages.len() >= 2
        {
            discoveries.remove(0);
            let id = format!("call_discovery_{round}");
            let arguments = json!({ "toolNames": names });
            let result = session.call(DISCOVERY_TOOL_NAME, arguments.clone()).await;
            messages.push(assistant_call(&id, DISCOVERY_TOOL_NAME, &arguments));
            let call = ToolCall {
                id,
                name: DISCOVERY_TOOL_NAME.to_owned(),
                arguments,
            };
            messages.push(openai_chat::tool_result_message(&call, &result));
        } else {
            let id = format!("call_{round}");
            let name = tool_name(2 * (round % DISCOVERED));
            let arguments = json!({"owner": "octocat", "repo": "hello-world", "page": round + 1});
            messages.push(
                json!({"role": "user", "content": format!("Show me page {} please.", round + 1)}),
            );
            messages.push(assistant_call(&id, &name, &arguments));
            messages.push(json!({
                "role": "tool",
                "tool_call_id": id,
                "content": json!({"items": [{"id": round, "title": "Fix the build"}]}).to_string()
            }));
            messages.push(json!({"role": "assistant", "content": "Here is that page: one item, Fix the build."}));
        }
        round += 1;
    }
    messages.truncate(length);
    messages
}

fn build(registry: &Registry, history: &[Value]) -> usize {
    let session = Session::from_history(registry, history);
    session.active_definitions().len()
}

fn render(registry: &Registry, history: &[Value]) -> Value {
    let session = Session::from_history(registry, history);
    openai_chat::render_tools(&session.active_definitions(), &OpenAiChatOptions::default())
}

fn serialize(registry: &Registry, history: &[Value]) -> String {
    serde_json::to_string(&render(registry, history)).expect("serializable")
}

fn turn(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("turn");
    for tools in TOOL_COUNTS {
        let registry = registry(tools);
        for messages in HISTORY_LENGTHS {
            let history = runtime.block_on(history(&registry, messages));
            assert_eq!(history.len(), messages);
            // The history's discoveries were all found: eager tools, the discovery tool
            // while some lazy tool is left (with 10 tools, all 5 are discovered), and the 5.
            let lazy = tools / 2;
            let expected = (tools - lazy) + usize::from(lazy > DISCOVERED) + DISCOVERED;
            assert_eq!(build(&registry, &history), expected);

            let big = tools * messages >= 100_000;
            group.sample_size(if big { 10 } else { 30 });
            group.warm_up_time(Duration::from_millis(if big { 500 } else { 300 }));
            group.measurement_time(Duration::from_secs(if big { 3 } else { 1 }));
            let case = format!("{tools}x{messages}");
            group.bench_with_input(BenchmarkId::new("build", &case), &history, |b, history| {
                b.iter(|| build(black_box(&registry), black_box(history)))
            });
            group.bench_with_input(BenchmarkId::new("render", &case), &history, |b, history| {
                b.iter(|| render(black_box(&registry), black_box(history)))
            });
            group.bench_with_input(
                BenchmarkId::new("serialize", &case),
                &history,
                |b, history| b.iter(|| serialize(black_box(&registry), black_box(history))),
            );
        }
    }
    group.finish();
}

fn session_new(c: &mut Criterion) {
    let mut group = c.benchmark_group("session_new");
    group.sample_size(30);
    group.warm_up_time(Duration::from_millis(300));
    group.measurement_time(Duration::from_secs(1));
    for tools in TOOL_COUNTS {
        let registry = registry(tools);
        group.bench_with_input(
            BenchmarkId::new("ungated", tools),
            &registry,
            |b, registry| b.iter(|| black_box(registry).session()),
        );
        group.bench_with_input(
            BenchmarkId::new("gated", tools),
            &registry,
            |b, registry| {
                b.iter(|| black_box(registry).session_with(SessionOptions::new().allow(|_| true)))
            },
        );
    }
    group.finish();
}

criterion_group!(benches, turn, session_new);
criterion_main!(benches);
