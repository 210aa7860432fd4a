//! Where an upstream MCP server is and how to reach it: [`Upstream`].

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ErrorData, Implementation,
    ProtocolVersion, ServerNotification, SubscriptionFilter,
};
#[expect(
    deprecated,
    reason = "sampling (SEP-2577 deprecates it) is what servers up to 2025-11-25 send"
)]
use rmcp::model::{CreateMessageRequestParams, CreateMessageResult};
use rmcp::service::{ClientInitializeError, NotificationContext, RequestContext, RunningService};
#[cfg(feature = "client-http")]
use rmcp::transport::StreamableHttpClientTransport;
#[cfg(feature = "client-http")]
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, Peer, RoleClient};
use tokio::sync::{mpsc, watch};

use crate::source::connection::child::{ChildProcess, InheritEnv, Launch, StderrTail, spawn};
use crate::source::connection::stdio::{ChildTransport, LATE_DISCOVER_RESULT};
#[cfg(feature = "oauth")]
use crate::source::oauth::{OAuth, OAuthHttp};
use crate::source::redact::Redactor;
use crate::source::requests::progress_tap::ProgressTap;
use crate::source::requests::upstream_requests::UpstreamRequests;

const TARGET: &str = "lazytool::upstream";
/// Lines queued for a child's stdin.
const STDIN_QUEUE: usize = 64;

