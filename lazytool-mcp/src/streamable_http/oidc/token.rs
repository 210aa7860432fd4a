//! One bearer token checked as a JWT of the issuer: its size, its `alg`, its `typ`, its key
//! (of the set, for signatures), its signature, then `iss`, `aud`, `exp` and `nbf` (with the
//! clock skew), that it is no ID token, the principal's claim and the required scopes. A
//! refusal says what was wrong with this token only, and never repeats the token.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::{AlgorithmParameters, Jwk, KeyOperations, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use rmcp::model::JsonObject;

use super::issuer::Oidc;
use super::token_kind::{check_type, refuse_id_token};
use super::token_refusal::{TokenRefusal, shown};
use crate::Principal;

/// The longest bearer token read, in bytes: longer ones are refused before any parsing.
pub const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// The signature algorithms accepted; `none` and every HMAC algorithm are refused (a server
/// holding only public keys must never take one for a shared secret).
const ACCEPTED_ALGORITHMS: [Algorithm; 3] = [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA];

/// The longest principal name taken from a claim.
const MAX_NAME_CHARS: usize = 256;

/// Whether `token` has the shape of a JWS in compact form (three base64url parts).
fn looks_like_jwt(token: &str) -> bool {
    token.len() <= MAX_TOKEN_BYTES
        && token.split('.').count() == 3
        && token
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.'))
}

impl Oidc {
    /// The principal of `token`, a JWT of the issuer, or why it is refused.
    pub(crate) async fn verify(&self, token: &str) -> Result<Principal, TokenRefusal> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err(TokenRefusal::invalid(format!(
                "the token has {} bytes, over the {MAX_TOKEN_BYTES} this server reads",
                token.len()
            )));
        }
        if self.audiences.is_empty() {
            return Err(TokenRefusal::invalid(
                "this server has no audience to check tokens against; its operator must configure one",
            ));
        }
        if let Some(problem) = &self.issuer_problem {
            return Err(TokenRefusal::invalid(format!(
                "this server cannot check tokens: {problem}; its operator must fix the issuer"
            )));
        }
        if !looks_like_jwt(token) {
            return Err(TokenRefusal::invalid(
                "the token is neither a token this server knows nor a JWT",
            ));
        }
        let algorithm = algorithm_of(token)?;
        let header = jsonwebtoken::decode_header(token).map_err(|error| {
            TokenRefusal::invalid(format!("the token's header is malformed: {error}"))
        })?;
        check_type(header.typ.as_deref(), self.accepted_types)?;
        let kid = header.kid.as_deref();
        let Some(jwk) = self.keys.find(kid).await else {
            return Err(TokenRefusal::invalid(match kid {
                Some(_) => "the token's key (`kid`) is not in the issuer's key set".to_owned(),
                None => {
                    "the token names no key (`kid`) and the issuer has more than one".to_owned()
                }
            }));
        };
        let key = key_for(&jwk, algorithm)?;
        let mut validation = Validation::new(algorithm);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&self.audiences);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let claims = jsonwebtoken::decode::<JsonObject>(token, &key, &validation)
            .map_err(|error| TokenRefusal::invalid(self.reason(error.kind())))?
            .claims;
        refuse_id_token(&claims)?;
        let name = match claims.get(&self.principal_claim) {
            Some(serde_json::Value::String(name))
                if !name.is_empty() && name.chars().count() <= MAX_NAME_CHARS =>
            {
                name.clone()
            }
            _ => {
                return Err(TokenRefusal::invalid(format!(
                    "the token's `{}` claim (its principal) is missing, empty, longer than {MAX_NAME_CHARS} characters or not a string",
                    self.principal_claim
                )));
            }
        };
        let missing: Vec<&str> = (self.scopes().iter())
            .filter(|scope| !has_scope(&claims, scope))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(TokenRefusal {
                insufficient_scope: true,
                reason: format!("the token lacks the scope `{}`", missing.join(" ")),
            });
        }
        Ok(Principal::from_issuer(self.issuer.as_str(), &name, claims))
    }

    fn reason(&self, kind: &ErrorKind) -> String {
        let skew = self.leeway.as_secs();
        match kind {
            ErrorKind::ExpiredSignature => {
                format!("the token has expired (`exp`, beyond {skew} s of clock skew)")
            }
            ErrorKind::ImmatureSignature => {
                format!("the token is not valid yet (`nbf`, beyond {skew} s of clock skew)")
            }
            ErrorKind::InvalidIssuer => format!("the token's issuer (`iss`) is not {}", self.issuer),
            ErrorKind::InvalidAudience => format!(
                "the token is not for this server: its audience (`aud`) names none of {}",
                self.audiences.join(", ")
            ),
            ErrorKind::InvalidSignature => {
                "the token's signature does not verify with the issuer's key".to_owned()
            }
            ErrorKind::MissingRequiredClaim(claim) => {
                format!("the token has no `{claim}` claim of the type it needs")
            }
            ErrorKind::InvalidClaimFormat(claim) => {
                format!("the token's `{claim}` claim is malformed")
            }
            ErrorKind::InvalidAlgorithm | ErrorKind::UnsupportedAlgorithm => {
                "the token's algorithm does not fit the issuer's key".to_owned()
            }
            ErrorKind::Json(_) | ErrorKind::Base64(_) | ErrorKind::Utf8(_) => {
                "the token's claims are malformed (not a JSON object of registered claims of the right types)".to_owned()
            }
            _ => "the token is malformed".to_owned(),
        }
    }
}

