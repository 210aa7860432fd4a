//! The steps of MCP authorization on rmcp's `auth` support: the authorization code grant
//! (discovery, client identity, approval, tokens), client credentials, and scope step-up.

use std::future::Future;
use std::sync::Arc;

use rmcp::transport::auth::{
    AuthorizationCallback, AuthorizationManager, AuthorizationMetadataResolution,
    AuthorizationMetadataSource, AuthorizationRequest, ClientCredentialsConfig, OAuthState,
};
use tokio::sync::Mutex;

use super::approver::Approver;
use super::config::OAuth;
use super::error::{OAuthError, Step};

/// Authorizations for more scopes in a row (for one request) before giving up: with the
/// first one, three approvals at most (the MCP spec's scope challenge handling asks for a
/// limit; rmcp's own count starts again at every token exchange).
pub(crate) const MAX_STEP_UPS: u32 = 2;

/// The name this client registers under (dynamic client registration).
const CLIENT_NAME: &str = "lazytool";

/// One server's OAuth: which server, where, how.
#[derive(Clone)]
pub(crate) struct Flow {
    pub(crate) server: Arc<str>,
    pub(crate) url: Arc<str>,
    pub(crate) oauth: Arc<OAuth>,
}

/// Runs `future` on a thread of its own: rmcp's authorization request builder is held
/// across an await and is not `Send`, while an upstream's start must be.
async fn on_own_thread<T, F>(make: impl FnOnce() -> F + Send + 'static) -> Result<T, String>
where
    F: Future<Output = T>,
    T: Send + 'static,
{
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || runtime.block_on(make()))
        .await
        .map_err(|error| format!("the authorization task failed: {error}"))
}

impl Flow {
    fn error(&self, step: Step, error: &rmcp::transport::AuthError) -> OAuthError {
        OAuthError::from_rmcp(&self.server, step, error)
    }

    /// An authorization manager for the server, its tokens in the server's store.
    pub(crate) async fn manager(&self) -> Result<AuthorizationManager, OAuthError> {
        let mut manager = AuthorizationManager::new(&*self.url)
            .await
            .map_err(|error| self.error(Step::MetadataDiscovery, &error))?;
        manager.set_credential_store(self.oauth.store().for_server(&self.server, &self.url));
        Ok(manager)
    }

    /// The authorization code grant with PKCE (S256) and the resource indicator, from the
    /// server's `WWW-Authenticate` challenge when there is one: metadata discovery, client
    /// identity (the configured client id, a client ID metadata document, or dynamic
    /// registration), approval, and the code exchanged for tokens, which are stored.
    pub(crate) async fn authorization_code(
        &self,
        challenge: Option<String>,
        approver: Arc<dyn Approver>,
    ) -> Result<AuthorizationManager, OAuthError> {
        let flow = self.clone();
        on_own_thread(move || async move { flow.authorize(challenge, approver).await })
            .await
            .map_err(|error| OAuthError::new(&*self.server, Step::Authorization, error))?
    }

    async fn authorize(
        &self,
        challenge: Option<String>,
        approver: Arc<dyn Approver>,
    ) -> Result<AuthorizationManager, OAuthError> {
        // The challenge's scopes, else the protected resource's: what the spec's scope
        // selection strategy asks for (rmcp's default adds both together).
        let mut request = AuthorizationRequest::new(approver.redirect_uri())
            .with_client_name(CLIENT_NAME)
            .with_initial_scope_selection();
        if !self.oauth.scopes.is_empty() {
            request = request.with_scopes(self.oauth.scopes.iter().cloned());
        }
        if let Some(id) = &self.oauth.client_id {
            request = request.with_preregistered_client(id);
            if let Some(secret) = &self.oauth.client_secret {
                request = request.with_client_secret(secret);
            }
        }
        if let Some(url) = &self.oauth.client_metadata_url {
            request = request.with_client_metadata_url(url);
        }
        let manager = self.manager().await?;
        let resolution = manager
            .resolve_metadata_from_challenge(challenge.as_deref())
            .await
            .map_err(|error| self.error(Step::MetadataDiscovery, &error))?;
        self.require_pkce(&resolution)?;
        if let Some(challenge) = challenge {
            request = request.with_challenge(challenge);
        }
        let mut state = OAuthState::Unauthorized(manager);
        state
            .start_authorization(request)
            .await
            .map_err(|error| self.error(Step::MetadataDiscovery, &error))?;
        let url = state
            .get_authorization_url()
            .await
            .map_err(|error| self.error(Step::Authorization, &error))?;
        let callback = self.approve(approver.as_ref(), &url).await?;
        state
            .handle_callback_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map_err(|error| self.error(Step::TokenEndpoint, &error))?;
        state.into_authorization_manager().ok_or_else(|| {
            OAuthError::new(
                &*self.server,
                Step::Authorization,
                "the flow did not complete",
            )
        })
    }

