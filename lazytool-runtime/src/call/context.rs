//! The per-call context a tool can take as a parameter.

use std::sync::{Arc, OnceLock};

pub use tokio_util::sync::CancellationToken;

/// What a tool knows about the call it is serving: the provider's call id and a
/// cancellation token.
///
/// Declare a parameter of type `ToolContext` to receive it; like `State<T>`, it is injected
/// by the runtime and never part of the schema.
///
/// ```rust,standalone_crate
/// use lazytool_runtime::{tool, ToolContext};
///
/// /// Counts slowly to `n`, stopping early when the call is cancelled.
/// #[tool]
/// async fn count(n: u32, ctx: ToolContext) -> u32 {
///     let mut i = 0;
///     while i < n && !ctx.is_cancelled() {
///         i += 1;
///     }
///     i
/// }
/// ```
#[derive(Clone, Debug, Default)]
pub struct ToolContext {
    call_id: Option<Arc<str>>,
    // Created on first use: most calls never look at it, and a token allocates.
    cancellation: OnceLock<CancellationToken>,
}

impl ToolContext {
    /// A context with no call id and a fresh cancellation token.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the call id the provider gave this call (OpenAI `tool_call_id`, Anthropic
    /// `tool_use_id`, MCP request id).
    pub fn with_call_id(mut self, call_id: impl Into<Arc<str>>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// Uses `token` for cancellation: cancelling it tells the tool to stop.
    pub fn with_cancellation(self, token: CancellationToken) -> Self {
        ToolContext {
            call_id: self.call_id,
            cancellation: OnceLock::from(token),
        }
    }

    /// The provider's id of this call, if the caller supplied one.
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// The token that is cancelled when the caller gives up on this call.
    pub fn cancellation(&self) -> &CancellationToken {
        self.cancellation.get_or_init(CancellationToken::new)
    }

    /// Whether the caller has given up on this call.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation
            .get()
            .is_some_and(CancellationToken::is_cancelled)
    }
}
