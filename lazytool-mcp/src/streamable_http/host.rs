//! Which `Host` a request may name: the guard against DNS rebinding for requests without
//! `Origin` (a browser's same-origin `GET` carries none).

use http::request::Parts;
use http::uri::Authority;

/// The loopback names accepted when the application names no host.
const LOOPBACK: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Why a request's host is refused.
pub(crate) enum HostError {
    /// No `Host`, or one that is not a host name.
    Malformed,
    /// A host not in the list.
    NotAllowed,
}

/// Checks the request's `Host` (or its URI's authority) against `allowed` (names, or
/// `name:port` for one port; `None`: the loopback names; empty: any host).
pub(crate) fn check(parts: &Parts, allowed: Option<&[String]>) -> Result<(), HostError> {
    if allowed.is_some_and(<[String]>::is_empty) {
        return Ok(());
    }
    if allowed.is_none()
        && parts
            .headers
            .get(http::header::HOST)
            .is_some_and(|host| is_loopback_with_port(host.as_bytes()))
    {
        return Ok(());
    }
    let authority = match parts.headers.get(http::header::HOST) {
        Some(host) => host
            .to_str()
            .ok()
            .and_then(|host| Authority::try_from(host).ok())
            .ok_or(HostError::Malformed)?,
        None => parts.uri.authority().cloned().ok_or(HostError::Malformed)?,
    };
    let (host, port) = (authority.host(), authority.port_u16());
    let matches = |pattern: &str| {
        let pattern = pattern.trim();
        match Authority::try_from(pattern) {
            Ok(parsed) => {
                same_host(parsed.host(), host)
                    && parsed.port_u16().is_none_or(|wanted| Some(wanted) == port)
            }
            Err(_) => same_host(pattern, host),
        }
    };
    // Checked on every request: the loopback names are compared as they are, unparsed.
    let allowed = match allowed {
        Some(allowed) => allowed.iter().any(|pattern| matches(pattern)),
        None => LOOPBACK.iter().any(|name| same_host(name, host)),
    };
    if allowed {
        Ok(())
    } else {
        Err(HostError::NotAllowed)
    }
}

/// Whether two host names are the same, in any case, IPv6 brackets or not.
/// Whether `host` is one of the loopback names exactly as clients write them, with or
/// without a port (`localhost:8080`, `127.0.0.1`, `[::1]:9`): the common case, told without
/// parsing the authority.
fn is_loopback_with_port(host: &[u8]) -> bool {
    ["localhost", "127.0.0.1", "[::1]"].iter().any(|name| {
        host.strip_prefix(name.as_bytes())
            .is_some_and(|rest| match rest {
                [] => true,
                [b':', port @ ..] => {
                    !port.is_empty() && port.len() <= 5 && port.iter().all(u8::is_ascii_digit)
                }
                _ => false,
            })
    })
}

fn same_host(one: &str, other: &str) -> bool {
    fn bare(host: &str) -> &str {
        host.trim_start_matches('[').trim_end_matches(']')
    }
    bare(one).eq_ignore_ascii_case(bare(other))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(host: Option<&str>) -> Parts {
        let mut request = http::Request::get("/mcp");
        if let Some(host) = host {
            request = request.header("host", host);
        }
        request.body(()).expect("a request").into_parts().0
    }

    #[test]
    fn loopback_by_default_listed_names_otherwise() {
        let ok =
            |host: Option<&str>, allowed: Option<&[String]>| check(&parts(host), allowed).is_ok();
        assert!(ok(Some("localhost:8080"), None));
        assert!(ok(Some("[::1]:9"), None));
        assert!(ok(Some("LocalHost:9"), None));
        assert!(!ok(Some("evil.example.com"), None));
        for spoofed in ["localhost.evil.example", "127.0.0.10", "localhostx:80"] {
            assert!(!ok(Some(spoofed), None), "{spoofed}");
        }
        assert!(!ok(None, None), "no Host at all");
        assert!(!ok(Some("a b"), None));
        let listed = ["tools.example".to_owned(), "10.0.0.7:8080".to_owned()];
        assert!(ok(Some("TOOLS.example:443"), Some(&listed)));
        assert!(ok(Some("10.0.0.7:8080"), Some(&listed)));
        assert!(!ok(Some("10.0.0.7:9090"), Some(&listed)));
        assert!(!ok(Some("localhost"), Some(&listed)));
        assert!(
            ok(Some("anything"), Some(&[])),
            "an empty list takes any host"
        );
    }
}