    /// Refuses an authorization server whose metadata does not say it supports PKCE with
    /// S256, as the MCP authorization spec requires (rmcp only refuses one that lists other
    /// methods). Endpoints synthesized for a 2025-03-26 server without metadata are let be:
    /// that revision had nothing to say it with.
    fn require_pkce(&self, resolution: &AuthorizationMetadataResolution) -> Result<(), OAuthError> {
        if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
            return Ok(());
        }
        let methods = resolution
            .metadata
            .code_challenge_methods_supported
            .as_deref();
        if methods.is_some_and(|methods| methods.iter().any(|method| method == "S256")) {
            return Ok(());
        }
        let said = match methods {
            None => "does not list `code_challenge_methods_supported`".to_owned(),
            Some(methods) => format!("lists `code_challenge_methods_supported` {methods:?}"),
        };
        Err(OAuthError::new(
            &*self.server,
            Step::MetadataDiscovery,
            format!(
                "the authorization server's metadata {said}, without `S256`: it does not support PKCE, which MCP authorization requires"
            ),
        ))
    }

    async fn approve(
        &self,
        approver: &dyn Approver,
        url: &str,
    ) -> Result<AuthorizationCallback, OAuthError> {
        let redirected = (approver.approve(url).await)
            .map_err(|error| OAuthError::new(&*self.server, Step::Authorization, error))?;
        AuthorizationCallback::from_redirect_url(&redirected)
            .map_err(|error| self.error(Step::Authorization, &error))
    }

    /// The client credentials grant: the configured client id with its secret (HTTP Basic or
    /// the request body, as the authorization server's metadata asks) or a JWT signed with
    /// its private key, exchanged for a token.
    pub(crate) async fn client_credentials(
        &self,
        challenge: Option<String>,
    ) -> Result<AuthorizationManager, OAuthError> {
        let flow = self.clone();
        on_own_thread(move || async move { flow.exchange_credentials(challenge).await })
            .await
            .map_err(|error| OAuthError::new(&*self.server, Step::TokenEndpoint, error))?
    }

    async fn exchange_credentials(
        &self,
        challenge: Option<String>,
    ) -> Result<AuthorizationManager, OAuthError> {
        let config_error =
            |message: &str| OAuthError::new(&*self.server, Step::TokenEndpoint, message.to_owned());
        let Some(client_id) = self.oauth.client_id.clone() else {
            return Err(config_error(
                "the client credentials grant needs `clientId`",
            ));
        };
        let scopes = self.oauth.scopes.clone();
        let resource = Some(self.url.to_string());
        let config = match (&self.oauth.private_key, &self.oauth.client_secret) {
            (Some((pem, algorithm)), _) => ClientCredentialsConfig::PrivateKeyJwt {
                client_id,
                signing_key: pem.as_bytes().to_vec(),
                signing_algorithm: algorithm.rmcp(),
                token_endpoint_audience: None,
                scopes,
                resource,
            },
            (None, Some(secret)) => ClientCredentialsConfig::ClientSecret {
                client_id,
                client_secret: secret.clone(),
                scopes,
                resource,
            },
            (None, None) => {
                return Err(config_error(
                    "the client credentials grant needs `clientSecret` or a private key",
                ));
            }
        };
        let mut manager = self.manager().await?;
        let resolution = manager
            .resolve_metadata_from_challenge(challenge.as_deref())
            .await
            .map_err(|error| self.error(Step::MetadataDiscovery, &error))?;
        manager.set_metadata(resolution.metadata);
        manager
            .validate_client_credentials_metadata(&config)
            .and_then(|()| manager.configure_client_credentials(&config))
            .map_err(|error| self.error(Step::MetadataDiscovery, &error))?;
        manager
            .exchange_client_credentials(&config)
            .await
            .map_err(|error| self.error(Step::TokenEndpoint, &error))?;
        Ok(manager)
    }

    /// Asks for `required_scope` on top of the granted ones (after an `insufficient_scope`
    /// answer).
    pub(crate) async fn step_up(
        &self,
        manager: Arc<Mutex<AuthorizationManager>>,
        required_scope: String,
        approver: Arc<dyn Approver>,
    ) -> Result<(), OAuthError> {
        let flow = self.clone();
        on_own_thread(move || async move {
            let manager = manager.lock().await;
            let url = manager
                .request_scope_upgrade(&required_scope)
                .await
                .map_err(|error| flow.error(Step::ScopeStepUp, &error))?;
            let callback = flow.approve(approver.as_ref(), &url).await?;
            manager
                .exchange_code_for_token_with_issuer(
                    &callback.code,
                    &callback.csrf_token,
                    callback.issuer.as_deref(),
                )
                .await
                .map_err(|error| flow.error(Step::TokenEndpoint, &error))?;
            Ok(())
        })
        .await
        .map_err(|error| OAuthError::new(&*self.server, Step::ScopeStepUp, error))?
    }
}
