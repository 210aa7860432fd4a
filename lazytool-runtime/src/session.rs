//! One conversation's view of a registry: which lazy tools are discovered, what each request
//! carries, and which calls may run.

use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compaction;
use crate::context::ToolContext;
use crate::definition::ToolDefinition;
use crate::discovery::{self, DiscoveryListing, DiscoveryTool, first_sentence};
use crate::history;
use crate::mode::{DiscoveryMode, ResolvedMode};
use crate::name::DISCOVERY_TOOL_NAME;
use crate::provider::ToolCall;
use crate::registry::Registry;
use crate::result::{ToolErrorKind, ToolResult};
use crate::signing::SigningKey;
use crate::tool::{Admitted, Tool};

type AllowFn = Arc<dyn Fn(&Tool) -> bool + Send + Sync>;

/// How a [`Session`] presents and guards the registry's tools.
#[derive(Clone, Default)]
#[must_use]
pub struct SessionOptions {
    mode: DiscoveryMode,
    listing: DiscoveryListing,
    allow: Option<AllowFn>,
    signing: Option<SigningKey>,
}

impl SessionOptions {
    /// The defaults: names mode listing bare names, every tool allowed.
    pub fn new() -> Self {
        Self::default()
    }

    /// How lazy tools reach the model: names (the default), search, auto, or cache-stable.
    pub fn mode(mut self, mode: DiscoveryMode) -> Self {
        self.mode = mode;
        self
    }

    /// How the discovery tool's description lists the lazy tools.
    pub fn listing(mut self, listing: DiscoveryListing) -> Self {
        self.listing = listing;
        self
    }

    /// Signs discovery results (and compaction markers) with an HMAC-SHA256 `key` kept on
    /// the server, and makes [`Session::from_history`] accept only discoveries carrying a
    /// valid signature: a client that writes its own history cannot claim discoveries the
    /// server did not make. (It can still replay a signed result into another conversation
    /// served with the same key.)
    pub fn signing_key(mut self, key: impl AsRef<[u8]>) -> Self {
        self.signing = Some(SigningKey::new(key.as_ref()));
        self
    }

    /// Restricts the session to the tools for which `allow` returns true (a tenant's tools,
    /// a user's permissions). A tool left out is never listed, discovered or run, whatever a
    /// message history claims: lazy loading saves tokens, gating is what authorizes.
    pub fn allow(mut self, allow: impl Fn(&Tool) -> bool + Send + Sync + 'static) -> Self {
        self.allow = Some(Arc::new(allow));
        self
    }
}

impl fmt::Debug for SessionOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionOptions")
            .field("mode", &self.mode)
            .field("listing", &self.listing)
            .field("gated", &self.allow.is_some())
            .field("signed", &self.signing.is_some())
            .finish()
    }
}

/// The lazy tools a conversation has discovered, in discovery order: what a server stores to
/// resume the conversation in another process ([`Session::resume`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiscoveredSet {
    /// Tool names, in the order they were discovered.
    pub tools: Vec<String>,
}

/// How the lazy tools changed when a conversation moved to a new catalog
/// ([`Session::with_registry`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogChange {
    /// Lazy tools that are new, in name order.
    pub added: Vec<String>,
    /// Lazy tools that are gone, in name order.
    pub removed: Vec<String>,
    /// Discovered tools that are gone (also in `removed`), in discovery order.
    pub dropped: Vec<String>,
}

impl CatalogChange {
    /// Whether the lazy tools are the same.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }

    /// A message for the model saying which lazy tools appeared and disappeared (send it
    /// before the next request), or `None` when nothing changed.
    pub fn notice(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut notice = String::from("The available tools changed.");
        if !self.added.is_empty() {
            notice.push_str(&format!(
                " New tools you can load with {DISCOVERY_TOOL_NAME}: [{}].",
                self.added.join(", ")
            ));
        }
        if !self.removed.is_empty() {
            notice.push_str(&format!(
                " No longer available: [{}].",
                self.removed.join(", ")
            ));
        }
        Some(notice)
    }
}

