//! Bearer tokens that are JWTs of an OpenID Connect issuer: [`Oidc`] (feature `oidc`).

mod error;
mod https_url;
mod issuer;
mod keys;
mod rules;
mod token;
mod token_kind;
mod token_refusal;

pub use error::OidcError;
pub use issuer::{DEFAULT_KEY_REFRESH, DEFAULT_LEEWAY, Oidc};
pub use rules::ClaimRule;
pub(crate) use rules::allows;
pub use token::MAX_TOKEN_BYTES;
pub(crate) use token_refusal::TokenRefusal;

#[cfg(test)]
mod tests;
