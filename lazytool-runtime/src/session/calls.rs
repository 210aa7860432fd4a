//! Calls under the discovery rules: gating, the discovery tool, refusals.

use std::sync::atomic::Ordering;

use serde_json::Value;

use super::call_through::Routed;
use super::{Session, redefined};
use crate::call::{DiscoveredSet, ToolCall, ToolContext, ToolErrorKind, ToolResult};
use crate::discovery::{DiscoveryTool, write_signature};
use crate::dispatch::{Admitted, admit, answered, bound, refuse, run, run_all, screen};
use crate::tool::{DISCOVERY_TOOL_NAME, Tool};

impl Session {
    /// Runs a tool call under the discovery rules; every failure is an error result.
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
    /// use lazytool_runtime::ToolErrorKind;
    ///
    /// let session = registry.session();
    /// assert_eq!(session.call("get_time", json!({})).await.content(), "done");
    /// let missing = session.call("get_weather", json!({})).await;
    /// assert_eq!(missing.error_kind(), Some(ToolErrorKind::UnknownTool));
    /// # }
    /// ```
    pub fn call(
        &self,
        name: &str,
        arguments: Value,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        self.call_with_context(name, arguments, ToolContext::new())
    }

    /// [`Session::call`] with the call's id and cancellation token. Gating is decided when
    /// this is called; the returned future owns what it needs, so it can be spawned.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// use lazytool_runtime::{DynamicTool, Registry, ToolContext};
    /// use serde_json::json;
    ///
    /// let whoami = DynamicTool::new("whoami", "The id of this call.", json!({"type": "object"}),
    ///     |_, context: ToolContext| async move { Ok::<_, String>(json!(context.call_id())) });
    /// let registry = Registry::builder().without_inventory().tool(whoami).build().unwrap();
    /// let context = ToolContext::new().with_call_id("call_7");
    /// let result = registry.session().call_with_context("whoami", json!({}), context).await;
    /// assert_eq!(result.content(), "call_7");
    /// # }
    /// ```
    pub fn call_with_context(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> impl Future<Output = ToolResult> + Send + 'static {
        run(self.admit(name, arguments, context))
    }

