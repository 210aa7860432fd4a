//! Which browser origins may call the server: [`OriginPattern`]. The streamable HTTP
//! transport requires servers to validate `Origin` against DNS rebinding: a page on a foreign
//! origin must not reach a server on localhost through the user's browser.

use std::fmt;
use std::str::FromStr;

use http::Uri;

/// An origin a browser may call the server from: `scheme://host`, with `:PORT` for one port,
/// `:*` for any, or no port for the scheme's default (80, 443).
///
/// ```
/// use lazytool_mcp::OriginPattern;
///
/// let app: OriginPattern = "https://app.example.com".parse().unwrap();
/// assert!(app.matches("https://app.example.com"));
/// assert!(app.matches("https://app.example.com:443"));
/// assert!(!app.matches("https://app.example.com:8443"));
/// assert!(!app.matches("http://app.example.com"));
///
/// let local: OriginPattern = "http://localhost:*".parse().unwrap();
/// assert!(local.matches("http://localhost:5173"));
/// assert!("example.com".parse::<OriginPattern>().is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OriginPattern {
    scheme: String,
    host: String,
    /// `None` for any port.
    port: Option<u16>,
}

/// Why a text is not an [`OriginPattern`].
///
/// ```
/// let error = "ftp://".parse::<lazytool_mcp::OriginPattern>().unwrap_err();
/// assert!(error.to_string().contains("ftp://"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OriginPatternError(String);

impl fmt::Display for OriginPatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not an origin: write `scheme://host`, `scheme://host:PORT` or `scheme://host:*`",
            self.0
        )
    }
}

impl std::error::Error for OriginPatternError {}

impl FromStr for OriginPattern {
    type Err = OriginPatternError;

    fn from_str(pattern: &str) -> Result<Self, Self::Err> {
        let invalid = || OriginPatternError(pattern.to_owned());
        let trimmed = pattern.trim();
        let (text, any_port) = match trimmed.strip_suffix(":*") {
            Some(text) => (text, true),
            None => (trimmed, false),
        };
        let origin = Origin::parse(text).ok_or_else(invalid)?;
        if any_port && origin.port.is_some() {
            return Err(invalid());
        }
        let port = if any_port {
            None
        } else {
            Some(origin.effective_port().ok_or_else(invalid)?)
        };
        Ok(OriginPattern {
            scheme: origin.scheme,
            host: origin.host,
            port,
        })
    }
}

impl OriginPattern {
    /// Whether a request's `Origin` header value is this origin.
    ///
    /// ```
    /// use lazytool_mcp::OriginPattern;
    ///
    /// let dev: OriginPattern = "http://localhost:5173".parse().unwrap();
    /// assert!(dev.matches("http://localhost:5173"));
    /// assert!(!dev.matches("http://localhost:3000"));
    /// assert!(!dev.matches("null")); // what sandboxed pages send
    /// ```
    pub fn matches(&self, origin: &str) -> bool {
        let Some(origin) = Origin::parse(origin) else {
            return false;
        };
        origin.scheme == self.scheme
            && origin.host == self.host
            && self
                .port
                .is_none_or(|port| origin.effective_port() == Some(port))
    }

    /// `http` and `https` on `localhost`, `127.0.0.1` and `[::1]`, any port: the origins a
    /// local server trusts by default.
    pub(crate) fn localhost() -> Vec<OriginPattern> {
        let hosts = ["localhost", "127.0.0.1", "::1"];
        ["http", "https"]
            .iter()
            .flat_map(|scheme| {
                hosts.iter().map(|host| OriginPattern {
                    scheme: (*scheme).to_owned(),
                    host: (*host).to_owned(),
                    port: None,
                })
            })
            .collect()
    }
}

/// An origin as browsers serialize it: `scheme://host[:port]`, nothing else.
struct Origin {
    scheme: String,
    host: String,
    port: Option<u16>,
}

impl Origin {
    fn parse(text: &str) -> Option<Origin> {
        let uri: Uri = text.trim().parse().ok()?;
        let path_is_empty = matches!(uri.path(), "" | "/");
        if !path_is_empty || uri.query().is_some() {
            return None;
        }
        let authority = uri.authority()?;
        if authority.as_str().contains('@') {
            return None;
        }
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']');
        Some(Origin {
            scheme: uri.scheme_str()?.to_ascii_lowercase(),
            host: host.to_ascii_lowercase(),
            port: authority.port_u16(),
        })
    }

    fn effective_port(&self) -> Option<u16> {
        self.port.or(match self.scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::OriginPattern;

    #[test]
    fn localhost_patterns_take_any_port_of_both_schemes() {
        let local = OriginPattern::localhost();
        let allowed = |origin: &str| local.iter().any(|pattern| pattern.matches(origin));
        for origin in [
            "http://localhost:3000",
            "https://LOCALHOST",
            "http://127.0.0.1:8080",
            "http://[::1]:9",
        ] {
            assert!(allowed(origin), "{origin}");
        }
        for origin in [
            "http://evil.example.com",
            "http://localhost.evil.com",
            "http://127.0.0.2",
            "null",
            "file://",
            "http://user@localhost",
            "http://localhost/path",
            "",
        ] {
            assert!(!allowed(origin), "{origin}");
        }
    }

    #[test]
    fn explicit_ports_and_bad_patterns() {
        let pattern: OriginPattern = "http://app.test:8080".parse().expect("an origin");
        assert!(pattern.matches("http://app.test:8080"));
        assert!(!pattern.matches("http://app.test"));
        for bad in [
            "app.test",
            "http://",
            "http://a:1:*",
            "ftp://a",
            "http://a/x",
        ] {
            assert!(bad.parse::<OriginPattern>().is_err(), "{bad}");
        }
    }
}
