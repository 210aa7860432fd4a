//! A session's active tools as MCP `tools/list` entries.

use std::sync::Arc;

use lazytool_runtime::{
    CALL_THROUGH_TOOL_NAME, DISCOVERY_TOOL_NAME, Tool, ToolAnnotations, ToolDefinition,
};
use rmcp::model::{JsonObject, Tool as McpTool, ToolAnnotations as McpAnnotations};
use serde_json::Value;

use crate::structured;

/// The MCP tool for `definition`, with the declared input schema, annotations and output
/// schema of `tool`, the registry's tool of that name (`None` for lazytool's own tools). MCP has no field for
/// examples: they are appended to the description.
pub(crate) fn mcp_tool(mut definition: ToolDefinition, tool: Option<&Tool>) -> McpTool {
    if !definition.examples().is_empty() {
        let description = definition.described_with_examples();
        definition = definition.without_examples();
        definition.description = description;
    }
    // A tool's schema goes out as it was declared (SEP-2106); lazytool's own tools have none.
    let input_schema = match tool.map(Tool::declared_input_schema) {
        Some(Value::Object(schema)) => schema.clone(),
        _ => match definition.input_schema {
            Value::Object(schema) => schema,
            _ => JsonObject::new(),
        },
    };
    let annotations = if definition.name == DISCOVERY_TOOL_NAME {
        Some(discovery_annotations())
    } else if definition.name == CALL_THROUGH_TOOL_NAME {
        // Its hints are those of whichever tool it runs: none can be promised.
        Some(McpAnnotations::with_title("Run a discovered tool"))
    } else {
        tool.map(Tool::annotations)
            .filter(|annotations| !annotations.is_empty())
            .map(mcp_annotations)
    };
    let mut mcp = McpTool::new(
        definition.name,
        definition.description,
        Arc::new(input_schema),
    );
    if let Some(annotations) = annotations {
        if let Some(title) = &annotations.title {
            mcp = mcp.with_title(title.clone());
        }
        mcp = mcp.with_annotations(annotations);
    }
    if let Some(schema) = tool.and_then(Tool::output_schema) {
        mcp = mcp.with_raw_output_schema(Arc::new(structured::object_schema(schema)));
    }
    mcp
}

fn mcp_annotations(annotations: &ToolAnnotations) -> McpAnnotations {
    McpAnnotations::from_raw(
        annotations.title.as_deref().map(str::to_owned),
        annotations.read_only,
        annotations.destructive,
        annotations.idempotent,
        annotations.open_world,
    )
}

/// Discovery only changes which tools this connection lists, so clients may let the model
/// call it without asking the user.
fn discovery_annotations() -> McpAnnotations {
    McpAnnotations::with_title("Discover tools")
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn examples_are_appended_to_the_description_and_left_out_of_the_schema() {
        let definition = ToolDefinition {
            name: "get_forecast".into(),
            description: "Tomorrow's weather in a city.".into(),
            input_schema: json!({"type": "object", "properties": {"city": {"type": "string"}},
                "examples": [{"city": "Paris"}]}),
        };
        let listed = serde_json::to_value(mcp_tool(definition, None)).expect("a tool is JSON");
        // MCP's `Tool`: name, title, description, inputSchema, outputSchema, annotations.
        assert_eq!(
            listed,
            json!({
                "name": "get_forecast",
                "description": "Tomorrow's weather in a city.\n\nExamples:\n{\"city\":\"Paris\"}",
                "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
            })
        );
    }
}
