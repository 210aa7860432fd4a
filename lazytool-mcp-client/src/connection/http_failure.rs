//! Why a streamable HTTP upstream did not start, in words: `cannot reach URL: connection
//! refused` rather than rmcp's transport type names.

use std::error::Error;

use rmcp::service::ClientInitializeError;
#[cfg(feature = "oauth")]
use rmcp::transport::AuthError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

#[cfg(feature = "oauth")]
use crate::oauth::error::{OAuthError, Step};

/// What to say when the handshake of `server` with `url` failed with `error` (the URL's
/// secrets are hidden by the caller's redaction, like everything about the upstream).
#[cfg_attr(not(feature = "oauth"), expect(unused_variables))]
pub(crate) fn describe(server: &str, url: &str, error: &ClientInitializeError) -> String {
    let ClientInitializeError::TransportError { error, .. } = error else {
        return format!("no MCP handshake with {url}: {error}");
    };
    // An OAuth failure while the transport got its token: a refresh, as a rule.
    #[cfg(feature = "oauth")]
    if let Some(auth) = find::<AuthError>(error.error.as_ref()) {
        return OAuthError::from_rmcp(server, Step::TokenRefresh, auth).to_string();
    }
    match error
        .error
        .downcast_ref::<StreamableHttpError<reqwest::Error>>()
    {
        Some(StreamableHttpError::Client(client)) => client_failure(url, client),
        Some(StreamableHttpError::AuthRequired(_)) => format!(
            "{url} requires authorization (HTTP 401): give the server's `headers` an `Authorization` value"
        ),
        Some(other) => format!("no MCP handshake with {url}: {other}"),
        None => format!("no MCP handshake with {url}: {}", error.error),
    }
}

fn client_failure(url: &str, error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return format!("cannot reach {url}: timed out");
    }
    let reason = innermost(error);
    if error.is_connect() {
        let refused =
            io_error(error).is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused);
        return match refused {
            true => format!("cannot reach {url}: connection refused"),
            false => format!("cannot reach {url}: {reason}"),
        };
    }
    format!("no MCP handshake with {url}: {reason}")
}

/// The message of the last error in `error`'s chain: the cause itself.
fn innermost(error: &(dyn Error + 'static)) -> String {
    let mut last = error;
    while let Some(source) = last.source() {
        last = source;
    }
    last.to_string()
}

fn io_error<'e>(error: &'e (dyn Error + 'static)) -> Option<&'e std::io::Error> {
    find(error)
}

/// The first error of type `E` in `error`'s chain.
fn find<'e, E: Error + 'static>(error: &'e (dyn Error + 'static)) -> Option<&'e E> {
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(found) = error.downcast_ref::<E>() {
            return Some(found);
        }
        current = error.source();
    }
    None
}
