//! OpenTelemetry GenAI spans: one `execute_tool` span per tool execution (the discovery tool
//! and refusals included) with the semantic conventions' fields, captured with a
//! `tracing-subscriber` layer.

use std::time::Duration;

use lazytool_runtime::{CallLimits, DISCOVERY_TOOL_NAME, Registry, ToolCall, ToolContext, tool};
use lazytool_tests::spans::{CapturedSpan, captured_spans};
use serde_json::json;

/// Adds two numbers.
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Fails.
#[tool]
async fn broken() -> Result<String, String> {
    Err("it broke".to_owned())
}

/// Sleeps past any timeout.
#[tool]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "never".to_owned()
}

/// A lazy tool.
#[tool(lazy)]
async fn hidden() -> String {
    "found".to_owned()
}

fn registry() -> Registry {
    Registry::builder()
        .limits(CallLimits::default().timeout(Some(Duration::from_millis(20))))
        .build()
        .expect("valid tools")
}

/// Runs `calls` on a current-thread runtime, under the capturing subscriber.
fn spans_of<F: Future>(calls: impl FnOnce(Registry) -> F) -> Vec<CapturedSpan> {
    captured_spans(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        runtime.block_on(calls(registry()));
    })
}

fn field<'a>(span: &'a CapturedSpan, name: &str) -> Option<&'a str> {
    span.fields.get(name).map(String::as_str)
}

#[test]
fn a_tool_execution_is_an_execute_tool_span_with_the_genai_fields() {
    let spans = spans_of(|registry| async move {
        let tool = registry.get("add").expect("add");
        let context = ToolContext::new().with_call_id("call_42");
        let result = tool.call(json!({"a": 2, "b": 3}), context).await;
        assert_eq!(result.content(), &json!(5));
    });
    let [span] = spans.as_slice() else {
        panic!("one span: {spans:#?}");
    };
    assert_eq!(span.name, "execute_tool");
    assert_eq!(field(span, "otel.name"), Some("execute_tool add"));
    assert_eq!(field(span, "otel.kind"), Some("internal"));
    assert_eq!(field(span, "gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(field(span, "gen_ai.tool.name"), Some("add"));
    assert_eq!(field(span, "gen_ai.tool.call.id"), Some("call_42"));
    assert_eq!(field(span, "gen_ai.tool.type"), Some("function"));
    assert_eq!(
        field(span, "error.type"),
        None,
        "a success has no error.type"
    );
    assert_eq!(field(span, "otel.status_code"), None);
    assert_eq!(
        span.events,
        ["tool call finished"],
        "the lazytool::call event is inside the span"
    );
}

#[test]
fn failures_record_their_error_type() {
    let spans = spans_of(|registry| async move {
        registry.call("broken", json!({})).await;
        registry.call("add", json!({"a": "two"})).await;
        registry.call("slow", json!({})).await;
    });
    let errors: Vec<(Option<&str>, Option<&str>, Option<&str>)> = spans
        .iter()
        .map(|span| {
            (
                field(span, "gen_ai.tool.name"),
                field(span, "error.type"),
                field(span, "otel.status_code"),
            )
        })
        .collect();
    assert_eq!(
        errors,
        [
            (Some("broken"), Some("tool_error"), Some("ERROR")),
            (Some("add"), Some("invalid_arguments"), Some("ERROR")),
            (Some("slow"), Some("timed_out"), Some("ERROR")),
        ]
    );
    assert!(
        spans
            .iter()
            .all(|span| field(span, "gen_ai.tool.call.id").is_none()),
        "no call id given, none recorded"
    );
}

#[test]
fn discovery_calls_and_refusals_are_spans_too() {
    let spans = spans_of(|registry| async move {
        let session = registry.session();
        let turn = vec![
            ToolCall {
                id: "call_1".into(),
                name: "hidden".into(),
                arguments: json!({}),
            },
            ToolCall {
                id: "call_2".into(),
                name: DISCOVERY_TOOL_NAME.into(),
                arguments: json!({"toolNames": ["hidden"]}),
            },
            ToolCall {
                id: "call_3".into(),
                name: "missing".into(),
                arguments: json!({}),
            },
        ];
        session.call_turn(turn, 4).await;
    });
    let seen: Vec<(Option<&str>, Option<&str>, Option<&str>)> = spans
        .iter()
        .map(|span| {
            (
                field(span, "otel.name"),
                field(span, "gen_ai.tool.call.id"),
                field(span, "error.type"),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                Some("execute_tool hidden"),
                Some("call_1"),
                Some("not_discovered")
            ),
            (
                Some("execute_tool __lazy__tool__discovery__"),
                Some("call_2"),
                None
            ),
            (
                Some("execute_tool missing"),
                Some("call_3"),
                Some("unknown_tool")
            ),
        ]
    );
    assert_eq!(
        spans[1].events,
        ["discovery"],
        "the lazytool::discovery event is inside the discovery's span"
    );
}

#[test]
fn without_a_subscriber_calls_work_as_before() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a runtime");
    let result = runtime.block_on(registry().call("add", json!({"a": 1, "b": 1})));
    assert_eq!(result.content(), &json!(2));
}
