//! MCP servers as tool sources: [`McpSource`], and a registry of `#[tool]`s and MCP sources
//! that follows their changes: [`McpCatalog`].

mod admission;
mod catalog;
mod child;
mod http_failure;
mod in_flight;
mod link;
mod naming;
pub(crate) mod oauth;
mod offered;
mod offers;
mod progress_tap;
mod redact;
mod relay;
mod sanitize;
mod selection;
mod stdio;
mod tool;
mod upstream;
mod upstream_requests;

use std::sync::Arc;
use std::time::Duration;

use lazytool_runtime::CancellationToken;
use lazytool_runtime::source::{ListToolsFuture, SourceError, ToolSource};
use tokio::sync::watch;

pub use admission::ToolNote;
pub use catalog::{McpCatalog, SourceReport};
pub use child::InheritEnv;
pub use offered::PromptsAndResources;
pub use redact::Redactor;
pub use relay::Relay;
pub use selection::{PatternError, ToolSelection};
pub use upstream::Upstream;

use link::{Backoff, Link};

/// The default of [`McpSource::start_timeout`]: 30 seconds.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(30);
/// The default of [`McpSource::call_timeout`]: 5 minutes.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// One MCP server as a [`ToolSource`]: its tools become lazy
/// [`DynamicTool`](lazytool_runtime::DynamicTool)s named `SERVER__TOOL` that validate
/// their arguments against the server's input schema, then forward the call.
///
/// - Listing follows `nextCursor` to the last page; each tool keeps its description, input
///   and output schema and annotations. Names outside `^[a-zA-Z0-9_-]{1,64}$` are mapped
///   (invalid characters replaced, long names cut and ended by a short stable hash); a call
///   reaches the upstream under its own name.
/// - A call returns the server's content blocks as
///   [`McpContent`](crate::McpContent) (served over MCP as those blocks, with
///   `structuredContent`), and an upstream `isError` as an error result with its text. A
///   transport failure, a timeout ([`call_timeout`](McpSource::call_timeout)) or a server
///   that is down are error results too, never a failure of the caller.
/// - Cancelling the call's [`ToolContext`](lazytool_runtime::ToolContext) (or its timeout)
///   sends the server `notifications/cancelled`.
/// - The server is started on first use, within
///   [`start_timeout`](McpSource::start_timeout) (which bounds each listing too); a server that exited or failed to start is
///   started again on a later use, after a wait that doubles with each failure
///   ([`restart_backoff`](McpSource::restart_backoff)). Until then, calls fail at once.
/// - `notifications/tools/list_changed` from the server (and a restart) is reported on
///   [`tools_changed`](McpSource::tools_changed); [`McpCatalog`] lists it again.
/// - A child process gets its own `env` and only the parent's variables that
///   [`InheritEnv`](crate::InheritEnv) allows (by default the few every program needs, as
///   the official SDKs do), runs in its own process group, has its stderr logged (`tracing`
///   target `lazytool::upstream`; each line cut at 4 KiB, at most 50 lines a second), and is
///   stopped with its whole process group when the source is dropped or
///   [`shutdown`](McpSource::shutdown).
/// - What a model reads of its tools is cleaned: descriptions, titles and the texts and
///   values of their schemas lose Unicode tag characters, bidi controls, zero-width and
///   other invisible characters, control characters (newline and tab kept) and terminal
///   escape sequences, and descriptions are cut at
///   [`max_description_chars`](McpSource::max_description_chars); each tool's removals are
///   logged and reported ([`cleaned`](McpSource::cleaned)).
/// - No error, log line or report about the server shows the values of its `env` or
///   `headers`, or the user information or query values of a URL.
/// - An upstream tool that cannot be served is left out and reported
///   ([`left_out`](McpSource::left_out)); the server's other tools are served.
///
/// ```rust,no_run
/// use lazytool_mcp::{McpSource, ToolSelection, Upstream};
/// use lazytool_runtime::source::ToolSource;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let git = McpSource::new("git", Upstream::command("uvx", ["mcp-server-git"]))
///     .selection(ToolSelection::new().deny(["git_reset"])?.eager(["git_status"])?);
/// let tools = git.list_tools(Default::default()).await?;
/// assert!(tools.iter().any(|tool| tool.name() == "git__git_status"));
/// # Ok(()) }
/// ```
pub struct McpSource {
    name: Arc<str>,
    prefix: String,
    upstream: Upstream,
    selection: ToolSelection,
    start_timeout: Duration,
    call_timeout: Duration,
    backoff: Backoff,
    max_description_chars: usize,
    relay: Option<Relay>,
    link: std::sync::OnceLock<Arc<Link>>,
    listed: std::sync::Mutex<Listed>,
    /// Each served prompt name (`SERVER__PROMPT`) and the upstream's name of it.
    prompt_names: std::sync::Mutex<std::collections::HashMap<String, String>>,
}

