//! A limit that cannot be: [`InvalidLimit`].

use std::fmt;

/// A limit that cannot be: its message says what was given and the bound.
///
/// ```
/// let error = lazytool_mcp_core::Rate::new(-1.0, 1).unwrap_err();
/// assert!(error.to_string().starts_with("a rate must be more than 0"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidLimit(pub String);

impl fmt::Display for InvalidLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidLimit {}
