//! What the transport tells of one request, besides its message: whose it is, under which
//! access rules it was let in, whether its protocol version is stateless, and whether it is
//! the `initialize` rmcp replays to restore a session.

use rmcp::RoleServer;
use rmcp::service::RequestContext;

use crate::Principal;
use crate::access_epoch::AccessEpoch;

/// Whether the request is of a protocol version without a handshake (2026-07-28 on), whose
/// tool list must not depend on earlier requests.
pub(crate) fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize())
}

/// The principal the HTTP guard authenticated; anonymous on stdio.
pub(crate) fn principal(context: &RequestContext<RoleServer>) -> Principal {
    marked(context).unwrap_or_else(Principal::anonymous)
}

/// Whether the request is the `initialize` rmcp replays to restore a session another replica
/// opened (or this one, before a restart) from the server's session store.
pub(crate) fn is_restore(context: &RequestContext<RoleServer>) -> bool {
    #[cfg(feature = "server-http")]
    return (context.extensions)
        .get::<rmcp::transport::streamable_http_server::session::SessionRestoreMarker>()
        .is_some();
    #[cfg(not(feature = "server-http"))]
    {
        let _ = context;
        false
    }
}

/// The access rules the HTTP guard authenticated the request under; on stdio, the only ones.
pub(crate) fn access_epoch(context: &RequestContext<RoleServer>) -> AccessEpoch {
    marked(context).unwrap_or_default()
}

/// What the HTTP guard put in the request's extensions, if it did.
fn marked<T: Clone + Send + Sync + 'static>(context: &RequestContext<RoleServer>) -> Option<T> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<T>())
        .cloned()
}
