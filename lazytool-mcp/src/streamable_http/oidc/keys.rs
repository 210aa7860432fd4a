//! The issuer's signing keys: its discovery document read once for `jwks_uri` (both over
//! `https://`, loopback excepted), the key set fetched then, again (in the background) when
//! it is older than the refresh period, or when a token names a key it lacks, and never more
//! often than once per [`MIN_REFETCH`], whatever the flood.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use jsonwebtoken::jwk::{Jwk, JwkSet};
use serde::Deserialize;
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::error::OidcError;
use super::https_url;

/// The least time between two fetches of the key set.
pub(crate) const MIN_REFETCH: Duration = Duration::from_secs(10);

/// The largest discovery document or key set read.
const MAX_DOCUMENT_BYTES: usize = 1024 * 1024;

/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// Where the keys come from.
#[derive(Clone)]
pub(crate) enum Source {
    /// The issuer's discovery document, then its `jwks_uri`.
    Issuer(String),
    /// Keys handed in (tests): each fetch counts.
    #[cfg(test)]
    Fixed(Arc<dyn Fn() -> Result<JwkSet, String> + Send + Sync>),
}

pub(crate) struct Keys {
    source: Source,
    refresh: Duration,
    /// The key set held and when it was fetched.
    current: RwLock<Option<(Arc<JwkSet>, Instant)>>,
    /// Held while fetching: a flood of unknown `kid`s waits on one fetch.
    fetching: Mutex<Fetches>,
    /// A refresh of a stale set is under way in the background.
    refreshing: AtomicBool,
    client: Option<reqwest::Client>,
}

#[derive(Default)]
struct Fetches {
    last: Option<Instant>,
    jwks_uri: Option<String>,
    count: u64,
}

#[derive(Deserialize)]
struct Discovery {
    issuer: String,
    jwks_uri: String,
}

impl Keys {
    pub(crate) fn new(source: Source, refresh: Duration) -> Self {
        let client = match source {
            Source::Issuer(_) => reqwest::Client::builder()
                .timeout(FETCH_TIMEOUT)
                .redirect(https_url::redirects())
                .build()
                .ok(),
            #[cfg(test)]
            Source::Fixed(_) => None,
        };
        Keys {
            source,
            refresh,
            current: RwLock::new(None),
            fetching: Mutex::new(Fetches::default()),
            refreshing: AtomicBool::new(false),
            client,
        }
    }

    /// Fetches the discovery document (once) and the key set now, whenever the last fetch was.
    pub(crate) async fn fetch_now(&self) -> Result<(), OidcError> {
        let mut fetches = self.fetching.lock().await;
        self.fetch(&mut fetches).await
    }

    /// The key named `kid` (or the only key, for a token naming none), fetching the set
    /// first when there is none yet or it lacks `kid`, if the last fetch was at least
    /// [`MIN_REFETCH`] ago. A stale set is refreshed in the background: a slow or unreachable
    /// issuer never holds up a token whose key is known.
    pub(crate) async fn find(self: &Arc<Self>, kid: Option<&str>) -> Option<Jwk> {
        if let Some((set, fetched_at)) = self.held()
            && let Some(key) = pick(&set, kid)
        {
            if fetched_at.elapsed() >= self.refresh && !self.refreshing.swap(true, Ordering::AcqRel)
            {
                let keys = Arc::clone(self);
                tokio::spawn(async move {
                    keys.refetch_if_due().await;
                    keys.refreshing.store(false, Ordering::Release);
                });
            }
            return Some(key);
        }
        self.refetch_if_due().await;
        self.held().and_then(|(set, _)| pick(&set, kid))
    }

    /// How many fetches of the key set were made (or tried).
    #[cfg(test)]
    pub(crate) async fn fetch_count(&self) -> u64 {
        self.fetching.lock().await.count
    }

    fn held(&self) -> Option<(Arc<JwkSet>, Instant)> {
        self.current.read().ok().and_then(|held| held.clone())
    }

