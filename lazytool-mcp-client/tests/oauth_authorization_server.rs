//! An authorization server that misbehaves, on 127.0.0.1 next to the MCP server it protects:
//! a wrong `resource` in the protected resource metadata, no PKCE, token endpoint errors
//! (`invalid_grant`, 500, not JSON), a refresh token that was revoked. Each gives an error
//! naming the server and the step, the other servers keep working, and no token is written
//! anywhere but the store. Also: an expired access token refreshed. (Scope step-up and its
//! retry limit run against the conformance suite's `auth/scope-step-up` and
//! `auth/scope-retry-limit`: tests/mcp/conformance.)

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use lazytool_mcp::McpServer;
use lazytool_mcp_client::{
    Approval, Approver, McpCatalog, McpSource, OAuth, OAuthError, Step, TokenStore, Upstream,
    login_with,
};
use lazytool_runtime::{CancellationToken, DynamicTool, Registry};
use serde_json::{Value, json};

/// What the token endpoint answers.
#[derive(Clone, Copy, Debug)]
enum Answer {
    /// New tokens: `access-N` and `refresh-N`.
    Tokens,
    /// 400 `{"error": "invalid_grant"}`.
    InvalidGrant,
    /// 500 with a text body.
    ServerError,
    /// 200 with a body that is not JSON.
    NotJson,
}

/// How the authorization server behaves.
#[derive(Clone, Debug)]
struct Behaviour {
    /// The `resource` of the protected resource metadata; `None`: the right one.
    resource: Option<&'static str>,
    /// `code_challenge_methods_supported`; `None`: left out.
    pkce: Option<Value>,
    /// The answer to the authorization code grant.
    code: Answer,
    /// The answer to the refresh token grant.
    refresh: Answer,
    /// The lifetime of the access tokens issued for a code.
    code_expires_in: u64,
}

impl Default for Behaviour {
    fn default() -> Self {
        Behaviour {
            resource: None,
            pkce: Some(json!(["S256"])),
            code: Answer::Tokens,
            refresh: Answer::Tokens,
            code_expires_in: 3600,
        }
    }
}

/// What the authorization server did: the grants asked for and the access tokens issued.
#[derive(Default)]
struct Record {
    grants: Vec<String>,
    issued: Vec<String>,
}

type Shared = Arc<Mutex<Record>>;

fn record(shared: &Shared) -> std::sync::MutexGuard<'_, Record> {
    shared.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An MCP server with one tool, `echo`, for bearers of the tokens `shared` issued, and its
/// authorization server behaving as `behaviour` says, on one origin; stops with `stop`.
async fn protected(behaviour: Behaviour, stop: &CancellationToken) -> (String, Shared) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let origin = format!("http://{}", listener.local_addr().expect("its address"));
    let url = format!("{origin}/mcp");
    let shared = Shared::default();
    let resource = json!({
        "resource": behaviour.resource.map_or(url.clone(), str::to_owned),
        "authorization_servers": [origin],
    });
    let mut metadata = json!({
        "issuer": origin,
        "authorization_endpoint": format!("{origin}/authorize"),
        "token_endpoint": format!("{origin}/token"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "token_endpoint_auth_methods_supported": ["none"],
    });
    if let Some(pkce) = &behaviour.pkce {
        metadata["code_challenge_methods_supported"] = pkce.clone();
    }
    let challenge =
        format!("Bearer resource_metadata=\"{origin}/.well-known/oauth-protected-resource/mcp\"");
    let mcp = McpServer::new(echo_registry())
        .http()
        .router()
        .layer(from_fn_with_state((Arc::clone(&shared), challenge), guard));
    let token = {
        let shared = Arc::clone(&shared);
        move |body: String| async move { token_endpoint(&behaviour, &shared, &body) }
    };
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(move || async move { json_body(StatusCode::OK, &resource) }),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(move || async move { json_body(StatusCode::OK, &metadata) }),
        )
        .route("/token", post(token))
        .merge(mcp);
    let stop = stop.clone();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move { stop.cancelled().await })
            .await
    });
    (url, shared)
}

/// An MCP server with one tool, `echo`, open to all; stops with `stop`.
async fn open_server(stop: &CancellationToken) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a free port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("its address"));
    let http = McpServer::new(echo_registry())
        .http()
        .shutdown_on(stop.clone());
    tokio::spawn(http.serve_on(listener));
    url
}

fn echo_registry() -> Registry {
    let echo = DynamicTool::new(
        "echo",
        "Returns its input.",
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}),
        |arguments: Value, _context| async move { Ok::<_, String>(arguments["text"].clone()) },
    );
    (Registry::builder().without_inventory())
        .tool(echo)
        .build()
        .expect("a valid registry")
}

/// Lets through the bearers of an issued token; a 401 challenge for the others.
async fn guard(
    State((shared, challenge)): State<(Shared, String)>,
    request: Request,
    next: Next,
) -> Response {
    let bearer = (request.headers().get(header::AUTHORIZATION))
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::to_owned);
    let issued = bearer.is_some_and(|token| record(&shared).issued.contains(&token));
    if issued {
        return next.run(request).await;
    }
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, challenge)],
        "{\"error\":\"invalid_token\"}",
    )
        .into_response()
}

