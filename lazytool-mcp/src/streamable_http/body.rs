//! A request body read up to a limit, and the JSON-RPC error responses the guard sends.

use std::fmt::Display;

use axum::body::Body;
use axum::response::Response;
use bytes::{Bytes, BytesMut};
use http::{HeaderValue, StatusCode, header};
use http_body_util::BodyExt;
use rmcp::model::ErrorCode;

use serde_json::Value;

use super::limits::RETRY_AFTER_SECONDS;
use crate::jsonrpc::decode;
use crate::jsonrpc::lines::KEPT_PREFIX;

/// What reading a body gave.
pub(crate) enum Read {
    Whole(Bytes),
    /// Longer than the limit: its first bytes, to read a request id from. The rest is not
    /// read.
    Oversized(Vec<u8>),
    /// The client's stream failed (it went away, say).
    Failed(String),
}

/// Reads `body` whole if it has at most `max` bytes.
pub(crate) async fn read<B>(body: B, max: usize) -> Read
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Display,
{
    let mut body = std::pin::pin!(body);
    let mut collected = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let data = match frame {
            Ok(frame) => match frame.into_data() {
                Ok(data) => data,
                Err(_) => continue,
            },
            Err(error) => return Read::Failed(error.to_string()),
        };
        if collected.len() + data.len() > max {
            let mut prefix = collected[..collected.len().min(KEPT_PREFIX)].to_vec();
            let missing = KEPT_PREFIX - prefix.len();
            prefix.extend_from_slice(&data[..data.len().min(missing)]);
            return Read::Oversized(prefix);
        }
        collected.extend_from_slice(&data);
    }
    Read::Whole(collected.freeze())
}

/// A response whose body is a JSON-RPC message (an error reply built by [`decode`]).
pub(crate) fn json_response(status: StatusCode, reply: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(reply));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A refusal for a bound reached (sessions, streams, connections, shutdown): a JSON-RPC
/// server error carrying the request's id when known, and `Retry-After`.
pub(crate) fn refusal(status: StatusCode, id: Option<Value>, message: &str) -> Response {
    let mut response = json_response(status, decode::reply(id, OVERLOADED, message));
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECONDS));
    response
}

/// JSON-RPC's range for server errors starts at -32000.
const OVERLOADED: ErrorCode = ErrorCode(-32000);

/// An error that belongs to no request: JSON-RPC's `id: null`.
pub(crate) fn error_response(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    json_response(status, decode::reply(None, code, message))
}

#[cfg(test)]
mod tests {
    use http_body_util::Full;

    use super::*;

    #[tokio::test]
    async fn reads_up_to_the_limit_and_keeps_a_prefix_beyond() {
        let small = Full::new(Bytes::from_static(b"{\"id\": 1}"));
        assert!(matches!(read(small, 9).await, Read::Whole(bytes) if bytes.len() == 9));
        let large = Full::new(Bytes::from(vec![b'x'; 10_000]));
        let Read::Oversized(prefix) = read(large, 100).await else {
            panic!("over the limit");
        };
        assert_eq!(prefix.len(), KEPT_PREFIX);
    }
}
