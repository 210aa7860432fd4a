//! The per-call context a tool can take as a parameter.

use std::sync::{Arc, OnceLock};

use serde_json::Value;
pub use tokio_util::sync::CancellationToken;

use super::extensions::Extensions;
use super::input::{Elicited, InputChannel, InputError, InputRequest, Root, Roots, Sampled};

/// What a tool knows about the call it is serving: the provider's call id, a cancellation
/// token, whom to ask for input ([`ask`](ToolContext::ask)), and what the transport attached
/// to the call ([`extension`](ToolContext::extension): the MCP request, over MCP).
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
#[derive(Default)]
pub struct ToolContext {
    call_id: Option<Arc<str>>,
    /// Who answers the tool's questions, if anyone can.
    input: Option<Arc<dyn InputChannel>>,
    extensions: Extensions,
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
            input: self.input.clone(),
            extensions: self.extensions.clone(),
            cancellation: OnceLock::from(Arc::clone(self.shared())),
        }
    }
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("call_id", &self.call_id)
            .field("input", &self.input.is_some())
            .field("extensions", &self.extensions.len())
            .field("cancellation", &self.cancellation)
            .finish()
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
            input: self.input,
            extensions: self.extensions,
            cancellation: OnceLock::from(Arc::new(Cancellation {
                parent: Some(token),
                token: OnceLock::new(),
            })),
        }
    }

    /// Makes `channel` answer the tool's questions ([`ask`](ToolContext::ask)).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use lazytool_runtime::{InputChannel, InputError, InputFuture, InputRequest, ToolContext};
    ///
    /// struct Nobody;
    /// impl InputChannel for Nobody {
    ///     fn ask(&self, _: &str, _: InputRequest) -> InputFuture<'_> {
    ///         Box::pin(async { Err(InputError::Unavailable) })
    ///     }
    /// }
    /// let context = ToolContext::new().with_input(Arc::new(Nobody));
    /// ```
    pub fn with_input(mut self, channel: Arc<dyn InputChannel>) -> Self {
        self.input = Some(channel);
        self
    }

    /// Attaches `value` to the call, for the tool to read by its type
    /// ([`extension`](ToolContext::extension)); it replaces a value of the same type. A
    /// transport attaches what the tool may need of its request: over MCP, lazytool-mcp
    /// attaches the `McpRequest` (who sent it, its progress token, the client to ask).
    ///
    /// ```
    /// use lazytool_runtime::ToolContext;
    ///
    /// /// Who called, as a transport of one's own says.
    /// #[derive(Debug, PartialEq)]
    /// struct Caller(&'static str);
    ///
    /// let context = ToolContext::new().with_extension(Caller("alice"));
    /// assert_eq!(context.extension::<Caller>(), Some(&Caller("alice")));
    /// // The clones handed to what the tool spawns carry it too.
    /// assert_eq!(context.clone().extension::<Caller>(), Some(&Caller("alice")));
    /// ```
    pub fn with_extension<T: std::any::Any + Send + Sync>(mut self, value: T) -> Self {
        self.extensions = self.extensions.with(value);
        self
    }

    /// The value of type `T` attached to the call ([`with_extension`](ToolContext::with_extension)),
    /// if one was.
    ///
    /// ```
    /// use lazytool_runtime::ToolContext;
    ///
    /// assert_eq!(ToolContext::new().extension::<String>(), None);
    /// ```
    pub fn extension<T: std::any::Any + Send + Sync>(&self) -> Option<&T> {
        self.extensions.get::<T>()
    }

    /// This context with every value attached to `parent`: the calls a tool makes on behalf
    /// of its own call (a script's, in code mode) carry what the transport attached to it.
    ///
    /// ```
    /// use lazytool_runtime::ToolContext;
    ///
    /// let parent = ToolContext::new().with_call_id("7").with_extension(42_u32);
    /// let child = ToolContext::new().with_call_id("7/1").with_extensions_of(&parent);
    /// assert_eq!(child.extension::<u32>(), Some(&42));
    /// assert_eq!(child.call_id(), Some("7/1"));
    /// ```
    pub fn with_extensions_of(mut self, parent: &ToolContext) -> Self {
        self.extensions = parent.extensions.clone();
        self
    }

    /// Asks the caller `request` under `key`, and waits for the answer (its JSON, checked to
    /// have the request's shape). Over MCP 2025-11-25 the client is sent the request; over
    /// 2026-07-28 the call ends with an input-required result and runs again, from the start,
    /// with every answer so far: [`InputError::Required`] says so, and the tool should return
    /// it (with `?`) before doing anything it must not do twice. A caller that cannot be asked
    /// is [`InputError::Unavailable`]; one that lacks the capability,
    /// [`InputError::Unsupported`].
    ///
    /// ```rust,standalone_crate
    /// use lazytool_runtime::{InputRequest, ToolContext, tool};
    /// use serde_json::json;
    ///
    /// /// Asks the user which city, then books.
    /// #[tool]
    /// async fn book(ctx: ToolContext) -> Result<String, String> {
    ///     let form = json!({"type": "object", "properties": {"city": {"type": "string"}}});
    ///     let answer = ctx.ask("city", InputRequest::elicitation("Which city?", form)).await?;
    ///     Ok(format!("booked in {}", answer["content"]["city"]))
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// // Called outside MCP, there is nobody to ask.
    /// let result = book(ToolContext::new()).await;
    /// assert_eq!(result.unwrap_err(), "the caller of this tool cannot be asked for input");
    /// # }
    /// ```
    pub async fn ask(&self, key: &str, request: InputRequest) -> Result<Value, InputError> {
        let channel = self.input.as_ref().ok_or(InputError::Unavailable)?;
        let answer = channel.ask(key, request.clone()).await?;
        request
            .check_answer(&answer)
            .map_err(|why| InputError::Invalid {
                key: key.to_owned(),
                why,
            })?;
        Ok(answer)
    }

    /// Asks the user `message` with a form of `requested_schema` ([`ask`](ToolContext::ask)
    /// with [`InputRequest::elicitation`]).
    ///
    /// ```rust,standalone_crate
    /// use lazytool_runtime::{ElicitAction, ToolContext, tool};
    /// use serde_json::json;
    ///
    /// /// Greets the user by name.
    /// #[tool]
    /// async fn greet(ctx: ToolContext) -> Result<String, String> {
    ///     let form = json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    ///     let answer = ctx.elicit("user_name", "Your name?", form).await?;
    ///     match (answer.action, answer.content) {
    ///         (ElicitAction::Accept, Some(content)) => Ok(format!("Hello, {}!", content["name"].as_str().unwrap_or("you"))),
    ///         _ => Ok("Hello!".to_owned()),
    ///     }
    /// }
    /// # fn main() {}
    /// ```
    pub async fn elicit(
        &self,
        key: &str,
        message: &str,
        requested_schema: Value,
    ) -> Result<Elicited, InputError> {
        let answer = self
            .ask(key, InputRequest::elicitation(message, requested_schema))
            .await?;
        parsed(key, answer)
    }

    /// Asks the caller's model `prompt`, answered in at most `max_tokens` tokens
    /// ([`ask`](ToolContext::ask) with [`InputRequest::sampling`]).
    ///
    /// ```rust,standalone_crate
    /// use lazytool_runtime::{ToolContext, tool};
    ///
    /// /// Names the capital of a country, as the caller's model knows it.
    /// #[tool]
    /// async fn capital(country: String, ctx: ToolContext) -> Result<String, String> {
    ///     let question = format!("What is the capital of {country}? One word.");
    ///     let answer = ctx.sample("capital", &question, 20).await?;
    ///     Ok(answer.text().unwrap_or_default().to_owned())
    /// }
    /// # fn main() {}
    /// ```
    pub async fn sample(
        &self,
        key: &str,
        prompt: &str,
        max_tokens: u32,
    ) -> Result<Sampled, InputError> {
        let answer = self
            .ask(key, InputRequest::sampling(prompt, max_tokens))
            .await?;
        parsed(key, answer)
    }

    /// Asks the caller for its roots ([`ask`](ToolContext::ask) with
    /// [`InputRequest::list_roots`]).
    ///
    /// ```rust,standalone_crate
    /// use lazytool_runtime::{ToolContext, tool};
    ///
    /// /// The folders the caller works in.
    /// #[tool]
    /// async fn workspaces(ctx: ToolContext) -> Result<Vec<String>, String> {
    ///     let roots = ctx.roots("roots").await?;
    ///     Ok(roots.into_iter().map(|root| root.uri).collect())
    /// }
    /// # fn main() {}
    /// ```
    pub async fn roots(&self, key: &str) -> Result<Vec<Root>, InputError> {
        let answer = self.ask(key, InputRequest::list_roots()).await?;
        parsed::<Roots>(key, answer).map(|answer| answer.roots)
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

/// `answer` read as a `T` (its shape was checked already).
fn parsed<T: serde::de::DeserializeOwned>(key: &str, answer: Value) -> Result<T, InputError> {
    serde_json::from_value(answer).map_err(|error| InputError::Invalid {
        key: key.to_owned(),
        why: error.to_string(),
    })
}
