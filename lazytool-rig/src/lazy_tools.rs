//! A lazytool session as a rig agent's tools and the hook that gates them turn by turn.

use std::sync::Arc;

use lazytool_runtime::Session;
use rig_agent::agent::{AgentBuilder, NoToolConfig, WithBuilderTools};
use rig_core::completion::message::ToolName;
use rig_core::tool::{DynamicTool, ToolExecutionError, ToolOutput};
use rig_core::wasm_compat::WasmBoxedFuture;

use crate::LazyHook;
use crate::result::to_rig_output;

/// One conversation's lazytool tools for a rig agent: every tool of the session's registry
/// (eager, lazy, the discovery tool) as a rig [`DynamicTool`] that runs through lazytool's
/// dispatch, and a [`LazyHook`] that lets each of rig's requests carry only what
/// [`Session::active_tools`] returns.
///
/// Keep one per conversation, like the [`Session`] it wraps: the agent built with it shares
/// the session's discovered tools across its runs.
///
/// ```
/// use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool, Registry};
/// use lazytool_rig::LazyTools;
/// use serde_json::json;
///
/// let tool = |name: &str, lazy| {
///     DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
///         |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy)
/// };
/// let registry = Registry::builder().without_inventory()
///     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
/// let lazy = LazyTools::new(registry.session());
/// // rig holds every tool; the hook narrows each request to the active ones.
/// let names: Vec<String> = lazy.tools().iter().map(|tool| tool.name().to_string()).collect();
/// assert_eq!(names, ["get_time", DISCOVERY_TOOL_NAME, "get_forecast"]);
/// ```
#[derive(Clone)]
pub struct LazyTools {
    session: Arc<Session>,
    tools: Vec<DynamicTool>,
    kept: Vec<String>,
}

impl LazyTools {
    /// The tools of `session`'s registry, in the order of [`Session::deferrable_tools`]:
    /// eager tools, the discovery tool, then the lazy tools by name. A name rig refuses
    /// (only the empty name, which no lazytool registry holds) is left out.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let registry = Registry::builder().without_inventory().tool(DynamicTool::new(
    /// #     "get_time".to_owned(), "The time.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("12:00")) })).build().unwrap();
    /// let lazy = lazytool_rig::LazyTools::new(registry.session());
    /// assert_eq!(lazy.tools().len(), 1); // no lazy tool: no discovery tool either
    /// ```
    pub fn new(session: Session) -> Self {
        let session = Arc::new(session);
        let tools = session
            .deferrable_tools()
            .into_iter()
            .filter_map(|(definition, _)| {
                let name = ToolName::try_from(definition.name.clone()).ok()?;
                Some(rig_tool(&session, name, definition))
            })
            .collect();
        LazyTools {
            session,
            tools,
            kept: Vec::new(),
        }
    }

    /// Names of the agent's other rig tools (ones not from the registry), which every request
    /// keeps: without them, the hook's allow-list would leave them out.
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// let lazy = lazytool_rig::LazyTools::new(registry.session()).keep_tools(["web_search"]);
    /// # let _ = lazy;
    /// ```
    pub fn keep_tools<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.kept.extend(names.into_iter().map(Into::into));
        self
    }

    /// The session whose tools these are: its [`discovered`](Session::discovered) tools,
    /// [`active_tools`](Session::active_tools), and calls made outside rig.
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// let lazy = lazytool_rig::LazyTools::new(registry.session());
    /// assert!(lazy.session().discovered().tools.is_empty());
    /// ```
    pub fn session(&self) -> &Session {
        &self.session
    }

    /// Every tool as a rig [`DynamicTool`], for [`AgentBuilder::dynamic_tools`] (with
    /// [`hook`](LazyTools::hook), or the requests carry every tool eagerly).
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// let tools = lazytool_rig::LazyTools::new(registry.session()).tools();
    /// assert!(tools.is_empty());
    /// ```
    pub fn tools(&self) -> Vec<DynamicTool> {
        self.tools.clone()
    }

    /// The hook that narrows each request to the session's active tools and answers calls rig
    /// cannot dispatch with lazytool's error results.
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// let hook = lazytool_rig::LazyTools::new(registry.session()).hook();
    /// # let _ = hook;
    /// ```
    pub fn hook(&self) -> LazyHook {
        LazyHook::new(Arc::clone(&self.session), self.kept.clone())
    }

    /// `builder` with these tools and their hook: the agent's requests carry the eager tools
    /// and the discovery tool first, discovered tools from the turn after their discovery.
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # fn model() -> rig_core::DynModel<rig_core::operation::Completion> {
    /// #     let http = lazytool_rig::ScriptedChat::new(|_| lazytool_rig::ScriptedChat::text("hi"));
    /// #     rig_core::providers::openai::OpenAIConfig::new("-").connect(http).chat("m").into()
    /// # }
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// use rig_agent::AgentBuilder;
    ///
    /// let lazy = lazytool_rig::LazyTools::new(registry.session());
    /// let agent = lazy.attach(AgentBuilder::new(model()).preamble("Be brief.")).build();
    /// # let _ = agent;
    /// ```
    pub fn attach(&self, builder: AgentBuilder<NoToolConfig>) -> AgentBuilder<WithBuilderTools> {
        builder.dynamic_tools(self.tools()).add_hook(self.hook())
    }

    /// [`attach`](LazyTools::attach) for a builder that already has rig tools of its own
    /// (name them with [`keep_tools`](LazyTools::keep_tools)).
    ///
    /// ```
    /// # use lazytool_runtime::Registry;
    /// # let registry = Registry::builder().without_inventory().build().unwrap();
    /// # fn builder() -> rig_agent::agent::AgentBuilder<rig_agent::agent::WithBuilderTools> {
    /// #     let http = lazytool_rig::ScriptedChat::new(|_| lazytool_rig::ScriptedChat::text("hi"));
    /// #     let model = rig_core::providers::openai::OpenAIConfig::new("-").connect(http).chat("m");
    /// #     rig_agent::AgentBuilder::new(model).dynamic_tools(Vec::new())
    /// # }
    /// let lazy = lazytool_rig::LazyTools::new(registry.session());
    /// let agent = lazy.attach_to(builder()).build();
    /// # let _ = agent;
    /// ```
    pub fn attach_to(
        &self,
        builder: AgentBuilder<WithBuilderTools>,
    ) -> AgentBuilder<WithBuilderTools> {
        builder.dynamic_tools(self.tools()).add_hook(self.hook())
    }
}

impl std::fmt::Debug for LazyTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyTools")
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|tool| tool.name().to_string())
                    .collect::<Vec<_>>(),
            )
            .field("kept", &self.kept)
            .finish()
    }
}

/// A rig tool whose calls run through `session` (validation, gating, limits, events, spans).
fn rig_tool(
    session: &Arc<Session>,
    name: ToolName,
    definition: lazytool_runtime::ToolDefinition,
) -> DynamicTool {
    let session = Arc::clone(session);
    let called = definition.name;
    DynamicTool::new(
        name,
        definition.description,
        definition.input_schema,
        move |arguments| -> WasmBoxedFuture<'static, Result<ToolOutput, ToolExecutionError>> {
            let result = session.call(&called, arguments);
            Box::pin(async move { to_rig_output(result.await) })
        },
    )
}
