//! A token bucket's refill rate and size: [`Rate`].

use std::fmt;
use std::num::NonZeroU32;

use super::invalid_limit::InvalidLimit;

/// The most calls a second a [`Rate`] may allow (one every microsecond).
const MAX_PER_SECOND: f64 = 1_000_000.0;

/// A token bucket: `per_second` calls a second on average, up to `burst` at once after a
/// quiet spell. A call takes one token; a call finding the bucket empty is refused with the
/// time until the next token.
///
/// ```
/// use lazytool_mcp_core::Rate;
///
/// let rate = Rate::new(0.5, 3).unwrap(); // one call every 2 s, three at once
/// assert_eq!(rate.to_string(), "0.5 calls/s, burst 3");
/// assert_eq!(Rate::new(0.0, 1).unwrap_err().to_string(), "a rate must be more than 0 and at most 1000000 calls a second, found 0");
/// assert_eq!(Rate::new(5.0, 0).unwrap_err().to_string(), "a burst must be at least 1 call, found 0");
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    per_second: f64,
    burst: NonZeroU32,
}

impl Rate {
    /// `per_second` calls a second (more than 0, at most 1 000 000; fractions allowed),
    /// `burst` at once (at least 1).
    ///
    /// ```
    /// let rate = lazytool_mcp_core::Rate::new(10.0, 20).unwrap();
    /// assert_eq!((rate.per_second(), rate.burst()), (10.0, 20));
    /// ```
    pub fn new(per_second: f64, burst: u32) -> Result<Rate, InvalidLimit> {
        if !(per_second > 0.0 && per_second <= MAX_PER_SECOND) {
            return Err(InvalidLimit(format!(
                "a rate must be more than 0 and at most {MAX_PER_SECOND} calls a second, found {per_second}"
            )));
        }
        let burst = NonZeroU32::new(burst)
            .ok_or_else(|| InvalidLimit("a burst must be at least 1 call, found 0".to_owned()))?;
        Ok(Rate { per_second, burst })
    }

    /// Calls a second, on average.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::Rate::new(2.5, 1).unwrap().per_second(), 2.5);
    /// ```
    pub fn per_second(&self) -> f64 {
        self.per_second
    }

    /// Calls at once after a quiet spell: the bucket's size.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_core::Rate::new(1.0, 4).unwrap().burst(), 4);
    /// ```
    pub fn burst(&self) -> u32 {
        self.burst.get()
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} calls/s, burst {}", self.per_second, self.burst)
    }
}
