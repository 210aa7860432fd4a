//! What each request of a session carries: its tools' definitions, as the session offers
//! them (discovered lazy tools, the discovery tool, code mode's tool).

use std::sync::Arc;

use super::{Session, commit};
use crate::discovery::ResolvedMode;
use crate::tool::{Tool, ToolDefinition};

impl Session {
    /// The tools the next request must carry, in a stable order: eager tools (name order),
    /// the discovery tool while some lazy tool is undiscovered, discovered tools in discovery
    /// order. Building the next request starts a new turn, so this also makes the tools
    /// discovered during the last turn callable (see [`begin_turn`](Session::begin_turn)).
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::DISCOVERY_TOOL_NAME;
    ///
    /// let session = registry.session();
    /// let names: Vec<String> = session.active_tools().into_iter().map(|tool| tool.name).collect();
    /// assert_eq!(names, ["get_time", DISCOVERY_TOOL_NAME]);
    ///
    /// session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})).await;
    /// let names: Vec<String> = session.active_tools().into_iter().map(|tool| tool.name).collect();
    /// assert_eq!(names, ["get_time", "get_forecast"]); // every lazy tool found: no discovery tool
    /// # }
    /// ```
    pub fn active_tools(&self) -> Vec<ToolDefinition> {
        self.active_definitions()
            .into_iter()
            .map(Arc::unwrap_or_clone)
            .collect()
    }

    /// [`active_tools`](Session::active_tools) without copying: each definition is built once
    /// per tool and shared, so a turn costs what rendering the request costs. The providers'
    /// `render_tools` take these as well.
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::provider::anthropic;
    ///
    /// let session = registry.session();
    /// let tools = anthropic::render_tools(&session.active_definitions());
    /// assert_eq!(tools[0]["name"], "get_time");
    /// ```
    pub fn active_definitions(&self) -> Vec<Arc<ToolDefinition>> {
        let tools = self.direct_definitions();
        #[cfg(feature = "code-mode")]
        let tools = self.with_code_tool(tools);
        tools
    }

    /// The tools a request carries for calls made by name (without code mode's tool).
    fn direct_definitions(&self) -> Vec<Arc<ToolDefinition>> {
        let discovered = {
            let mut state = self.lock();
            commit(&mut state);
            self.listed(&mut state);
            state.discovered.clone()
        };
        if self.calls_through() {
            return self.call_through_definitions();
        }
        let shared = &*self.shared;
        let mut tools = self.eager_definitions();
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
                    .map(|tool| self.definition_of(tool)),
            );
        }
        tools
    }

    /// The eager tools' definitions, in the registry's order.
    pub(super) fn eager_definitions(&self) -> Vec<Arc<ToolDefinition>> {
        (self.shared.eager.iter())
            .map(|tool| self.definition_of(tool))
            .collect()
    }

    /// What a request carries of `tool` in this session: with its examples, unless
    /// [`SessionOptions::examples`] turned them off.
    pub(crate) fn definition_of(&self, tool: &Tool) -> Arc<ToolDefinition> {
        let definition = tool.shared_definition();
        if self.shared.options.shows_examples() || tool.examples().is_empty() {
            definition
        } else {
            Arc::new(definition.without_examples())
        }
    }

    /// Every tool this session may use, each with whether it is deferred (lazy), in a fixed
    /// order: eager tools, the discovery tool, the lazy tools by name. For providers that load
    /// deferred tools themselves, such as Anthropic's `defer_loading`
    /// ([`provider::anthropic::render_tools_deferred`](crate::provider::anthropic::render_tools_deferred)).
    /// Starts a new turn like [`active_tools`](Session::active_tools).
    ///
    /// ```
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::DISCOVERY_TOOL_NAME;
    ///
    /// let tools = registry.session().deferrable_tools();
    /// let listed: Vec<(&str, bool)> = tools.iter().map(|(tool, deferred)| (tool.name.as_str(), *deferred)).collect();
    /// assert_eq!(listed, [("get_time", false), (DISCOVERY_TOOL_NAME, false), ("get_forecast", true)]);
    /// ```
    pub fn deferrable_tools(&self) -> Vec<(ToolDefinition, bool)> {
        {
            let mut state = self.lock();
            commit(&mut state);
            self.listed(&mut state);
        }
        let shared = &*self.shared;
        let mut tools: Vec<(ToolDefinition, bool)> = shared
            .eager
            .iter()
            .map(|tool| (ToolDefinition::clone(&self.definition_of(tool)), false))
            .collect();
        if let Some(discovery) = shared.discovery() {
            tools.push((ToolDefinition::clone(&discovery.definition), false));
        }
        tools.extend(
            self.lazy_tool_names()
                .iter()
                .filter_map(|name| self.lazy_tool(name))
                .map(|tool| (ToolDefinition::clone(&self.definition_of(tool)), true)),
        );
        tools
    }
}
