//! Where an upstream MCP server is and how to reach it: [`Upstream`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::Arc;

use process_wrap::tokio::{CommandWrap, KillOnDrop, ProcessGroup};
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, ProtocolVersion, ServerNotification,
    SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, Peer, RoleClient};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::watch;

const TARGET: &str = "lazytool::upstream";

/// An upstream MCP server: a command run as a child process speaking MCP on its stdio, or
/// a streamable HTTP endpoint. The two shapes of an `mcpServers` entry.
///
/// ```
/// use lazytool_mcp::Upstream;
///
/// let git = Upstream::command("uvx", ["mcp-server-git"]).env("GIT_AUTHOR_NAME", "bot");
/// let remote = Upstream::url("https://mcp.example.com/mcp").header("Authorization", "Bearer t");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Upstream {
    /// A child process, found on `PATH`, with the parent's environment and `env` on top.
    Command {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables set on top of the inherited environment.
        env: BTreeMap<String, String>,
        /// Its working directory (default: the parent's).
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    Http {
        /// The endpoint, such as `https://host/mcp`.
        url: String,
        /// Headers sent with every request (`Authorization`, say).
        headers: BTreeMap<String, String>,
    },
}

impl Upstream {
    /// A child process running `command` with `args`.
    pub fn command<S: Into<String>>(
        command: impl Into<String>,
        args: impl IntoIterator<Item = S>,
    ) -> Self {
        Upstream::Command {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    /// A streamable HTTP endpoint at `url`.
    pub fn url(url: impl Into<String>) -> Self {
        Upstream::Http {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    /// Sets an environment variable of the child process (no effect on an HTTP upstream).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Upstream::Command { env, .. } = &mut self {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Sets the working directory of the child process (no effect on an HTTP upstream).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Upstream::Command { cwd, .. } = &mut self {
            *cwd = Some(dir.into());
        }
        self
    }

    /// Adds a header to every request (no effect on a child process).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Upstream::Http { headers, .. } = &mut self {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// Starts the server (or opens the endpoint) in the newest protocol it speaks, as the
    /// 2026-07-28 revision's backward-compatibility rules have it: a `server/discover` probe
    /// for 2026-07-28 first, and the `initialize` handshake (offering 2025-11-25; the server
    /// answers with the newest it has) when the server answers the probe with an error or
    /// not at all within rmcp's 10 s.
    pub(crate) async fn connect(
        &self,
        server: &Arc<str>,
        handler: Notices,
    ) -> Result<RunningService<RoleClient, Notices>, String> {
        match self {
            Upstream::Command {
                command,
                args,
                env,
                cwd,
            } => {
                let mut wrapped = CommandWrap::with_new(command, |child| {
                    child.args(args).envs(env);
                    if let Some(cwd) = cwd {
                        child.current_dir(cwd);
                    }
                    #[cfg(target_os = "linux")]
                    die_with_parent(child);
                });
                wrapped.wrap(ProcessGroup::leader()).wrap(KillOnDrop);
                let (transport, stderr) = TokioChildProcess::builder(wrapped)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|error| format!("cannot start `{command}`: {error}"))?;
                if let Some(stderr) = stderr {
                    let server = Arc::clone(server);
                    tokio::spawn(async move {
                        let mut lines = BufReader::new(stderr).lines();
                        while let Ok(Some(line)) = lines.next_line().await {
                            tracing::info!(target: TARGET, server = %server, "{line}");
                        }
                    });
                }
                handler
                    .serve_with_lifecycle(transport, lifecycle())
                    .await
                    .map_err(|error| format!("no MCP handshake with `{command}`: {error}"))
            }
            Upstream::Http { url, headers } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                for (name, value) in headers {
                    let name = http::HeaderName::try_from(name.as_str())
                        .map_err(|error| format!("header `{name}`: {error}"))?;
                    let value = http::HeaderValue::try_from(value.as_str())
                        .map_err(|error| format!("header `{name}`: {error}"))?;
                    config.custom_headers.insert(name, value);
                }
                let transport = StreamableHttpClientTransport::from_config(config);
                handler
                    .serve_with_lifecycle(transport, lifecycle())
                    .await
                    .map_err(|error| format!("no MCP handshake with {url}: {error}"))
            }
        }
    }
}

/// Has the kernel kill the child when the thread that started it ends (with its process,
/// even one killed by SIGKILL, which no `Drop` sees). Its own children, if any, see the end
/// of their stdin then, which MCP servers answer by exiting.
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn die_with_parent(child: &mut tokio::process::Command) {
    let parent = std::process::id();
    // SAFETY: the closure runs between fork and exec, where only async-signal-safe calls
    // are allowed: prctl and getppid are, and it allocates nothing.
    unsafe {
        child.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The parent died before the signal was set: the signal will never come.
            if libc::getppid() as u32 != parent {
                return Err(std::io::Error::other("the parent exited"));
            }
            Ok(())
        });
    }
}

/// Probe for 2026-07-28, fall back to the handshake.
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// The client side of an upstream connection: answers nothing, reports `list_changed`.
pub(crate) struct Notices {
    pub(crate) tools_changed: watch::Sender<u64>,
}

impl ClientHandler for Notices {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("lazytool", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .send_modify(|generation| *generation += 1);
    }
}

/// A 2026-07-28 server sends `list_changed` only on a `subscriptions/listen` stream: when
/// `peer` is such a server and announces tool list changes, opens one and reports each
/// change to `tools_changed`, until the connection ends.
pub(crate) fn follow_list_changes(
    server: Arc<str>,
    peer: Peer<RoleClient>,
    tools_changed: watch::Sender<u64>,
) {
    let Some(info) = peer.peer_info() else { return };
    let announces = info
        .capabilities
        .tools
        .as_ref()
        .and_then(|tools| tools.list_changed);
    if info.protocol_version.has_initialize() || announces != Some(true) {
        return;
    }
    tokio::spawn(async move {
        let filter = SubscriptionFilter::builder().tools_list_changed().build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(error) => {
                tracing::warn!(target: TARGET, server = %server, %error, "no subscription to the upstream's tool list changes");
                return;
            }
        };
        while let Ok(Some(notification)) = subscription.next().await {
            if matches!(
                notification,
                ServerNotification::ToolListChangedNotification(_)
            ) {
                tools_changed.send_modify(|generation| *generation += 1);
            }
        }
    });
}
