//! MCP wants object output schemas and object `structuredContent`: other outputs are wrapped
//! in an object under [`WRAPPED_RESULT_KEY`]. (2026-07-28 allows any JSON, but rmcp drops
//! non-object ones for clients of earlier versions; wrapped, every client gets the same.)

use rmcp::model::JsonObject;
use serde_json::{Value, json};

/// The property that holds a tool's output when its output schema is not an object schema
/// (`Vec<T>`, a number, `Option<T>`...): the schema becomes `{"type": "object",
/// "properties": {"result": <schema>}, "required": ["result"]}` and the structured content
/// `{"result": <value>}`. Object schemas are sent as they are.
///
/// ```
/// use lazytool_mcp::{McpServer, WRAPPED_RESULT_KEY};
/// use lazytool_runtime::{DynamicTool, Registry};
/// use serde_json::{Value, json};
/// use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ids = DynamicTool::new("ids", "Lists the ids.", json!({"type": "object"}), |_: Value, _| async {
///     Ok::<_, String>(json!([1, 2]))
/// })
/// .output_schema(json!({"type": "array", "items": {"type": "integer"}}));
/// let registry = Registry::builder().without_inventory().tool(ids).build()?;
///
/// let (client, connection) = tokio::io::duplex(64 * 1024);
/// let (reader, writer) = tokio::io::split(connection);
/// tokio::spawn(async move { McpServer::new(registry).serve(reader, writer).await });
/// let (output, mut input) = tokio::io::split(client);
/// let client_info = json!({"name": "docs", "version": "1"});
/// let initialize = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": client_info});
/// for message in [
///     json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": initialize}),
///     json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
///     json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ids"}}),
/// ] {
///     input.write_all(format!("{message}\n").as_bytes()).await?;
/// }
/// let mut lines = BufReader::new(output).lines();
/// lines.next_line().await?; // the handshake's answer
/// let called: Value = serde_json::from_str(&lines.next_line().await?.unwrap_or_default())?;
/// assert_eq!(called["result"]["structuredContent"], json!({WRAPPED_RESULT_KEY: [1, 2]}));
/// # Ok(()) }
/// ```
pub const WRAPPED_RESULT_KEY: &str = "result";

fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
}

/// The output schema as MCP takes it.
pub(crate) fn object_schema(schema: &Value) -> JsonObject {
    if let Value::Object(object) = schema
        && is_object_schema(schema)
    {
        return object.clone();
    }
    let mut inner = schema.clone();
    // `$ref`s point at the root's `$defs`, which must stay at the root.
    let defs = inner
        .as_object_mut()
        .and_then(|inner| inner.remove("$defs"));
    let mut wrapper = JsonObject::new();
    wrapper.insert("type".into(), json!("object"));
    wrapper.insert("properties".into(), json!({ WRAPPED_RESULT_KEY: inner }));
    wrapper.insert("required".into(), json!([WRAPPED_RESULT_KEY]));
    if let Some(defs) = defs {
        wrapper.insert("$defs".into(), defs);
    }
    wrapper
}

/// The tool's output as `structuredContent`, following [`object_schema`].
pub(crate) fn object_value(schema: &Value, value: Value) -> Value {
    if is_object_schema(schema) {
        value
    } else {
        json!({ WRAPPED_RESULT_KEY: value })
    }
}

#[cfg(test)]
mod tests {
    use super::{object_schema, object_value};
    use serde_json::{Value, json};

    #[test]
    fn wraps_everything_but_object_schemas() {
        let object = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
        assert_eq!(Value::Object(object_schema(&object)), object);
        assert_eq!(object_value(&object, json!({"a": 1})), json!({"a": 1}));

        let list = json!({"type": "array", "items": {"$ref": "#/$defs/Row"}, "$defs": {"Row": {}}});
        assert_eq!(
            Value::Object(object_schema(&list)),
            json!({
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"$ref": "#/$defs/Row"}}},
                "required": ["result"],
                "$defs": {"Row": {}}
            })
        );
        assert_eq!(object_value(&list, json!([1])), json!({"result": [1]}));
    }
}
