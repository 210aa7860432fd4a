//! MCP authorization of HTTP upstreams: where tokens are kept, and a server that needs a
//! login failing at once, by name, while the others keep working. (The flows themselves run
//! against the conformance suite's authorization servers: tests/mcp/conformance.)

use std::time::Duration;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::routing::post;
use lazytool_mcp_client::{McpSource, OAuth, TokenStore, Upstream};
use lazytool_runtime::CancellationToken;
use lazytool_runtime::source::ToolSource;

/// An MCP endpoint that refuses every request with a 401 challenge; stops with the test.
async fn protected_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let address = listener.local_addr().expect("its address");
    let challenge = format!(
        "Bearer resource_metadata=\"http://{address}/.well-known/oauth-protected-resource/mcp\""
    );
    let app = Router::new().route(
        "/mcp",
        post(move || {
            let challenge = challenge.clone();
            async move {
                (
                    StatusCode::UNAUTHORIZED,
                    [(header::WWW_AUTHENTICATE, challenge)],
                    "{\"error\":\"invalid_token\"}",
                )
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}/mcp")
}

#[tokio::test]
async fn a_server_that_needs_a_login_fails_at_once_and_says_how_to_log_in() {
    let url = protected_server().await;
    let oauth = OAuth::new()
        .client_secret("n0t-for-logs")
        .token_store(TokenStore::memory());
    let source = McpSource::new("tracker", Upstream::url(&url).oauth(oauth))
        .start_timeout(Duration::from_secs(20));
    let error = source
        .list_tools(CancellationToken::new())
        .await
        .expect_err("no token and nobody to approve one");
    let message = error.to_string();
    assert!(
        message.contains("run `lazytool-gateway login tracker`"),
        "{message}"
    );
    assert!(message.contains("OAuth login"), "{message}");
    assert!(!message.contains("n0t-for-logs"), "{message}");
    source.shutdown().await;
}

#[tokio::test]
async fn the_token_file_is_the_users_alone() {
    let dir = std::env::temp_dir().join(format!("lazytool-oauth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("state").join("tokens.json");
    let store = TokenStore::file(&path);
    assert!(
        !store
            .has_tokens("tracker", "https://x/mcp")
            .await
            .expect("no file yet")
    );
    store.forget("tracker").await.expect("writes the file");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |path: &std::path::Path| {
            std::fs::metadata(path)
                .expect("exists")
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(path.parent().expect("a folder")), 0o700);
    }
    std::fs::write(&path, "not json").expect("writable");
    let error = store
        .has_tokens("tracker", "https://x/mcp")
        .await
        .expect_err("a broken store is an error, not an empty one");
    assert!(error.contains("tokens.json"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}
