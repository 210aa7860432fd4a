//! What the gateway serves from its configuration file, made the same way at the start and
//! at each reload: the file read and parsed, its servers held to the lock, the HTTP access
//! (tokens, principals, identity provider, principal limits).

use std::error::Error;

use lazytool_gateway::{Cli, Config, Fingerprints};
use lazytool_mcp::{McpHttp, McpServer, PreparedHttp, PrincipalLimits, Relay, SharedStore};
use lazytool_mcp_client::{Lock, LockState, McpSource, TokenStore};
use lazytool_runtime::source::ToolSource;

/// The configuration file parsed, and its parts as text.
pub(crate) fn read_config(cli: &Cli) -> Result<(Config, Fingerprints), Box<dyn Error>> {
    let path = cli.config_file();
    let text = std::fs::read_to_string(path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let tokens =
        (cli.token_store.clone()).map_or_else(TokenStore::default_location, TokenStore::file);
    let config =
        lazytool_gateway::parse_with_token_store(&text, |name| std::env::var(name).ok(), &tokens)
            .map_err(|error| error.in_file(path))?;
    Ok((config, Fingerprints::of(&text)))
}

/// The servers held to the lock (when there is one), each relaying its requests through
/// `relay` and counting its calls in `shared` (`lazytool.shared`), and the lock's entries
/// for servers not configured. Each server's lock entry joins its fingerprint: a server
/// whose pins changed is a changed server.
pub(crate) fn held(
    cli: &Cli,
    servers: Vec<McpSource>,
    fingerprints: &mut Fingerprints,
    relay: &Relay,
    shared: Option<&SharedStore>,
) -> Result<(Vec<McpSource>, Vec<String>), Box<dyn Error>> {
    let lock_path = cli.lock_path();
    // A lock that cannot be read stops everything: serving without it would start every
    // server and trust whatever it says.
    let lock = match (cli.lock.is_some(), lock_path.exists()) {
        (false, false) => None,
        _ => Some(Lock::load(&lock_path)?),
    };
    let mut stale = Vec::new();
    let servers: Vec<McpSource> = match &lock {
        None => servers,
        Some(lock) => {
            stale = lock.stale(servers.iter().map(|server| server.name()));
            for name in &stale {
                tracing::warn!(target: "lazytool::lock", server = %name, lock = %lock_path.display(), "the lock has an entry for a server that is not configured: ignored");
            }
            for (name, fingerprint) in &mut fingerprints.servers {
                if let Some(entry) = lock.server(name) {
                    fingerprint.push_str(&entry.to_text());
                }
            }
            (servers.into_iter())
                .map(|server| {
                    let approve = cli.approval_command(server.name());
                    let server = server
                        .lock(lock)
                        .approval_command(approve)
                        .start_on_first_use(!cli.check);
                    match server.lock_state() {
                        LockState::Locked => {
                            tracing::info!(target: "lazytool::lock", server = %server.name(), state = %server.lock_state(), "the server is held to the lock");
                        }
                        state => {
                            tracing::warn!(target: "lazytool::lock", server = %server.name(), %state, approve = %cli.approval_command(server.name()), "the server is not held to the lock");
                        }
                    }
                    server
                })
                .collect()
        }
    };
    let servers = (servers.into_iter())
        .map(|server| {
            let server = server.relay(relay.clone());
            match shared {
                Some(store) => server.shared_store(store.clone()),
                None => server,
            }
        })
        .collect();
    Ok((servers, stale))
}

/// The HTTP flags' files read again (token, principals) with the configuration's identity
/// provider: a bad one is an error before anything changes.
pub(crate) fn prepare(
    cli: &Cli,
    oidc: Option<lazytool_mcp::Oidc>,
) -> Result<PreparedHttp, Box<dyn Error>> {
    let prepared = cli.http.serving.prepare()?;
    Ok(match oidc {
        Some(oidc) => prepared.with_oidc(oidc),
        None => prepared,
    })
}

/// The identity provider's discovery document fetched: a wrong issuer is an error before
/// anything changes.
pub(crate) async fn discover(prepared: &PreparedHttp) -> Result<(), Box<dyn Error>> {
    if let Some(oidc) = prepared.oidc() {
        oidc.discover()
            .await
            .map_err(|error| format!("the OpenID Connect issuer: {error}"))?;
    }
    Ok(())
}

/// `server` served over HTTP with the flags' access and the configuration's principal
/// limits, counted in `shared` when the configuration has `lazytool.shared`.
pub(crate) fn access(
    prepared: PreparedHttp,
    server: McpServer,
    limits: Option<PrincipalLimits>,
    shared: Option<&SharedStore>,
) -> McpHttp {
    let http = prepared.apply(server);
    let http = match shared {
        Some(store) => http.shared_store(store.clone()),
        None => http,
    };
    match limits {
        Some(limits) => http.principal_limits(limits),
        None => http,
    }
}

/// Asks the store once at the start, to say in the log whether it answers: a store that is
/// down is logged by the store itself, and the gateway serves all the same.
pub(crate) async fn check_shared(shared: Option<&SharedStore>) {
    if let Some(store) = shared
        && store.check().await.up
    {
        tracing::info!(target: "lazytool::shared", store = store.url(), prefix = store.prefix(), on_failure = store.failure_policy().as_str(), "limits are shared with the other replicas through this store");
    }
}
