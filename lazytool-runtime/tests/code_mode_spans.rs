//! A script's tool calls are `execute_tool` spans under the script's own. Alone in its test
//! binary: tracing caches each callsite's interest process-wide, and a callsite first hit by
//! a test running beside this one, with no subscriber, could be cached as never wanted.
#![cfg(feature = "code-mode")]

use lazytool_runtime::{CODE_TOOL_NAME, CodeMode, DynamicTool, Registry, SessionOptions};
use serde_json::json;

fn registry() -> Registry {
    let price = DynamicTool::new(
        "get_price",
        "The price of a product.",
        json!({"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]}),
        |arguments, _| async move { Ok::<_, String>(json!({"sku": arguments["sku"], "price": 480})) },
    );
    let skus = DynamicTool::new(
        "list_skus",
        "Every SKU.",
        json!({"type": "object"}),
        |_, _| async { Ok::<_, String>(json!(["desk", "lamp"])) },
    );
    Registry::builder()
        .without_inventory()
        .tools([price, skus])
        .build()
        .expect("a registry of valid tools")
}

/// The spans closed while `run` ran: each `execute_tool` span's tool name and its parent's.
mod spans {
    use std::sync::{Arc, Mutex};

    use tracing::Subscriber;
    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id};
    use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
    use tracing_subscriber::registry::LookupSpan;

    /// `(tool, parent tool)` of each execute tool span, as they opened.
    pub(super) type Opened = Arc<Mutex<Vec<(String, Option<String>)>>>;

    struct ToolName(String);

    impl Visit for ToolName {
        fn record_str(&mut self, field: &Field, value: &str) {
            if field.name() == "gen_ai.tool.name" {
                self.0 = value.to_owned();
            }
        }
        fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
    }

    struct Capture(Opened);

    impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
        fn on_new_span(&self, attributes: &Attributes<'_>, id: &Id, context: Context<'_, S>) {
            let mut name = ToolName(String::new());
            attributes.record(&mut name);
            let Some(span) = context.span(id) else { return };
            let parent = span
                .parent()
                .and_then(|parent| parent.extensions().get::<String>().cloned());
            span.extensions_mut().insert(name.0.clone());
            self.0.lock().expect("the capture").push((name.0, parent));
        }
    }

    pub(super) fn subscriber(opened: &Opened) -> impl Subscriber + Send + Sync {
        tracing_subscriber::registry().with(Capture(Arc::clone(opened)))
    }
}

#[test]
fn a_scripts_calls_are_execute_tool_spans_under_the_scripts() {
    let opened = spans::Opened::default();
    tracing::subscriber::with_default(spans::subscriber(&opened), || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime");
        let session = registry().session_with(SessionOptions::new().code_mode(CodeMode::new()));
        let code = "return [await tools.list_skus(), await tools.get_price({ sku: 'desk' })];";
        let result = runtime.block_on(session.call(CODE_TOOL_NAME, json!({ "code": code })));
        assert!(!result.is_error(), "{}", result.text());
    });
    let opened = opened.lock().expect("the capture").clone();
    let code = Some(CODE_TOOL_NAME.to_owned());
    assert_eq!(
        opened,
        [
            (CODE_TOOL_NAME.to_owned(), None),
            ("list_skus".to_owned(), code.clone()),
            ("get_price".to_owned(), code),
        ]
    );
}
