//! Who a request comes from: bearer tokens compared in constant time, or the application's
//! own authenticator.

use std::sync::Arc;

use http::header::AUTHORIZATION;
use http::request::Parts;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::principal::Principal;

pub(crate) type Authenticator = Arc<dyn Fn(&Parts) -> Option<Principal> + Send + Sync>;

/// How requests are authenticated. With neither tokens nor an authenticator, every request
/// is [`Principal::anonymous`].
#[derive(Clone, Default)]
pub(crate) struct Authentication {
    tokens: Vec<Token>,
    custom: Option<Authenticator>,
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
        !self.tokens.is_empty() || self.custom.is_some()
    }

    /// The request's principal, or `None` when it must be refused.
    pub(crate) fn authenticate(&self, parts: &Parts) -> Option<Principal> {
        if !self.is_required() {
            return Some(Principal::anonymous());
        }
        if let Some(presented) = bearer(parts) {
            let presented = digest(presented);
            let mut found = None;
            // Every token is compared, matched or not.
            for token in &self.tokens {
                if bool::from(token.digest.ct_eq(&presented)) {
                    found = Some(token.principal.clone());
                }
            }
            if found.is_some() {
                return found;
            }
        }
        self.custom.as_ref().and_then(|custom| custom(parts))
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