/// What the last listing made of the upstream's tools.
#[derive(Clone, Debug, Default)]
pub(crate) struct Listed {
    /// Each offered tool's exposed name and upstream name.
    pub(crate) origins: Vec<(String, String)>,
    pub(crate) left_out: Vec<ToolNote>,
    pub(crate) cleaned: Vec<ToolNote>,
}

impl McpSource {
    /// The server `name` (also the prefix of its tools' names) at `upstream`.
    pub fn new(name: impl Into<Arc<str>>, upstream: Upstream) -> Self {
        let name = name.into();
        McpSource {
            prefix: name.to_string(),
            name,
            upstream,
            selection: ToolSelection::new(),
            start_timeout: DEFAULT_START_TIMEOUT,
            call_timeout: DEFAULT_CALL_TIMEOUT,
            backoff: Backoff {
                first: Duration::from_secs(1),
                max: Duration::from_secs(60),
            },
            max_description_chars: sanitize::DEFAULT_MAX_DESCRIPTION_CHARS,
            relay: None,
            link: std::sync::OnceLock::new(),
            listed: std::sync::Mutex::default(),
            prompt_names: std::sync::Mutex::default(),
        }
    }

    /// Names the tools `PREFIX__TOOL` instead of `NAME__TOOL`; an empty prefix keeps the
    /// upstream's names. In names mode each prefix costs about two tokens per name in the
    /// discovery list, unless the session lists them with
    /// [`DiscoveryListing::GroupedNames`](lazytool_runtime::DiscoveryListing::GroupedNames)
    /// (the gateway's default), which writes it once per server.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Which tools are offered and which are eager (default: all offered, all lazy).
    pub fn selection(mut self, selection: ToolSelection) -> Self {
        self.selection = selection;
        self
    }

    /// How long starting the server (spawn and handshake) may take. Default:
    /// [`DEFAULT_START_TIMEOUT`].
    pub fn start_timeout(mut self, timeout: Duration) -> Self {
        self.start_timeout = timeout;
        self
    }

    /// How long a call may take before it is cancelled upstream and answered with an error.
    /// Default: [`DEFAULT_CALL_TIMEOUT`].
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.call_timeout = timeout;
        self
    }

    /// The wait before the first restart of a failed server, doubled on each further
    /// failure up to `max`. Default: 1 s, at most 60 s.
    pub fn restart_backoff(mut self, first: Duration, max: Duration) -> Self {
        self.backoff = Backoff { first, max };
        self
    }

    /// Announces to the server what the program's MCP clients can answer (sampling,
    /// elicitation), as `relay` records it; see [`Relay`]. Whatever the relay, a
    /// `sampling/createMessage` or `elicitation/create` the server sends during a call is
    /// passed on to the client of that call when that client announced the capability, and
    /// refused with a JSON-RPC error that says why otherwise; its `notifications/progress`
    /// for the call reach that client under the client's own progress token when the client
    /// asked for progress. A 2026-07-28 server's `input_required` answer is treated the
    /// same way: its requests are passed on, and the call sent again with the answers.
    ///
    /// ```
    /// use lazytool_mcp::{McpSource, Relay, Upstream};
    ///
    /// let relay = Relay::new("my-gateway");
    /// let everything = McpSource::new("everything", Upstream::command("npx", ["@modelcontextprotocol/server-everything"]))
    ///     .relay(relay.clone());
    /// // and `McpServer::relay(relay)` on the server its tools are served by.
    /// # drop(everything);
    /// ```
    pub fn relay(mut self, relay: Relay) -> Self {
        self.relay = Some(relay);
        self
    }

    /// Where the server is and how it is reached.
    pub fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    /// The longest description (or title) of a tool or parameter, in characters; a longer
    /// one is cut, ending with a marker that says how much was cut. Default: 2,048.
    pub fn max_description_chars(mut self, max: usize) -> Self {
        self.max_description_chars = max;
        self
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
    /// use lazytool_mcp::{McpSource, Upstream};
    ///
    /// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
    /// assert_eq!(time.protocol_version(), None);
    /// ```
    pub fn protocol_version(&self) -> Option<String> {
        self.link.get().and_then(|link| link.protocol())
    }

    /// The tools of the last listing that were left out, and why: a name that cannot be
    /// used (`__lazy__tool__discovery__`, say) or an input schema that does not compile.
    /// The server's other tools are served.
    pub fn left_out(&self) -> Vec<ToolNote> {
        self.listed().left_out.clone()
    }

    /// The tools of the last listing whose text was cleaned before it was served, and what
    /// was removed or cut ([`McpSource`] says what is removed).
    pub fn cleaned(&self) -> Vec<ToolNote> {
        self.listed().cleaned.clone()
    }

    pub(crate) fn listed(&self) -> std::sync::MutexGuard<'_, Listed> {
        self.listed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Stops the server: a child process is asked to exit, then killed.
    pub async fn shutdown(&self) {
        if let Some(link) = self.link.get() {
            link.shutdown().await;
        }
    }

    fn link(&self) -> &Arc<Link> {
        self.link.get_or_init(|| {
            Arc::new(Link::new(
                Arc::clone(&self.name),
                self.upstream.clone(),
                self.start_timeout,
                self.backoff,
                self.relay.clone(),
            ))
        })
    }
}