/// An upstream MCP server: a command run as a child process speaking MCP on its stdio, or
/// a streamable HTTP endpoint. The two shapes of an `mcpServers` entry.
///
/// Its `Debug` form hides the values of `env` and `headers` and what a URL carries in its
/// user information and query: they are where secrets are.
///
/// ```
/// use lazytool_mcp::Upstream;
///
/// let git = Upstream::command("uvx", ["mcp-server-git"]).env("GIT_AUTHOR_NAME", "bot");
/// let remote = Upstream::url("https://mcp.example.com/mcp").header("Authorization", "Bearer t0ken-123");
/// assert!(!format!("{remote:?}").contains("t0ken-123"));
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Upstream {
    /// A child process, found on `PATH`, with `env` and the parent's variables that
    /// `inherit_env` names.
    Command {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its own variables.
        env: BTreeMap<String, String>,
        /// Which of the parent's variables it gets (default: [`InheritEnv::Base`]).
        inherit_env: InheritEnv,
        /// Its working directory (default: the parent's).
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    #[cfg(feature = "client-http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client-http")))]
    Http {
        /// The endpoint, such as `https://host/mcp`.
        url: String,
        /// Headers sent with every request (`Authorization`, say).
        headers: BTreeMap<String, String>,
        /// MCP authorization, when the server requires it.
        #[cfg(feature = "oauth")]
        #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
        oauth: Option<OAuth>,
    },
}

/// A started upstream: the rmcp service, and for a child, its process.
pub(crate) struct Connected {
    pub(crate) running: RunningService<RoleClient, Notices>,
    pub(crate) process: Option<ChildProcess>,
}

// Without feature `client-http` a command is the only upstream.
#[cfg_attr(not(feature = "client-http"), expect(irrefutable_let_patterns))]
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
            inherit_env: InheritEnv::default(),
            cwd: None,
        }
    }

    /// A streamable HTTP endpoint at `url`.
    #[cfg(feature = "client-http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client-http")))]
    pub fn url(url: impl Into<String>) -> Self {
        Upstream::Http {
            url: url.into(),
            headers: BTreeMap::new(),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// Sets an environment variable of the child process (no effect on an HTTP upstream).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Upstream::Command { env, .. } = &mut self {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Which of the parent's environment variables the child process gets besides its own
    /// (no effect on an HTTP upstream). Default: [`InheritEnv::Base`].
    pub fn inherit_env(mut self, inherit: InheritEnv) -> Self {
        if let Upstream::Command { inherit_env, .. } = &mut self {
            *inherit_env = inherit;
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
    #[cfg(feature = "client-http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "client-http")))]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Upstream::Http { headers, .. } = &mut self {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// Reaches the server with MCP authorization (no effect on a child process): tokens
    /// from `oauth`'s store, obtained as it says.
    ///
    /// ```
    /// use lazytool_mcp::{OAuth, Upstream};
    ///
    /// let linear = Upstream::url("https://mcp.linear.app/mcp").oauth(OAuth::new().scopes(["read"]));
    /// assert!(matches!(linear, Upstream::Http { oauth: Some(_), .. }));
    /// ```
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn oauth(mut self, settings: OAuth) -> Self {
        if let Upstream::Http { oauth, .. } = &mut self {
            *oauth = Some(settings);
        }
        self
    }

    /// What hides this upstream's secrets in text about it: the values of its environment or
    /// headers (and a `Bearer` token alone), and what URLs carry.
    ///
    /// ```
    /// let upstream = lazytool_mcp::Upstream::command("server", ["--verbose"]).env("API_KEY", "k3y-123456");
    /// assert_eq!(upstream.redactor().apply("API_KEY=k3y-123456"), "API_KEY=***");
    /// ```
    pub fn redactor(&self) -> Redactor {
        match self {
            Upstream::Command { env, .. } => Redactor::new(env.values().map(String::as_str)),
            #[cfg(feature = "client-http")]
            Upstream::Http {
                headers,
                #[cfg(feature = "oauth")]
                oauth,
                ..
            } => {
                let values = headers.values().map(String::as_str);
                // `Bearer TOKEN`: the token alone may appear too.
                let words = headers
                    .values()
                    .filter_map(|value| value.split_once(' '))
                    .map(|(_, word)| word);
                let secrets = values.chain(words);
                #[cfg(feature = "oauth")]
                let secrets = secrets.chain(oauth.iter().flat_map(OAuth::secrets));
                Redactor::new(secrets)
            }
        }
    }

    /// Starts the server (or opens the endpoint) in the newest protocol it speaks, as the
    /// 2026-07-28 revision's backward-compatibility rules have it: a `server/discover` probe
    /// for 2026-07-28 first, and the `initialize` handshake (offering 2025-11-25; the server
    /// answers with the newest it has) when the server answers the probe with an error or
    /// not at all within rmcp's 10 s. A child's late answer to the probe is dropped, so a
    /// server slower than that still joins within the start timeout; when that late answer
    /// is a discover result, the child is started again in 2026-07-28 (a 2026-07-28 server
    /// may take no `initialize` after a probe). A server that answers
    /// the probe with something that is not a discover result (some answer every unknown
    /// method with `{}`) is a legacy server too: it is reached again (a child is started
    /// anew) with the handshake alone.
    pub(crate) async fn connect(
        &self,
        server: &Arc<str>,
        handler: Notices,
        tail: &StderrTail,
    ) -> Result<Connected, String> {
        #[cfg(not(feature = "oauth"))]
        let authorized: Option<OAuthHttp> = None;
        #[cfg(feature = "oauth")]
        let authorized = match self {
            Upstream::Http {
                url,
                oauth: Some(oauth),
                ..
            } => Some(
                OAuthHttp::open(server, url, oauth)
                    .await
                    .map_err(|error| error.to_string())?,
            ),
            _ => None,
        };
        let authorized = authorized.as_ref();
        match (self.start(server, handler.clone(), tail, lifecycle(), authorized)).await {
            Err(Start::NotADiscoverResult(answer)) => {
                tracing::debug!(target: TARGET, server = %server, answer, "the server answered the discover probe with something else: a legacy server");
                let legacy = ClientLifecycleMode::Initialize;
                match self.start(server, handler, tail, legacy, authorized).await {
                    Ok(connected) => Ok(connected),
                    Err(Start::NotADiscoverResult(answer)) => Err(format!(
                        "{}: expected an initialize result, received {answer}",
                        self.no_handshake()
                    )),
                    Err(Start::LateDiscover) => {
                        Err(format!("{}: {LATE_DISCOVER_RESULT}", self.no_handshake()))
                    }
                    Err(Start::Failed(error)) => Err(error),
                }
            }
            Err(Start::LateDiscover) => {
                tracing::debug!(target: TARGET, server = %server, "the server answered the discover probe late: started again in 2026-07-28");
                let modern = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                };
                match self.start(server, handler, tail, modern, authorized).await {
                    Ok(connected) => Ok(connected),
                    Err(Start::Failed(error)) => Err(error),
                    Err(Start::NotADiscoverResult(answer)) => Err(format!(
                        "{}: expected a discover result, received {answer}",
                        self.no_handshake()
                    )),
                    Err(Start::LateDiscover) => {
                        Err(format!("{}: {LATE_DISCOVER_RESULT}", self.no_handshake()))
                    }
                }
            }
            Err(Start::Failed(error)) => Err(error),
            Ok(connected) => Ok(connected),
        }
    }

    /// One attempt at starting the server in `lifecycle`.
    #[cfg_attr(not(feature = "oauth"), expect(unused_variables))]
    async fn start(
        &self,
        server: &Arc<str>,
        handler: Notices,
        tail: &StderrTail,
        lifecycle: ClientLifecycleMode,
        authorized: Option<&OAuthHttp>,
    ) -> Result<Connected, Start> {
        match self {
            Upstream::Command {
                command,
                args,
                env,
                inherit_env,
                cwd,
            } => {
                let launch = Launch {
                    command,
                    args,
                    env,
                    inherit: inherit_env,
                    cwd: cwd.as_ref(),
                };
                let spawned = spawn(server, &launch, tail).map_err(Start::Failed)?;
                let (outbox, lines) = mpsc::channel(STDIN_QUEUE);
                tokio::spawn(async move {
                    if let Err(error) =
                        crate::jsonrpc::lines::write_lines(spawned.stdin, lines).await
                    {
                        tracing::debug!(target: TARGET, %error, "the server's input closed");
                    }
                });
                let transport = ChildTransport::new(Arc::clone(server), spawned.stdout, outbox);
                let transport = ProgressTap::new(transport, Arc::clone(&handler.requests));
                match handler.serve_with_lifecycle(transport, lifecycle).await {
                    Ok(running) => Ok(Connected {
                        running,
                        process: Some(spawned.process),
                    }),
                    Err(error) => {
                        spawned.process.stop().await;
                        Err(self.failed(server, error))
                    }
                }
            }
            #[cfg(feature = "client-http")]
            Upstream::Http { url, headers, .. } => {
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                for (name, value) in headers {
                    let name = http::HeaderName::try_from(name.as_str())
                        .map_err(|error| Start::Failed(format!("header `{name}`: {error}")))?;
                    let value = http::HeaderValue::try_from(value.as_str())
                        .map_err(|error| Start::Failed(format!("header `{name}`: {error}")))?;
                    config.custom_headers.insert(name, value);
                }
                #[cfg(feature = "oauth")]
                if let Some(client) = authorized {
                    return self
                        .start_authorized(server, handler, lifecycle, client, config)
                        .await;
                }
                let transport = StreamableHttpClientTransport::from_config(config);
                let transport = ProgressTap::new(transport, Arc::clone(&handler.requests));
                let running = handler
                    .serve_with_lifecycle(transport, lifecycle)
                    .await
                    .map_err(|error| self.failed(server, error))?;
                Ok(Connected {
                    running,
                    process: None,
                })
            }
        }
    }

    /// One attempt at starting an HTTP upstream with its OAuth `client`: authorized anew
    /// when the server refuses the stored token.
    #[cfg(feature = "oauth")]
    async fn start_authorized(
        &self,
        server: &Arc<str>,
        handler: Notices,
        lifecycle: ClientLifecycleMode,
        client: &OAuthHttp,
        config: StreamableHttpClientTransportConfig,
    ) -> Result<Connected, Start> {
        let transport = StreamableHttpClientTransport::with_client(client.clone(), config.clone());
        let transport = ProgressTap::new(transport, Arc::clone(&handler.requests));
        let refused = match handler
            .clone()
            .serve_with_lifecycle(transport, lifecycle.clone())
            .await
        {
            Ok(running) => {
                return Ok(Connected {
                    running,
                    process: None,
                });
            }
            Err(error) => match error.auth_challenge() {
                // More scopes were asked for and not obtained: a new authorization
                // would not change that.
                Some(challenge) if !challenge.contains("insufficient_scope") => {
                    challenge.to_owned()
                }
                _ => return Err(self.failed(server, error)),
            },
        };
        client
            .authorize(&refused)
            .await
            .map_err(|error| Start::Failed(error.to_string()))?;
        let transport = StreamableHttpClientTransport::with_client(client.clone(), config);
        let transport = ProgressTap::new(transport, Arc::clone(&handler.requests));
        let running = handler
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .map_err(|error| self.failed(server, error))?;
        Ok(Connected {
            running,
            process: None,
        })
    }

    /// What a failed start says: the server's answer when the probe got one that is not a
    /// discover result (the caller falls back), else the error.
    #[cfg_attr(not(feature = "client-http"), expect(unused_variables))]
    fn failed(&self, server: &str, error: ClientInitializeError) -> Start {
        match error {
            ClientInitializeError::JsonRpcError(error) if error.message == LATE_DISCOVER_RESULT => {
                Start::LateDiscover
            }
            ClientInitializeError::ExpectedInitResult(answer) => Start::NotADiscoverResult(
                answer.map_or_else(|| "nothing".to_owned(), |answer| format!("{answer:?}")),
            ),
            ClientInitializeError::ConnectionClosed(_)
                if let Upstream::Command { command, .. } = self =>
            {
                Start::Failed(format!(
                    "`{command}` exited, or closed its output, before the MCP handshake"
                ))
            }
            error => match self {
                #[cfg(feature = "client-http")]
                Upstream::Http { url, .. } => Start::Failed(
                    crate::source::connection::http_failure::describe(server, url, &error),
                ),
                Upstream::Command { .. } => {
                    Start::Failed(format!("{}: {error}", self.no_handshake()))
                }
            },
        }
    }

    fn no_handshake(&self) -> String {
        match self {
            Upstream::Command { command, .. } => format!("no MCP handshake with `{command}`"),
            #[cfg(feature = "client-http")]
            Upstream::Http { url, .. } => format!("no MCP handshake with {url}"),
        }
    }
}

/// Why one attempt at starting a server failed.
enum Start {
    /// The server answered the request that should have started it with something else
    /// (its `Debug` form).
    NotADiscoverResult(String),
    /// The probe was given up on, then answered with a discover result: the server speaks
    /// 2026-07-28 but was slow to start.
    LateDiscover,
    /// Anything else, said for a person.
    Failed(String),
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden = |map: &BTreeMap<String, String>| -> BTreeMap<String, &str> {
            map.keys().map(|key| (key.clone(), "***")).collect()
        };
        match self {
            Upstream::Command {
                command,
                args,
                env,
                inherit_env,
                cwd,
            } => f
                .debug_struct("Command")
                .field("command", command)
                .field("args", args)
                .field("env", &hidden(env))
                .field("inherit_env", inherit_env)
                .field("cwd", cwd)
                .finish(),
            #[cfg(feature = "client-http")]
            Upstream::Http {
                url,
                headers,
                #[cfg(feature = "oauth")]
                oauth,
            } => {
                let mut http = f.debug_struct("Http");
                http.field("url", &crate::source::redact::redact_urls(url))
                    .field("headers", &hidden(headers));
                #[cfg(feature = "oauth")]
                http.field("oauth", oauth);
                http.finish()
            }
        }
    }
}

/// Without feature `oauth` no upstream has an OAuth client.
#[cfg(not(feature = "oauth"))]
type OAuthHttp = std::convert::Infallible;

/// Probe for 2026-07-28, fall back to the handshake.
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// The client side of an upstream connection: reports `list_changed` (of tools, prompts and
/// resources alike), announces what the program's clients can answer, and passes the
/// server's requests during a call on to the client of that call (`upstream_requests.rs`; its
/// progress passes in `progress_tap.rs`).
#[derive(Clone)]
pub(crate) struct Notices {
    pub(crate) tools_changed: watch::Sender<u64>,
    pub(crate) announced: ClientCapabilities,
    pub(crate) requests: Arc<UpstreamRequests>,
}

impl ClientHandler for Notices {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            self.announced.clone(),
            Implementation::new("lazytool", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .send_modify(|generation| *generation += 1);
    }

    // The catalog lists a changed server's tools, prompts and resources again together.
    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .send_modify(|generation| *generation += 1);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .send_modify(|generation| *generation += 1);
    }

    #[expect(
        deprecated,
        reason = "sampling (SEP-2577 deprecates it) is what servers up to 2025-11-25 send"
    )]
    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.requests.sampling(params, context).await
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.requests.elicitation(params, context).await
    }
}

