//! Starting an upstream in the newest protocol it speaks: `Upstream::connect`, and what it
//! gives: [`Connected`].

use std::sync::Arc;

use rmcp::model::ProtocolVersion;
use rmcp::service::{ClientInitializeError, RunningService};
#[cfg(feature = "http")]
use rmcp::transport::StreamableHttpClientTransport;
#[cfg(feature = "http")]
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient};
use tokio::sync::mpsc;

use crate::connection::child::{ChildProcess, Launch, StderrTail, spawn};
use crate::connection::notices::Notices;
use crate::connection::stdio::{ChildTransport, LATE_DISCOVER_RESULT};
use crate::connection::upstream::Upstream;
#[cfg(feature = "oauth")]
use crate::oauth::client::OAuthHttp;
use crate::requests::progress_tap::ProgressTap;

const TARGET: &str = "lazytool::upstream";
/// Lines queued for a child's stdin.
const STDIN_QUEUE: usize = 64;

/// A started upstream: the rmcp service, and for a child, its process.
pub(crate) struct Connected {
    pub(crate) running: RunningService<RoleClient, Notices>,
    pub(crate) process: Option<ChildProcess>,
}

// Without feature `http` a command is the only upstream.
#[cfg_attr(not(feature = "http"), expect(irrefutable_let_patterns))]
impl Upstream {
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
                let retried = self.start(server, handler, tail, legacy, authorized).await;
                self.second_start(retried, "an initialize result")
            }
            Err(Start::LateDiscover) => {
                tracing::debug!(target: TARGET, server = %server, "the server answered the discover probe late: started again in 2026-07-28");
                let modern = ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                };
                let retried = self.start(server, handler, tail, modern, authorized).await;
                self.second_start(retried, "a discover result")
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
                        lazytool_mcp_core::jsonrpc::lines::write_lines(spawned.stdin, lines).await
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
            #[cfg(feature = "http")]
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
    #[cfg_attr(not(feature = "http"), expect(unused_variables))]
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
                #[cfg(feature = "http")]
                Upstream::Http { url, .. } => Start::Failed(
                    crate::connection::http_failure::describe(server, url, &error),
                ),
                Upstream::Command { .. } => {
                    Start::Failed(format!("{}: {error}", self.no_handshake()))
                }
            },
        }
    }

    /// The outcome of the start made again in the lifecycle the first one called for: any
    /// surprise now is a failure, `expected` saying what the server should have answered.
    fn second_start(
        &self,
        retried: Result<Connected, Start>,
        expected: &str,
    ) -> Result<Connected, String> {
        match retried {
            Ok(connected) => Ok(connected),
            Err(Start::Failed(error)) => Err(error),
            Err(Start::NotADiscoverResult(answer)) => Err(format!(
                "{}: expected {expected}, received {answer}",
                self.no_handshake()
            )),
            Err(Start::LateDiscover) => {
                Err(format!("{}: {LATE_DISCOVER_RESULT}", self.no_handshake()))
            }
        }
    }

    fn no_handshake(&self) -> String {
        match self {
            Upstream::Command { command, .. } => format!("no MCP handshake with `{command}`"),
            #[cfg(feature = "http")]
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
