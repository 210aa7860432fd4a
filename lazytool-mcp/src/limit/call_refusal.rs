//! Why a limited call was not admitted: [`CallRefusal`].

use super::exceeded::LimitExceeded;
#[cfg(feature = "redis")]
use crate::shared::StoreDown;

/// Why a call did not get a place under its principal's or its server's limits.
#[derive(Debug)]
pub(crate) enum CallRefusal {
    /// A limit was reached: 429 with `Retry-After` (a principal's), or the tool's error
    /// (a server's).
    Limit(LimitExceeded),
    /// The shared store is down and its failure policy refuses limited calls meanwhile.
    #[cfg(feature = "redis")]
    StoreDown(StoreDown),
}
