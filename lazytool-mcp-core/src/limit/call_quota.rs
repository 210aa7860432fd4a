//! What a principal or an upstream server may have of tool calls: [`CallQuota`].

use std::fmt;
use std::num::NonZeroU32;

use super::rate::Rate;

/// The limits of one principal or one upstream server: a [`Rate`] (token bucket) and a cap
/// on calls in flight, each optional. [`CallQuota::default`] limits nothing.
///
/// ```
/// use std::num::NonZeroU32;
/// use lazytool_mcp_core::{CallQuota, Rate};
///
/// let quota = CallQuota::default()
///     .rate(Rate::new(5.0, 10).unwrap())
///     .max_in_flight(NonZeroU32::new(4).unwrap());
/// assert_eq!(quota.to_string(), "5 calls/s, burst 10; 4 in flight");
/// assert!(CallQuota::default().is_unlimited());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CallQuota {
    rate: Option<Rate>,
    max_in_flight: Option<NonZeroU32>,
}

impl CallQuota {
    /// Calls admitted at `rate` at most.
    ///
    /// ```
    /// use lazytool_mcp_core::{CallQuota, Rate};
    ///
    /// let rate = Rate::new(1.0, 1).unwrap();
    /// assert_eq!(CallQuota::default().rate(rate).rate_limit(), Some(rate));
    /// ```
    pub fn rate(mut self, rate: Rate) -> Self {
        self.rate = Some(rate);
        self
    }

    /// At most `calls` in flight at once; one more is refused until one ends.
    ///
    /// ```
    /// use std::num::NonZeroU32;
    /// use lazytool_mcp_core::CallQuota;
    ///
    /// let two = NonZeroU32::new(2).unwrap();
    /// assert_eq!(CallQuota::default().max_in_flight(two).in_flight_limit(), Some(two));
    /// ```
    pub fn max_in_flight(mut self, calls: NonZeroU32) -> Self {
        self.max_in_flight = Some(calls);
        self
    }

    /// The rate, if limited.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::CallQuota::default().rate_limit(), None);
    /// ```
    pub fn rate_limit(&self) -> Option<Rate> {
        self.rate
    }

    /// The cap on calls in flight, if any.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::CallQuota::default().in_flight_limit(), None);
    /// ```
    pub fn in_flight_limit(&self) -> Option<NonZeroU32> {
        self.max_in_flight
    }

    /// Whether it limits nothing.
    ///
    /// ```
    /// assert!(lazytool_mcp_core::CallQuota::default().is_unlimited());
    /// ```
    pub fn is_unlimited(&self) -> bool {
        self.rate.is_none() && self.max_in_flight.is_none()
    }
}

impl fmt::Display for CallQuota {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.rate, self.max_in_flight) {
            (None, None) => write!(f, "unlimited"),
            (Some(rate), None) => write!(f, "{rate}"),
            (None, Some(calls)) => write!(f, "{calls} in flight"),
            (Some(rate), Some(calls)) => write!(f, "{rate}; {calls} in flight"),
        }
    }
}
