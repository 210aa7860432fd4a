//! What each principal may use of an [`McpServer`]: its tools ([`McpServer::allow_for`]), its
//! prompts and resources ([`McpServer::allow_offers_for`]), and the session options a request
//! of a principal gets.

use std::sync::Arc;

use lazytool_runtime::{Session, SessionOptions, Tool};

use crate::Principal;
#[cfg(feature = "server-http")]
use crate::server::{Gate, OffersGate};
use crate::server::{McpServer, PrincipalGate};

impl McpServer {
    /// Restricts what each principal may use: a request of `principal` may list, discover
    /// and run `tool` only if `allow(principal, tool)` (and the
    /// [`options`](McpServer::options)' own [`allow`](SessionOptions::allow)) is true. Each
    /// call adds a restriction to those of earlier calls. The
    /// principal is who the HTTP server authenticated
    /// ([`McpHttp::bearer_token_for`](crate::McpHttp::bearer_token_for)), else
    /// [`Principal::anonymous`].
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// // Everyone reads; only `admin` may use the other tools.
    /// let server = McpServer::new(registry)
    ///     .allow_for(|principal, tool| principal.name() == "admin" || tool.name().starts_with("get"));
    /// ```
    pub fn allow_for(
        mut self,
        allow: impl Fn(&Principal, &Tool) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.gate = Some(restricted(self.gate.take(), allow));
        self
    }

    /// Restricts which prompts and resources each principal may see: a request of
    /// `principal` lists and gets a prompt only if `allow(principal, name)`, and lists and
    /// reads a resource (or lists a template) only if `allow(principal, uri)` (the template's
    /// URI template). One it may not see is answered as one that does not exist. Each call
    /// adds a restriction to those of earlier calls.
    ///
    /// ```
    /// use lazytool_mcp::McpServer;
    ///
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// // Only `admin` sees the prompts and resources of the `ops` server.
    /// let server = McpServer::new(registry)
    ///     .allow_offers_for(|principal, name| principal.name() == "admin" || !name.starts_with("ops"));
    /// ```
    pub fn allow_offers_for(
        mut self,
        allow: impl Fn(&Principal, &str) -> bool + Send + Sync + 'static,
    ) -> Self {
        self.offers_gate = Some(restricted(self.offers_gate.take(), allow));
        self
    }

    /// Its restrictions per principal (tools, then prompts and resources), taken out.
    #[cfg(feature = "server-http")]
    pub(crate) fn take_gates(&mut self) -> (Option<Gate>, Option<OffersGate>) {
        (self.gate.take(), self.offers_gate.take())
    }

    /// Whether some principals may not see some prompts or resources.
    pub(crate) fn gates_offers(&self) -> bool {
        self.offers_gate.is_some()
    }

    /// Whether `principal` may see the prompt or resource `name`.
    pub(crate) fn offers_to(&self, principal: &Principal, name: &str) -> bool {
        self.offers_gate
            .as_ref()
            .is_none_or(|allow| allow(principal, name))
    }

    /// Whether some principals may not use some tools.
    pub(crate) fn is_gated(&self) -> bool {
        self.gate.is_some()
    }

    /// The session a stateless (2026-07-28) request of `principal` is answered in: the tools
    /// `principal` may use, each callable whether listed or not.
    pub(crate) fn stateless_session(&self, principal: &Principal) -> Session {
        let options = self.options_for(principal).call_through(true);
        self.registry().session_with(options)
    }

    pub(crate) fn options_for(&self, principal: &Principal) -> SessionOptions {
        let Some(gate) = &self.gate else {
            return self.options.clone();
        };
        let (base, gate, principal) = (self.options.clone(), Arc::clone(gate), principal.clone());
        self.options
            .clone()
            .allow(move |tool| base.allows(tool) && gate(&principal, tool))
    }
}

/// `allow` added to the `earlier` restriction, if any: both must allow.
fn restricted<T: ?Sized + 'static>(
    earlier: Option<PrincipalGate<T>>,
    allow: impl Fn(&Principal, &T) -> bool + Send + Sync + 'static,
) -> PrincipalGate<T> {
    match earlier {
        Some(earlier) => Arc::new(move |principal: &Principal, value: &T| {
            earlier(principal, value) && allow(principal, value)
        }),
        None => Arc::new(allow),
    }
}
