//! What a tool call gives back: [`ToolResult`].

use serde_json::Value;

use super::DiscoveredSet;

/// The outcome of a tool call, ready to be sent back to the model.
///
/// A successful call carries the tool's `Ok` value as JSON (a `String` result is a JSON
/// string). A failed call — unknown tool, invalid arguments, the tool's `Err`, a panic —
/// carries a JSON string with a message the model can act on, and [`is_error`] is true.
/// Failures never panic or abort the caller's loop.
///
/// [`is_error`]: ToolResult::is_error
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    content: Value,
    error: Option<ToolErrorKind>,
    discovered: Option<Box<DiscoveredSet>>,
}

/// Why a call failed, for callers that treat failures differently (an MCP server answers an
/// unknown tool with a protocol error, everything else with an error result).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ToolErrorKind {
    /// No tool of that name exists (or it is not allowed in this session).
    UnknownTool,
    /// The arguments were not JSON, not an object, or did not match the schema.
    InvalidArguments,
    /// A lazy tool was called before it was discovered.
    NotDiscovered,
    /// The tool returned `Err`; the content is its message.
    ToolFailed,
    /// The tool panicked; the content is a summary, the panic message is only logged.
    Panicked,
    /// The tool's value could not be serialized to JSON.
    InvalidOutput,
    /// The call took longer than its timeout and was stopped.
    TimedOut,
}

impl ToolErrorKind {
    /// A short snake_case label, as used in events.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolErrorKind::UnknownTool => "unknown_tool",
            ToolErrorKind::InvalidArguments => "invalid_arguments",
            ToolErrorKind::NotDiscovered => "not_discovered",
            ToolErrorKind::ToolFailed => "tool_error",
            ToolErrorKind::Panicked => "panic",
            ToolErrorKind::InvalidOutput => "invalid_output",
            ToolErrorKind::TimedOut => "timed_out",
        }
    }
}

impl ToolResult {
    /// A successful result.
    #[inline]
    pub fn success(content: Value) -> Self {
        ToolResult {
            content,
            error: None,
            discovered: None,
        }
    }

    /// A failed result whose content is `message` as a JSON string.
    #[inline]
    pub fn error(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        ToolResult {
            content: Value::String(message.into()),
            error: Some(kind),
            discovered: None,
        }
    }

    /// The answer to a call of a tool that does not exist (or is not allowed), listing the
    /// tools the model can call instead.
    pub(crate) fn unknown_tool<'a>(
        name: &str,
        available: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let available: Vec<&str> = available.into_iter().collect();
        ToolResult::error(
            ToolErrorKind::UnknownTool,
            format!(
                "Error: unknown tool '{name}'. Available tools: {}.",
                available.join(", ")
            ),
        )
    }

    /// Whether the call failed.
    #[inline]
    pub fn is_error(&self) -> bool {
        self.error.is_some()
    }

    /// Why the call failed, or `None` for a success.
    #[inline]
    pub fn error_kind(&self) -> Option<ToolErrorKind> {
        self.error
    }

    /// The tool's value, or the error message as a JSON string.
    #[inline]
    pub fn content(&self) -> &Value {
        &self.content
    }

    /// The same result with other content (a cut output keeps its success or error).
    pub(crate) fn with_content(self, content: Value) -> Self {
        ToolResult { content, ..self }
    }

    /// For a result of the discovery tool, the lazy tools it handed out (with their signature
    /// when the session signs): what a provider's native deferral answers with
    /// ([`provider::anthropic::tool_reference_block`](crate::provider::anthropic::tool_reference_block)).
    #[inline]
    pub fn discovered(&self) -> Option<&DiscoveredSet> {
        self.discovered.as_deref()
    }

    /// The same result recording what a discovery handed out.
    pub(crate) fn with_discovered(mut self, discovered: DiscoveredSet) -> Self {
        self.discovered = Some(Box::new(discovered));
        self
    }

    /// Takes the content out of the result.
    #[inline]
    pub fn into_content(self) -> Value {
        // Only discovery results carry a set: dropping it stays out of every other call's path.
        if let Some(discovered) = self.discovered {
            drop_cold(discovered);
        }
        self.content
    }

    /// The content as the text providers put into a tool-result message: a JSON string is
    /// sent as its contents, anything else as compact JSON.
    pub fn text(&self) -> String {
        match &self.content {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }
}

#[cold]
#[inline(never)]
fn drop_cold<T>(value: T) {
    drop(value);
}
