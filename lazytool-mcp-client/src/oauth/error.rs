//! What went wrong in an OAuth flow, and at which step: [`OAuthError`].

use rmcp::transport::auth::AuthError;

/// The step of the MCP authorization flow that failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Step {
    /// Reading the server's challenge, its protected resource metadata (RFC 9728) or the
    /// authorization server's metadata (RFC 8414, OpenID discovery), or checking them.
    MetadataDiscovery,
    /// Dynamic client registration (RFC 7591).
    Registration,
    /// The authorization request and its redirect (approval, state, issuer).
    Authorization,
    /// The token endpoint: a code, client credentials or a JWT exchanged for tokens.
    TokenEndpoint,
    /// Refreshing an expired access token.
    TokenRefresh,
    /// Asking for more scopes after an `insufficient_scope` answer.
    ScopeStepUp,
    /// Reading or writing the token store.
    TokenStore,
    /// There is no usable token and nobody to approve one: a login is needed.
    Login,
}

impl std::fmt::Display for Step {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Step::MetadataDiscovery => "metadata discovery",
            Step::Registration => "client registration",
            Step::Authorization => "authorization",
            Step::TokenEndpoint => "token endpoint",
            Step::TokenRefresh => "token refresh",
            Step::ScopeStepUp => "scope step-up",
            Step::TokenStore => "token store",
            Step::Login => "login",
        })
    }
}

/// An OAuth failure of one server: which server, which step, and what happened (never a
/// token).
///
/// ```
/// use lazytool_mcp_client::{OAuthError, Step};
///
/// let error = OAuthError::new("linear", Step::TokenEndpoint, "invalid_grant: code expired");
/// assert_eq!(error.to_string(), "the MCP server `linear`: OAuth token endpoint: invalid_grant: code expired");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuthError {
    server: String,
    step: Step,
    message: String,
}

impl OAuthError {
    /// `server` failed at `step` because of `message`.
    pub fn new(server: impl Into<String>, step: Step, message: impl Into<String>) -> Self {
        OAuthError {
            server: server.into(),
            step,
            message: message.into(),
        }
    }

    /// The failure of `server` a login would cure.
    pub(crate) fn needs_login(server: &str, why: &str) -> Self {
        OAuthError::new(
            server,
            Step::Login,
            format!("{why}: run `lazytool-gateway login {server}`"),
        )
    }

    /// rmcp's `error`, during a flow that was at `step` (a more precise step when the error
    /// names one).
    pub(crate) fn from_rmcp(server: &str, step: Step, error: &AuthError) -> Self {
        let step = match error {
            AuthError::DiscoveryRequestFailed { .. }
            | AuthError::ProtectedResourceMetadataInvalid { .. }
            | AuthError::AuthorizationServersUnavailable { .. }
            | AuthError::MetadataError(_)
            | AuthError::NoAuthorizationSupport
            | AuthError::PkceUnsupported => Step::MetadataDiscovery,
            AuthError::RegistrationFailed(_) => Step::Registration,
            AuthError::TokenExchangeFailed(_)
            | AuthError::ClientCredentialsError(_)
            | AuthError::JwtSigningError(_) => Step::TokenEndpoint,
            AuthError::TokenRefreshFailed(_) | AuthError::TokenRefreshRejected(_) => {
                Step::TokenRefresh
            }
            AuthError::CredentialStoreError(_) => Step::TokenStore,
            _ => step,
        };
        let mut message = error.to_string();
        if let AuthError::TokenExchangeFailed(detail) | AuthError::TokenRefreshFailed(detail) =
            error
            && is_json_error(detail)
        {
            // rmcp keeps only the parser's complaint of an answer that is no token response
            // (an HTTP error with a text body, a login page): say what it means.
            message = format!(
                "the token endpoint did not answer with a JSON token response (an HTTP error or a web page instead?): {detail}"
            );
        }
        // `source` carries what the request itself ran into (a refused connection, say).
        let mut cause = std::error::Error::source(error);
        while let Some(inner) = cause {
            message = format!("{message}: {inner}");
            cause = inner.source();
        }
        OAuthError::new(server, step, message)
    }

    /// The server.
    pub fn server(&self) -> &str {
        &self.server
    }

    /// The step that failed.
    pub fn step(&self) -> Step {
        self.step
    }
}

/// Whether `detail` is what serde_json (or oauth2, for a refresh) says of text it cannot
/// read.
fn is_json_error(detail: &str) -> bool {
    if detail == "Failed to parse server response" {
        return true;
    }
    let Some((_, position)) = detail.rsplit_once(" at line ") else {
        return false;
    };
    let mut words = position.split_whitespace();
    words.next().is_some_and(|line| line.parse::<u64>().is_ok())
        && words.next() == Some("column")
        && words
            .next()
            .is_some_and(|column| column.parse::<u64>().is_ok())
}

impl std::fmt::Display for OAuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the MCP server `{}`: OAuth {}: {}",
            self.server, self.step, self.message
        )
    }
}

impl std::error::Error for OAuthError {}
