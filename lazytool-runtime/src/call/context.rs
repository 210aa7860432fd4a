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
///
/// The token is the call's own: it is cancelled when the caller cancels the token it gave
/// ([`with_cancellation`](ToolContext::with_cancellation)), when the call times out, and when
/// the caller drops the call before it finished. Work a tool spawns and ties to it stops with
/// the call; the caller's token is never cancelled by the call.
#[derive(Debug, Default)]
pub struct ToolContext {
    call_id: Option<Arc<str>>,
    // Shared with the running call, which cancels it on timeout or when it is dropped; made
    // on first use (a clone, the token, the call keeping a handle): a call whose tool never
    // sees its context allocates nothing for it.
    cancellation: OnceLock<Arc<Cancellation>>,
}

impl Clone for ToolContext {
    /// A handle on the same call: the clones share the call id and the cancellation token.
    fn clone(&self) -> Self {
        ToolContext {
            call_id: self.call_id.clone(),
            cancellation: OnceLock::from(Arc::clone(self.shared())),
        }
    }
}

#[derive(Debug, Default)]
struct Cancellation {
    /// The caller's token, if it gave one.
    parent: Option<CancellationToken>,
    /// The call's token, a child of `parent`; created on first use: most calls never look
    /// at it, and a token allocates.
    token: OnceLock<CancellationToken>,
}

impl Cancellation {
    fn token(&self) -> &CancellationToken {
        self.token.get_or_init(|| match &self.parent {
            Some(parent) => parent.child_token(),
            None => CancellationToken::new(),
        })
    }
}

/// What a running call keeps of its context: the means to cancel the tool's token.
#[derive(Debug)]
pub(crate) struct CallCancellation(Arc<Cancellation>);

impl CallCancellation {
    /// Cancels the call's token (never the caller's).
    pub(crate) fn cancel(&self) {
        self.0.token().cancel();
    }
}

impl ToolContext {
    /// A context with no call id and a fresh cancellation token.
    ///
    /// ```
    /// use lazytool_runtime::ToolContext;
    ///
    /// let context = ToolContext::new();
    /// assert_eq!(context.call_id(), None);
    /// assert!(!context.is_cancelled());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the call id the provider gave this call (OpenAI `tool_call_id`, Anthropic
    /// `tool_use_id`, MCP request id).
    ///
    /// ```
    /// use lazytool_runtime::ToolContext;
    ///
    /// assert_eq!(ToolContext::new().with_call_id("call_1").call_id(), Some("call_1"));
    /// ```
    pub fn with_call_id(mut self, call_id: impl Into<Arc<str>>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// Makes cancelling `token` cancel the call: the tool's
    /// [`cancellation`](ToolContext::cancellation) token is a child of it.
    ///
    /// ```
    /// use lazytool_runtime::{CancellationToken, ToolContext};
    ///
    /// let token = CancellationToken::new();
    /// let context = ToolContext::new().with_cancellation(token.clone());
    /// token.cancel(); // the caller gives up: the call's own token follows
    /// assert!(context.is_cancelled());
    /// ```
    pub fn with_cancellation(self, token: CancellationToken) -> Self {
        ToolContext {
            call_id: self.call_id,
            cancellation: OnceLock::from(Arc::new(Cancellation {
                parent: Some(token),
                token: OnceLock::new(),
            })),
        }
    }

    /// The provider's id of this call, if the caller supplied one.
    ///
    /// ```
    /// use lazytool_runtime::ToolContext;
    ///
    /// let context = ToolContext::new().with_call_id("toolu_01");
    /// assert_eq!(context.call_id(), Some("toolu_01"));
    /// ```
    pub fn call_id(&self) -> Option<&str> {
        self.call_id.as_deref()
    }

    /// The token that is cancelled when the call is given up: by the caller, by its
    /// timeout, or because the caller dropped it.
    ///
    /// ```
    /// use lazytool_runtime::{CancellationToken, ToolContext};
    ///
    /// let caller = CancellationToken::new();
    /// let context = ToolContext::new().with_cancellation(caller.clone());
    /// // Work tied to the call stops with it, e.g. `tokio::select!` on `cancelled()`.
    /// let token = context.cancellation().clone();
    /// caller.cancel();
    /// assert!(token.is_cancelled());
    /// ```
    pub fn cancellation(&self) -> &CancellationToken {
        self.shared().token()
    }

    /// Whether the call has been given up.
    ///
    /// ```
    /// use lazytool_runtime::{CancellationToken, ToolContext};
    ///
    /// let caller = CancellationToken::new();
    /// let context = ToolContext::new().with_cancellation(caller.clone());
    /// assert!(!context.is_cancelled());
    /// caller.cancel();
    /// assert!(context.is_cancelled());
    /// ```
    pub fn is_cancelled(&self) -> bool {
        // Never shared: no token and no parent, so nothing can have cancelled it.
        let Some(cancellation) = self.cancellation.get() else {
            return false;
        };
        match cancellation.token.get() {
            Some(token) => token.is_cancelled(),
            None => cancellation
                .parent
                .as_ref()
                .is_some_and(CancellationToken::is_cancelled),
        }
    }

    /// The cancellation shared by this context's clones, made on first use.
    fn shared(&self) -> &Arc<Cancellation> {
        self.cancellation.get_or_init(Arc::default)
    }

    /// The handle with which the running call cancels this context's token.
    pub(crate) fn call_cancellation(&self) -> CallCancellation {
        CallCancellation(Arc::clone(self.shared()))
    }

    /// The handle with which the running call cancels this context's token, if anything
    /// can see that token: a clone of the context (a tool that took it, the caller), its
    /// token, or the caller's parent token. A context nobody shared has nothing to cancel.
    pub(crate) fn shared_cancellation(&self) -> Option<CallCancellation> {
        self.cancellation
            .get()
            .map(|shared| CallCancellation(Arc::clone(shared)))
    }
}
