//! Tool results made of MCP content blocks (images, audio, embedded resources): [`McpContent`].

use rmcp::model::{CallToolResult, ContentBlock};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The key that marks a tool's JSON output as [`McpContent`].
pub const MCP_CONTENT_KEY: &str = "mcpContent";

/// A tool result made of MCP content blocks, for tools whose output is more than JSON: an
/// image, audio, an embedded resource, several blocks. Return it from a tool (it is
/// `Serialize`); an MCP server sends its blocks as the call's `content` (and
/// `structuredContent` when set), any other consumer sees its JSON,
/// `{"mcpContent": [...], "structuredContent"?: ...}`. Large blocks must fit the registry's
/// [`max_output_bytes`](lazytool_runtime::CallLimits::max_output_bytes): a result over it is
/// cut to text.
///
/// ```rust,standalone_crate
/// use lazytool_mcp::McpContent;
/// use lazytool_mcp::rmcp::model::ContentBlock;
/// use lazytool_runtime::tool;
///
/// /// Draws the chart of a series.
/// #[tool]
/// async fn chart(points: Vec<f64>) -> McpContent {
///     let png_base64 = String::from("iVBORw0KGgo="); // render `points` here
///     McpContent::new(vec![
///         ContentBlock::text(format!("{} points", points.len())),
///         ContentBlock::image(png_base64, "image/png"),
///     ])
/// }
/// # fn main() {}
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpContent {
    /// The content blocks, in order.
    #[serde(rename = "mcpContent")]
    pub content: Vec<ContentBlock>,
    /// Structured content sent with them, if any.
    #[serde(
        rename = "structuredContent",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub structured: Option<Value>,
}

impl McpContent {
    /// A result of `content`, without structured content.
    ///
    /// ```
    /// use lazytool_mcp::McpContent;
    /// use lazytool_mcp::rmcp::model::ContentBlock;
    ///
    /// let result = McpContent::new(vec![ContentBlock::audio("UklGRg==", "audio/wav")]);
    /// let json = serde_json::to_value(&result).unwrap();
    /// assert_eq!(json["mcpContent"][0]["type"], "audio");
    /// ```
    pub fn new(content: Vec<ContentBlock>) -> Self {
        McpContent {
            content,
            structured: None,
        }
    }

    /// The same result with structured content.
    ///
    /// ```
    /// use lazytool_mcp::McpContent;
    /// use lazytool_mcp::rmcp::model::ContentBlock;
    /// use serde_json::json;
    ///
    /// let result = McpContent::new(vec![ContentBlock::text("22 °C in Paris")])
    ///     .with_structured(json!({"celsius": 22, "city": "Paris"}));
    /// let json = serde_json::to_value(&result).unwrap();
    /// assert_eq!(json["structuredContent"]["celsius"], 22);
    /// ```
    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }

    /// Reads a tool's JSON output back, if it is a result of this kind.
    pub(crate) fn read(output: &Value) -> Option<McpContent> {
        let marked = output.as_object().is_some_and(|members| {
            members.contains_key(MCP_CONTENT_KEY)
                && members.len() <= 2
                && members
                    .keys()
                    .all(|key| key == MCP_CONTENT_KEY || key == "structuredContent")
        });
        marked
            .then(|| McpContent::deserialize(output).ok())
            .flatten()
    }
}

impl From<McpContent> for CallToolResult {
    fn from(result: McpContent) -> Self {
        let mut call = CallToolResult::success(result.content);
        call.structured_content = result.structured;
        call
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_only_its_own_shape() {
        let result =
            McpContent::new(vec![ContentBlock::text("hi")]).with_structured(json!({"n": 1}));
        let json = serde_json::to_value(&result).expect("serializable");
        assert_eq!(McpContent::read(&json), Some(result));
        for other in [
            json!({"mcpContent": "text"}),
            json!({"mcpContent": [], "other": 1}),
            json!({"content": []}),
            json!([1]),
        ] {
            assert_eq!(McpContent::read(&other), None, "{other}");
        }
    }
}