    async fn refetch_if_due(&self) {
        let mut fetches = self.fetching.lock().await;
        if fetches
            .last
            .is_some_and(|last| last.elapsed() < MIN_REFETCH)
        {
            return;
        }
        if let Err(error) = self.fetch(&mut fetches).await {
            tracing::warn!(target: "lazytool::mcp", %error, "cannot refresh the issuer's keys; the keys held stay");
        }
    }

    async fn fetch(&self, fetches: &mut Fetches) -> Result<(), OidcError> {
        fetches.last = Some(Instant::now());
        fetches.count += 1;
        let set = match &self.source {
            Source::Issuer(issuer) => self.fetch_from(issuer, fetches).await?,
            #[cfg(test)]
            Source::Fixed(keys) => keys().map_err(OidcError)?,
        };
        tracing::debug!(target: "lazytool::mcp", keys = set.keys.len(), "fetched the issuer's keys");
        if let Ok(mut current) = self.current.write() {
            *current = Some((Arc::new(set), Instant::now()));
        }
        Ok(())
    }

    async fn fetch_from(&self, issuer: &str, fetches: &mut Fetches) -> Result<JwkSet, OidcError> {
        let jwks_uri = match &fetches.jwks_uri {
            Some(uri) => uri.clone(),
            None => {
                https_url::check(issuer, "issuer")?;
                let url = format!(
                    "{}/.well-known/openid-configuration",
                    issuer.trim_end_matches('/')
                );
                let discovery: Discovery = self.get_json(&url, "discovery document").await?;
                if discovery.issuer != issuer {
                    return Err(OidcError(format!(
                        "{url}: its `issuer` is `{}`, not `{issuer}` (OpenID Connect Discovery 1.0 §4.3)",
                        discovery.issuer
                    )));
                }
                https_url::check(&discovery.jwks_uri, "issuer's key set (`jwks_uri`)")
                    .map_err(|error| OidcError(format!("{url}: {error}")))?;
                fetches.jwks_uri = Some(discovery.jwks_uri.clone());
                discovery.jwks_uri
            }
        };
        self.get_json(&jwks_uri, "key set (jwks_uri)").await
    }

    async fn get_json<T: serde::de::DeserializeOwned>(
        &self,
        url: &str,
        what: &str,
    ) -> Result<T, OidcError> {
        let client = self
            .client
            .as_ref()
            .ok_or_else(|| OidcError("no HTTP client for the issuer".to_owned()))?;
        let mut response = client
            .get(url)
            .header(http::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|error| {
                // reqwest's message leaves out why a redirect was refused.
                let why = (error.is_redirect())
                    .then(|| std::error::Error::source(&error))
                    .flatten()
                    .map(|why| format!(" ({why})"))
                    .unwrap_or_default();
                OidcError(format!(
                    "cannot fetch the issuer's {what} at {url}: {error}{why}"
                ))
            })?;
        if !response.status().is_success() {
            return Err(OidcError(format!(
                "the issuer's {what} at {url} answered {}",
                response.status()
            )));
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|error| {
            OidcError(format!("cannot read the issuer's {what} at {url}: {error}"))
        })? {
            if body.len() + chunk.len() > MAX_DOCUMENT_BYTES {
                return Err(OidcError(format!(
                    "the issuer's {what} at {url} is over {MAX_DOCUMENT_BYTES} bytes, the most read"
                )));
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|error| {
            OidcError(format!(
                "the issuer's {what} at {url} is not valid: {error}"
            ))
        })
    }
}

/// The key named `kid`, or with no `kid` the set's only key.
fn pick(set: &JwkSet, kid: Option<&str>) -> Option<Jwk> {
    match kid {
        Some(kid) => set.find(kid).cloned(),
        None if set.keys.len() == 1 => set.keys.first().cloned(),
        None => None,
    }
}
