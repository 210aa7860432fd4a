//! What an [`McpSource`] reports: its state and lock state, its pins' decisions and changed
//! definitions, the tools it left out or cleaned, the limits it hit.

use tokio::sync::watch;

use super::mcp_source::McpSource;
use crate::connection::upstream::Upstream;
use crate::lock::file::LockState;
use crate::lock::verify::Change;
use crate::offers::admission::ToolNote;
use crate::server_state::ServerState;
use lazytool_mcp_core::limit::{CallQuota, LimitsHit};

impl McpSource {
    /// The limits of [`call_quota`](Self::call_quota).
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert!(time.quota().is_unlimited());
    /// ```
    pub fn quota(&self) -> CallQuota {
        self.limiter
            .as_ref()
            .map(|limiter| limiter.quota())
            .unwrap_or_default()
    }

    /// How many calls the server's limits refused so far.
    ///
    /// ```
    /// use lazytool_mcp_client::{LimitsHit, McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert_eq!(time.limits_hit(), LimitsHit { rate: 0, in_flight: 0 });
    /// ```
    pub fn limits_hit(&self) -> LimitsHit {
        self.limiter
            .as_ref()
            .map(|limiter| limiter.hit())
            .unwrap_or_default()
    }

    /// How the source stands with its lock.
    ///
    /// ```
    /// use lazytool_mcp_client::{LockState, McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert_eq!(time.lock_state(), LockState::Unlocked);
    /// ```
    pub fn lock_state(&self) -> LockState {
        self.lock_state
    }

    /// Whether the server runs now.
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert!(!time.is_running());
    /// ```
    pub fn is_running(&self) -> bool {
        self.link.get().is_some_and(|link| link.is_running())
    }

    /// How the server stands now: not started, starting, running, idle-stopped, or failed
    /// with its reason.
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, ServerState, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert_eq!(time.state(), ServerState::NotStarted);
    /// ```
    pub fn state(&self) -> ServerState {
        self.link
            .get()
            .map_or(ServerState::NotStarted, |link| link.health().into())
    }

    /// What the last listing's pin decided for each tool that differs from the lock: the
    /// tool's upstream name, what changed and what was done.
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert!(time.pin_decisions().is_empty(), "nothing listed yet");
    /// ```
    pub fn pin_decisions(&self) -> Vec<ToolNote> {
        self.listed().pinning.clone()
    }

    /// Each tool of the last listing whose definition differs from the one the lock
    /// approved, with both definitions (empty without a lock entry or before a listing).
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert!(time.changed_definitions().is_empty());
    /// ```
    pub fn changed_definitions(&self) -> Vec<crate::ChangedDefinition> {
        self.pins().changed_definitions()
    }

    /// Why the tool served as `name` (`SERVER__TOOL`) is not offered, if the last listing
    /// withheld it: a tool the server added that the lock has not approved (under
    /// [`Pin::Block`](super::lock::verify::Pin::Block)). The text names the server, the tool,
    /// that it is new and the command that accepts it.
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert_eq!(time.withheld_tool("time__newcomer"), None, "nothing listed yet");
    /// ```
    pub fn withheld_tool(&self, name: &str) -> Option<String> {
        let (_, verdict) = self.pins.get()?.last_seen()?;
        let (upstream, _) = (verdict.changes.iter()).find(|(upstream, change)| {
            matches!(change, Change::Added)
                && !verdict.offers_live(upstream)
                && crate::offers::naming::exposed_name(&self.prefix, upstream) == name
        })?;
        verdict.refusal(&self.name, upstream, self.pins().approve())
    }

    /// Where the server is and how it is reached.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// Changes each time the server announces `list_changed` (of its tools, prompts or
    /// resources) or was restarted.
    pub fn tools_changed(&self) -> watch::Receiver<u64> {
        self.link().tools_changed()
    }

    /// The protocol version agreed with the server at its last start (`"2026-07-28"`, or
    /// the version its `initialize` answer named), `None` before it first started.
    ///
    /// ```
    /// use lazytool_mcp_client::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert_eq!(time.protocol_version(), None);
    /// ```
    pub fn protocol_version(&self) -> Option<String> {
        (self.link.get().and_then(|link| link.protocol()))
            .or_else(|| self.entry.as_ref()?.protocol_version.clone())
    }

    /// The tools of the last listing that were left out, and why: a name that cannot be
    /// used (`__lazy__tool__discovery__`, say), an input schema that does not compile or a
    /// definition over [`max_definition_bytes`](McpSource::max_definition_bytes).
    /// The server's other tools are served.
    pub fn left_out(&self) -> Vec<ToolNote> {
        self.listed().left_out.clone()
    }

    /// The tools of the last listing whose text was cleaned before it was served, and what
    /// was removed or cut ([`McpSource`] says what is removed).
    pub fn cleaned(&self) -> Vec<ToolNote> {
        self.listed().cleaned.clone()
    }
}
