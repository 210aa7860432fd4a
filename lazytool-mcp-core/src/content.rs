//! Tool results written with rmcp's content blocks: [`McpContent`], a [`Content`] built from
//! `ContentBlock`s.

use lazytool_runtime::{Content, ContentPart, ToolErrorKind, ToolOutput, ToolResult};
use rmcp::model::ContentBlock;
use serde_json::Value;

/// A tool result made of rmcp's MCP content blocks, for tools written against rmcp's types:
/// an image, audio, an embedded resource, several blocks. It is the runtime's
/// [`Content`] in rmcp's vocabulary: return it from a tool, and every consumer sees the
/// same result — an MCP server sends the blocks as the call's `content` (and
/// `structuredContent` when set), each provider renders the parts its way, and
/// [`ToolResult::parts`] holds them as [`ContentPart`]s. A block's `annotations` and `_meta`
/// are not carried (`Content` has no place for them). Images count toward the registry's
/// [`max_output_bytes`](lazytool_runtime::CallLimits::max_output_bytes) by their base64 size.
///
/// ```rust,standalone_crate
/// use lazytool_mcp_core::McpContent;
/// use lazytool_mcp_core::rmcp::model::ContentBlock;
/// use lazytool_runtime::{tool, Registry};
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
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let registry = Registry::from_inventory().unwrap();
/// let result = registry.call("chart", serde_json::json!({"points": [1.0]})).await;
/// assert_eq!(result.parts().len(), 2);
/// # }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct McpContent {
    /// The content blocks, in order.
    pub content: Vec<ContentBlock>,
    /// Structured content sent with them, if any.
    pub structured: Option<Value>,
}

impl McpContent {
    /// A result of `content`, without structured content.
    ///
    /// ```
    /// use lazytool_mcp_core::McpContent;
    /// use lazytool_mcp_core::rmcp::model::ContentBlock;
    /// use lazytool_runtime::{ContentPart, ToolOutput};
    ///
    /// let result = McpContent::new(vec![ContentBlock::audio("UklGRg==", "audio/wav")]).into_tool_result();
    /// assert_eq!(result.parts(), [ContentPart::audio("UklGRg==", "audio/wav")]);
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
    /// use lazytool_mcp_core::McpContent;
    /// use lazytool_mcp_core::rmcp::model::ContentBlock;
    /// use lazytool_runtime::ToolOutput;
    /// use serde_json::json;
    ///
    /// let result = McpContent::new(vec![ContentBlock::text("22 °C in Paris")])
    ///     .with_structured(json!({"celsius": 22, "city": "Paris"}))
    ///     .into_tool_result();
    /// assert_eq!(result.structured(), Some(&json!({"celsius": 22, "city": "Paris"})));
    /// ```
    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }
}

impl ToolOutput for McpContent {
    /// The blocks as [`ContentPart`]s (their JSON is the same); a block that cannot be read
    /// as one is an `InvalidOutput` error result naming it.
    fn into_tool_result(self) -> ToolResult {
        let mut parts = Vec::with_capacity(self.content.len());
        for (index, block) in self.content.into_iter().enumerate() {
            match serde_json::to_value(block).and_then(serde_json::from_value::<ContentPart>) {
                Ok(part) => parts.push(part),
                Err(error) => {
                    return ToolResult::error(
                        ToolErrorKind::InvalidOutput,
                        format!(
                            "Error: content block {index} of the tool's result could not be read: {error}"
                        ),
                    );
                }
            }
        }
        let content = Content::new(parts);
        ToolResult::from(match self.structured {
            Some(structured) => content.with_structured(structured),
            None => content,
        })
    }
}

/// A part as the rmcp content block of the same JSON.
pub fn block(part: &ContentPart) -> ContentBlock {
    serde_json::to_value(part)
        .and_then(serde_json::from_value)
        .unwrap_or_else(|_| ContentBlock::text(part.as_text()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_block_kind_is_a_part_and_back() {
        let blocks = vec![
            ContentBlock::text("hi"),
            ContentBlock::image("AAAA", "image/png"),
            ContentBlock::audio("UklGRg==", "audio/wav"),
            ContentBlock::embedded_text("test://r", "body"),
        ];
        let result = McpContent::new(blocks.clone())
            .with_structured(json!({"n": 1}))
            .into_tool_result();
        assert_eq!(result.structured(), Some(&json!({"n": 1})));
        let back: Vec<ContentBlock> = result.parts().iter().map(block).collect();
        assert_eq!(
            serde_json::to_value(&back).expect("json"),
            serde_json::to_value(&blocks).expect("json")
        );
    }
}
