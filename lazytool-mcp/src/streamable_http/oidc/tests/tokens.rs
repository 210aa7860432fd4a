//! Tokens: each algorithm, each bad token with its reason, scopes, token types, ID tokens.

use super::*;

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
