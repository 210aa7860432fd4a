//! What a `#[tool]` may return: [`ToolOutput`].

use serde::Serialize;

use super::parse::output_value;
use crate::call::{Content, ToolResult};

/// A value a `#[tool]` function may return (alone or as the `Ok` of a `Result`): anything
/// `Serialize` (sent as its JSON; a NaN or infinite float anywhere in it is an error result,
/// except in a `serde_json::Value`, where serde_json has already made it `null`), a
/// [`Content`] of images, audio and resources, or a [`ToolResult`] built by hand.
///
/// Implement it for a type of your own that is not `Serialize` and converts to one of those,
/// as `lazytool_mcp::McpContent` does.
///
/// ```
/// use lazytool_runtime::{Content, ContentPart, ToolOutput};
///
/// let result = Content::new([ContentPart::image("AAAA", "image/png")]).into_tool_result();
/// assert_eq!(result.parts().len(), 1);
/// assert_eq!(vec![1, 2].into_tool_result().content(), &serde_json::json!([1, 2]));
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's result: it does not implement `serde::Serialize`",
    label = "the tool's value must implement `Serialize`",
    note = "add `#[derive(serde::Serialize)]` to `{Self}`"
)]
pub trait ToolOutput {
    /// The value as the call's result.
    fn into_tool_result(self) -> ToolResult;
}

impl<T: Serialize> ToolOutput for T {
    #[inline]
    fn into_tool_result(self) -> ToolResult {
        output_value(self)
    }
}

impl ToolOutput for Content {
    fn into_tool_result(self) -> ToolResult {
        ToolResult::from(self)
    }
}

impl ToolOutput for ToolResult {
    #[inline]
    fn into_tool_result(self) -> ToolResult {
        self
    }
}
