//! Why a limited call was not admitted: [`CallRefusal`].

use super::exceeded::LimitExceeded;
use super::store_down::StoreDown;

/// Why a call did not get a place under its principal's or its server's limits.
#[derive(Debug)]
pub enum CallRefusal {
    /// A limit was reached: 429 with `Retry-After` (a principal's), or the tool's error
    /// (a server's).
    Limit(LimitExceeded),
    /// The shared store is down and its failure policy refuses limited calls meanwhile
    /// (made only with feature `redis`).
    StoreDown(StoreDown),
}
