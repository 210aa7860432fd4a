//! Who a request comes from: bearer tokens compared in constant time, or the application's
//! own authenticator.

use std::sync::Arc;

use http::header::AUTHORIZATION;
use http::request::Parts;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::challenge::{Challenge, Unauthenticated};
use super::forwarded::Edge;
#[cfg(feature = "oidc")]
use super::oidc::{MAX_TOKEN_BYTES, Oidc, TokenRefusal};
use crate::Principal;

pub(crate) type Authenticator = Arc<dyn Fn(&Parts) -> Option<Principal> + Send + Sync>;

/// How requests are authenticated. With neither tokens nor an authenticator, every request
/// is [`Principal::anonymous`].
#[derive(Clone, Default)]
pub(crate) struct Authentication {
    tokens: Vec<Token>,
    custom: Option<Authenticator>,
    #[cfg(feature = "oidc")]
    pub(crate) oidc: Option<Oidc>,
}

#[derive(Clone)]
struct Token {
    /// Compared as digests: equal lengths, so the comparison's time says nothing of the
    /// token's length or contents.
    digest: [u8; 32],
    principal: Principal,
}

impl Authentication {
    pub(crate) fn add_token(&mut self, token: &str, principal: Principal) {
        self.add_digest(digest(token), principal);
    }

    /// Accepts the token whose SHA-256 digest is `digest`, without knowing the token.
    pub(crate) fn add_digest(&mut self, digest: [u8; 32], principal: Principal) {
        self.tokens.push(Token { digest, principal });
    }

    pub(crate) fn set_custom(&mut self, authenticator: Authenticator) {
        self.custom = Some(authenticator);
    }

    pub(crate) fn is_required(&self) -> bool {
        #[cfg(feature = "oidc")]
        if self.oidc.is_some() {
            return true;
        }
        !self.tokens.is_empty() || self.custom.is_some()
    }

    /// The request's principal, or why it must be refused.
    pub(crate) async fn authenticate(&self, parts: &Parts) -> Result<Principal, Unauthenticated> {
        if !self.is_required() {
            return Ok(Principal::anonymous());
        }
        let presented = bearer(parts);
        #[cfg(feature = "oidc")]
        let mut refused = None;
        if let Some(presented) = presented {
            #[cfg(feature = "oidc")]
            if self.oidc.is_some() && presented.len() > MAX_TOKEN_BYTES {
                return Err(Unauthenticated::Token(TokenRefusal {
                    insufficient_scope: false,
                    reason: format!(
                        "the token has {} bytes, over the {MAX_TOKEN_BYTES} this server reads",
                        presented.len()
                    ),
                }));
            }
            if let Some(principal) = self.static_token(presented) {
                return Ok(principal);
            }
            #[cfg(feature = "oidc")]
            if let Some(oidc) = &self.oidc {
                match oidc.verify(presented).await {
                    Ok(principal) => return Ok(principal),
                    Err(refusal) => refused = Some(refusal),
                }
            }
        }
        if let Some(principal) = self.custom.as_ref().and_then(|custom| custom(parts)) {
            return Ok(principal);
        }
        #[cfg(feature = "oidc")]
        if let Some(refusal) = refused {
            return Err(Unauthenticated::Token(refusal));
        }
        Err(Unauthenticated::Missing)
    }

    /// The answer to a request refused for `why`.
    pub(crate) fn challenge(&self, parts: &Parts, why: &Unauthenticated, edge: &Edge) -> Challenge {
        #[cfg(feature = "oidc")]
        return super::protected_resource::challenge(self.oidc.as_ref(), parts, why, edge);
        #[cfg(not(feature = "oidc"))]
        {
            let _ = (parts, why, edge);
            Challenge::missing()
        }
    }

    fn static_token(&self, presented: &str) -> Option<Principal> {
        let presented = digest(presented);
        let mut found = None;
        // Every token is compared, matched or not.
        for token in &self.tokens {
            if bool::from(token.digest.ct_eq(&presented)) {
                found = Some(token.principal.clone());
            }
        }
        found
    }
}

/// The token of an `Authorization: Bearer TOKEN` header (the scheme is case-insensitive).
fn bearer(parts: &Parts) -> Option<&str> {
    let value = parts.headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|token| !token.is_empty())
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests;
