//! How a client learns where to log in (the MCP authorization spec, 2025-06-18 and
//! 2025-11-25): the RFC 9728 protected-resource metadata naming the issuer, served at
//! [`METADATA_PATH`] and its form suffixed with MCP's path (§3.1), and the
//! `WWW-Authenticate` challenge of a 401 or 403 pointing at it (§5.1, RFC 6750 §3).

use axum::response::{IntoResponse, Response};
use http::request::Parts;
use http::{HeaderValue, StatusCode, Uri};

use super::challenge::{Challenge, Unauthenticated};
use super::forwarded::Edge;
use super::oidc::Oidc;

/// Where the protected-resource metadata is served (and, followed by
/// [`MCP_PATH`](crate::MCP_PATH), its path-suffixed form).
pub const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// The challenge for a request `why` refused; with an issuer, pointing at the metadata.
pub(crate) fn challenge(
    oidc: Option<&Oidc>,
    parts: &Parts,
    why: &Unauthenticated,
    edge: &Edge,
) -> Challenge {
    let Some(oidc) = oidc else {
        return Challenge::missing();
    };
    let metadata = metadata_url(&resource_url(oidc, parts, edge));
    let mut params = Vec::new();
    let (status, message) = match why {
        Unauthenticated::Missing => (StatusCode::UNAUTHORIZED, Challenge::missing().message),
        Unauthenticated::Token(refusal) if refusal.insufficient_scope => {
            params.push("error=\"insufficient_scope\"".to_owned());
            params.push(format!("error_description=\"{}\"", quoted(&refusal.reason)));
            (
                StatusCode::FORBIDDEN,
                format!("Forbidden: {}", refusal.reason),
            )
        }
        Unauthenticated::Token(refusal) => {
            params.push("error=\"invalid_token\"".to_owned());
            params.push(format!("error_description=\"{}\"", quoted(&refusal.reason)));
            (
                StatusCode::UNAUTHORIZED,
                format!("Unauthorized: {}", refusal.reason),
            )
        }
    };
    if !oidc.scopes().is_empty() {
        params.push(format!("scope=\"{}\"", quoted(&oidc.scopes().join(" "))));
    }
    params.push(format!("resource_metadata=\"{}\"", quoted(&metadata)));
    let header = HeaderValue::from_str(&format!("Bearer {}", params.join(", ")))
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
    Challenge {
        status,
        message,
        header,
    }
}

/// `GET /.well-known/oauth-protected-resource[/mcp]`: the RFC 9728 metadata.
pub(crate) fn document(oidc: &Oidc, parts: &Parts, edge: &Edge) -> Response {
    let mut metadata = serde_json::json!({
        "resource": resource_url(oidc, parts, edge),
        "authorization_servers": [oidc.issuer_url()],
        "bearer_methods_supported": ["header"],
        "resource_name": "lazytool MCP server",
    });
    if !oidc.scopes().is_empty() {
        metadata["scopes_supported"] = oidc.scopes().into();
    }
    (
        StatusCode::OK,
        [(http::header::CONTENT_TYPE, "application/json")],
        metadata.to_string(),
    )
        .into_response()
}

/// The URL clients reach MCP at: the issuer's configured resource, else the server's public
/// URL, a trusted proxy's forwarded scheme and host, or `http://` with the request's `Host`
/// (the gate has checked it), followed by MCP's path.
fn resource_url(oidc: &Oidc, parts: &Parts, edge: &Edge) -> String {
    if let Some(resource) = oidc.configured_resource() {
        return resource.to_owned();
    }
    format!("{}{}", edge.base_url(parts), oidc.mcp_path())
}

/// The metadata's URL for `resource`: the well-known path between its authority and its
/// path (RFC 9728 §3.1).
fn metadata_url(resource: &str) -> String {
    match resource.parse::<Uri>() {
        Ok(uri) if uri.scheme().is_some() && uri.authority().is_some() => {
            let path = uri.path().trim_end_matches('/');
            format!(
                "{}://{}{METADATA_PATH}{path}",
                uri.scheme_str().unwrap_or("https"),
                uri.authority().map_or("", |authority| authority.as_str())
            )
        }
        _ => format!("{}{METADATA_PATH}", resource.trim_end_matches('/')),
    }
}

/// `text` fit for a quoted-string: visible ASCII, no `"` or `\`.
fn quoted(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' | '\\' => '\'',
            c if c == ' ' || c.is_ascii_graphic() => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::metadata_url;

    #[test]
    fn the_metadata_sits_between_authority_and_path() {
        assert_eq!(
            metadata_url("https://tools.example.com/mcp"),
            "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            metadata_url("http://127.0.0.1:8080/"),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
    }
}
