//! What a request's headers must be for a lane to answer it as rmcp would: the checks the
//! stateless lanes ([`super::stateless`]) and the session calls ([`super::session_calls`])
//! share. Each is stricter than rmcp's where being exact would cost more than it saves: what
//! one refuses, rmcp answers.

use http::header::{AsHeaderName, HeaderName};
use http::{HeaderMap, header};
use rmcp::transport::common::http_header::{EVENT_STREAM_MIME_TYPE, JSON_MIME_TYPE};

// rmcp's MCP header names, lowercase and built once: a name given as text is checked and
// lowercased on every lookup.
/// `Mcp-Session-Id`.
pub(super) static SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");
/// `MCP-Protocol-Version`.
pub(super) static PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
/// `Mcp-Method`.
pub(super) static METHOD: HeaderName = HeaderName::from_static("mcp-method");
/// `Mcp-Name`.
pub(super) static NAME: HeaderName = HeaderName::from_static("mcp-name");

/// Whether `schema` annotates any property with `x-mcp-header`.
pub(super) fn has_header_params(schema: &serde_json::Value) -> bool {
    match schema {
        serde_json::Value::Object(object) => {
            // A scan, not a lookup: hashing the key in every object of the schema cost more
            // than comparing it with the few keys each holds.
            object
                .iter()
                .any(|(key, value)| key == "x-mcp-header" || has_header_params(value))
        }
        serde_json::Value::Array(items) => items.iter().any(has_header_params),
        _ => false,
    }
}

/// The one value of header `name`, if it has exactly one and it is text.
pub(super) fn sole(headers: &HeaderMap, name: impl AsHeaderName) -> Option<&str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    if values.next().is_some() {
        return None;
    }
    value.to_str().ok()
}

/// Whether `Accept` names both JSON and event streams, without weights (which rmcp reads).
pub(super) fn accepts_json_and_events(headers: &HeaderMap) -> bool {
    let accepts = headers.get_all(header::ACCEPT);
    // What the official clients send, compared whole before any value is taken apart.
    let mut values = accepts.iter();
    if let (Some(value), None) = (values.next(), values.next())
        && value == USUAL_ACCEPT
    {
        return true;
    }
    let (mut json, mut events) = (false, false);
    for value in accepts {
        let Ok(value) = value.to_str() else {
            return false;
        };
        for range in value.split(',') {
            let range = range.trim();
            if range.contains(';') {
                return false;
            }
            json |= range.eq_ignore_ascii_case(JSON_MIME_TYPE);
            events |= range.eq_ignore_ascii_case(EVENT_STREAM_MIME_TYPE);
        }
    }
    json && events
}

/// The `Accept` header of the official SDKs' clients.
const USUAL_ACCEPT: &str = "application/json, text/event-stream";

pub(super) fn sends_json(headers: &HeaderMap) -> bool {
    sole(headers, header::CONTENT_TYPE).is_some_and(|value| {
        let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
        essence.trim().eq_ignore_ascii_case(JSON_MIME_TYPE)
    })
}

#[cfg(test)]
mod tests {
    use rmcp::transport::common::http_header::{
        HEADER_MCP_METHOD, HEADER_MCP_NAME, HEADER_MCP_PROTOCOL_VERSION, HEADER_SESSION_ID,
    };

    use super::*;

    #[test]
    fn accept_names_json_and_events_in_any_order_and_headers() {
        let headers = |values: &[&str]| {
            let mut headers = HeaderMap::new();
            for value in values {
                headers.append(header::ACCEPT, value.parse().expect("a header value"));
            }
            headers
        };
        for accepted in [
            &[USUAL_ACCEPT][..],
            &["text/event-stream,application/json"],
            &["Application/JSON , text/event-stream, text/plain"],
            &["application/json", "text/event-stream"],
        ] {
            assert!(accepts_json_and_events(&headers(accepted)), "{accepted:?}");
        }
        for refused in [
            &[][..],
            &["application/json"],
            &["application/json;q=0.5, text/event-stream"],
            &[USUAL_ACCEPT, "text/html;q=0.1"],
        ] {
            assert!(!accepts_json_and_events(&headers(refused)), "{refused:?}");
        }
    }

    #[test]
    fn the_header_names_are_rmcps() {
        for (ours, rmcps) in [
            (&SESSION_ID, HEADER_SESSION_ID),
            (&PROTOCOL_VERSION, HEADER_MCP_PROTOCOL_VERSION),
            (&METHOD, HEADER_MCP_METHOD),
            (&NAME, HEADER_MCP_NAME),
        ] {
            assert_eq!(
                ours,
                &HeaderName::from_bytes(rmcps.as_bytes()).expect("a name")
            );
        }
    }
}
