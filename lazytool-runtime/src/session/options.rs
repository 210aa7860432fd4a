//! What a session is configured with: [`SessionOptions`].

use std::fmt;
use std::sync::Arc;

use crate::discovery::{DiscoveryListing, DiscoveryMode, Signer, SigningKey};
use crate::tool::Tool;

type AllowFn = Arc<dyn Fn(&Tool) -> bool + Send + Sync>;

/// How a [`Session`](crate::Session) presents and guards the registry's tools.
///
/// ```
/// use lazytool_runtime::{DiscoveryMode, DynamicTool, Registry, SessionOptions};
/// use serde_json::json;
///
/// let tool = |name: &str| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
///     |_, _| async { Ok::<_, String>(json!(null)) }).lazy(true);
/// let registry = Registry::builder()
///     .without_inventory()
///     .tools([tool("billing_refund"), tool("support_reply")])
///     .build()
///     .unwrap();
///
/// // A support agent's conversation: billing tools are never listed, discovered or run.
/// let options = SessionOptions::new()
///     .mode(DiscoveryMode::Names)
///     .allow(|tool| !tool.name().starts_with("billing_"));
/// let session = registry.session_with(options);
/// assert_eq!(session.lazy_tool_names(), ["support_reply"]);
/// ```
#[derive(Clone, Default)]
#[must_use]
pub struct SessionOptions {
    mode: DiscoveryMode,
    listing: DiscoveryListing,
    allow: Option<AllowFn>,
    signing: Option<SigningKey>,
    conversation: Option<Arc<str>>,
    call_through: bool,
    #[cfg(feature = "code-mode")]
    code: Option<crate::code::CodeMode>,
    /// Set by `examples(false)`: a field that defaults to off keeps `Default` derived.
    without_examples: bool,
}

