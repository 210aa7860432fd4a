//! The configuration reloaded on SIGHUP while the gateway serves: [`Reloader`]. Servers
//! added join, removed ones stop once their calls end, changed ones restart (the catalog's
//! `reconcile`); tokens, principals, OpenID Connect rules and principal limits apply to the
//! next request (`AccessReload`); a configuration with problems is refused whole, logged,
//! and the old one keeps serving.

use std::error::Error;

use lazytool_gateway::{Cli, Fingerprints};
use lazytool_mcp::{AccessReload, AuditLog, McpServer, Relay, SharedStore};
use lazytool_mcp_client::{McpCatalog, Redactor};
use lazytool_runtime::source::ToolSource;

use crate::log::RedactedStderr;
use crate::served;

const TARGET: &str = "lazytool::reload";
/// Sections read only at the start.
const AT_START: &[&str] = &[
    "mode",
    "listing",
    "search",
    "code",
    "audit",
    "requestState",
    "shared",
];

/// What a reload needs of the running gateway.
pub(crate) struct Reloader<'a> {
    pub(crate) cli: &'a Cli,
    pub(crate) catalog: McpCatalog,
    pub(crate) relay: Relay,
    pub(crate) log: &'a RedactedStderr,
    pub(crate) audit: Option<AuditLog>,
    /// With `--http`: the access requests are held to, and the issuer served from the start.
    pub(crate) access: Option<(AccessReload, Option<String>)>,
    /// The configuration serving now, as text.
    pub(crate) serving: Fingerprints,
    /// The `--principals` file serving now.
    pub(crate) principals: Option<String>,
    /// `lazytool.shared` as read at the start: the servers a reload adds count their calls
    /// there too.
    pub(crate) shared: Option<SharedStore>,
}

/// What one reload changed, each kind with its names.
type Changes = Vec<(&'static str, Vec<String>)>;

impl Reloader<'_> {
    /// The `--principals` file's text now, to tell whether a reload changed it.
    pub(crate) fn principals_text(cli: &Cli) -> Option<String> {
        let path = cli.http.serving.principals.as_ref()?;
        std::fs::read_to_string(path).ok()
    }

    /// Reloads on each SIGHUP, for as long as the gateway serves.
    pub(crate) async fn run(mut self, mut hangups: Hangups) {
        while hangups.next().await {
            match self.reload().await {
                Ok(changes) => {
                    let said = |kind| {
                        (changes.iter().find(|(k, _)| *k == kind))
                            .map_or_else(String::new, |(_, names)| names.join(","))
                    };
                    tracing::info!(target: TARGET, added = %said("added"), removed = %said("removed"), restarted = %said("restarted"), settings = %said("settings"), "the configuration is reloaded");
                    if let Some(audit) = &self.audit {
                        audit.record_reload(true, &changes);
                    }
                }
                Err(error) => {
                    tracing::error!(target: TARGET, "the new configuration is refused, the old one keeps serving: {error}");
                    if let Some(audit) = &self.audit {
                        audit.record_reload(false, &[]);
                    }
                }
            }
        }
    }

    async fn reload(&mut self) -> Result<Changes, Box<dyn Error>> {
        let (mut config, mut fingerprints) = served::read_config(self.cli)?;
        let configured = std::mem::take(&mut config.servers);
        let redactor = (configured.iter()).fold(Redactor::default(), |all, server| {
            all.and(&server.upstream().redactor())
        });
        let shared = self.shared.as_ref();
        let (servers, _stale) =
            served::held(self.cli, configured, &mut fingerprints, &self.relay, shared)?;
        let sections = self.serving.changed_sections(&fingerprints);
        let principals = Self::principals_text(self.cli);
        // Everything that can fail is done before anything changes.
        let http = match &self.access {
            None => None,
            Some((access, issuer)) => {
                let prepared = served::prepare(self.cli, config.oidc.take())?;
                let new_issuer = prepared.oidc().map(|oidc| oidc.issuer_url().to_owned());
                if new_issuer != *issuer {
                    let name = |issuer: &Option<String>| {
                        issuer.clone().unwrap_or_else(|| "none".to_owned())
                    };
                    return Err(format!("the OpenID Connect issuer changed from {} to {}: restart the gateway to serve another issuer's metadata", name(issuer), name(&new_issuer)).into());
                }
                served::discover(&prepared).await?;
                let server = McpServer::live(self.catalog.live());
                let limits = config.principal_limits.take();
                let http = served::access(prepared, server, limits, shared);
                Some((access.clone(), http))
            }
        };
        self.log.hide(&redactor);
        let serving = &self.serving;
        let reconciled = self
            .catalog
            .reconcile(servers, |old, new| {
                serving.servers.get(old.name()) != fingerprints.servers.get(new.name())
            })
            .await?;
        if let Some((access, http)) = http {
            access.replace_with(http);
        }
        let mut settings: Vec<String> = Vec::new();
        for section in sections {
            if AT_START.contains(&section) {
                tracing::warn!(target: TARGET, section = %format!("lazytool.{section}"), "this section changed: it is read only at the start, restart the gateway to apply it");
            } else {
                settings.push(format!("lazytool.{section}"));
            }
        }
        if principals != self.principals {
            settings.push("principals".to_owned());
        }
        self.serving = fingerprints;
        self.principals = principals;
        Ok(vec![
            ("added", reconciled.added),
            ("removed", reconciled.removed),
            ("restarted", reconciled.restarted),
            ("settings", settings),
        ])
    }
}

/// The SIGHUPs the gateway receives, listened to from the start: a SIGHUP's default would
/// end the process.
pub(crate) struct Hangups(#[cfg(unix)] Option<tokio::signal::unix::Signal>);

impl Hangups {
    pub(crate) fn listen() -> Self {
        #[cfg(unix)]
        {
            let signal = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup());
            if let Err(error) = &signal {
                tracing::warn!(target: TARGET, %error, "cannot listen for SIGHUP: the configuration is read only at the start");
            }
            Hangups(signal.ok())
        }
        #[cfg(not(unix))]
        Hangups()
    }

    /// The next SIGHUP; never, where there are none.
    async fn next(&mut self) -> bool {
        #[cfg(unix)]
        if let Some(signal) = &mut self.0 {
            return signal.recv().await.is_some();
        }
        std::future::pending().await
    }
}