impl ToolSource for McpSource {
    fn name(&self) -> &str {
        &self.name
    }

    fn list_tools(&self, cancel: CancellationToken) -> ListToolsFuture<'_> {
        Box::pin(async move {
            let link = Arc::clone(self.link());
            let failed = |message: String| SourceError::new(Arc::clone(&self.name), message);
            let listing = async {
                let peer = link.peer().await.map_err(failed)?;
                // A server that answers the handshake but not tools/list must not hang a start.
                match tokio::time::timeout(self.start_timeout, peer.list_all_tools()).await {
                    Ok(listed) => listed.map_err(|error| {
                        failed(link.redact(&format!("tools/list failed: {error}")))
                    }),
                    Err(_) => Err(failed(format!(
                        "tools/list got no answer within {:?}",
                        self.start_timeout
                    ))),
                }
            };
            let listed = cancel.run_until_cancelled(listing).await.ok_or_else(|| {
                SourceError::cancelled(Arc::clone(&self.name), "listing cancelled")
            })??;
            let forward = tool::Forward {
                link,
                call_timeout: self.call_timeout,
            };
            let mut record = Listed::default();
            let mut tools = Vec::new();
            for mut tool in listed {
                if !self.selection.offers(&tool.name) {
                    continue;
                }
                let upstream_name = tool.name.to_string();
                let removals = sanitize::clean_tool(&mut tool, self.max_description_chars);
                if !removals.is_empty() {
                    tracing::warn!(target: "lazytool::mcp", source = %self.name, tool = %upstream_name, %removals, "an upstream tool's text was cleaned");
                    record.cleaned.push(ToolNote {
                        tool: upstream_name.clone(),
                        note: removals.to_string(),
                    });
                }
                let eager = self.selection.is_eager(&tool.name);
                let dynamic = tool::dynamic_tool(&self.prefix, tool, forward.clone()).lazy(!eager);
                match admission::admit(&dynamic) {
                    Ok(()) => {
                        record
                            .origins
                            .push((dynamic.name().to_owned(), upstream_name));
                        tools.push(dynamic);
                    }
                    Err(note) => {
                        tracing::warn!(target: "lazytool::mcp", source = %self.name, tool = %upstream_name, %note, "an upstream tool is left out");
                        record.left_out.push(ToolNote {
                            tool: upstream_name,
                            note,
                        });
                    }
                }
            }
            *self.listed() = record;
            Ok(tools)
        })
    }
}

impl std::fmt::Debug for McpSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpSource")
            .field("name", &self.name)
            .field("prefix", &self.prefix)
            .field("upstream", &self.upstream)
            .finish_non_exhaustive()
    }
}
