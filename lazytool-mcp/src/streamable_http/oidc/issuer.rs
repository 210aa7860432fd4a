//! The issuer whose tokens are accepted, and how they are checked: [`Oidc`].

use std::sync::Arc;
use std::time::Duration;

use super::error::OidcError;
use super::https_url;
use super::keys::{Keys, Source};
use super::rules::ClaimRule;
use super::token_kind::Accepted;

/// The default clock skew allowed on `exp` and `nbf`.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(60);

/// The default age after which the issuer's key set is fetched again.
pub const DEFAULT_KEY_REFRESH: Duration = Duration::from_secs(3600);

/// Accepts bearer tokens that are JWTs signed by an OpenID Connect issuer
/// ([`McpHttp::oidc`](crate::McpHttp::oidc)).
///
/// The issuer's discovery document (`/.well-known/openid-configuration`) gives its key set
/// (`jwks_uri`), fetched by [`discover`](Oidc::discover) (or by the first token), again once it
/// is older than [`key_refresh`](Oidc::key_refresh) or a token names a key (`kid`) it lacks,
/// and never more often than once every 10 s. The issuer's URL, its `jwks_uri` and any
/// redirect on the way must be `https://` ([`check_issuer_url`](Oidc::check_issuer_url);
/// plain `http://` only on loopback, for tests).
///
/// A token is accepted when it is at most [`MAX_TOKEN_BYTES`](crate::MAX_TOKEN_BYTES), of a
/// `typ` an access token has (`at+jwt`, `JWT` or none; only `at+jwt` with
/// [`access_tokens_only`](Oidc::access_tokens_only)), signed with RS256, ES256 or EdDSA by a
/// key of the set that is for signatures (not `use` `enc`, `key_ops` with `verify` if given;
/// `none` and HMAC are refused), of the issuer (`iss`), for one of the audiences (`aud`), not
/// expired (`exp`) nor early (`nbf`) beyond the [`leeway`](Oidc::leeway), no ID token (no
/// `nonce` nor `at_hash` claim), with the [principal's claim](Oidc::principal_claim) and the
/// [required scopes](Oidc::require_scopes).
/// Its principal is named by that claim and carries the token's claims
/// ([`Principal::claims`](crate::Principal::claims)); [`rule`](Oidc::rule)s decide what it
/// may use. Every refusal is a 401 (a missing scope: 403 `insufficient_scope`) saying what
/// was wrong with that token, with the `WWW-Authenticate` challenge of the MCP authorization
/// spec pointing at the server's RFC 9728 metadata.
///
/// ```rust,no_run
/// use lazytool_mcp::{ClaimRule, McpServer, Oidc};
///
/// # async fn run(server: McpServer) -> Result<(), Box<dyn std::error::Error>> {
/// let oidc = Oidc::issuer("https://login.example.com/realms/acme")
///     .audience("lazytool")
///     .rule(ClaimRule::new().when("groups", "admins"))
///     .rule(ClaimRule::new().when("scope", "tools:read").allow(["*__get*"])?);
/// oidc.discover().await?; // a wrong issuer stops here, before serving
/// server.http().oidc(oidc).serve("127.0.0.1:8080").await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
#[must_use]
pub struct Oidc {
    pub(super) issuer: String,
    pub(super) audiences: Vec<String>,
    pub(super) leeway: Duration,
    pub(super) principal_claim: String,
    /// Why the issuer's URL cannot be used, found when it is given.
    pub(super) issuer_problem: Option<OidcError>,
    pub(super) accepted_types: Accepted,
    scopes: Vec<String>,
    rules: Arc<Vec<ClaimRule>>,
    resource: Option<String>,
    /// Where MCP is served: the path of the default resource URL.
    mcp_path: String,
    pub(super) keys: Arc<Keys>,
}