/// One conversation's view of a [`Registry`]: the tools each request carries and the rules
/// each call obeys (see the crate's README, "Discovery protocol").
///
/// - [`active_tools`](Session::active_tools) gives the tools for the next request: eager
///   tools (name order), then the discovery tool while some lazy tool is undiscovered, then
///   the discovered tools in discovery order. Nothing already sent moves when a tool is
///   discovered.
/// - [`call`](Session::call) runs a call: the discovery tool records what it returns, an
///   undiscovered lazy tool is refused with an error telling the model to discover it.
/// - The calls of one model turn are gated by the state at the start of that turn: a tool
///   discovered during a turn becomes callable when the next request is built
///   ([`active_tools`](Session::active_tools) or [`begin_turn`](Session::begin_turn)).
///
/// A session is `Send + Sync + 'static`; its state is behind a lock, so many calls can be
/// in flight at once. Keep one per conversation (stateful servers, MCP), or rebuild it on
/// every request from the message history with [`Session::from_history`] (stateless).
pub struct Session {
    shared: Arc<Shared>,
    state: Mutex<DiscoveryState>,
}

struct Shared {
    registry: Registry,
    options: SessionOptions,
    allow: Option<AllowFn>,
    mode: ResolvedMode,
    /// Sent in every request ahead of the discovery tool: the eager tools, plus the lazy ones
    /// in [`ResolvedMode::Inline`].
    eager: Vec<Tool>,
    presentation: Arc<Presentation>,
}

/// How a session presents its lazy tools. Built from every lazy tool, so with large catalogs
/// it is most of a session's memory: sessions without an `allow` filter share one per
/// registry, mode and listing ([`Registry::presentation`]).
pub(crate) struct Presentation {
    discovery: Option<DiscoveryTool>,
    /// Sent after the discovery tool in [`ResolvedMode::CacheStable`]: every lazy tool with
    /// its first sentence and an open schema.
    stubs: Vec<Arc<ToolDefinition>>,
}

impl Presentation {
    fn new(lazy: &[&Tool], mode: ResolvedMode, listing: DiscoveryListing) -> Presentation {
        Presentation {
            discovery: DiscoveryTool::new(lazy, mode, listing),
            stubs: if mode == ResolvedMode::CacheStable {
                lazy.iter().map(|tool| Arc::new(stub(tool))).collect()
            } else {
                Vec::new()
            },
        }
    }
}

impl Shared {
    fn discovery(&self) -> Option<&DiscoveryTool> {
        self.presentation.discovery.as_ref()
    }
}

#[derive(Default)]
struct DiscoveryState {
    /// Callable and listed.
    discovered: Vec<String>,
    /// Discovered during the current turn: callable from the next one.
    pending: Vec<String>,
}

impl Registry {
    /// A new conversation over every tool, nothing discovered yet.
    pub fn session(&self) -> Session {
        Session::new(self, SessionOptions::default())
    }

    /// A new conversation with options (discovery listing, gating).
    pub fn session_with(&self, options: SessionOptions) -> Session {
        Session::new(self, options)
    }
}

impl Session {
    fn new(registry: &Registry, options: SessionOptions) -> Session {
        let allowed = |tool: &Tool| options.allow.as_ref().is_none_or(|allow| allow(tool));
        let is_allowed_lazy = |tool: &&Tool| tool.is_lazy() && allowed(tool);
        // Listed only to build a presentation: an ungated session usually finds it built.
        let lazy = || {
            registry
                .tools()
                .filter(is_allowed_lazy)
                .collect::<Vec<&Tool>>()
        };
        let mode = if !registry.tools().any(|tool| is_allowed_lazy(&tool)) {
            ResolvedMode::Names
        } else {
            options.mode.resolve(|| registry.lazy_costs())
        };
        let eager = registry
            .tools()
            .filter(|tool| (!tool.is_lazy() || mode == ResolvedMode::Inline) && allowed(tool))
            .cloned()
            .collect();
        let presentation = if options.allow.is_some() {
            Arc::new(Presentation::new(&lazy(), mode, options.listing))
        } else {
            registry.presentation(mode, options.listing, || {
                Presentation::new(&lazy(), mode, options.listing)
            })
        };
        Session {
            shared: Arc::new(Shared {
                registry: registry.clone(),
                allow: options.allow.clone(),
                options,
                mode,
                eager,
                presentation,
            }),
            state: Mutex::new(DiscoveryState::default()),
        }
    }