/// The token's `alg`, if it is one this server accepts; `none` and HMAC are refused by name.
fn algorithm_of(token: &str) -> Result<Algorithm, TokenRefusal> {
    #[derive(serde::Deserialize)]
    struct Alg {
        alg: String,
    }
    let accepted = || {
        let names: Vec<String> = (ACCEPTED_ALGORITHMS.iter())
            .map(|algorithm| format!("{algorithm:?}"))
            .collect();
        names.join(", ")
    };
    let header = token.split('.').next().unwrap_or_default();
    let alg = URL_SAFE_NO_PAD
        .decode(header)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Alg>(&bytes).ok())
        .ok_or_else(|| {
            TokenRefusal::invalid("the token's header is not base64url JSON with a string `alg`")
        })?
        .alg;
    if alg.eq_ignore_ascii_case("none") {
        return Err(TokenRefusal::invalid(format!(
            "the token is unsigned (`alg` none); this server accepts {}",
            accepted()
        )));
    }
    if alg.starts_with("HS") {
        return Err(TokenRefusal::invalid(format!(
            "the token is signed with a shared secret ({alg}); this server accepts {}",
            accepted()
        )));
    }
    ACCEPTED_ALGORITHMS
        .iter()
        .copied()
        .find(|algorithm| format!("{algorithm:?}") == alg)
        .ok_or_else(|| {
            TokenRefusal::invalid(format!(
                "the token's algorithm is not one this server accepts ({})",
                accepted()
            ))
        })
}

/// The decoding key of `jwk`, if the key is for signatures and of the kind `algorithm`
/// needs.
fn key_for(jwk: &Jwk, algorithm: Algorithm) -> Result<DecodingKey, TokenRefusal> {
    for_signatures(jwk)?;
    let fits = matches!(
        (&jwk.algorithm, algorithm),
        (AlgorithmParameters::RSA(_), Algorithm::RS256)
            | (AlgorithmParameters::EllipticCurve(_), Algorithm::ES256)
            | (AlgorithmParameters::OctetKeyPair(_), Algorithm::EdDSA)
    );
    let declared = jwk.common.key_algorithm.map(|alg| format!("{alg:?}"));
    if !fits || declared.is_some_and(|declared| declared != format!("{algorithm:?}")) {
        return Err(TokenRefusal::invalid(format!(
            "the token's algorithm ({algorithm:?}) does not fit its key in the issuer's key set"
        )));
    }
    DecodingKey::from_jwk(jwk)
        .map_err(|_| TokenRefusal::invalid("the token's key in the issuer's key set is unusable"))
}

/// Refuses a key the issuer published for another use than verifying signatures (RFC 7517
/// §4.2, §4.3): its `use` other than `sig`, or its `key_ops` without `verify`.
fn for_signatures(jwk: &Jwk) -> Result<(), TokenRefusal> {
    match &jwk.common.public_key_use {
        None | Some(PublicKeyUse::Signature) => {}
        Some(PublicKeyUse::Encryption) => {
            return Err(TokenRefusal::invalid(
                "the token's key is for encryption (`use`: enc) in the issuer's key set, never for verifying signatures",
            ));
        }
        Some(PublicKeyUse::Other(other)) => {
            return Err(TokenRefusal::invalid(format!(
                "the token's key is not for signatures in the issuer's key set (`use`: {}, not sig)",
                shown(other).unwrap_or("another")
            )));
        }
    }
    match &jwk.common.key_operations {
        Some(operations) if !operations.contains(&KeyOperations::Verify) => {
            let named: Vec<String> = (operations.iter().take(8))
                .map(|operation| match serde_json::to_value(operation) {
                    Ok(serde_json::Value::String(name)) => shown(&name).unwrap_or("?").to_owned(),
                    _ => "?".to_owned(),
                })
                .collect();
            Err(TokenRefusal::invalid(format!(
                "the token's key may not verify signatures: its `key_ops` in the issuer's key set are [{}], without verify",
                named.join(", ")
            )))
        }
        _ => Ok(()),
    }
}

/// Whether the token's `scope` (space-separated) or `scp` (an array or a string) holds `scope`.
fn has_scope(claims: &JsonObject, scope: &str) -> bool {
    ["scope", "scp"]
        .iter()
        .filter_map(|claim| claims.get(*claim))
        .any(|value| match value {
            serde_json::Value::String(words) => words.split(' ').any(|word| word == scope),
            serde_json::Value::Array(items) => items.iter().any(|item| item == scope),
            _ => false,
        })
}