fn token_endpoint(behaviour: &Behaviour, shared: &Shared, body: &str) -> Response {
    let grant = (body.split('&'))
        .find_map(|pair| pair.strip_prefix("grant_type="))
        .unwrap_or_default()
        .to_owned();
    let (answer, expires_in) = if grant == "refresh_token" {
        (behaviour.refresh, 3600)
    } else {
        (behaviour.code, behaviour.code_expires_in)
    };
    let mut record = record(shared);
    record.grants.push(grant);
    match answer {
        Answer::Tokens => {
            let n = record.issued.len() + 1;
            record.issued.push(format!("access-{n}"));
            let tokens = json!({
                "access_token": format!("access-{n}"),
                "token_type": "Bearer",
                "expires_in": expires_in,
                "refresh_token": format!("refresh-{n}"),
            });
            json_body(StatusCode::OK, &tokens)
        }
        Answer::InvalidGrant => json_body(
            StatusCode::BAD_REQUEST,
            &json!({"error": "invalid_grant", "error_description": "the grant was revoked"}),
        ),
        Answer::ServerError => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "the token service is down",
        )
            .into_response(),
        Answer::NotJson => (
            [(header::CONTENT_TYPE, "text/html")],
            "<html>welcome to the login page</html>",
        )
            .into_response(),
    }
}

fn json_body(status: StatusCode, value: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        value.to_string(),
    )
        .into_response()
}

/// Approves every authorization request as the authorization server would have: a code and
/// the request's `state`, on the redirect URI.
struct Approve;

const REDIRECT: &str = "http://127.0.0.1:9/callback";

impl Approver for Approve {
    fn redirect_uri(&self) -> String {
        REDIRECT.to_owned()
    }

    fn approve<'a>(&'a self, authorization_url: &'a str) -> Approval<'a> {
        Box::pin(async move {
            let query = authorization_url
                .split_once('?')
                .map_or("", |(_, query)| query);
            let state = (query.split('&'))
                .find_map(|pair| pair.strip_prefix("state="))
                .ok_or("no state")?;
            assert!(
                authorization_url.contains("code_challenge_method=S256"),
                "{authorization_url}"
            );
            Ok(format!("{REDIRECT}?code=code-1&state={state}"))
        })
    }
}

