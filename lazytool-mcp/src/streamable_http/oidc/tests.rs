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

#[tokio::test]
async fn tokens_of_each_algorithm_name_their_subject() {
    let oidc = oidc(&Arc::default());
    for algorithm in [Algorithm::RS256, Algorithm::ES256, Algorithm::EdDSA] {
        let principal = oidc
            .verify(&sign(algorithm, &claims()))
            .await
            .unwrap_or_else(|refusal| panic!("{algorithm:?}: {refusal:?}"));
        assert_eq!(principal.name(), "oidc:alice");
        assert_eq!(
            principal.claims().and_then(|claims| claims.get("scope")),
            Some(&json!("openid mcp"))
        );
    }
    // Within the clock skew.
    let late = with(|claims| {
        claims.insert("exp".into(), json!(now() - 30));
    });
    assert!(oidc.verify(&sign(Algorithm::RS256, &late)).await.is_ok());
    let named = oidc.clone().principal_claim("email");
    let email = with(|claims| {
        claims.insert("email".into(), json!("alice@example.com"));
    });
    let principal = named.verify(&sign(Algorithm::ES256, &email)).await;
    assert_eq!(
        principal.map(|principal| principal.name().to_owned()),
        Ok("oidc:alice@example.com".to_owned())
    );
}

#[tokio::test]
async fn each_bad_token_is_refused_saying_why() {
    let oidc = oidc(&Arc::default());
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "expired",
            sign(
                Algorithm::RS256,
                &with(|c| {
                    c.insert("exp".into(), json!(now() - 120));
                }),
            ),
            "has expired",
        ),
        (
            "not yet valid",
            sign(
                Algorithm::ES256,
                &with(|c| {
                    c.insert("nbf".into(), json!(now() + 600));
                }),
            ),
            "not valid yet",
        ),
        (
            "wrong audience",
            sign(
                Algorithm::EdDSA,
                &with(|c| {
                    c.insert("aud".into(), json!("another-api"));
                }),
            ),
            "not for this server",
        ),
        (
            "wrong issuer",
            sign(
                Algorithm::RS256,
                &with(|c| {
                    c.insert("iss".into(), json!("https://evil.example"));
                }),
            ),
            "issuer (`iss`) is not https://id.example",
        ),
        (
            "no expiry",
            sign(
                Algorithm::RS256,
                &with(|c| {
                    c.remove("exp");
                }),
            ),
            "no `exp` claim",
        ),
        (
            "claims not an object",
            sign(Algorithm::RS256, &json!([1, 2])),
            "malformed",
        ),
        (
            "malformed expiry",
            sign(
                Algorithm::RS256,
                &with(|c| {
                    c.insert("exp".into(), json!("tomorrow"));
                }),
            ),
            "no `exp` claim of the type it needs",
        ),
        (
            "no subject",
            sign(
                Algorithm::RS256,
                &with(|c| {
                    c.remove("sub");
                }),
            ),
            "`sub` claim (its principal) is missing",
        ),
        (
            "subject not a string",
            sign(
                Algorithm::RS256,
                &with(|c| {
                    c.insert("sub".into(), json!(["a", "b"]));
                }),
            ),
            "claims are malformed",
        ),
        (
            "unsigned",
            format!(
                "{}.{}.",
                b64(&json!({"alg": "none", "typ": "JWT"})),
                b64(&claims())
            ),
            "unsigned (`alg` none)",
        ),
        (
            "alg confusion",
            jsonwebtoken::encode(
                &Header {
                    kid: Some(kid(Algorithm::RS256)),
                    ..Header::new(Algorithm::HS256)
                },
                &claims(),
                &EncodingKey::from_secret(include_bytes!("test_keys/rsa.pub.pem")),
            )
            .expect("an HMAC token"),
            "shared secret (HS256)",
        ),
        (
            "key of another kind",
            {
                let mut header = Header::new(Algorithm::ES256);
                header.kid = Some(kid(Algorithm::RS256));
                jsonwebtoken::encode(&header, &claims(), &signing_key(Algorithm::ES256))
                    .expect("a token")
            },
            "does not fit its key",
        ),
        (
            "bad signature",
            {
                let token = sign(Algorithm::RS256, &claims());
                let (signed, _) = token.rsplit_once('.').expect("three parts");
                let other = sign(
                    Algorithm::RS256,
                    &with(|c| {
                        c.insert("sub".into(), json!("mallory"));
                    }),
                );
                format!(
                    "{signed}.{}",
                    other.rsplit_once('.').expect("three parts").1
                )
            },
            "signature does not verify",
        ),
        (
            "not a JWT",
            "a.b".to_owned(),
            "neither a token this server knows nor a JWT",
        ),
        (
            "huge",
            format!("{}.{}.x", "a".repeat(20_000), "b"),
            "over the 16384 this server reads",
        ),
        (
            "header not JSON",
            "bm90IGpzb24.e30.x".to_owned(),
            "header is not base64url JSON",
        ),
    ];
    for (what, token, expected) in cases {
        let reason = refusal(&oidc, &token).await;
        assert!(reason.contains(expected), "{what}: {reason}");
        assert!(
            !reason.contains(&token),
            "{what}: the reason repeats the token"
        );
    }
}

