//! Running the authorization code flow once, for a person: [`login`].

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use rmcp::ServiceExt as _;
use rmcp::transport::StreamableHttpClientTransport;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::approver::{Approval, Approver};
use super::config::Grant;
use super::error::{OAuthError, Step};
use super::flow::Flow;
use super::store::TokenStore;
use crate::connection::upstream::Upstream;

/// How long [`login`] waits for the browser to come back.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

const APPROVED_PAGE: &str = "lazytool: the authorization is done, you can close this tab.";

/// Runs the authorization code flow for `server` once, as `lazytool-gateway login NAME`
/// does: listens on a loopback redirect (`http://127.0.0.1:PORT/callback`, a free port),
/// hands the authorization URL to `show` (print it, open a browser), waits for the redirect
/// (at most [`LOGIN_TIMEOUT`]), exchanges the code and stores the tokens in the upstream's
/// [`TokenStore`], which it returns.
///
/// Fails with an [`OAuthError`] naming the step when `upstream` is not an HTTP upstream
/// with the authorization code grant, or when a step of the flow fails.
///
/// ```rust,no_run
/// use lazytool_mcp_client::{OAuth, Upstream, login};
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), lazytool_mcp_client::OAuthError> {
/// let linear = Upstream::url("https://mcp.linear.app/mcp").oauth(OAuth::new());
/// let store = login("linear", &linear, |url| println!("open {url}")).await?;
/// println!("tokens stored in {:?}", store.path());
/// # Ok(()) }
/// ```
pub async fn login(
    server: &str,
    upstream: &Upstream,
    show: impl FnOnce(&str) + Send + 'static,
) -> Result<TokenStore, OAuthError> {
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|error| loopback_error(server, &error))?;
    let port = (listener.local_addr())
        .map_err(|error| loopback_error(server, &error))?
        .port();
    let loopback = Loopback {
        port,
        listener: Mutex::new(Some(listener)),
        show: Mutex::new(Some(Box::new(show))),
    };
    login_with(server, upstream, loopback).await
}

/// [`login`] with another [`Approver`] than a browser and a loopback redirect.
///
/// ```rust,no_run
/// # use lazytool_mcp_client::{Approval, Approver, OAuth, Upstream, login_with};
/// # struct Auto;
/// # impl Approver for Auto {
/// #     fn redirect_uri(&self) -> String { "http://127.0.0.1:1/callback".into() }
/// #     fn approve<'a>(&'a self, _url: &'a str) -> Approval<'a> { Box::pin(async { Err("no".into()) }) }
/// # }
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), lazytool_mcp_client::OAuthError> {
/// let upstream = Upstream::url("https://mcp.example.com/mcp").oauth(OAuth::new());
/// login_with("example", &upstream, Auto).await?;
/// # Ok(()) }
/// ```
pub async fn login_with(
    server: &str,
    upstream: &Upstream,
    approver: impl Approver + 'static,
) -> Result<TokenStore, OAuthError> {
    let Upstream::Http {
        url,
        headers,
        oauth: Some(oauth),
    } = upstream
    else {
        return Err(OAuthError::new(
            server,
            Step::Login,
            "only an HTTP server with `oauth` settings has a login",
        ));
    };
    if oauth.grant != Grant::AuthorizationCode {
        return Err(OAuthError::new(
            server,
            Step::Login,
            "a server with the client credentials grant needs no login",
        ));
    }
    let challenge = challenge(url, headers).await;
    let flow = Flow {
        server: server.into(),
        url: url.as_str().into(),
        oauth: Arc::new(oauth.clone()),
    };
    flow.authorization_code(challenge, Arc::new(approver))
        .await?;
    Ok(oauth.store())
}

fn loopback_error(server: &str, error: &std::io::Error) -> OAuthError {
    OAuthError::new(
        server,
        Step::Authorization,
        format!("no loopback redirect: {error}"),
    )
}

/// The `WWW-Authenticate` challenge the server answers an unauthenticated start with, if
/// it does (a server may also let a client start and refuse later requests).
async fn challenge(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
) -> Option<String> {
    let mut config =
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url);
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            http::HeaderName::try_from(name.as_str()),
            http::HeaderValue::try_from(value.as_str()),
        ) {
            config.custom_headers.insert(name, value);
        }
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    match ().serve(transport).await {
        Ok(running) => {
            let _ = running.cancel().await;
            None
        }
        Err(error) => error.auth_challenge().map(str::to_owned),
    }
}

type Show = Box<dyn FnOnce(&str) + Send>;

/// A person approving in a browser, redirected back to a listener on 127.0.0.1.
struct Loopback {
    port: u16,
    listener: Mutex<Option<TcpListener>>,
    show: Mutex<Option<Show>>,
}

impl Approver for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    fn approve<'a>(&'a self, authorization_url: &'a str) -> Approval<'a> {
        Box::pin(async move {
            let listener = (self.listener.lock().unwrap_or_else(PoisonError::into_inner))
                .take()
                .ok_or("the loopback redirect has served its one login already")?;
            let (redirected, callback) = oneshot::channel::<String>();
            let redirected = Arc::new(Mutex::new(Some(redirected)));
            let port = self.port;
            let app = Router::new().route(
                "/callback",
                get(move |uri: http::Uri| async move {
                    let sender = redirected
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .take();
                    if let Some(sender) = sender {
                        let _ = sender.send(format!("http://127.0.0.1:{port}{uri}"));
                    }
                    APPROVED_PAGE
                }),
            );
            let server = tokio::spawn(async move { axum::serve(listener, app).await });
            let show = (self.show.lock().unwrap_or_else(PoisonError::into_inner)).take();
            if let Some(show) = show {
                show(authorization_url);
            }
            let outcome = tokio::time::timeout(LOGIN_TIMEOUT, callback).await;
            server.abort();
            match outcome {
                Ok(Ok(url)) => Ok(url),
                Ok(Err(_)) => Err("the loopback redirect stopped".to_owned()),
                Err(_) => Err(format!(
                    "no redirect came back within {} s",
                    LOGIN_TIMEOUT.as_secs()
                )),
            }
        })
    }
}
