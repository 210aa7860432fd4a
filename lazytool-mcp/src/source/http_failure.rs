//! Why a streamable HTTP upstream did not start, in words: `cannot reach URL: connection
//! refused` rather than rmcp's transport type names.

use std::error::Error;

use rmcp::service::ClientInitializeError;
use rmcp::transport::streamable_http_client::StreamableHttpError;

/// What to say when the handshake with `url` failed with `error` (the URL's secrets are
/// hidden by the caller's redaction, like everything about the upstream).
pub(crate) fn describe(url: &str, error: &ClientInitializeError) -> String {
    let ClientInitializeError::TransportError { error, .. } = error else {
        return format!("no MCP handshake with {url}: {error}");
    };
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
    let mut current = Some(error);
    while let Some(error) = current {
        if let Some(io) = error.downcast_ref::<std::io::Error>() {
            return Some(io);
        }
        current = error.source();
    }
    None
}
