//! Who a request comes from: [`Principal`].

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rmcp::model::JsonObject;

/// Who a request comes from, as authentication established it: the name given to the bearer
/// token it carried (`McpHttp::bearer_token_for`), what a
/// custom authenticator returned, or [`Principal::anonymous`] when the server requires no
/// token (and on stdio), or the subject of a JWT an OIDC issuer signed, with its claims.
/// `McpServer::allow_for` turns it into the tools a request
/// may use.
///
/// Two principals are equal when they come from the same source and have the same name: a
/// static token's principal `alice` and the OIDC subject `alice` are two principals, which
/// share no session, limit or quota. An issuer's principal is named `oidc:NAME`
/// ([`from_issuer`](Principal::from_issuer)), in configuration, audit lines and metrics
/// alike. The claims of one subject's successive tokens may differ: they are not compared,
/// and each request is held to the claims of the token it carried.
///
/// ```
/// use lazytool_mcp_core::Principal;
///
/// let alice = Principal::new("alice");
/// assert_eq!(alice.name(), "alice");
/// assert_ne!(alice, Principal::anonymous());
/// ```
#[derive(Clone)]
pub struct Principal {
    name: Arc<str>,
    /// The issuer whose token named the principal, if an issuer did.
    issuer: Option<Arc<str>>,
    claims: Option<Arc<JsonObject>>,
}

/// How an issuer's principals are named: `oidc:` and the principal's claim.
pub const ISSUER_PRINCIPAL_PREFIX: &str = "oidc:";

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.issuer == other.issuer
    }
}

impl Eq for Principal {}

impl Hash for Principal {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl Principal {
    /// A principal named `name`.
    ///
    /// ```
    /// use lazytool_mcp_core::Principal;
    ///
    /// assert_eq!(Principal::new("ci-bot"), Principal::new(String::from("ci-bot")));
    /// ```
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        Principal {
            name: name.into(),
            issuer: None,
            claims: None,
        }
    }

    /// A principal named `name` whose credentials said `claims` (a validated JWT's payload,
    /// say): `McpServer::allow_for` can decide on them.
    ///
    /// ```
    /// use lazytool_mcp_core::Principal;
    ///
    /// let claims = serde_json::json!({"sub": "alice", "groups": ["ops"]});
    /// let alice = Principal::with_claims("alice", claims.as_object().cloned().unwrap_or_default());
    /// assert_eq!(alice, Principal::new("alice"));
    /// assert_eq!(alice.claims().and_then(|claims| claims.get("groups")), Some(&serde_json::json!(["ops"])));
    /// ```
    pub fn with_claims(name: impl Into<Arc<str>>, claims: JsonObject) -> Self {
        Principal {
            name: name.into(),
            issuer: None,
            claims: Some(Arc::new(claims)),
        }
    }

    /// The principal an OpenID Connect issuer's token names: `subject` (the value of the
    /// principal's claim) under `issuer`, named `oidc:SUBJECT`, with the token's claims. It
    /// never equals a principal of another source, whatever its name.
    ///
    /// ```
    /// use lazytool_mcp_core::Principal;
    ///
    /// let alice = Principal::from_issuer("https://id.example", "alice", Default::default());
    /// assert_eq!(alice.name(), "oidc:alice");
    /// assert_eq!(alice.issuer(), Some("https://id.example"));
    /// assert_ne!(alice, Principal::new("alice"));
    /// assert_ne!(alice, Principal::new("oidc:alice"));
    /// ```
    pub fn from_issuer(issuer: impl Into<Arc<str>>, subject: &str, claims: JsonObject) -> Self {
        Principal {
            name: format!("{ISSUER_PRINCIPAL_PREFIX}{subject}").into(),
            issuer: Some(issuer.into()),
            claims: Some(Arc::new(claims)),
        }
    }

    /// The issuer whose token named the principal ([`from_issuer`](Principal::from_issuer)),
    /// if one did.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::Principal::new("ci").issuer(), None);
    /// ```
    pub fn issuer(&self) -> Option<&str> {
        self.issuer.as_deref()
    }

    /// Whether `other` is the same principal holding the same claims: a request whose token's
    /// claims differ from the last one's may be allowed other tools.
    pub fn same_claims(&self, other: &Principal) -> bool {
        match (&self.claims, &other.claims) {
            (Some(mine), Some(theirs)) => Arc::ptr_eq(mine, theirs) || mine == theirs,
            (None, None) => true,
            _ => false,
        }
    }

    /// The claims the principal's credentials carried, if they carried any (a static bearer
    /// token carries none).
    ///
    /// ```
    /// assert!(lazytool_mcp_core::Principal::new("ci").claims().is_none());
    /// ```
    pub fn claims(&self) -> Option<&JsonObject> {
        self.claims.as_deref()
    }

    /// Whoever calls a server that requires no authentication: named `anonymous`.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::Principal::anonymous().name(), "anonymous");
    /// ```
    pub fn anonymous() -> Self {
        // Every request of a server without authentication is anonymous: one allocation.
        static ANONYMOUS: std::sync::LazyLock<Principal> =
            std::sync::LazyLock::new(|| Principal::new("anonymous"));
        ANONYMOUS.clone()
    }

    /// The principal's name: as given, or `oidc:NAME` for an issuer's principal.
    ///
    /// ```
    /// use lazytool_mcp_core::Principal;
    ///
    /// assert_eq!(Principal::new("alice").name(), "alice");
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Principal").field(&self.name()).finish()
    }
}
