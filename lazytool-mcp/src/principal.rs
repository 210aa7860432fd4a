//! Who a request comes from: [`Principal`].

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rmcp::model::JsonObject;

/// Who a request comes from, as authentication established it: the name given to the bearer
/// token it carried ([`McpHttp::bearer_token_for`](crate::McpHttp::bearer_token_for)), what a
/// custom authenticator returned, or [`Principal::anonymous`] when the server requires no
/// token (and on stdio), or the subject of a JWT an OIDC issuer signed, with its claims.
/// [`McpServer::allow_for`](crate::McpServer::allow_for) turns it into the tools a request
/// may use. Two principals are equal when their names are: the claims of one subject's
/// successive tokens may differ.
///
/// ```
/// use lazytool_mcp::Principal;
///
/// let alice = Principal::new("alice");
/// assert_eq!(alice.name(), "alice");
/// assert_ne!(alice, Principal::anonymous());
/// ```
#[derive(Clone)]
pub struct Principal {
    name: Arc<str>,
    claims: Option<Arc<JsonObject>>,
}

impl PartialEq for Principal {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
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
    /// use lazytool_mcp::Principal;
    ///
    /// assert_eq!(Principal::new("ci-bot"), Principal::new(String::from("ci-bot")));
    /// ```
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        Principal {
            name: name.into(),
            claims: None,
        }
    }

    /// A principal named `name` whose credentials said `claims` (a validated JWT's payload,
    /// say): [`McpServer::allow_for`](crate::McpServer::allow_for) can decide on them.
    ///
    /// ```
    /// use lazytool_mcp::Principal;
    ///
    /// let claims = serde_json::json!({"sub": "alice", "groups": ["ops"]});
    /// let alice = Principal::with_claims("alice", claims.as_object().cloned().unwrap_or_default());
    /// assert_eq!(alice, Principal::new("alice"));
    /// assert_eq!(alice.claims().and_then(|claims| claims.get("groups")), Some(&serde_json::json!(["ops"])));
    /// ```
    pub fn with_claims(name: impl Into<Arc<str>>, claims: JsonObject) -> Self {
        Principal {
            name: name.into(),
            claims: Some(Arc::new(claims)),
        }
    }

    /// The claims the principal's credentials carried, if they carried any (a static bearer
    /// token carries none).
    ///
    /// ```
    /// assert!(lazytool_mcp::Principal::new("ci").claims().is_none());
    /// ```
    pub fn claims(&self) -> Option<&JsonObject> {
        self.claims.as_deref()
    }

    /// Whoever calls a server that requires no authentication: named `anonymous`.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp::Principal::anonymous().name(), "anonymous");
    /// ```
    pub fn anonymous() -> Self {
        // Every request of a server without authentication is anonymous: one allocation.
        static ANONYMOUS: std::sync::LazyLock<Principal> =
            std::sync::LazyLock::new(|| Principal::new("anonymous"));
        ANONYMOUS.clone()
    }

    /// The principal's name.
    ///
    /// ```
    /// use lazytool_mcp::Principal;
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
