//! The HTTP client of an OAuth upstream: [`OAuthHttp`], rmcp's `AuthClient` (a token on
//! every request, refreshed before it expires or when the server rejects it) that also gets
//! new tokens when the server asks: for more scopes, or at a start without tokens.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::AuthClient;
use rmcp::transport::auth::OAuthClientConfig;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::config::{Grant, OAuth};
use super::error::OAuthError;
use super::flow::{Flow, MAX_STEP_UPS};

const TARGET: &str = "lazytool::oauth";

type HttpError = StreamableHttpError<reqwest::Error>;

/// An OAuth upstream's HTTP client; clones share their tokens.
#[derive(Clone)]
pub(crate) struct OAuthHttp {
    inner: AuthClient<reqwest::Client>,
    flow: Flow,
}

impl OAuthHttp {
    /// The client of `server` at `url`, with the tokens stored for it (checked against the
    /// authorization server's metadata) when there are some.
    pub(crate) async fn open(server: &str, url: &str, oauth: &OAuth) -> Result<Self, OAuthError> {
        let flow = Flow {
            server: server.into(),
            url: url.into(),
            oauth: Arc::new(oauth.clone()),
        };
        let mut manager = flow.manager().await?;
        if oauth.grant == Grant::AuthorizationCode {
            let stored = manager.initialize_from_store().await.map_err(|error| {
                OAuthError::from_rmcp(server, super::error::Step::MetadataDiscovery, &error)
            })?;
            // The stored client id comes back without its secret; a refresh needs both.
            if stored
                && let (Some(id), Some(secret)) = (&oauth.client_id, &oauth.client_secret)
                && manager
                    .get_credentials()
                    .await
                    .is_ok_and(|(stored_id, _)| &stored_id == id)
            {
                manager
                    .configure_client(OAuthClientConfig::new(id, url).with_client_secret(secret))
                    .map_err(|error| {
                        OAuthError::from_rmcp(server, super::error::Step::MetadataDiscovery, &error)
                    })?;
            }
        }
        Ok(OAuthHttp {
            inner: AuthClient::new(reqwest::Client::default(), manager),
            flow,
        })
    }

    /// New tokens after the server refused a request with `challenge` (a 401's
    /// `WWW-Authenticate`): exchanged client credentials, or an approved authorization;
    /// without an approver, an error that asks for a login.
    pub(crate) async fn authorize(&self, challenge: &str) -> Result<(), OAuthError> {
        let flow = &self.flow;
        let manager = match (flow.oauth.grant, &flow.oauth.approver) {
            (Grant::ClientCredentials, _) => {
                flow.client_credentials(Some(challenge.to_owned())).await?
            }
            (_, Some(approver)) => {
                let challenge = Some(challenge.to_owned());
                (flow.authorization_code(challenge, Arc::clone(approver))).await?
            }
            (_, None) => {
                let stored = (flow.oauth.store())
                    .has_tokens(&flow.server, &flow.url)
                    .await
                    .unwrap_or(false);
                let why = if stored {
                    "the stored tokens were refused and could not be refreshed"
                } else {
                    "the server requires authorization and no token is stored for it"
                };
                return Err(OAuthError::needs_login(&flow.server, why));
            }
        };
        *self.inner.auth_manager.lock().await = manager;
        Ok(())
    }

    /// `call`, again after new tokens when the server asks for more scopes (while step-ups
    /// are allowed) or refuses the token it has (client credentials exchanged again, or an
    /// authorization approved again).
    async fn recovering<T, F, Fut>(&self, call: F) -> Result<T, HttpError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let mut result = call().await;
        let mut step_ups = 0;
        let mut exchanged = false;
        loop {
            match &result {
                Err(StreamableHttpError::InsufficientScope(refusal)) => {
                    let server = &self.flow.server;
                    let Some(approver) = &self.flow.oauth.approver else {
                        tracing::warn!(target: TARGET, server = %server, required = refusal.required_scope.as_deref().unwrap_or("unknown"), "the server asks for more scopes: run `lazytool-gateway login {server}`");
                        return result;
                    };
                    if step_ups == MAX_STEP_UPS {
                        tracing::warn!(target: TARGET, server = %server, step_ups, "the server still asks for more scopes: given up");
                        return result;
                    }
                    let scope = refusal.required_scope.clone().unwrap_or_default();
                    let manager = Arc::clone(&self.inner.auth_manager);
                    let approver = Arc::clone(approver);
                    if let Err(error) = self.flow.step_up(manager, scope, approver).await {
                        tracing::warn!(target: TARGET, %error, "no more scopes");
                        return result;
                    }
                    step_ups += 1;
                    result = call().await;
                }
                // A token refused though it could not be refreshed: an expired client
                // credential, or the server moved to another authorization server (its
                // metadata now names it; SEP-2352). With an approver, or credentials, the
                // client authorizes again from the challenge, once: discovery, a client
                // identity at whichever server it finds (never the old server's), tokens.
                Err(StreamableHttpError::AuthRequired(refusal))
                    if !exchanged
                        && (self.flow.oauth.grant == Grant::ClientCredentials
                            || self.flow.oauth.approver.is_some()) =>
                {
                    let challenge = refusal.www_authenticate_header.clone();
                    if let Err(error) = self.authorize(&challenge).await {
                        tracing::warn!(target: TARGET, %error, "no new token");
                        return result;
                    }
                    exchanged = true;
                    result = call().await;
                }
                _ => return result,
            }
        }
    }
}

impl StreamableHttpClient for OAuthHttp {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.recovering(|| {
            self.inner.post_message(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.recovering(|| {
            self.inner.post_message_with_max_sse_event_size(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.recovering(|| {
            self.inner.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_header.clone(),
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        (self.inner)
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        (self.inner)
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, HttpError> {
        (self.inner)
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
    }
}
