//! How many calls a principal's or a server's limits refused: [`LimitsHit`].

/// Calls refused by each limit of a [`CallQuota`](crate::CallQuota) so far
/// (`McpSource::limits_hit`).
///
/// ```
/// let hit = lazytool_mcp_core::LimitsHit { rate: 3, in_flight: 1 };
/// assert_eq!(hit.rate + hit.in_flight, 4);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LimitsHit {
    /// Refused for an empty token bucket.
    pub rate: u64,
    /// Refused because every place in flight was taken.
    pub in_flight: u64,
}