#[tokio::test]
async fn a_missing_scope_is_insufficient_scope() {
    let oidc = oidc(&Arc::default()).require_scopes(["mcp", "tools:admin"]);
    let refused = oidc
        .verify(&sign(Algorithm::RS256, &claims()))
        .await
        .expect_err("lacks tools:admin");
    assert!(refused.insufficient_scope);
    assert!(
        refused.reason.contains("`tools:admin`"),
        "{}",
        refused.reason
    );
    let scoped = with(|c| {
        c.insert("scp".into(), json!(["mcp", "tools:admin"]));
    });
    assert!(oidc.verify(&sign(Algorithm::RS256, &scoped)).await.is_ok());
}

#[tokio::test(start_paused = true)]
async fn a_flood_of_unknown_keys_fetches_at_most_once_per_ten_seconds() {
    let fetches = Arc::new(AtomicU64::new(0));
    let oidc = oidc(&fetches);
    oidc.discover().await.expect("the fixed keys");
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
    let unknown = |n: usize| {
        let mut header = Header::new(Algorithm::RS256);
        header.kid = Some(format!("rotated-{n}"));
        jsonwebtoken::encode(&header, &claims(), &signing_key(Algorithm::RS256)).expect("a token")
    };
    // The first unknown kid within 10 s of the last fetch fetches nothing.
    for n in 0..200 {
        let reason = refusal(&oidc, &unknown(n)).await;
        assert!(reason.contains("not in the issuer's key set"), "{reason}");
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 1);
    tokio::time::advance(MIN_REFETCH).await;
    let flood: Vec<_> = (200..400)
        .map(|n| {
            let (oidc, token) = (oidc.clone(), unknown(n));
            tokio::spawn(async move { oidc.verify(&token).await })
        })
        .collect();
    for refused in flood {
        assert!(refused.await.expect("no panic").is_err());
    }
    assert_eq!(
        fetches.load(Ordering::SeqCst),
        2,
        "one fetch for the whole flood"
    );
    // Known keys are still served from the set held.
    assert!(
        oidc.verify(&sign(Algorithm::EdDSA, &claims()))
            .await
            .is_ok()
    );
    assert_eq!(fetches.load(Ordering::SeqCst), 2);
    assert_eq!(oidc.keys.fetch_count().await, 2);
}

#[tokio::test]
async fn rules_decide_on_the_principals_claims() -> Result<(), OidcError> {
    let oidc = oidc(&Arc::default())
        .rule(ClaimRule::new().when("groups", "admins"))
        .rule(ClaimRule::new().when("scope", "mcp").allow(["*__get*"])?);
    let rules = oidc.rules();
    let reader = oidc.verify(&sign(Algorithm::RS256, &claims())).await;
    let reader = reader.expect("valid");
    let claims = reader.claims().expect("claims");
    assert!(allows(&rules, claims, "shop__getItems"));
    assert!(!allows(&rules, claims, "shop__purge"));
    Ok(())
}

