//! Whether a JWT of the issuer is an access token: its `typ` header (RFC 9068 §2.1 and §4,
//! compared as RFC 7515 §4.1.9 says) and the claims only ID tokens carry (`nonce`,
//! `at_hash`: OpenID Connect Core 1.0 §2 and §3.1.3.6). The issuer signs its ID tokens,
//! logout tokens and security events with the same keys as its access tokens; only these
//! tell them apart.

use rmcp::model::JsonObject;

use super::token_refusal::{TokenRefusal, shown};

/// The `typ` headers accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Accepted {
    /// `at+jwt` (RFC 9068), plain `JWT`, or none: `typ` is optional in RFC 7519 and many
    /// issuers' access tokens say `JWT` or nothing.
    #[default]
    AccessOrPlain,
    /// `at+jwt` only ([`Oidc::access_tokens_only`](super::Oidc::access_tokens_only)).
    AccessOnly,
}

/// Claims of ID tokens that no access token has.
const ID_TOKEN_CLAIMS: [&str; 2] = ["nonce", "at_hash"];

/// Whether a token whose header says `typ` is of a type `accepted`.
pub(super) fn check_type(typ: Option<&str>, accepted: Accepted) -> Result<(), TokenRefusal> {
    let normalized = typ.map(|typ| {
        let lower = typ.to_ascii_lowercase();
        match lower.strip_prefix("application/") {
            Some(bare) => bare.to_owned(),
            None => lower,
        }
    });
    let named = || match typ.and_then(shown) {
        Some(typ) => format!("the token's type (`typ`: {typ})"),
        None => "the token's type (`typ`)".to_owned(),
    };
    match (normalized.as_deref(), accepted) {
        (Some("at+jwt"), _) | (Some("jwt") | None, Accepted::AccessOrPlain) => Ok(()),
        (None, Accepted::AccessOnly) => Err(TokenRefusal::invalid(
            "the token has no type (`typ`); this server accepts only access tokens of type at+jwt (RFC 9068)",
        )),
        (Some("jwt"), Accepted::AccessOnly) => Err(TokenRefusal::invalid(format!(
            "{} is not at+jwt; this server accepts only access tokens of type at+jwt (RFC 9068)",
            named()
        ))),
        (Some(_), _) => Err(TokenRefusal::invalid(format!(
            "{} is not an access token's; this server accepts {}",
            named(),
            match accepted {
                Accepted::AccessOrPlain => "at+jwt, JWT or none",
                Accepted::AccessOnly => "at+jwt only",
            }
        ))),
    }
}

/// Refuses a token with the claims of an ID token: one presented as a bearer token was
/// meant for the client that logged in, not for this server.
pub(super) fn refuse_id_token(claims: &JsonObject) -> Result<(), TokenRefusal> {
    match ID_TOKEN_CLAIMS
        .iter()
        .find(|claim| claims.contains_key(**claim))
    {
        Some(claim) => Err(TokenRefusal::invalid(format!(
            "an ID token is not an access token (the token carries `{claim}`); present an access token the issuer gave for this server"
        ))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_compared_without_case_or_the_application_prefix() {
        for typ in [
            None,
            Some("JWT"),
            Some("jwt"),
            Some("at+jwt"),
            Some("application/AT+JWT"),
        ] {
            assert_eq!(check_type(typ, Accepted::AccessOrPlain), Ok(()), "{typ:?}");
        }
        for typ in [Some("at+JWT"), Some("application/at+jwt")] {
            assert_eq!(check_type(typ, Accepted::AccessOnly), Ok(()), "{typ:?}");
        }
        for typ in [None, Some("JWT"), Some("application/jwt")] {
            assert!(check_type(typ, Accepted::AccessOnly).is_err(), "{typ:?}");
        }
        for typ in ["dpop+jwt", "logout+jwt", "secevent+jwt", "", "at+jwt "] {
            for accepted in [Accepted::AccessOrPlain, Accepted::AccessOnly] {
                assert!(check_type(Some(typ), accepted).is_err(), "{typ:?}");
            }
        }
    }

    #[test]
    fn an_unprintable_type_is_not_repeated() {
        let long = "x".repeat(200);
        for typ in [long.as_str(), "a\"b\nc", "é+jwt"] {
            let refusal = check_type(Some(typ), Accepted::AccessOrPlain).expect_err(typ);
            assert!(
                refusal
                    .reason
                    .starts_with("the token's type (`typ`) is not"),
                "{}",
                refusal.reason
            );
        }
    }
}
