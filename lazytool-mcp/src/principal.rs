//! Who a request comes from: [`Principal`].

use std::fmt;
use std::sync::Arc;

/// Who a request comes from, as authentication established it: the name given to the bearer
/// token it carried ([`McpHttp::bearer_token_for`](crate::McpHttp::bearer_token_for)), what a
/// custom authenticator returned, or [`Principal::anonymous`] when the server requires no
/// token (and on stdio). [`McpServer::allow_for`](crate::McpServer::allow_for) turns it into
/// the tools a request may use.
///
/// ```
/// use lazytool_mcp::Principal;
///
/// let alice = Principal::new("alice");
/// assert_eq!(alice.name(), "alice");
/// assert_ne!(alice, Principal::anonymous());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Principal(Arc<str>);

impl Principal {
    /// A principal named `name`.
    ///
    /// ```
    /// use lazytool_mcp::Principal;
    ///
    /// assert_eq!(Principal::new("ci-bot"), Principal::new(String::from("ci-bot")));
    /// ```
    pub fn new(name: impl Into<Arc<str>>) -> Self {
        Principal(name.into())
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
        &self.0
    }
}

impl fmt::Debug for Principal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Principal").field(&self.name()).finish()
    }
}
