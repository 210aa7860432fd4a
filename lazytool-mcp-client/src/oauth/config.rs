//! What a server's OAuth needs from its configuration: [`OAuth`].

use std::sync::Arc;

use super::approver::Approver;
use super::store::TokenStore;

/// How the client obtains its tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Grant {
    /// A person approves access in a browser once (`lazytool-gateway login NAME`); the
    /// tokens are stored and refreshed from then on.
    #[default]
    AuthorizationCode,
    /// Machine to machine: the client's own credentials (a secret, sent by HTTP Basic or in
    /// the body as the server's metadata asks, or a private key signing a JWT) are exchanged
    /// for a token at every start.
    ClientCredentials,
}

impl std::str::FromStr for Grant {
    type Err = String;

    /// `"authorization_code"` or `"client_credentials"` (OAuth's names; dashes accepted).
    ///
    /// ```
    /// use lazytool_mcp_client::Grant;
    ///
    /// assert_eq!("client_credentials".parse(), Ok(Grant::ClientCredentials));
    /// assert!("implicit".parse::<Grant>().unwrap_err().contains("authorization_code"));
    /// ```
    fn from_str(text: &str) -> Result<Self, String> {
        match text.replace('-', "_").as_str() {
            "authorization_code" => Ok(Grant::AuthorizationCode),
            "client_credentials" => Ok(Grant::ClientCredentials),
            _ => Err(format!(
                "unknown grant `{text}`: expected `authorization_code` or `client_credentials`"
            )),
        }
    }
}

/// The algorithm of a private key that signs client-credentials JWTs (RFC 7523).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SigningAlgorithm {
    /// RSA with SHA-256.
    RS256,
    /// RSA with SHA-384.
    RS384,
    /// RSA with SHA-512.
    RS512,
    /// ECDSA P-256 with SHA-256.
    ES256,
    /// ECDSA P-384 with SHA-384.
    ES384,
}

impl std::str::FromStr for SigningAlgorithm {
    type Err = String;

    /// The JOSE name: `RS256`, `RS384`, `RS512`, `ES256` or `ES384`.
    ///
    /// ```
    /// use lazytool_mcp_client::SigningAlgorithm;
    ///
    /// assert_eq!("ES256".parse(), Ok(SigningAlgorithm::ES256));
    /// assert!("HS256".parse::<SigningAlgorithm>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "RS256" => Ok(SigningAlgorithm::RS256),
            "RS384" => Ok(SigningAlgorithm::RS384),
            "RS512" => Ok(SigningAlgorithm::RS512),
            "ES256" => Ok(SigningAlgorithm::ES256),
            "ES384" => Ok(SigningAlgorithm::ES384),
            _ => Err(format!(
                "unknown signing algorithm `{text}`: expected RS256, RS384, RS512, ES256 or ES384"
            )),
        }
    }
}

impl SigningAlgorithm {
    pub(crate) fn rmcp(self) -> rmcp::transport::JwtSigningAlgorithm {
        use rmcp::transport::JwtSigningAlgorithm as Jwt;
        match self {
            SigningAlgorithm::RS256 => Jwt::RS256,
            SigningAlgorithm::RS384 => Jwt::RS384,
            SigningAlgorithm::RS512 => Jwt::RS512,
            SigningAlgorithm::ES256 => Jwt::ES256,
            SigningAlgorithm::ES384 => Jwt::ES384,
        }
    }
}

