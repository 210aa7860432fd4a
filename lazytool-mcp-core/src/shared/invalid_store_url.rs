//! A shared store's URL that cannot be used: [`InvalidStoreUrl`].

use std::fmt;

/// Why [`SharedStore::new`](crate::SharedStore::new) refused a URL; its message never shows
/// the URL's password.
///
/// ```
/// let error = lazytool_mcp_core::SharedStore::new("http://:secret@cache:6379").unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "`http://:***@cache:6379` is not a Redis URL: it must start with redis:// (or rediss:// for TLS)"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidStoreUrl(pub String);

impl fmt::Display for InvalidStoreUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InvalidStoreUrl {}