    /// Moves the conversation to a changed catalog (tools added or removed between turns):
    /// a new session over `registry` with the same options and the discovered tools that
    /// still exist, and what changed. Discovered tools that vanished are dropped without
    /// error; [`CatalogChange::notice`] tells the model.
    pub fn with_registry(&self, registry: &Registry) -> (Session, CatalogChange) {
        let before = self.lazy_tool_names().to_vec();
        let discovered = self.discovered();
        let session = Session::new(registry, self.shared.options.clone());
        session.restore(discovered.tools.iter().map(String::as_str));
        let after = session.lazy_tool_names();
        let kept = session.discovered().tools;
        let change = CatalogChange {
            added: after
                .iter()
                .filter(|n| !before.contains(n))
                .cloned()
                .collect(),
            removed: before
                .iter()
                .filter(|n| !after.contains(n))
                .cloned()
                .collect(),
            dropped: (discovered.tools.into_iter())
                .filter(|n| !kept.contains(n))
                .collect(),
        };
        (session, change)
    }

    /// How this session presents its lazy tools, after [`DiscoveryMode::Auto`] decided.
    pub fn mode(&self) -> ResolvedMode {
        self.shared.mode
    }

    /// Rebuilds a conversation's session from its message history, as a stateless server
    /// does on every request.
    ///
    /// Reads OpenAI Chat (`tool_calls` / `tool_call_id`), TanStack AI (`toolCalls` /
    /// `toolCallId`), Anthropic (`tool_use` / `tool_result` blocks, `tool_reference` answers),
    /// OpenAI Responses (`function_call` / `function_call_output` items, client-executed
    /// `tool_search_call` / `tool_search_output` items) and Gemini (`functionCall` /
    /// `functionResponse` parts), even mixed. Only results of calls to the discovery tool
    /// count, matched by call id; malformed entries are skipped; tools that no longer exist,
    /// are not lazy, or are not allowed are ignored.
    pub fn from_history(registry: &Registry, history: &[Value]) -> Session {
        Session::from_history_with(registry, history, SessionOptions::default())
    }

    /// [`Session::from_history`] with options.
    pub fn from_history_with(
        registry: &Registry,
        history: &[Value],
        options: SessionOptions,
    ) -> Session {
        let signing = options.signing.clone();
        let session = Session::new(registry, options);
        let accepted = |names: &[&str], signature: Option<&str>| match &signing {
            None => true,
            Some(key) => signature.is_some_and(|signature| key.verify(names, signature)),
        };
        let mut discovered: Vec<String> = Vec::new();
        for record in compaction::recorded(history) {
            let names: Vec<&str> = record.tools.iter().map(String::as_str).collect();
            if accepted(&names, record.signature.as_deref()) {
                discovered.extend(record.tools);
            }
        }
        for result in history::results_of_tool(history, DISCOVERY_TOOL_NAME) {
            let names = discovery::found_names(&result.content);
            let signature = result.content.get("signature").and_then(Value::as_str);
            if accepted(&names, signature) {
                discovered.extend(names.into_iter().map(str::to_owned));
            }
        }
        session.restore(discovered.iter().map(String::as_str));
        session
    }

