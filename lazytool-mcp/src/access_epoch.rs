//! Which version of the access rules a request was authenticated under: [`AccessEpoch`].

/// The version of an HTTP server's access rules (its tokens, principals, issuer rules and
/// gates) a request was authenticated under, counted up by each reload. A stateful session
/// chooses its tools again when a request comes under a newer one, as it does when the
/// request's claims differ from the last request's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct AccessEpoch(pub(crate) u64);
