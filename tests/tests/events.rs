//! `tracing` events: one per discovery (names asked, found, unknown, duration) and one per
//! call (tool, outcome, duration).

use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, tool};
use lazytool_tests::events::captured;
use serde_json::json;

/// Adds two numbers.
#[tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Multiplies two numbers.
#[tool(lazy)]
async fn multiply(a: i64, b: i64) -> i64 {
    a * b
}

#[test]
fn discovery_and_calls_emit_events() {
    let output = captured(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime");
        runtime.block_on(async {
            let session = Registry::from_inventory().expect("valid tools").session();
            session
                .call(
                    DISCOVERY_TOOL_NAME,
                    json!({"toolNames": ["multiply", "divide"]}),
                )
                .await;
            session.call("add", json!({"a": 1, "b": 2})).await;
            session.call("add", json!({"a": "x"})).await;
        });
    });
    let lines: Vec<&str> = output.lines().collect();
    assert_eq!(lines.len(), 3, "{output}");
    let discovery = lines[0];
    assert!(discovery.contains("lazytool::discovery"), "{discovery}");
    assert!(discovery.contains(r#"found=["multiply"]"#), "{discovery}");
    assert!(discovery.contains(r#"new=["multiply"]"#), "{discovery}");
    assert!(discovery.contains(r#"unknown=["divide"]"#), "{discovery}");
    assert!(discovery.contains("duration_us="), "{discovery}");
    assert!(lines[1].contains("lazytool::call") && lines[1].contains("tool=add"));
    assert!(
        lines[1].contains("outcome=\"ok\"") && lines[1].contains("duration_us="),
        "{}",
        lines[1]
    );
    assert!(
        lines[2].contains("outcome=\"invalid_arguments\""),
        "{}",
        lines[2]
    );
}
