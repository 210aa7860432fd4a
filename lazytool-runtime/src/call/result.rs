//! What a tool call gives back: [`ToolResult`].

use serde_json::Value;

use super::DiscoveredSet;
use super::content::{Content, ContentPart, parts_text};

/// The outcome of a tool call, ready to be sent back to the model.
///
/// A successful call carries the tool's `Ok` value as JSON (a `String` result is a JSON
/// string). A failed call — unknown tool, invalid arguments, the tool's `Err`, a panic —
/// carries a JSON string with a message the model can act on, and [`is_error`] is true.
/// Failures never panic or abort the caller's loop.
///
/// A tool that returned [`Content`] (images, audio, resources) gives a result with
/// [`parts`](ToolResult::parts); its `content()` is the content's structured value, or else
/// its parts as text.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::{DynamicTool, Registry, ToolErrorKind};
/// use serde_json::json;
///
/// let schema = json!({"type": "object", "properties": {"sku": {"type": "string"}}, "required": ["sku"]});
/// let price = DynamicTool::new("get_price", "The price of a product.", schema, |arguments, _| async move {
///     match arguments["sku"].as_str() {
///         Some("desk") => Ok(json!({"sku": "desk", "price": 480})),
///         _ => Err("no such product"),
///     }
/// });
/// let registry = Registry::builder().without_inventory().tool(price).build().unwrap();
///
/// let result = registry.call("get_price", json!({"sku": "desk"})).await;
/// assert!(!result.is_error());
/// assert_eq!(result.content()["price"], 480);
/// assert_eq!(result.text(), r#"{"sku":"desk","price":480}"#); // what a tool message carries
///
/// let failed = registry.call("get_price", json!({"sku": "lamp"})).await;
/// assert_eq!(failed.error_kind(), Some(ToolErrorKind::ToolFailed));
/// assert_eq!(failed.text(), "no such product");
///
/// let invalid = registry.call("get_price", json!({})).await;
/// assert_eq!(invalid.error_kind(), Some(ToolErrorKind::InvalidArguments));
/// assert!(invalid.text().contains("sku"));
/// # }
/// ```
///
/// [`is_error`]: ToolResult::is_error
#[derive(Clone, Debug, PartialEq)]
pub struct ToolResult {
    content: Value,
    // Boxed, all in one box: most results are plain JSON, a successful call's result has none
    // of it, and a result is moved several times per call.
    extra: Option<Box<Extra>>,
}

/// What a result holds besides its JSON content; never all empty.
#[derive(Clone, Debug, Default, PartialEq)]
struct Extra {
    error: Option<ToolErrorKind>,
    discovered: Option<DiscoveredSet>,
    rich: Option<Rich>,
}

/// The parts of a result made from [`Content`], and whether its JSON content is the
/// content's structured value (else it is the parts as text).
#[derive(Clone, Debug, PartialEq)]
struct Rich {
    parts: Vec<ContentPart>,
    structured: bool,
}

/// Why a call failed, for callers that treat failures differently (an MCP server answers an
/// unknown tool with a protocol error, everything else with an error result).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use lazytool_runtime::{Registry, ToolErrorKind};
/// use serde_json::json;
///
/// let registry = Registry::builder().without_inventory().build().unwrap();
/// let result = registry.call("get_weather", json!({})).await;
/// assert_eq!(result.error_kind(), Some(ToolErrorKind::UnknownTool));
/// # }
/// ```
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
    /// No tool of that name is held now, and its source said why: a server that failed
    /// to start, say ([`RegistryBuilder::explain_missing`](crate::RegistryBuilder::explain_missing)).
    Unavailable,
}

