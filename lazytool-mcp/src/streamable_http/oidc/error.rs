//! Why an issuer cannot be used or a rule is invalid: [`OidcError`].

/// Why the issuer cannot be used, or a rule is invalid: the message names the URL or glob.
///
/// ```
/// let error = lazytool_mcp::ClaimRule::new().deny(["[a"]).unwrap_err();
/// assert!(error.to_string().starts_with("`[a` is not a glob"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OidcError(pub(crate) String);

impl std::fmt::Display for OidcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OidcError {}
