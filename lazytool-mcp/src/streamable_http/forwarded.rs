//! Who a request comes from and which URL its client used, behind proxies or not: the
//! connection's peer address, the forwarded headers of the proxies the server trusts
//! ([`McpHttp::trusted_proxy`](crate::McpHttp::trusted_proxy)) and the URL clients use
//! ([`McpHttp::public_url`](crate::McpHttp::public_url)).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use http::request::Parts;
use ipnet::IpNet;

/// The address of the connection a request came on, as the server accepted it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PeerAddress(pub(crate) SocketAddr);

/// Where the server sits: the URL clients use, and the proxies whose forwarded headers it
/// reads.
#[derive(Clone, Debug, Default)]
pub(crate) struct Edge {
    // Read for the protected-resource metadata only.
    #[cfg_attr(not(feature = "oidc"), allow(dead_code))]
    public_url: Option<Arc<str>>,
    trusted: Arc<Vec<IpNet>>,
}

/// Why a public URL cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PublicUrlError(String);

impl std::fmt::Display for PublicUrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PublicUrlError {}

/// `url` if it is a URL clients can use, `https://HOST[:PORT][/PATH]` (or `http://`),
/// without its trailing `/`.
pub(crate) fn checked_public_url(url: &str) -> Result<Arc<str>, PublicUrlError> {
    let parsed: http::Uri = url
        .parse()
        .map_err(|error| PublicUrlError(format!("`{url}` is not a URL: {error}")))?;
    let scheme_ok = matches!(parsed.scheme_str(), Some("https" | "http"));
    let userinfo = parsed
        .authority()
        .is_some_and(|authority| authority.as_str().contains('@'));
    if !scheme_ok || parsed.authority().is_none() || parsed.query().is_some() || userinfo {
        return Err(PublicUrlError(format!(
            "`{url}` is not the `https://HOST[:PORT][/PATH]` clients use"
        )));
    }
    Ok(url.trim_end_matches('/').into())
}

impl Edge {
    pub(crate) fn set_public_url(&mut self, url: Arc<str>) {
        self.public_url = Some(url);
    }

    pub(crate) fn trust(&mut self, proxies: IpNet) {
        Arc::make_mut(&mut self.trusted).push(proxies);
    }

    fn trusts(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.trusted.iter().any(|net| net.contains(&address))
    }

    #[cfg(feature = "oidc")]
    fn came_through_trusted_proxy(&self, parts: &Parts) -> bool {
        peer(parts).is_some_and(|peer| self.trusts(peer.ip()))
    }

    /// The client's address: the peer's, or behind trusted proxies the rightmost address of
    /// `X-Forwarded-For` (or `Forwarded: for=`) that is not a trusted proxy. `None` when the
    /// server was not told its peers (an application's own listener without `ConnectInfo`).
    pub(crate) fn client_address(&self, parts: &Parts) -> Option<IpAddr> {
        let peer = canonical(peer(parts)?.ip());
        if !self.trusts(peer) {
            return Some(peer);
        }
        let forwarded = forwarded_for(parts);
        let client = forwarded
            .iter()
            .rev()
            .map(|address| canonical(*address))
            .find(|address| !self.trusts(*address));
        // Every hop trusted: the leftmost is the client as far as anyone can tell.
        Some(
            client
                .or_else(|| forwarded.first().copied())
                .unwrap_or(peer),
        )
    }

    /// The scheme and authority (and path prefix) clients use: the public URL, else a trusted
    /// proxy's forwarded ones, else `http://` and `Host` (checked by the gate).
    #[cfg(feature = "oidc")]
    pub(crate) fn base_url(&self, parts: &Parts) -> String {
        if let Some(url) = &self.public_url {
            return url.to_string();
        }
        let host = || {
            (parts.headers.get(http::header::HOST))
                .and_then(|host| host.to_str().ok())
                .or_else(|| parts.uri.authority().map(|authority| authority.as_str()))
                .unwrap_or("localhost")
                .to_owned()
        };
        if self.came_through_trusted_proxy(parts) {
            let (proto, forwarded_host) = forwarded_proto_and_host(parts);
            let scheme = proto.filter(|proto| matches!(proto.as_str(), "http" | "https"));
            let forwarded_host = forwarded_host.filter(|host| is_authority(host));
            return format!(
                "{}://{}",
                scheme.as_deref().unwrap_or("http"),
                forwarded_host.unwrap_or_else(host)
            );
        }
        format!("http://{}", host())
    }
}

fn peer(parts: &Parts) -> Option<SocketAddr> {
    if let Some(PeerAddress(address)) = parts.extensions.get::<PeerAddress>() {
        return Some(*address);
    }
    (parts.extensions)
        .get::<axum::extract::ConnectInfo<SocketAddr>>()
        .map(|info| info.0)
}

/// An IPv4 address mapped into IPv6 as the IPv4 address.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        IpAddr::V4(_) => address,
    }
}

/// The addresses of `X-Forwarded-For` headers, else of `Forwarded: for=`, left to right;
/// an entry that is no address ends the list there (what follows it cannot be trusted to
/// name the client either).
fn forwarded_for(parts: &Parts) -> Vec<IpAddr> {
    let mut addresses = Vec::new();
    for value in parts.headers.get_all("x-forwarded-for") {
        let Ok(value) = value.to_str() else {
            return Vec::new();
        };
        for entry in value.split(',') {
            match parse_node(entry) {
                Some(address) => addresses.push(address),
                None => return Vec::new(),
            }
        }
    }
    if !addresses.is_empty() {
        return addresses;
    }
    for value in parts.headers.get_all(http::header::FORWARDED) {
        let Ok(value) = value.to_str() else {
            return Vec::new();
        };
        for element in value.split(',') {
            for pair in element.split(';') {
                let Some((key, node)) = pair.trim().split_once('=') else {
                    continue;
                };
                if key.trim().eq_ignore_ascii_case("for") {
                    match parse_node(node) {
                        Some(address) => addresses.push(address),
                        None => return Vec::new(),
                    }
                }
            }
        }
    }
    addresses
}