impl ToolErrorKind {
    /// A short snake_case label, as used in events.
    ///
    /// ```
    /// use lazytool_runtime::ToolErrorKind;
    ///
    /// assert_eq!(ToolErrorKind::InvalidArguments.as_str(), "invalid_arguments");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            ToolErrorKind::UnknownTool => "unknown_tool",
            ToolErrorKind::InvalidArguments => "invalid_arguments",
            ToolErrorKind::NotDiscovered => "not_discovered",
            ToolErrorKind::ToolFailed => "tool_error",
            ToolErrorKind::Panicked => "panic",
            ToolErrorKind::InvalidOutput => "invalid_output",
            ToolErrorKind::TimedOut => "timed_out",
            ToolErrorKind::Unavailable => "unavailable",
        }
    }
}

impl ToolResult {
    /// A successful result.
    ///
    /// ```
    /// use lazytool_runtime::ToolResult;
    /// use serde_json::json;
    ///
    /// let result = ToolResult::success(json!({"price": 480}));
    /// assert!(!result.is_error());
    /// assert_eq!(result.content(), &json!({"price": 480}));
    /// ```
    #[inline]
    pub fn success(content: Value) -> Self {
        ToolResult {
            content,
            extra: None,
        }
    }

    /// A failed result whose content is `message` as a JSON string.
    ///
    /// ```
    /// use lazytool_runtime::{ToolErrorKind, ToolResult};
    ///
    /// let result = ToolResult::error(ToolErrorKind::ToolFailed, "no such product");
    /// assert!(result.is_error());
    /// assert_eq!(result.content(), "no such product");
    /// ```
    #[inline]
    pub fn error(kind: ToolErrorKind, message: impl Into<String>) -> Self {
        ToolResult {
            content: Value::String(message.into()),
            extra: Some(Box::new(Extra {
                error: Some(kind),
                ..Extra::default()
            })),
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

    /// The answer to a call of a tool that is missing for the reason `why`, given by its
    /// source.
    pub(crate) fn unavailable(name: &str, why: &str) -> Self {
        let why = why.trim_end_matches('.');
        ToolResult::error(
            ToolErrorKind::Unavailable,
            format!("Error: '{name}' is not available now: {why}."),
        )
    }

    /// Whether the call failed.
    ///
    /// ```
    /// use lazytool_runtime::{ToolErrorKind, ToolResult};
    /// use serde_json::json;
    ///
    /// assert!(ToolResult::error(ToolErrorKind::TimedOut, "too slow").is_error());
    /// assert!(!ToolResult::success(json!("ok")).is_error());
    /// ```
    #[inline]
    pub fn is_error(&self) -> bool {
        self.error_kind().is_some()
    }

    /// Why the call failed, or `None` for a success.
    ///
    /// ```
    /// use lazytool_runtime::{ToolErrorKind, ToolResult};
    /// use serde_json::json;
    ///
    /// let result = ToolResult::error(ToolErrorKind::InvalidArguments, "missing `sku`");
    /// assert_eq!(result.error_kind(), Some(ToolErrorKind::InvalidArguments));
    /// assert_eq!(ToolResult::success(json!(1)).error_kind(), None);
    /// ```
    #[inline]
    pub fn error_kind(&self) -> Option<ToolErrorKind> {
        self.extra.as_ref().and_then(|extra| extra.error)
    }

    /// The tool's value, or the error message as a JSON string.
    ///
    /// ```
    /// use lazytool_runtime::ToolResult;
    /// use serde_json::json;
    ///
    /// let result = ToolResult::success(json!([1, 2]));
    /// assert_eq!(result.content(), &json!([1, 2]));
    /// ```
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
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry};
    /// use serde_json::json;
    ///
    /// let tool = DynamicTool::new("get_forecast", "Tomorrow's weather.", json!({"type": "object"}),
    ///     |_, _| async { Ok::<_, String>(json!("sunny")) }).lazy(true);
    /// let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// let session = registry.session();
    /// let found = session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})).await;
    /// assert_eq!(found.discovered().unwrap().tools, ["get_forecast"]);
    /// assert_eq!(session.call("get_forecast", json!({})).await.discovered(), None);
    /// # }
    /// ```
    #[inline]
    pub fn discovered(&self) -> Option<&DiscoveredSet> {
        self.extra.as_ref()?.discovered.as_ref()
    }

    /// The same result recording what a discovery handed out.
    pub(crate) fn with_discovered(mut self, discovered: DiscoveredSet) -> Self {
        self.extra.get_or_insert_default().discovered = Some(discovered);
        self
    }

    /// Takes the content out of the result.
    ///
    /// ```
    /// use lazytool_runtime::ToolResult;
    /// use serde_json::json;
    ///
    /// let value = ToolResult::success(json!({"price": 480})).into_content();
    /// assert_eq!(value["price"], 480);
    /// ```
    #[inline]
    pub fn into_content(self) -> Value {
        // Only errors, discoveries and rich results carry more: dropping it stays out of every
        // other call's path.
        if let Some(extra) = self.extra {
            drop_cold(extra);
        }
        self.content
    }

    /// The content as the text providers put into a tool-result message: a JSON string is
    /// sent as its contents, anything else as compact JSON. For a result with
    /// [`parts`](ToolResult::parts), the structured value's JSON (if any) and then each part
    /// as text ([`ContentPart::as_text`]: placeholders for images and audio), one per line:
    /// what a format that takes only text receives.
    ///
    /// ```
    /// use lazytool_runtime::ToolResult;
    /// use serde_json::json;
    ///
    /// assert_eq!(ToolResult::success(json!("sunny")).text(), "sunny");
    /// assert_eq!(ToolResult::success(json!({"price": 480})).text(), r#"{"price":480}"#);
    /// ```
    pub fn text(&self) -> String {
        let value = match &self.content {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        match self.rich() {
            Some(rich) if rich.structured && !rich.parts.is_empty() => {
                format!("{value}\n{}", parts_text(&rich.parts))
            }
            _ => value,
        }
    }

    /// The parts of a result made from [`Content`], in order; empty for any other result.
    #[inline]
    pub fn parts(&self) -> &[ContentPart] {
        self.rich().map_or(&[], |rich| &rich.parts)
    }

    /// The structured value of a result made from [`Content`] with one (MCP
    /// `structuredContent`); `None` for any other result.
    pub fn structured(&self) -> Option<&Value> {
        self.rich()
            .filter(|rich| rich.structured)
            .map(|_| &self.content)
    }

    /// Takes a result made from [`Content`] apart again (for the output limit's cut).
    pub(crate) fn into_rich(self) -> Result<Content, ToolResult> {
        let ToolResult { content, extra } = self;
        match extra {
            Some(mut extra) => match extra.rich.take() {
                Some(rich) => Ok(Content {
                    parts: rich.parts,
                    structured: rich.structured.then_some(content),
                }),
                None => Err(ToolResult {
                    content,
                    extra: Some(extra),
                }),
            },
            None => Err(ToolResult {
                content,
                extra: None,
            }),
        }
    }

    /// Whether the result was made from [`Content`].
    #[inline]
    pub(crate) fn is_rich(&self) -> bool {
        self.rich().is_some()
    }

    #[inline]
    fn rich(&self) -> Option<&Rich> {
        self.extra.as_ref()?.rich.as_ref()
    }
}

impl From<Content> for ToolResult {
    /// A successful result of `content`'s parts.
    fn from(content: Content) -> Self {
        let (value, structured) = match content.structured {
            Some(value) => (value, true),
            None => (Value::String(parts_text(&content.parts)), false),
        };
        ToolResult {
            content: value,
            extra: Some(Box::new(Extra {
                rich: Some(Rich {
                    parts: content.parts,
                    structured,
                }),
                ..Extra::default()
            })),
        }
    }
}

impl From<Value> for ToolResult {
    /// A successful result of `value` ([`ToolResult::success`]).
    #[inline]
    fn from(value: Value) -> Self {
        ToolResult::success(value)
    }
}

#[cold]
#[inline(never)]
fn drop_cold<T>(value: T) {
    drop(value);
}
