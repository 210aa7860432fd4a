//! `tracing` events: one per discovery (names asked, found, unknown, duration) and one per
//! call (tool, outcome, duration).

use std::io::Write;
use std::sync::{Arc, Mutex};

use lazytool_runtime::{DISCOVERY_TOOL_NAME, Registry, tool};
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

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("not poisoned")
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn discovery_and_calls_emit_events() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::DEBUG)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    tracing::subscriber::with_default(subscriber, || {
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
    let output =
        String::from_utf8(captured.0.lock().expect("not poisoned").clone()).expect("utf-8 logs");
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