impl Oidc {
    /// Tokens of the issuer at `url` (its `iss`, exactly), for no audience yet: add one with
    /// [`audience`](Oidc::audience). A `url` that is not `https://` (nor `http://` on
    /// loopback) is reported by [`discover`](Oidc::discover), and every token is then refused;
    /// [`check_issuer_url`](Oidc::check_issuer_url) tells before.
    ///
    /// ```
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com").audience("lazytool");
    /// assert_eq!(oidc.issuer_url(), "https://login.example.com");
    /// ```
    pub fn issuer(url: impl Into<String>) -> Self {
        let issuer = url.into();
        Oidc {
            keys: Arc::new(Keys::new(
                Source::Issuer(issuer.clone()),
                DEFAULT_KEY_REFRESH,
            )),
            issuer_problem: Oidc::check_issuer_url(&issuer).err(),
            issuer,
            audiences: Vec::new(),
            leeway: DEFAULT_LEEWAY,
            principal_claim: "sub".to_owned(),
            accepted_types: Accepted::default(),
            scopes: Vec::new(),
            rules: Arc::default(),
            resource: None,
            mcp_path: String::new(),
        }
    }

    /// Accepts tokens whose `aud` names `audience` (repeatable: any of them); a token for no
    /// audience given is refused.
    ///
    /// ```
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com").audience("lazytool").audience("https://tools.example.com/mcp");
    /// ```
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// The clock skew allowed on `exp` and `nbf`; default [`DEFAULT_LEEWAY`].
    ///
    /// ```
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com").leeway(std::time::Duration::from_secs(30));
    /// ```
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// The claim that names the principal; default `sub`.
    ///
    /// ```
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com").principal_claim("email");
    /// ```
    pub fn principal_claim(mut self, claim: impl Into<String>) -> Self {
        self.principal_claim = claim.into();
        self
    }

