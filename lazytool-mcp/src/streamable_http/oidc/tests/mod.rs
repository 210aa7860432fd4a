//! The validator against tokens signed with fixed test keys (`test_keys/`, made with
//! `openssl genpkey`): one refusal per bad input (keys not for signatures, `typ`s of no
//! access token, ID tokens, issuers in the clear among them), and a flood of unknown keys
//! fetching the key set at most once per 10 s.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use jsonwebtoken::jwk::{Jwk, JwkSet, KeyOperations, PublicKeyUse};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use super::error::OidcError;
use super::issuer::Oidc;
use super::keys::{Keys, MIN_REFETCH, Source};
use super::rules::{ClaimRule, allows};

const ISSUER: &str = "https://id.example";
const AUDIENCE: &str = "lazytool";

fn signing_key(algorithm: Algorithm) -> EncodingKey {
    let key = match algorithm {
        Algorithm::RS256 => EncodingKey::from_rsa_pem(include_bytes!("test_keys/rsa.pem")),
        Algorithm::ES256 => EncodingKey::from_ec_pem(include_bytes!("test_keys/ec.pem")),
        _ => EncodingKey::from_ed_pem(include_bytes!("test_keys/ed25519.pem")),
    };
    key.expect("a test key")
}

fn kid(algorithm: Algorithm) -> String {
    format!("{algorithm:?}-key")
}

fn key_set() -> JwkSet {
    let keys = [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA]
        .into_iter()
        .map(|algorithm| {
            let mut jwk =
                Jwk::from_encoding_key(&signing_key(algorithm), algorithm).expect("a public key");
            jwk.common.key_id = Some(kid(algorithm));
            jwk
        })
        .collect();
    JwkSet { keys }
}

/// An [`Oidc`] of `issuer` whose key set is `keys`.
fn oidc_with(issuer: &str, keys: JwkSet) -> Oidc {
    let source = Source::Fixed(Arc::new(move || Ok(keys.clone())));
    Oidc::issuer(issuer)
        .audience(AUDIENCE)
        .with_keys(Keys::new(source, Duration::from_secs(3600)))
}

/// An [`Oidc`] whose key set comes from [`key_set`], counting the fetches.
fn oidc(fetches: &Arc<AtomicU64>) -> Oidc {
    let counted = Arc::clone(fetches);
    let source = Source::Fixed(Arc::new(move || {
        counted.fetch_add(1, Ordering::SeqCst);
        Ok(key_set())
    }));
    Oidc::issuer(ISSUER)
        .audience(AUDIENCE)
        .with_keys(Keys::new(source, Duration::from_secs(3600)))
}

fn now() -> i64 {
    i64::try_from(jsonwebtoken::get_current_timestamp()).unwrap_or(i64::MAX)
}

fn claims() -> Value {
    json!({"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "exp": now() + 300, "nbf": now() - 10, "scope": "openid mcp"})
}

fn sign(algorithm: Algorithm, claims: &Value) -> String {
    let mut header = Header::new(algorithm);
    header.kid = Some(kid(algorithm));
    jsonwebtoken::encode(&header, claims, &signing_key(algorithm)).expect("a signed token")
}

/// A token of `claims` whose header says `typ` (none for `None`).
fn typed(algorithm: Algorithm, typ: Option<&str>, claims: &Value) -> String {
    let mut header = Header::new(algorithm);
    header.kid = Some(kid(algorithm));
    header.typ = typ.map(str::to_owned);
    jsonwebtoken::encode(&header, claims, &signing_key(algorithm)).expect("a signed token")
}

fn with(change: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Value {
    let mut claims = claims();
    if let Some(object) = claims.as_object_mut() {
        change(object);
    }
    claims
}

fn b64(value: &Value) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
}

async fn refusal(oidc: &Oidc, token: &str) -> String {
    match oidc.verify(token).await {
        Ok(principal) => panic!("accepted as {principal:?}"),
        Err(refusal) => refusal.reason,
    }
}

mod keys;
mod rules;
mod tokens;
mod transport;