#[tokio::test(start_paused = true)]
async fn a_stale_key_set_is_refreshed_without_holding_up_known_keys() {
    let fetches = Arc::new(AtomicU64::new(0));
    let counted = Arc::clone(&fetches);
    let source = Source::Fixed(Arc::new(move || {
        counted.fetch_add(1, Ordering::SeqCst);
        Ok(key_set())
    }));
    let oidc = Oidc::issuer(ISSUER)
        .audience(AUDIENCE)
        .with_keys(Keys::new(source, Duration::from_secs(60)));
    oidc.discover().await.expect("the fixed keys");
    tokio::time::advance(Duration::from_secs(61)).await;
    for _ in 0..20 {
        assert!(
            oidc.verify(&sign(Algorithm::ES256, &claims()))
                .await
                .is_ok()
        );
    }
    // One background refresh, whatever the number of tokens that found the set stale.
    for _ in 0..10 {
        tokio::task::yield_now().await;
    }
    assert_eq!(fetches.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_key_for_another_use_than_signatures_never_verifies() {
    let mut keys = key_set();
    for jwk in &mut keys.keys {
        match jwk
            .common
            .key_algorithm
            .map(|alg| format!("{alg:?}"))
            .as_deref()
        {
            Some("RS256") => jwk.common.public_key_use = Some(PublicKeyUse::Encryption),
            Some("ES256") => jwk.common.key_operations = Some(vec![KeyOperations::Sign]),
            _ => {
                jwk.common.public_key_use = Some(PublicKeyUse::Signature);
                jwk.common.key_operations = Some(vec![KeyOperations::Verify]);
            }
        }
    }
    let oidc = oidc_with(ISSUER, keys.clone());
    let reason = refusal(&oidc, &sign(Algorithm::RS256, &claims())).await;
    assert!(
        reason.contains("the token's key is for encryption (`use`: enc)"),
        "{reason}"
    );
    let reason = refusal(&oidc, &sign(Algorithm::ES256, &claims())).await;
    assert!(
        reason.contains("may not verify signatures: its `key_ops` in the issuer's key set are [sign], without verify"),
        "{reason}"
    );
    assert!(
        oidc.verify(&sign(Algorithm::EdDSA, &claims()))
            .await
            .is_ok()
    );

    for jwk in &mut keys.keys {
        jwk.common.public_key_use = Some(PublicKeyUse::Other("wrap".into()));
        jwk.common.key_operations = Some(vec![KeyOperations::Verify, KeyOperations::Sign]);
    }
    let oidc = oidc_with(ISSUER, keys.clone());
    let reason = refusal(&oidc, &sign(Algorithm::ES256, &claims())).await;
    assert!(reason.contains("(`use`: wrap, not sig)"), "{reason}");
    for jwk in &mut keys.keys {
        jwk.common.public_key_use = None;
    }
    let oidc = oidc_with(ISSUER, keys);
    assert!(
        oidc.verify(&sign(Algorithm::ES256, &claims()))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn access_token_types_are_accepted_and_others_refused() {
    let oidc = oidc(&Arc::default());
    let strict = oidc.clone().access_tokens_only();
    for typ in ["at+jwt", "application/at+jwt", "AT+JWT"] {
        let token = typed(Algorithm::ES256, Some(typ), &claims());
        assert!(oidc.verify(&token).await.is_ok(), "{typ}");
        assert!(strict.verify(&token).await.is_ok(), "{typ}");
    }
    for typ in [Some("JWT"), Some("jwt"), None] {
        let token = typed(Algorithm::RS256, typ, &claims());
        assert!(oidc.verify(&token).await.is_ok(), "{typ:?}");
        let reason = refusal(&strict, &token).await;
        let expected = match typ {
            Some(typ) => format!("the token's type (`typ`: {typ}) is not at+jwt"),
            None => "the token has no type (`typ`)".to_owned(),
        };
        assert!(reason.starts_with(&expected), "{reason}");
        assert!(
            reason.contains("only access tokens of type at+jwt"),
            "{reason}"
        );
    }
    for typ in [
        "dpop+jwt",
        "logout+jwt",
        "secevent+jwt",
        "token-introspection+jwt",
    ] {
        let token = typed(Algorithm::EdDSA, Some(typ), &claims());
        for (oidc, accepted) in [(&oidc, "at+jwt, JWT or none"), (&strict, "at+jwt only")] {
            let reason = refusal(oidc, &token).await;
            assert_eq!(
                reason,
                format!(
                    "the token's type (`typ`: {typ}) is not an access token's; this server accepts {accepted}"
                )
            );
        }
    }
}

#[tokio::test]
async fn an_id_token_is_not_an_access_token() {
    let oidc = oidc(&Arc::default());
    for claim in ["nonce", "at_hash"] {
        // An ID token of a client whose id is the audience, otherwise valid.
        let id_token = with(|c| {
            c.insert(claim.into(), json!("n-0S6_WzA2Mj"));
            c.remove("scope");
        });
        let token = typed(Algorithm::RS256, Some("JWT"), &id_token);
        let refused = oidc.verify(&token).await.expect_err("an ID token");
        assert!(!refused.insufficient_scope);
        assert_eq!(
            refused.reason,
            format!(
                "an ID token is not an access token (the token carries `{claim}`); present an access token the issuer gave for this server"
            )
        );
    }
    // Refused as an ID token before the missing scope is looked at.
    let scoped = oidc.clone().require_scopes(["mcp"]);
    let id_token = with(|c| {
        c.insert("nonce".into(), json!("abc"));
        c.remove("scope");
    });
    let refused = scoped.verify(&sign(Algorithm::ES256, &id_token)).await;
    assert!(refused.is_err_and(|refused| !refused.insufficient_scope));
}

#[tokio::test]
async fn an_issuer_in_the_clear_is_refused_loopback_excepted() {
    for issuer in [
        "http://id.example",
        "http://127.0.0.1.id.example",
        "id.example",
    ] {
        let oidc = oidc_with(issuer, key_set());
        let error = oidc.discover().await.expect_err(issuer).to_string();
        assert!(
            error.starts_with(&format!("the issuer `{issuer}` is not")),
            "{error}"
        );
        let token = sign(
            Algorithm::RS256,
            &with(|c| {
                c.insert("iss".into(), json!(issuer));
            }),
        );
        let reason = refusal(&oidc, &token).await;
        assert!(
            reason.starts_with("this server cannot check tokens: the issuer"),
            "{reason}"
        );
        assert_eq!(
            Oidc::check_issuer_url(issuer).map_err(|error| error.to_string()),
            Err(error)
        );
    }
    for issuer in [
        "http://127.0.0.1:8080",
        "http://[::1]:8080/realms/x",
        "http://localhost:3000",
    ] {
        let oidc = oidc_with(issuer, key_set());
        assert_eq!(oidc.discover().await, Ok(()), "{issuer}");
        let token = sign(
            Algorithm::RS256,
            &with(|c| {
                c.insert("iss".into(), json!(issuer));
            }),
        );
        assert!(oidc.verify(&token).await.is_ok(), "{issuer}");
    }
}

/// An issuer on a free port of 127.0.0.1 whose discovery document names `jwks_uri`, or
/// redirects to `redirect`; its URL.
async fn loopback_issuer(jwks_uri: &'static str, redirect: Option<&'static str>) -> String {
    use axum::response::IntoResponse as _;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let issuer = format!("http://{}", listener.local_addr().expect("an address"));
    let document = json!({"issuer": issuer, "jwks_uri": jwks_uri});
    let discovery = move || async move {
        match redirect {
            Some(to) => axum::response::Redirect::temporary(to).into_response(),
            None => (
                [(http::header::CONTENT_TYPE, "application/json")],
                document.to_string(),
            )
                .into_response(),
        }
    };
    let router = axum::Router::new().route(
        "/.well-known/openid-configuration",
        axum::routing::get(discovery),
    );
    tokio::spawn(async move { axum::serve(listener, router).await });
    issuer
}

#[tokio::test]
async fn a_key_set_in_the_clear_or_a_redirect_to_it_is_refused() {
    let issuer = loopback_issuer("http://keys.example/jwks", None).await;
    let error = Oidc::issuer(&issuer).audience(AUDIENCE).discover().await;
    let error = error.expect_err("a key set over http").to_string();
    assert!(
        error.contains(
            "the issuer's key set (`jwks_uri`) `http://keys.example/jwks` is not an https:// URL"
        ),
        "{error}"
    );
    let issuer = loopback_issuer(
        "https://keys.example/jwks",
        Some("http://id.example/.well-known/openid-configuration"),
    )
    .await;
    let error = Oidc::issuer(&issuer).audience(AUDIENCE).discover().await;
    let error = error.expect_err("a redirect to http").to_string();
    assert!(
        error.contains("(a redirect to `http://id.example/.well-known/openid-configuration`, which is not https://)"),
        "{error}"
    );
}