    /// Scopes every token must hold (in `scope` or `scp`): a token lacking one gets 403
    /// `insufficient_scope`. The protected-resource metadata lists them.
    ///
    /// ```
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com").require_scopes(["mcp"]);
    /// ```
    pub fn require_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Accepts only tokens whose `typ` header is `at+jwt` (or `application/at+jwt`, in any
    /// case): the access tokens of RFC 9068, which an issuer's other JWTs (ID tokens, logout
    /// tokens) cannot be mistaken for. By default a plain `JWT` or no `typ` (optional in RFC
    /// 7519, and what many issuers' access tokens have) is accepted too; any other `typ`
    /// (`dpop+jwt`, `logout+jwt`, `secevent+jwt`, ...) never is.
    ///
    /// ```
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com")
    ///     .audience("lazytool")
    ///     .access_tokens_only();
    /// ```
    pub fn access_tokens_only(mut self) -> Self {
        self.accepted_types = Accepted::AccessOnly;
        self
    }

    /// Adds a rule from claims to names (see [`ClaimRule`]). With no rule, every valid token
    /// may use everything; with rules, what some rule that applies opens and none closes.
    ///
    /// ```
    /// use lazytool_mcp::{ClaimRule, Oidc};
    ///
    /// let oidc = Oidc::issuer("https://login.example.com").rule(ClaimRule::new().when("roles", "ops"));
    /// ```
    pub fn rule(mut self, rule: ClaimRule) -> Self {
        Arc::make_mut(&mut self.rules).push(rule);
        self
    }

    /// The URL clients reach MCP at, as the protected-resource metadata's `resource`; default:
    /// `http://` and the request's `Host` with the MCP path. Set it behind a proxy that ends
    /// TLS.
    ///
    /// ```
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com").resource("https://tools.example.com/mcp");
    /// ```
    pub fn resource(mut self, url: impl Into<String>) -> Self {
        self.resource = Some(url.into());
        self
    }

    /// The age after which the key set is fetched again; default [`DEFAULT_KEY_REFRESH`].
    /// A token naming an unknown key fetches it sooner; fetches stay at least 10 s apart.
    ///
    /// ```
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com").key_refresh(std::time::Duration::from_secs(600));
    /// ```
    pub fn key_refresh(mut self, every: Duration) -> Self {
        self.keys = Arc::new(Keys::new(Source::Issuer(self.issuer.clone()), every));
        self
    }

    /// Why `url` cannot be an issuer's, if it cannot: it must be an `https://` URL, or
    /// `http://` on a loopback address (`127.0.0.1`, `[::1]`, `localhost`), since keys fetched
    /// in the clear could be replaced on the way. [`discover`](Oidc::discover) checks it too,
    /// and the `jwks_uri` the issuer names.
    ///
    /// ```
    /// use lazytool_mcp::Oidc;
    ///
    /// assert!(Oidc::check_issuer_url("https://login.example.com/realms/acme").is_ok());
    /// assert!(Oidc::check_issuer_url("http://127.0.0.1:8080").is_ok());
    /// let error = Oidc::check_issuer_url("http://login.example.com").unwrap_err();
    /// assert!(error.to_string().contains("is not an https:// URL"));
    /// ```
    pub fn check_issuer_url(url: &str) -> Result<(), OidcError> {
        https_url::check(url, "issuer")
    }

    /// The issuer's URL.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp::Oidc::issuer("https://id.example").issuer_url(), "https://id.example");
    /// ```
    pub fn issuer_url(&self) -> &str {
        &self.issuer
    }

    /// Fetches the issuer's discovery document and key set now: an unreachable or wrong
    /// issuer, one not `https://` ([`check_issuer_url`](Oidc::check_issuer_url)) or whose
    /// `jwks_uri` is not, or no audience, is an error before serving starts.
    ///
    /// ```rust,no_run
    /// # async fn run() -> Result<(), lazytool_mcp::OidcError> {
    /// let oidc = lazytool_mcp::Oidc::issuer("https://login.example.com").audience("lazytool");
    /// oidc.discover().await?;
    /// # Ok(()) }
    /// ```
    pub async fn discover(&self) -> Result<(), OidcError> {
        if let Some(problem) = &self.issuer_problem {
            return Err(problem.clone());
        }
        if self.audiences.is_empty() {
            return Err(OidcError(format!(
                "the tokens of {} need an audience (`aud`) to be checked against: give one",
                self.issuer
            )));
        }
        self.keys.fetch_now().await
    }

    pub(crate) fn rules(&self) -> Arc<Vec<ClaimRule>> {
        Arc::clone(&self.rules)
    }

    pub(crate) fn scopes(&self) -> &[String] {
        &self.scopes
    }

    pub(crate) fn configured_resource(&self) -> Option<&str> {
        self.resource.as_deref()
    }

    /// The same, serving MCP at `path`.
    pub(crate) fn served_at(mut self, path: &str) -> Self {
        self.mcp_path = path.to_owned();
        self
    }

    pub(crate) fn mcp_path(&self) -> &str {
        &self.mcp_path
    }

    /// This issuer and audience, keeping the rest.
    #[cfg(feature = "cli")]
    pub(crate) fn with_issuer(mut self, issuer: String, audience: Option<String>) -> Self {
        if issuer != self.issuer {
            self.keys = Arc::new(Keys::new(
                Source::Issuer(issuer.clone()),
                DEFAULT_KEY_REFRESH,
            ));
            self.issuer_problem = Oidc::check_issuer_url(&issuer).err();
            self.issuer = issuer;
        }
        if let Some(audience) = audience {
            self.audiences = vec![audience];
        }
        self
    }

    #[cfg(test)]
    pub(super) fn with_keys(mut self, keys: Keys) -> Self {
        self.keys = Arc::new(keys);
        self
    }
}

impl std::fmt::Debug for Oidc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oidc")
            .field("issuer", &self.issuer)
            .field("audiences", &self.audiences)
            .field("leeway", &self.leeway)
            .field("principal_claim", &self.principal_claim)
            .field("scopes", &self.scopes)
            .field(
                "access_tokens_only",
                &(self.accepted_types == Accepted::AccessOnly),
            )
            .field("rules", &self.rules.len())
            .finish_non_exhaustive()
    }
}
