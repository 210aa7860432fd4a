//! What a request refused for want of an accepted token is answered: [`Challenge`], and why:
//! [`Unauthenticated`].

use http::{HeaderValue, StatusCode};

#[cfg(feature = "oidc")]
use super::oidc::TokenRefusal;

/// Why a request was not authenticated.
#[derive(Clone, Debug)]
pub(crate) enum Unauthenticated {
    /// No `Authorization: Bearer` header, or one no check accepted.
    Missing,
    /// A token an OIDC issuer's checks refused, and why.
    #[cfg(feature = "oidc")]
    Token(TokenRefusal),
}

/// What a refused request is answered: its status, message and `WWW-Authenticate`.
#[derive(Clone, Debug)]
pub(crate) struct Challenge {
    pub(crate) status: StatusCode,
    pub(crate) message: String,
    pub(crate) header: HeaderValue,
}

impl Challenge {
    /// The answer to a request without an accepted token, where no issuer says more.
    pub(crate) fn missing() -> Self {
        Challenge {
            status: StatusCode::UNAUTHORIZED,
            message: "Unauthorized: send Authorization: Bearer <token>".to_owned(),
            header: HeaderValue::from_static("Bearer"),
        }
    }
}