    /// Runs the calls of one model turn: all are admitted under the state at the start of the
    /// turn (a tool discovered by one of them is callable from the next turn), then run
    /// concurrently, at most `concurrency` at a time (at least one); the results come back in
    /// call order, each with its call's id in its context.
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
    /// use lazytool_runtime::{DISCOVERY_TOOL_NAME, ToolCall, ToolErrorKind};
    ///
    /// let session = registry.session();
    /// let call = |id: &str, name: &str, arguments| ToolCall { id: id.into(), name: name.into(), arguments };
    /// let results = session.call_turn(vec![
    ///     call("call_1", DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})),
    ///     call("call_2", "get_forecast", json!({})), // discovered in this very turn: too early
    ///     call("call_3", "get_time", json!({})),
    /// ], 4).await;
    /// assert!(!results[0].is_error());
    /// assert_eq!(results[1].error_kind(), Some(ToolErrorKind::NotDiscovered));
    /// assert_eq!(results[2].content(), "done");
    /// # }
    /// ```
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
        run_all(admitted, concurrency.max(1))
    }

    /// Answers the call right away (discovery, refusals), or returns the tool call to run.
    /// Every answer given here goes through the registry's limits like a tool's: the
    /// arguments are screened before anything reads them (or dropped without recursion when
    /// nothing will), and the answer is bound to the output limit.
    fn admit(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<Admitted, ToolResult> {
        #[cfg(feature = "code-mode")]
        let arguments = match self.route_code(name, arguments, &context) {
            Routed::Done(admitted) => return admitted,
            Routed::Pass(arguments) => arguments,
        };
        self.admit_direct(name, arguments, context)
    }

    /// [`admit`](Session::admit) for a call by a tool's own name: the calls of a script come
    /// here as well, so that they obey every rule a direct call does.
    pub(super) fn admit_direct(
        &self,
        name: &str,
        arguments: Value,
        context: ToolContext,
    ) -> Result<Admitted, ToolResult> {
        let arguments = match self.route_through(name, arguments, &context) {
            Routed::Done(admitted) => return admitted,
            Routed::Pass(arguments) => arguments,
        };
        let limits = self.shared.registry.limits();
        let call_id = context.call_id();
        if name == DISCOVERY_TOOL_NAME
            && let Some(discovery) = self.shared.discovery()
        {
            return Err(answered(name, call_id, || {
                bound(self.discover(discovery, arguments), limits)
            }));
        }
        let Some(tool) = self.shared.registry.get(name).filter(|t| self.allowed(t)) else {
            return Err(answered(name, call_id, || {
                refuse(self.unknown_tool(name), arguments, limits)
            }));
        };
        if let Some(refused) = self.refusal(tool, name) {
            return Err(answered(name, call_id, || {
                refuse(refused, arguments, limits)
            }));
        }
        admit(tool, arguments, context)
    }

    /// Why `tool` may not run now: a lazy tool not discovered (again, if its definition
    /// changed since), an eager one changed since the tools were last listed.
    fn refusal(&self, tool: &Tool, name: &str) -> Option<ToolResult> {
        if self.shared.mode.discovers() && tool.is_lazy() {
            let state = self.lock();
            if state.is_callable(name) {
                return None;
            }
            if state.redefined.contains(name) {
                return Some(redefined::rediscover(name));
            }
            return Some(ToolResult::error(
                ToolErrorKind::NotDiscovered,
                format!(
                    "Error: Tool '{name}' must be discovered first. Call {DISCOVERY_TOOL_NAME} with toolNames: ['{name}'] to discover it."
                ),
            ));
        }
        // Only a catalog change sets the flag: the usual call takes no lock here.
        (self.live.relisting.load(Ordering::Acquire) && self.lock().unlisted.contains(name))
            .then(|| redefined::relist(name))
    }

    pub(super) fn discover(&self, discovery: &DiscoveryTool, arguments: Value) -> ToolResult {
        let result = self.discover_schemas(discovery, arguments);
        #[cfg(feature = "code-mode")]
        let result = self.declare_discovered(result);
        result
    }

    fn discover_schemas(&self, discovery: &DiscoveryTool, arguments: Value) -> ToolResult {
        let started = tracing::enabled!(target: "lazytool::discovery", tracing::Level::INFO)
            .then(std::time::Instant::now);
        let registry = &self.shared.registry;
        let limits = registry.limits();
        let arguments = match screen(DISCOVERY_TOOL_NAME, arguments, limits) {
            Ok(screened) => screened.arguments,
            Err(rejected) => return rejected,
        };
        let outcome = discovery.discover(
            &arguments,
            limits.max_output_bytes,
            |name| registry.get(name).filter(|tool| self.allowed(tool)),
            |query, limit| {
                #[cfg(feature = "search")]
                return registry.search_lazy(query, limit, |tool| self.allowed(tool));
                // Without search mode the discovery tool takes no query.
                #[cfg(not(feature = "search"))]
                return {
                    let _ = (query, limit);
                    Vec::new()
                };
            },
            registry.explains(),
        );
        let newly: Vec<&String> = {
            let mut state = self.lock();
            (outcome.found.iter())
                .filter(|name| state.add_pending(name))
                .collect()
        };
        tracing::info!(
            target: "lazytool::discovery",
            found = ?outcome.found,
            new = ?newly,
            unknown = ?outcome.unknown,
            unknown_count = outcome.unknown_count,
            error = outcome.result.is_error(),
            duration_us = started.map(|start| start.elapsed().as_micros() as u64),
            "discovery"
        );
        if outcome.result.is_error() {
            return outcome.result;
        }
        let record = DiscoveredSet::new(outcome.listed);
        match self.shared.options.signer() {
            Some(key) => {
                let record = key.sign_set(record);
                let mut content = outcome.result.content().clone();
                write_signature(
                    &mut content,
                    record.signature.as_deref().unwrap_or_default(),
                );
                outcome.result.with_content(content).with_discovered(record)
            }
            None => outcome.result.with_discovered(record),
        }
    }

    fn unknown_tool(&self, name: &str) -> ToolResult {
        let state = self.lock();
        let discovery = self.shared.discovery().map(|_| DISCOVERY_TOOL_NAME);
        let available = (self.shared.eager.iter().map(Tool::name))
            .chain(discovery)
            .chain(state.discovered.iter().map(String::as_str));
        self.shared.registry.not_held(name, available)
    }
}