/// A folder of its own for one test's token store, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("lazytool-as-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Scratch(dir)
    }

    fn store(&self) -> TokenStore {
        TokenStore::file(self.0.join("tokens.json"))
    }

    /// The store's text, and the names of every file in the folder.
    fn contents(&self) -> (String, Vec<String>) {
        let text = std::fs::read_to_string(self.0.join("tokens.json")).unwrap_or_default();
        let mut files: Vec<String> = std::fs::read_dir(&self.0)
            .expect("readable")
            .filter_map(|entry| entry.ok())
            .map(|entry| entry.file_name().to_string_lossy().into_owned())
            .collect();
        files.sort();
        (text, files)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn oauth(scratch: &Scratch) -> OAuth {
    OAuth::new()
        .client_id("lazytool-test")
        .token_store(scratch.store())
}

/// `login` of the server `tracker` against an authorization server behaving as
/// `behaviour`: the error it fails with.
async fn failed_login(behaviour: Behaviour, scratch: &Scratch) -> OAuthError {
    let stop = CancellationToken::new();
    let (url, _) = protected(behaviour, &stop).await;
    let upstream = Upstream::url(&url).oauth(oauth(scratch));
    let error = login_with("tracker", &upstream, Approve)
        .await
        .expect_err("the login fails");
    stop.cancel();
    error
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_resource_in_the_protected_resource_metadata_is_refused() {
    let scratch = Scratch::new("resource");
    let behaviour = Behaviour {
        resource: Some("http://127.0.0.1:9/somebody-else"),
        ..Behaviour::default()
    };
    let error = failed_login(behaviour, &scratch).await;
    assert_eq!(error.server(), "tracker");
    assert_eq!(error.step(), Step::MetadataDiscovery, "{error}");
    assert!(error.to_string().contains("resource mismatch"), "{error}");
    assert!(error.to_string().contains("somebody-else"), "{error}");
    assert_eq!(scratch.contents(), (String::new(), vec![]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_server_without_pkce_s256_is_refused() {
    for (pkce, said) in [
        (None, "does not list `code_challenge_methods_supported`"),
        (
            Some(json!(["plain"])),
            "lists `code_challenge_methods_supported` [\"plain\"]",
        ),
    ] {
        let scratch = Scratch::new("pkce");
        let behaviour = Behaviour {
            pkce,
            ..Behaviour::default()
        };
        let error = failed_login(behaviour, &scratch).await;
        assert_eq!(error.step(), Step::MetadataDiscovery, "{error}");
        let message = error.to_string();
        assert!(
            message.starts_with("the MCP server `tracker`: OAuth metadata discovery: "),
            "{message}"
        );
        assert!(message.contains(said), "{message}");
        assert!(message.contains("PKCE"), "{message}");
        assert_eq!(scratch.contents(), (String::new(), vec![]));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn token_endpoint_errors_name_the_server_and_the_step() {
    for (answer, said) in [
        (Answer::InvalidGrant, "invalid_grant"),
        (
            Answer::ServerError,
            "did not answer with a JSON token response",
        ),
        (
            Answer::NotJson,
            "unexpected response Content-Type: \"text/html\"",
        ),
    ] {
        let scratch = Scratch::new("token");
        let behaviour = Behaviour {
            code: answer,
            ..Behaviour::default()
        };
        let error = failed_login(behaviour, &scratch).await;
        assert_eq!(error.server(), "tracker", "{answer:?}");
        assert_eq!(error.step(), Step::TokenEndpoint, "{answer:?}: {error}");
        assert!(error.to_string().contains(said), "{answer:?}: {error}");
        assert_eq!(scratch.contents(), (String::new(), vec![]), "{answer:?}");
    }
}

/// A login whose access token has expired already (`expires_in: 0`), then the server
/// started as a source beside an open one, with the refresh answered as `refresh` says.
async fn started_after_expiry(
    refresh: Answer,
    scratch: &Scratch,
    stop: &CancellationToken,
) -> (McpCatalog, Shared) {
    let behaviour = Behaviour {
        refresh,
        code_expires_in: 0,
        ..Behaviour::default()
    };
    let (url, shared) = protected(behaviour, stop).await;
    let upstream = Upstream::url(&url).oauth(oauth(scratch));
    login_with("tracker", &upstream, Approve)
        .await
        .expect("the login succeeds");
    let open = Upstream::url(open_server(stop).await);
    let sources = [
        McpSource::new("tracker", upstream).start_timeout(Duration::from_secs(20)),
        McpSource::new("open", open).start_timeout(Duration::from_secs(20)),
    ];
    let catalog = McpCatalog::start(|| Registry::builder().without_inventory(), sources)
        .await
        .expect("the catalog builds");
    (catalog, shared)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_expired_access_token_is_refreshed_and_the_new_one_stored() {
    let scratch = Scratch::new("refreshed");
    let stop = CancellationToken::new();
    let (catalog, shared) = started_after_expiry(Answer::Tokens, &scratch, &stop).await;
    let report = &catalog.reports()[0];
    assert_eq!(report.name, "tracker");
    assert_eq!(
        report.tools,
        Ok(vec!["tracker__echo".to_owned()]),
        "{report:?}"
    );
    assert_eq!(
        record(&shared).grants,
        ["authorization_code", "refresh_token"]
    );
    let echoed = catalog
        .registry()
        .call("tracker__echo", json!({"text": "refreshed"}))
        .await;
    assert!(!echoed.is_error(), "{:?}", echoed.content());
    let (text, files) = scratch.contents();
    assert!(text.contains("access-2"), "the refreshed token is stored");
    assert_eq!(files, ["tokens.json"]);
    catalog.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_revoked_refresh_token_asks_for_a_login_and_the_other_server_keeps_working() {
    let scratch = Scratch::new("revoked");
    let stop = CancellationToken::new();
    let (catalog, shared) = started_after_expiry(Answer::InvalidGrant, &scratch, &stop).await;
    let reports = catalog.reports();
    let failure = reports[0]
        .tools
        .clone()
        .expect_err("the tracker is left out");
    assert!(failure.contains("`tracker`"), "{failure}");
    assert!(
        failure.contains("run `lazytool-gateway login tracker`"),
        "{failure}"
    );
    for token in ["access-1", "refresh-1"] {
        assert!(!failure.contains(token), "{failure}");
    }
    assert_eq!(
        record(&shared).grants,
        ["authorization_code", "refresh_token"]
    );
    assert_eq!(
        reports[1].tools,
        Ok(vec!["open__echo".to_owned()]),
        "{:?}",
        reports[1]
    );
    let (_, files) = scratch.contents();
    assert_eq!(files, ["tokens.json"]);
    catalog.shutdown().await;
    stop.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_endpoint_down_at_refresh_names_the_server_and_the_step() {
    let scratch = Scratch::new("refresh-down");
    let stop = CancellationToken::new();
    let (catalog, _) = started_after_expiry(Answer::ServerError, &scratch, &stop).await;
    let reports = catalog.reports();
    let failure = reports[0]
        .tools
        .clone()
        .expect_err("the tracker is left out");
    assert!(failure.contains("`tracker`"), "{failure}");
    assert!(
        failure.contains(
            "the MCP server `tracker`: OAuth token refresh: the token endpoint did not answer with a JSON token response"
        ),
        "{failure}"
    );
    assert_eq!(
        reports[1].tools,
        Ok(vec!["open__echo".to_owned()]),
        "{:?}",
        reports[1]
    );
    catalog.shutdown().await;
    stop.cancel();
}