impl SessionOptions {
    /// The defaults: names mode listing bare names, every tool allowed.
    ///
    /// ```
    /// use lazytool_runtime::SessionOptions;
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, description: &str| DynamicTool::new(name.to_owned(), description.to_owned(),
    /// #     json!({"type": "object"}), |_, _| async { Ok::<_, String>(json!("done")) }).lazy(true);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_forecast", "Tomorrow's weather. By city."), tool("get_alerts", "Weather alerts.")])
    /// #     .build().unwrap();
    /// // Two lazy tools, `get_alerts` and `get_forecast`.
    /// let session = registry.session_with(SessionOptions::new());
    /// assert_eq!(session.active_tools(), registry.session().active_tools());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// How lazy tools reach the model: names (the default), search, auto, or cache-stable.
    ///
    /// ```
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DiscoveryMode, SessionOptions};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, description: &str| DynamicTool::new(name.to_owned(), description.to_owned(),
    /// #     json!({"type": "object"}), |_, _| async { Ok::<_, String>(json!("done")) }).lazy(true);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_forecast", "Tomorrow's weather. By city."), tool("get_alerts", "Weather alerts.")])
    /// #     .build().unwrap();
    /// // Two lazy tools, `get_alerts` and `get_forecast`.
    /// let session = registry.session_with(SessionOptions::new().mode(DiscoveryMode::CacheStable));
    /// let names: Vec<String> = session.active_tools().into_iter().map(|tool| tool.name).collect();
    /// assert_eq!(names, [DISCOVERY_TOOL_NAME, "get_alerts", "get_forecast"]); // from the first request on
    /// ```
    pub fn mode(mut self, mode: DiscoveryMode) -> Self {
        self.mode = mode;
        self
    }

    /// How the discovery tool's description lists the lazy tools.
    ///
    /// ```
    /// use lazytool_runtime::{DiscoveryListing, SessionOptions};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, description: &str| DynamicTool::new(name.to_owned(), description.to_owned(),
    /// #     json!({"type": "object"}), |_, _| async { Ok::<_, String>(json!("done")) }).lazy(true);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_forecast", "Tomorrow's weather. By city."), tool("get_alerts", "Weather alerts.")])
    /// #     .build().unwrap();
    /// // Two lazy tools, `get_alerts` and `get_forecast`.
    /// let session = registry.session_with(SessionOptions::new().listing(DiscoveryListing::FirstSentence));
    /// let description = &session.active_tools()[0].description;
    /// assert!(description.contains("get_forecast: Tomorrow's weather."));
    /// assert!(!description.contains("By city."));
    /// ```
    pub fn listing(mut self, listing: DiscoveryListing) -> Self {
        self.listing = listing;
        self
    }

    /// Signs discovery results (and compaction markers) with an HMAC-SHA256 `key` kept on
    /// the server, and makes [`Session::from_history`](crate::Session::from_history) accept only discoveries carrying a
    /// valid signature: a client that writes its own history cannot claim discoveries the
    /// server did not make. Needs the `signing` feature.
    ///
    /// A signature covers the tool names only, so a signed result can be replayed from one
    /// conversation into another served with the same key (it grants no tool that gating
    /// would refuse). To rule that out, bind signatures to the conversation with
    /// [`conversation_id`](SessionOptions::conversation_id).
    ///
    /// ```
    /// use lazytool_runtime::{SessionOptions, SigningKey};
    ///
    /// # fn main() -> Result<(), lazytool_runtime::SigningKeyError> {
    /// // At least 32 bytes, kept on the server: shorter keys are refused.
    /// let key = SigningKey::new(b"a secret only the server knows!!")?;
    /// let options = SessionOptions::new().signing_key(key);
    /// # let _ = options;
    /// # Ok(()) }
    /// ```
    ///
    /// [`Session::from_history`]: crate::Session::from_history
    #[cfg(feature = "signing")]
    pub fn signing_key(mut self, key: SigningKey) -> Self {
        self.signing = Some(key);
        self
    }

    /// Binds this session's signatures to the id of its conversation, which the caller
    /// supplies (its own conversation or thread id): a discovery signed in one conversation
    /// is then refused in any other, and one signed without an id is refused too. Without a
    /// [`signing_key`](SessionOptions::signing_key) it has no effect. Needs the `signing`
    /// feature.
    ///
    /// ```
    /// use lazytool_runtime::{SessionOptions, SigningKey};
    ///
    /// # let key = SigningKey::new([7u8; 32]).unwrap();
    /// let options = SessionOptions::new().signing_key(key).conversation_id("thread_42");
    /// # let _ = options;
    /// ```
    #[cfg(feature = "signing")]
    pub fn conversation_id(mut self, id: impl Into<Arc<str>>) -> Self {
        self.conversation = Some(id.into());
        self
    }

    /// Lazy tools are run through [`CALL_THROUGH_TOOL_NAME`](crate::CALL_THROUGH_TOOL_NAME)
    /// instead of joining the tool list: in names and search modes the list is fixed — eager
    /// tools, the discovery tool, the call-through tool — whatever is discovered, so it can be
    /// cached (stateless MCP, SEP-2549). Discovery results tell the model to run the tools
    /// through it; its arguments, `{"name": "...", "arguments": {...}}`, are checked against
    /// the limits, then validated against the named tool's own schema, and the tool runs with
    /// every guarantee of a direct call. Lazy tools called by their own name run too, validated
    /// the same way. Inline and cache-stable modes already list every tool; there it changes
    /// nothing.
    ///
    /// ```rust,standalone_crate
    /// use lazytool_runtime::{CALL_THROUGH_TOOL_NAME, DISCOVERY_TOOL_NAME, Registry, SessionOptions, tool};
    /// use serde_json::json;
    ///
    /// /// Converts an amount between two currencies.
    /// #[tool(lazy)]
    /// async fn convert(amount: f64, rate: f64) -> f64 {
    ///     amount * rate
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// let registry = Registry::from_inventory().unwrap();
    /// let session = registry.session_with(SessionOptions::new().call_through(true));
    /// let listed = |session: &lazytool_runtime::Session| -> Vec<String> {
    ///     session.active_tools().into_iter().map(|tool| tool.name).collect()
    /// };
    /// assert_eq!(listed(&session), [DISCOVERY_TOOL_NAME, CALL_THROUGH_TOOL_NAME]);
    ///
    /// session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["convert"]})).await;
    /// assert_eq!(listed(&session), [DISCOVERY_TOOL_NAME, CALL_THROUGH_TOOL_NAME]);
    /// let call = json!({"name": "convert", "arguments": {"amount": 10.0, "rate": 2.0}});
    /// let result = session.call(CALL_THROUGH_TOOL_NAME, call).await;
    /// assert_eq!(result.content(), &json!(20.0));
    ///
    /// // Arguments are validated against `convert`'s own schema.
    /// let call = json!({"name": "convert", "arguments": {"amount": "ten", "rate": 2.0}});
    /// let refused = session.call(CALL_THROUGH_TOOL_NAME, call).await;
    /// assert!(refused.is_error() && refused.text().contains("/amount"));
    /// # }
    /// ```
    pub fn call_through(mut self, call_through: bool) -> Self {
        self.call_through = call_through;
        self
    }

    /// Whether the tools this session lists carry their example arguments (`#[tool(example(...))]`,
    /// [`DynamicTool::examples`](crate::DynamicTool::examples)); on by default. Off, no format
    /// sends them: each example costs its tokens on every request that lists the tool
    /// (the `token_report` example counts them).
    ///
    /// ```
    /// use lazytool_runtime::SessionOptions;
    /// use lazytool_runtime::provider::anthropic;
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let forecast = DynamicTool::new("get_forecast", "Tomorrow's weather.",
    /// #     json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    /// #     |_, _| async { Ok::<_, String>(json!("sunny")) }).examples([json!({"city": "Paris"})]);
    /// # let registry = Registry::builder().without_inventory().tool(forecast).build().unwrap();
    /// let with = anthropic::render_tools(&registry.session().active_definitions());
    /// assert_eq!(with[0]["input_examples"], json!([{"city": "Paris"}]));
    /// let without = registry.session_with(SessionOptions::new().examples(false)).active_definitions();
    /// assert_eq!(anthropic::render_tools(&without)[0].get("input_examples"), None);
    /// ```
    pub fn examples(mut self, on: bool) -> Self {
        self.without_examples = !on;
        self
    }

    /// Restricts the session to the tools for which `allow` returns true (a tenant's tools,
    /// a user's permissions). A tool left out is never listed, discovered or run, whatever a
    /// message history claims: lazy loading saves tokens, gating is what authorizes.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, SessionOptions, ToolErrorKind};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, description: &str| DynamicTool::new(name.to_owned(), description.to_owned(),
    /// #     json!({"type": "object"}), |_, _| async { Ok::<_, String>(json!("done")) }).lazy(true);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_forecast", "Tomorrow's weather. By city."), tool("get_alerts", "Weather alerts.")])
    /// #     .build().unwrap();
    /// // Two lazy tools, `get_alerts` and `get_forecast`.
    /// let session = registry.session_with(SessionOptions::new().allow(|tool| tool.name() != "get_alerts"));
    /// assert_eq!(session.lazy_tool_names(), ["get_forecast"]);
    /// let denied = session.call("get_alerts", json!({})).await;
    /// assert_eq!(denied.error_kind(), Some(ToolErrorKind::UnknownTool));
    /// # }
    /// ```
    pub fn allow(mut self, allow: impl Fn(&Tool) -> bool + Send + Sync + 'static) -> Self {
        self.allow = Some(Arc::new(allow));
        self
    }

    /// Offers code mode: one more tool, [`CODE_TOOL_NAME`](crate::CODE_TOOL_NAME), runs a
    /// JavaScript script that calls the session's tools (each call an ordinary one) and
    /// answers with what the script returns; see [`CodeMode`](crate::CodeMode). Needs the
    /// `code-mode` feature.
    ///
    /// ```
    /// use lazytool_runtime::{CODE_TOOL_NAME, CodeMode, SessionOptions};
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = DynamicTool::new("get_time", "The time.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("noon")) });
    /// # let registry = Registry::builder().without_inventory().tool(tool).build().unwrap();
    /// let session = registry.session_with(SessionOptions::new().code_mode(CodeMode::new()));
    /// let names: Vec<String> = session.active_tools().into_iter().map(|tool| tool.name).collect();
    /// assert_eq!(names, [CODE_TOOL_NAME]);
    /// ```
    #[cfg(feature = "code-mode")]
    pub fn code_mode(mut self, code: crate::code::CodeMode) -> Self {
        self.code = Some(code);
        self
    }
}

impl SessionOptions {
    /// Whether a session with these options may use `tool` (every tool, unless
    /// [`allow`](SessionOptions::allow) restricts them). A server that derives per-user options
    /// from shared ones keeps the shared restriction with it:
    ///
    /// ```
    /// use lazytool_runtime::SessionOptions;
    ///
    /// let shared = SessionOptions::new().allow(|tool| !tool.name().starts_with("admin_"));
    /// let base = shared.clone();
    /// let readers = shared.allow(move |tool| base.allows(tool) && tool.name().starts_with("get"));
    /// # let _ = readers;
    /// ```
    pub fn allows(&self, tool: &Tool) -> bool {
        self.allow.as_ref().is_none_or(|allow| allow(tool))
    }
}

impl SessionOptions {
    #[cfg(feature = "code-mode")]
    pub(crate) fn code_options(&self) -> Option<&crate::code::CodeMode> {
        self.code.as_ref()
    }

    pub(crate) fn is_call_through(&self) -> bool {
        self.call_through
    }

    pub(crate) fn shows_examples(&self) -> bool {
        !self.without_examples
    }

    /// Whether an `allow` filter is set.
    pub(crate) fn is_gated(&self) -> bool {
        self.allow.is_some()
    }

    /// What this session signs and checks discovered sets with, if it signs.
    pub(crate) fn signer(&self) -> Option<Signer<'_>> {
        self.signing.as_ref().map(|key| Signer {
            key,
            conversation: self.conversation.as_deref(),
        })
    }

    pub(crate) fn discovery_mode(&self) -> DiscoveryMode {
        self.mode
    }

    pub(crate) fn discovery_listing(&self) -> DiscoveryListing {
        self.listing
    }
}

impl fmt::Debug for SessionOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("SessionOptions");
        #[cfg(feature = "code-mode")]
        debug.field("code", &self.code);
        debug
            .field("mode", &self.mode)
            .field("listing", &self.listing)
            .field("gated", &self.allow.is_some())
            .field("signed", &self.signing.is_some())
            .field("conversation", &self.conversation)
            .field("call_through", &self.call_through)
            .field("examples", &!self.without_examples)
            .finish()
    }
}