/// MCP authorization (OAuth 2.1) for an HTTP upstream: set it with
/// [`Upstream::oauth`](crate::Upstream::oauth). Everything is optional: without a client id
/// the client uses a client ID metadata document when one is set and the authorization
/// server supports them, else registers itself (RFC 7591); without scopes it asks for those
/// of the server's challenge or metadata.
///
/// With [`Grant::AuthorizationCode`] (the default) someone approves access once with
/// [`login`](crate::login); the tokens go to the [`TokenStore`] and are refreshed before
/// they expire. Starting the server never waits for a browser: without usable tokens it
/// fails at once with "run `lazytool-gateway login NAME`", unless an [`Approver`] is set.
///
/// Its `Debug` form hides the secret and the private key.
///
/// ```
/// use lazytool_mcp_client::{Grant, OAuth, TokenStore, Upstream};
///
/// let oauth = OAuth::new()
///     .client_id("lazytool-ci")
///     .client_secret("s3cret-value")
///     .scopes(["issues:read"])
///     .grant(Grant::ClientCredentials)
///     .token_store(TokenStore::memory());
/// let upstream = Upstream::url("https://mcp.example.com/mcp").oauth(oauth);
/// assert!(!format!("{upstream:?}").contains("s3cret-value"));
/// ```
#[derive(Clone, Default)]
pub struct OAuth {
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret: Option<String>,
    pub(crate) private_key: Option<(String, SigningAlgorithm)>,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) scopes: Vec<String>,
    pub(crate) grant: Grant,
    pub(crate) store: Option<TokenStore>,
    pub(crate) approver: Option<Arc<dyn Approver>>,
}

impl OAuth {
    /// Nothing configured: dynamic registration, scopes from the server, the authorization
    /// code grant, the default [`TokenStore`].
    pub fn new() -> Self {
        OAuth::default()
    }

    /// A client id registered with the authorization server beforehand.
    pub fn client_id(mut self, id: impl Into<String>) -> Self {
        self.client_id = Some(id.into());
        self
    }

    /// The secret of the pre-registered client id (a confidential client).
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// A private key in PEM that signs the client's JWT assertions (`private_key_jwt`, for
    /// [`Grant::ClientCredentials`]).
    pub fn private_key(mut self, pem: impl Into<String>, algorithm: SigningAlgorithm) -> Self {
        self.private_key = Some((pem.into(), algorithm));
        self
    }

    /// The HTTPS URL of this client's ID metadata document, used as its client id by
    /// authorization servers that support them.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The scopes to ask for.
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// How tokens are obtained (default: [`Grant::AuthorizationCode`]).
    pub fn grant(mut self, grant: Grant) -> Self {
        self.grant = grant;
        self
    }

    /// Where tokens are kept (default: [`TokenStore::default_location`]).
    pub fn token_store(mut self, store: TokenStore) -> Self {
        self.store = Some(store);
        self
    }

    /// Who approves an authorization while the server is in use: at its start without
    /// stored tokens, and when it asks for more scopes (at most twice in a row). Without
    /// one, both are errors that ask for a login.
    pub fn approver(mut self, approver: impl Approver + 'static) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// The store tokens are kept in.
    ///
    /// ```
    /// use lazytool_mcp_client::{OAuth, TokenStore};
    ///
    /// let store = TokenStore::file("/tmp/tokens.json");
    /// assert_eq!(OAuth::new().token_store(store.clone()).store(), store);
    /// ```
    pub fn store(&self) -> TokenStore {
        self.store
            .clone()
            .unwrap_or_else(TokenStore::default_location)
    }

    /// The values that must not appear in text about the server.
    pub(crate) fn secrets(&self) -> impl Iterator<Item = &str> {
        let key = self.private_key.as_ref().map(|(pem, _)| pem.as_str());
        self.client_secret.as_deref().into_iter().chain(key)
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field(
                "private_key",
                &self.private_key.as_ref().map(|(_, algorithm)| algorithm),
            )
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .field("grant", &self.grant)
            .field("store", &self.store)
            .field("approver", &self.approver.as_ref().map(|_| "set"))
            .finish()
    }
}

/// Two configurations are equal when every setting is (an approver: the same one).
impl PartialEq for OAuth {
    fn eq(&self, other: &Self) -> bool {
        let approvers = match (&self.approver, &other.approver) {
            (Some(left), Some(right)) => Arc::ptr_eq(left, right),
            (left, right) => left.is_none() && right.is_none(),
        };
        approvers
            && self.client_id == other.client_id
            && self.client_secret == other.client_secret
            && self.private_key == other.private_key
            && self.client_metadata_url == other.client_metadata_url
            && self.scopes == other.scopes
            && self.grant == other.grant
            && self.store == other.store
    }
}

impl Eq for OAuth {}
