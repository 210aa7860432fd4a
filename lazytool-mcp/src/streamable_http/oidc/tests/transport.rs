//! Issuers and key sets in the clear (loopback excepted), and redirects to them.

use super::*;

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
