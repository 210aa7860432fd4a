//! What the transport tells of one request, besides its message: whose it is, under which
//! access rules it was let in, whether its protocol version is stateless, and whether it is
//! the `initialize` rmcp replays to restore a session.

use rmcp::RoleServer;
use rmcp::model::ProtocolVersion;
use rmcp::service::RequestContext;
use serde_json::Value;

use crate::Principal;
use crate::access_epoch::AccessEpoch;

/// The `_meta` key of the protocol version a request names (rmcp keeps its own private).
pub(crate) const META_KEY_PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key of a 2026-07-28 request's client capabilities.
#[cfg(feature = "server-http")]
pub(crate) const META_KEY_CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// Whether the request is of a protocol version without a handshake (2026-07-28 on), whose
/// tool list must not depend on earlier requests.
pub(crate) fn is_stateless(context: &RequestContext<RoleServer>) -> bool {
    // The version `_meta` names, compared where it lies: rmcp's `protocol_version` would
    // deserialise it into a new `String` (any string is a version to rmcp), on every call.
    if let Some(Value::String(version)) = context.meta.get(META_KEY_PROTOCOL_VERSION) {
        return version.as_str() >= ProtocolVersion::NO_INITIALIZE.as_str();
    }
    context
        .protocol_version()
        .is_some_and(|version| !version.has_initialize())
}

/// Whom the HTTP guard let a request in as, and under which access rules: one extension of
/// the HTTP request's `Parts` (one insertion, where two would grow the map twice).
#[derive(Clone)]
#[cfg_attr(not(feature = "server-http"), allow(dead_code))]
pub(crate) struct Admitted {
    pub(crate) principal: Principal,
    pub(crate) epoch: AccessEpoch,
}

/// The principal the HTTP guard authenticated; anonymous on stdio.
pub(crate) fn principal(context: &RequestContext<RoleServer>) -> Principal {
    admitted(context).map_or_else(Principal::anonymous, |admitted| admitted.principal.clone())
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
    admitted(context).map_or_else(AccessEpoch::default, |admitted| admitted.epoch)
}

/// What the HTTP guard put in the request's extensions, if it did.
fn admitted(context: &RequestContext<RoleServer>) -> Option<&Admitted> {
    (context.extensions.get::<http::request::Parts>()).and_then(admitted_in)
}

/// What the HTTP guard put in the extensions of an HTTP request's `parts`, if it did.
pub(crate) fn admitted_in(parts: &http::request::Parts) -> Option<&Admitted> {
    parts.extensions.get::<Admitted>()
}