/// `X-Forwarded-Proto` and `X-Forwarded-Host` (their first values), else `Forwarded`'s
/// `proto=` and `host=`.
#[cfg(feature = "oidc")]
fn forwarded_proto_and_host(parts: &Parts) -> (Option<String>, Option<String>) {
    let first = |name: &str| {
        (parts.headers.get(name))
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(',').next())
            .map(|value| value.trim().to_owned())
            .filter(|value| !value.is_empty())
    };
    let (mut proto, mut host) = (first("x-forwarded-proto"), first("x-forwarded-host"));
    if let Some(forwarded) = (parts.headers.get(http::header::FORWARDED))
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(',').next())
    {
        for pair in forwarded.split(';') {
            let Some((key, value)) = pair.trim().split_once('=') else {
                continue;
            };
            let value = value.trim().trim_matches('"').to_owned();
            match key.trim().to_ascii_lowercase().as_str() {
                "proto" if proto.is_none() => proto = Some(value.to_ascii_lowercase()),
                "host" if host.is_none() => host = Some(value),
                _ => {}
            }
        }
    }
    (proto.map(|proto| proto.to_ascii_lowercase()), host)
}

/// An address of a forwarded header: `1.2.3.4`, `1.2.3.4:5`, `[::1]:5`, `"[::1]"`, `::1`.
fn parse_node(node: &str) -> Option<IpAddr> {
    let node = node.trim().trim_matches('"');
    if let Ok(address) = node.parse::<IpAddr>() {
        return Some(address);
    }
    if let Ok(address) = node.parse::<SocketAddr>() {
        return Some(address.ip());
    }
    node.strip_prefix('[')
        .and_then(|rest| rest.split(']').next())
        .and_then(|inner| inner.parse().ok())
}

/// Whether `host` is a host name with an optional port, and nothing else.
#[cfg(feature = "oidc")]
fn is_authority(host: &str) -> bool {
    http::uri::Authority::try_from(host).is_ok_and(|authority| authority.as_str() == host)
        && !host.contains('@')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(peer: &str, headers: &[(&str, &str)]) -> Parts {
        let mut request = http::Request::get("/mcp").header("host", "gw.internal:8080");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let (mut parts, ()) = request.body(()).expect("a request").into_parts();
        let peer: SocketAddr = peer.parse().expect("an address");
        parts.extensions.insert(PeerAddress(peer));
        parts
    }

    fn edge(trusted: &[&str]) -> Edge {
        Edge {
            public_url: None,
            trusted: Arc::new(
                trusted
                    .iter()
                    .map(|net| net.parse().expect("a CIDR"))
                    .collect(),
            ),
        }
    }

    #[test]
    #[cfg(feature = "oidc")]
    fn forwarded_headers_count_only_from_trusted_proxies() {
        let spoofed = parts(
            "203.0.113.9:5000",
            &[
                ("x-forwarded-for", "10.1.1.1"),
                ("x-forwarded-proto", "https"),
            ],
        );
        let edge = edge(&["10.0.0.0/8"]);
        assert_eq!(edge.client_address(&spoofed), "203.0.113.9".parse().ok());
        assert_eq!(edge.base_url(&spoofed), "http://gw.internal:8080");
        let proxied = parts(
            "10.0.0.2:5000",
            &[
                ("x-forwarded-for", "198.51.100.7, 10.0.0.3"),
                ("x-forwarded-proto", "https"),
                ("x-forwarded-host", "tools.example.com"),
            ],
        );
        assert_eq!(edge.client_address(&proxied), "198.51.100.7".parse().ok());
        assert_eq!(edge.base_url(&proxied), "https://tools.example.com");
        // A client prepending its own entry does not move the rightmost untrusted one.
        let prepended = parts(
            "10.0.0.2:5000",
            &[("x-forwarded-for", "1.1.1.1, 198.51.100.7")],
        );
        assert_eq!(edge.client_address(&prepended), "198.51.100.7".parse().ok());
        let rfc7239 = parts(
            "10.0.0.2:5000",
            &[(
                "forwarded",
                "for=\"[2001:db8::1]:4711\";proto=https;host=tools.example.com",
            )],
        );
        assert_eq!(edge.client_address(&rfc7239), "2001:db8::1".parse().ok());
        assert_eq!(edge.base_url(&rfc7239), "https://tools.example.com");
        let hostile_host = parts(
            "10.0.0.2:5000",
            &[
                ("x-forwarded-host", "evil.example/path?x"),
                ("x-forwarded-proto", "javascript"),
            ],
        );
        assert_eq!(edge.base_url(&hostile_host), "http://gw.internal:8080");
        let garbage = parts("10.0.0.2:5000", &[("x-forwarded-for", "not-an-address")]);
        assert_eq!(edge.client_address(&garbage), "10.0.0.2".parse().ok());
    }

    #[test]
    #[cfg(feature = "oidc")]
    fn a_public_url_wins_over_every_header() {
        let mut edge = edge(&["10.0.0.0/8"]);
        edge.public_url = Some("https://tools.example.com/team".into());
        let proxied = parts("10.0.0.2:5000", &[("x-forwarded-host", "other.example")]);
        assert_eq!(edge.base_url(&proxied), "https://tools.example.com/team");
    }
}
