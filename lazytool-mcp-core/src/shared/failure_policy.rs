//! What a server does while its shared store is down: [`FailurePolicy`].

/// What a server does with its tool calls while its [`SharedStore`](crate::SharedStore) is
/// down.
///
/// ```
/// use lazytool_mcp_core::FailurePolicy;
///
/// assert_eq!(FailurePolicy::default(), FailurePolicy::Local);
/// assert_eq!(FailurePolicy::Refuse.as_str(), "refuse");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FailurePolicy {
    /// Keep serving: each replica applies every limit alone (so N replicas admit up to N
    /// times a limit) until the store is back. `/readyz` stays 200 and says so in its body.
    #[default]
    Local,
    /// Refuse every limited call (a principal's with 503 and `Retry-After`, a server's as
    /// the tool's error) until the store is back; `/readyz` answers 503.
    Refuse,
}

impl FailurePolicy {
    /// `local` or `refuse`, as a gateway's `onFailure` names it.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::FailurePolicy::Local.as_str(), "local");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            FailurePolicy::Local => "local",
            FailurePolicy::Refuse => "refuse",
        }
    }
}
