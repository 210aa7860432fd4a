//! The rig hook that gives each request of rig's loop the session's active tools.

use std::sync::Arc;

use lazytool_runtime::Session;
use rig_agent::agent::{
    AgentHook, CompletionCallAction, CompletionCallEvent, HookContext, InvalidToolCallAction,
    InvalidToolCallContext, InvalidToolCallReason, RequestPatch,
};
use serde_json::Value;

/// A rig [`AgentHook`] over a lazytool [`Session`]: before each of rig's requests it starts a
/// turn of the session and narrows the request's tools to
/// [`Session::active_tools`] (rig's per-turn `active_tools` allow-list), and it answers a
/// call of a tool the request did not carry (an unknown name, a lazy tool not discovered yet)
/// with lazytool's error result instead of failing the run.
///
/// Made by [`LazyTools::hook`](crate::LazyTools::hook); [`LazyTools::attach`](crate::LazyTools::attach) adds it.
///
/// ```
/// # use lazytool_runtime::Registry;
/// # let registry = Registry::builder().without_inventory().build().unwrap();
/// let hook = lazytool_rig::LazyTools::new(registry.session()).hook();
/// assert!(format!("{hook:?}").starts_with("LazyHook"));
/// ```
#[derive(Clone)]
pub struct LazyHook {
    session: Arc<Session>,
    kept: Vec<String>,
}

impl LazyHook {
    pub(crate) fn new(session: Arc<Session>, kept: Vec<String>) -> Self {
        LazyHook { session, kept }
    }

    /// The names this turn's request carries: the session's active tools, then the kept ones.
    fn allowed(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .session
            .active_definitions()
            .iter()
            .map(|tool| tool.name.clone())
            .collect();
        names.extend(self.kept.iter().cloned());
        names
    }

    /// lazytool's answer to a call rig would not dispatch: the session refuses it (unknown,
    /// or not discovered yet) with a message naming what the model can do instead.
    async fn refusal(&self, event: &InvalidToolCallContext) -> String {
        let arguments = event
            .args
            .as_deref()
            .and_then(|raw| serde_json::from_str(raw).ok())
            .unwrap_or_else(|| Value::Object(Default::default()));
        self.session.call(&event.tool_name, arguments).await.text()
    }
}

impl AgentHook for LazyHook {
    fn name(&self) -> Option<String> {
        Some("lazytool".to_owned())
    }

    async fn on_completion_call(
        &self,
        _ctx: &HookContext,
        _event: CompletionCallEvent<'_>,
    ) -> CompletionCallAction {
        CompletionCallAction::Patch(RequestPatch::new().active_tools(self.allowed()))
    }

    async fn on_invalid_tool_call(
        &self,
        _ctx: &HookContext,
        event: &InvalidToolCallContext,
    ) -> Option<InvalidToolCallAction> {
        match event.reason {
            // rig answers the call with an error result naming the arguments it could not read.
            InvalidToolCallReason::MalformedArguments { .. } => None,
            InvalidToolCallReason::UnknownTool if !self.kept.contains(&event.tool_name) => {
                Some(InvalidToolCallAction::skip(self.refusal(event).await))
            }
            _ => None,
        }
    }
}

impl std::fmt::Debug for LazyHook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyHook")
            .field("kept", &self.kept)
            .finish()
    }
}