/// A 2026-07-28 server sends `list_changed` only on a `subscriptions/listen` stream: when
/// `peer` is such a server and announces tool, prompt or resource list changes, opens one
/// and reports each change to `tools_changed`, until the connection ends.
pub(crate) fn follow_list_changes(
    server: Arc<str>,
    peer: Peer<RoleClient>,
    tools_changed: watch::Sender<u64>,
) {
    let Some(info) = peer.peer_info() else { return };
    let capabilities = &info.capabilities;
    let tools = capabilities
        .tools
        .as_ref()
        .and_then(|tools| tools.list_changed)
        == Some(true);
    let prompts = capabilities.prompts.as_ref().and_then(|p| p.list_changed) == Some(true);
    let resources = capabilities.resources.as_ref().and_then(|r| r.list_changed) == Some(true);
    if info.protocol_version.has_initialize() || !(tools || prompts || resources) {
        return;
    }
    tokio::spawn(async move {
        let mut filter = SubscriptionFilter::builder();
        if tools {
            filter = filter.tools_list_changed();
        }
        if prompts {
            filter = filter.prompts_list_changed();
        }
        if resources {
            filter = filter.resources_list_changed();
        }
        let filter = filter.build();
        let mut subscription = match peer.listen(filter).await {
            Ok(subscription) => subscription,
            Err(error) => {
                tracing::warn!(target: TARGET, server = %server, %error, "no subscription to the upstream's tool list changes");
                return;
            }
        };
        // A change made between the start's listing and this subscription was sent to no one.
        tools_changed.send_modify(|generation| *generation += 1);
        while let Ok(Some(notification)) = subscription.next().await {
            if matches!(
                notification,
                ServerNotification::ToolListChangedNotification(_)
                    | ServerNotification::PromptListChangedNotification(_)
                    | ServerNotification::ResourceListChangedNotification(_)
            ) {
                tools_changed.send_modify(|generation| *generation += 1);
            }
        }
    });
}