    /// Resumes a conversation whose [`discovered`](Session::discovered) set was stored.
    /// Names of tools that no longer exist, are not lazy, or are not allowed are ignored.
    pub fn resume(
        registry: &Registry,
        discovered: &DiscoveredSet,
        options: SessionOptions,
    ) -> Session {
        let session = Session::new(registry, options);
        session.restore(discovered.tools.iter().map(String::as_str));
        session
    }

    fn restore<'n>(&self, names: impl IntoIterator<Item = &'n str>) {
        let mut state = self.lock();
        for name in names {
            if self.lazy_tool(name).is_some() && !state.discovered.iter().any(|d| d == name) {
                state.discovered.push(name.to_owned());
            }
        }
    }

    /// The registry this session serves.
    pub fn registry(&self) -> &Registry {
        &self.shared.registry
    }

    /// The tools the next request must carry, in a stable order: eager tools (name order),
    /// the discovery tool while some lazy tool is undiscovered, discovered tools in discovery
    /// order. Building the next request starts a new turn, so this also makes the tools
    /// discovered during the last turn callable (see [`begin_turn`](Session::begin_turn)).
    pub fn active_tools(&self) -> Vec<ToolDefinition> {
        self.active_definitions()
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect()
    }

    /// [`active_tools`](Session::active_tools) without copying: each definition is built once
    /// per tool and shared, so a turn costs what rendering the request costs. The providers'
    /// `render_tools` take these as well.
    pub fn active_definitions(&self) -> Vec<Arc<ToolDefinition>> {
        let discovered = {
            let mut state = self.lock();
            commit(&mut state);
            state.discovered.clone()
        };
        let shared = &*self.shared;
        let mut tools: Vec<Arc<ToolDefinition>> =
            shared.eager.iter().map(Tool::shared_definition).collect();
        if let Some(discovery) = shared.discovery()
            && (shared.mode == ResolvedMode::CacheStable
                || discovered.len() < discovery.lazy_names().len())
        {
            tools.push(Arc::clone(&discovery.definition));
        }
        if shared.mode == ResolvedMode::CacheStable {
            tools.extend(shared.presentation.stubs.iter().cloned());
        } else {
            tools.extend(
                discovered
                    .iter()
                    .filter_map(|name| self.lazy_tool(name))
                    .map(Tool::shared_definition),
            );
        }
        tools
    }

    /// Every tool this session may use, each with whether it is deferred (lazy), in a fixed
    /// order: eager tools, the discovery tool, the lazy tools by name. For providers that load
    /// deferred tools themselves, such as Anthropic's `defer_loading`
    /// ([`provider::anthropic::render_tools_deferred`](crate::provider::anthropic::render_tools_deferred)).
    /// Starts a new turn like [`active_tools`](Session::active_tools).
    pub fn deferrable_tools(&self) -> Vec<(ToolDefinition, bool)> {
        self.begin_turn();
        let shared = &*self.shared;
        let mut tools: Vec<(ToolDefinition, bool)> = shared
            .eager
            .iter()
            .map(|tool| (tool.definition(), false))
            .collect();
        if let Some(discovery) = shared.discovery() {
            tools.push((ToolDefinition::clone(&discovery.definition), false));
        }
        tools.extend(
            self.lazy_tool_names()
                .iter()
                .filter_map(|name| self.lazy_tool(name))
                .map(|tool| (tool.definition(), true)),
        );
        tools
    }

    /// Starts a new model turn: tools discovered during the last one become callable.
    /// [`active_tools`](Session::active_tools) does this too.
    pub fn begin_turn(&self) {
        commit(&mut self.lock());
    }

    /// The lazy tools discovered so far (including during the current turn), in discovery
    /// order.
    pub fn discovered(&self) -> DiscoveredSet {
        let state = self.lock();
        DiscoveredSet {
            tools: state
                .discovered
                .iter()
                .chain(state.pending.iter())
                .cloned()
                .collect(),
        }
    }

    /// A marker recording the discovered tools, for the summary message that replaces
    /// compacted history: [`Session::from_history`] restores the tools from it after the
    /// original discovery results are gone. It is text; put it anywhere in a message's text.
    /// Like any history, it is a claim by whoever writes the history: gating still applies.
    pub fn compaction_marker(&self) -> String {
        let tools = self.discovered().tools;
        let signature = self
            .shared
            .options
            .signing
            .as_ref()
            .map(|key| key.sign(&tools.iter().map(String::as_str).collect::<Vec<_>>()));
        compaction::marker(&tools, signature)
    }

    /// The names of the lazy tools this session may discover, in name order.
    pub fn lazy_tool_names(&self) -> &[String] {
        self.shared
            .discovery()
            .map_or(&[], |discovery| discovery.lazy_names())
    }

    /// Runs a tool call under the discovery rules; every failure is an error result.
    pub fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        self.call_with_context(name, arguments, ToolContext::new())
    }

    /// [`Session::call`] with the call's id and cancellation token. Gating is decided when
    /// this is called; the returned future owns what it needs, so it can be spawned.
    pub fn call_with_context(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        crate::tool::run(self.admit(name, arguments, context))
    }

    /// Runs the calls of one model turn: all are admitted under the state at the start of the
    /// turn (a tool discovered by one of them is callable from the next turn), then run
    /// concurrently, at most `concurrency` at a time (at least one); the results come back in
    /// call order, each with its call's id in its context.
    pub fn call_turn(
        &self,
        calls: Vec<ToolCall>,
        concurrency: usize,
    ) -> impl Future<Output = Vec<ToolResult>> + Send + 'static {
        let admitted: Vec<_> = calls
            .into_iter()
            .map(|call| {
                let context = ToolContext::new().with_call_id(call.id);
                self.admit(&call.name, call.arguments, context)
            })
            .collect();
        crate::tool::run_all(admitted, concurrency.max(1))
    }

    /// Answers the call right away (discovery, refusals), or returns the tool call to run.
    fn admit(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<Admitted, ToolResult> {
        if name == DISCOVERY_TOOL_NAME
            && let Some(discovery) = self.shared.discovery()
        {
            return Err(self.discover(discovery, arguments));
        }
        let Some(tool) = self.shared.registry.get(name).filter(|t| self.allowed(t)) else {
            return Err(self.unknown_tool(name));
        };
        let gated = matches!(self.shared.mode, ResolvedMode::Names | ResolvedMode::Search);
        if gated && tool.is_lazy() && !self.lock().discovered.iter().any(|d| d == name) {
            return Err(ToolResult::error(
                ToolErrorKind::NotDiscovered,
                format!(
                    "Error: Tool '{name}' must be discovered first. Call {DISCOVERY_TOOL_NAME} with toolNames: ['{name}'] to discover it."
                ),
            ));
        }
        tool.admit(arguments, context)
    }

    fn discover(&self, discovery: &DiscoveryTool, arguments: Value) -> ToolResult {
        let started = tracing::enabled!(target: "lazytool::discovery", tracing::Level::INFO)
            .then(std::time::Instant::now);
        let registry = &self.shared.registry;
        let outcome = discovery.discover(
            arguments,
            |name| registry.get(name).filter(|tool| self.allowed(tool)),
            |query, limit| registry.search_lazy(query, limit, |tool| self.allowed(tool)),
        );
        let newly: Vec<&String> = {
            let mut state = self.lock();
            let mut newly = Vec::new();
            for name in &outcome.found {
                if !state.discovered.contains(name) && !state.pending.contains(name) {
                    state.pending.push(name.clone());
                    newly.push(name);
                }
            }
            newly
        };
        tracing::info!(
            target: "lazytool::discovery",
            found = ?outcome.found,
            new = ?newly,
            unknown = ?outcome.unknown,
            error = outcome.result.is_error(),
            duration_us = started.map(|start| start.elapsed().as_micros() as u64),
            "discovery"
        );
        match &self.shared.options.signing {
            Some(key) if !outcome.result.is_error() => sign_result(key, outcome.result),
            _ => outcome.result,
        }
    }

    fn unknown_tool(&self, name: &str) -> ToolResult {
        let state = self.lock();
        let discovery = self.shared.discovery().map(|_| DISCOVERY_TOOL_NAME);
        let available = (self.shared.eager.iter().map(Tool::name))
            .chain(discovery)
            .chain(state.discovered.iter().map(String::as_str));
        ToolResult::unknown_tool(name, available)
    }

    fn allowed(&self, tool: &Tool) -> bool {
        self.shared.allow.as_ref().is_none_or(|allow| allow(tool))
    }

    fn lazy_tool(&self, name: &str) -> Option<&Tool> {
        self.shared
            .registry
            .get(name)
            .filter(|tool| tool.is_lazy() && self.allowed(tool))
    }

    fn lock(&self) -> MutexGuard<'_, DiscoveryState> {
        // The state is a list of names, consistent after every statement: a panic elsewhere
        // while the lock was held cannot leave it half-written.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// A discovery result with the signature of the tools it lists.
fn sign_result(key: &SigningKey, result: ToolResult) -> ToolResult {
    let mut content = result.content().clone();
    let signature = key.sign(&discovery::found_names(&content));
    content["signature"] = Value::String(signature);
    result.with_content(content)
}

/// A lazy tool as cache-stable mode lists it: its first sentence and an open schema.
fn stub(tool: &Tool) -> ToolDefinition {
    ToolDefinition {
        name: tool.name().to_owned(),
        description: format!(
            "{} (Parameters not shown: call {DISCOVERY_TOOL_NAME} with this name for them.)",
            first_sentence(tool.description())
        ),
        input_schema: serde_json::json!({"type": "object", "properties": {}, "additionalProperties": true}),
    }
}

fn commit(state: &mut DiscoveryState) {
    let pending = std::mem::take(&mut state.pending);
    state.discovered.extend(pending);
}

impl fmt::Debug for Session {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("discovered", &self.discovered().tools)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::DynamicTool;

    fn registry() -> Registry {
        let tool = |name: &str| {
            DynamicTool::new(
                name.to_owned(),
                format!("The {name} tool."),
                json!({"type": "object"}),
                |_: Value, _| async { Ok::<_, String>(Value::Null) },
            )
            .lazy(true)
        };
        Registry::builder()
            .without_inventory()
            .tool(tool("alpha"))
            .tool(tool("beta"))
            .build()
            .expect("valid tools")
    }

    #[test]
    fn ungated_sessions_share_one_presentation_per_mode() {
        let registry = registry();
        let first = registry.session();
        let second = registry.session();
        assert!(Arc::ptr_eq(
            &first.shared.presentation,
            &second.shared.presentation
        ));
        let search = registry.session_with(SessionOptions::new().mode(DiscoveryMode::Search));
        assert!(!Arc::ptr_eq(
            &first.shared.presentation,
            &search.shared.presentation
        ));
        let gated =
            registry.session_with(SessionOptions::new().allow(|tool| tool.name() == "alpha"));
        assert!(!Arc::ptr_eq(
            &first.shared.presentation,
            &gated.shared.presentation
        ));
        assert_eq!(gated.lazy_tool_names(), ["alpha"]);
        assert_eq!(first.lazy_tool_names(), ["alpha", "beta"]);
    }

    #[tokio::test]
    async fn active_definitions_are_shared_not_copied() {
        let registry = registry();
        let session = registry.session();
        let result = session
            .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["beta"]}))
            .await;
        assert!(!result.is_error(), "{result:?}");
        let first = session.active_definitions();
        let second = session.active_definitions();
        assert_eq!(first.len(), 2, "the discovery tool and beta");
        for (a, b) in first.iter().zip(&second) {
            assert!(Arc::ptr_eq(a, b));
        }
        let owned: Vec<ToolDefinition> = first.iter().map(|d| ToolDefinition::clone(d)).collect();
        assert_eq!(session.active_tools(), owned);
    }
}
