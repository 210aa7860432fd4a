//! Replacing an [`McpHttp`]'s access while it serves: [`AccessReload`], made by
//! [`McpHttp::reloadable_access`].

use super::access::{Access, AccessCell};
use super::mcp_http::McpHttp;

/// Replaces, while an [`McpHttp`] serves, who it accepts and what each principal may do:
/// its bearer tokens and principals, its OpenID Connect rules, its principals' tool-call
/// limits and what each principal sees (tools, prompts, resources). Each request is held to
/// the access as it was when the request arrived. Made by
/// [`McpHttp::reloadable_access`]; what a gateway's configuration reload uses.
///
/// ```
/// use lazytool_mcp::{McpServer, Principal};
///
/// # let registry = || lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
/// let (http, access) = McpServer::new(registry()).http().bearer_token("old").reloadable_access();
/// // Later: "old" is refused, "new" accepted as `alice`, who sees only tools named `get_*`.
/// let server = McpServer::new(registry()).allow_for(|principal, tool| principal.name() == "alice" && tool.name().starts_with("get_"));
/// access.replace_with(server.http().bearer_token_for("new", Principal::new("alice")));
/// # let _ = http;
/// ```
#[derive(Clone)]
pub struct AccessReload {
    cell: AccessCell,
    /// The serving server's shared store: a reload's principal limits are decided there.
    #[cfg(feature = "redis")]
    store: Option<crate::shared::SharedStore>,
}

impl std::fmt::Debug for AccessReload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AccessReload")
            .field("authenticated", &self.cell.now().auth.is_required())
            .finish_non_exhaustive()
    }
}

impl AccessReload {
    /// From the next request on, holds requests to what `http` would: its bearer tokens,
    /// principals and OpenID Connect rules (the issuer's metadata route stays the one served
    /// from the start), its principal limits (counting from zero) and its server's
    /// restrictions per principal ([`McpServer::allow_for`](crate::McpServer::allow_for),
    /// [`allow_offers_for`](crate::McpServer::allow_offers_for)). Nothing else of `http`
    /// is taken: its tools, origins, hosts, HTTP limits and shared store are the serving
    /// one's (its principal limits are decided in the serving one's store).
    pub fn replace_with(&self, mut http: McpHttp) {
        let (tools, offers) = http.server_mut().take_gates();
        let mut call_limits = http.call_limits.take();
        // Refusals keep counting in the series `/metrics` registered at the start.
        if let (Some(limits), Some(old)) = (&mut call_limits, &self.cell.now().call_limits) {
            limits.refusals = old.refusals.clone();
        }
        #[cfg(feature = "redis")]
        if let Some(limits) = &mut call_limits {
            limits.store = self.store.clone();
        }
        self.cell.set(Access {
            auth: http.auth.clone(),
            call_limits,
            tools,
            offers,
        });
    }
}

impl McpHttp {
    /// This server with its access replaceable while it serves, and the handle that
    /// replaces it ([`AccessReload::replace_with`]). Call it after every builder call that
    /// sets who is accepted and what each principal may do (tokens, principals, OpenID
    /// Connect, principal limits, [`McpServer::allow_for`](crate::McpServer::allow_for)):
    /// later ones are not seen by requests.
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let (http, access) = server.http().bearer_token("a-token").reloadable_access();
    /// # let _ = (http, access);
    /// ```
    pub fn reloadable_access(mut self) -> (McpHttp, AccessReload) {
        let (tools, offers) = self.server_mut().take_gates();
        let cell = AccessCell::new(Access {
            auth: self.auth.clone(),
            call_limits: self.call_limits.clone(),
            tools,
            offers,
        });
        let (tools, offers) = (cell.clone(), cell.clone());
        let server = self.server_mut();
        *server = std::mem::replace(server, server.clone())
            .allow_for(move |principal, tool| {
                (tools.now().tools.as_ref()).is_none_or(|allow| allow(principal, tool))
            })
            .allow_offers_for(move |principal, name| {
                (offers.now().offers.as_ref()).is_none_or(|allow| allow(principal, name))
            });
        self.access = Some(cell.clone());
        let reload = AccessReload {
            cell,
            #[cfg(feature = "redis")]
            store: self.shared_store.clone(),
        };
        (self, reload)
    }
}
