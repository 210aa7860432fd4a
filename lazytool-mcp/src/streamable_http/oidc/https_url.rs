//! The URLs an issuer is reached at (the issuer itself, its `jwks_uri`, any redirect on the
//! way): `https://`, or plain `http://` on a loopback address only (tests, a provider on the
//! same machine). Keys fetched in the clear could be swapped by anyone on the path, and every
//! token would then verify.

use std::net::IpAddr;

use reqwest::Url;
use reqwest::redirect::{Attempt, Policy};

use super::error::OidcError;

/// The most redirects followed on the way to a discovery document or key set.
const MAX_REDIRECTS: usize = 3;

/// Why `url` (the issuer's `what`) may not be fetched, if it may not.
pub(super) fn check(url: &str, what: &str) -> Result<(), OidcError> {
    let parsed = Url::parse(url)
        .map_err(|error| OidcError(format!("the {what} `{url}` is not a URL ({error})")))?;
    if is_secure(&parsed) {
        return Ok(());
    }
    Err(OidcError(format!(
        "the {what} `{url}` is not an https:// URL: the issuer's keys must come over TLS \
         (plain http:// is allowed on loopback only: 127.0.0.1, [::1], localhost)"
    )))
}

/// The redirect policy of the issuer's client: at most [`MAX_REDIRECTS`], each to a URL
/// [`check`] accepts, so that an https URL cannot hand the fetch over to plain http.
pub(super) fn redirects() -> Policy {
    Policy::custom(|attempt: Attempt<'_>| {
        if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else if is_secure(attempt.url()) {
            attempt.follow()
        } else {
            let error = format!("a redirect to `{}`, which is not https://", attempt.url());
            attempt.error(error)
        }
    })
}

fn is_secure(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    match url.scheme() {
        "https" => true,
        "http" => {
            let address = host.trim_start_matches('[').trim_end_matches(']');
            host.eq_ignore_ascii_case("localhost")
                || address
                    .parse::<IpAddr>()
                    .is_ok_and(|address| address.is_loopback())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn https_or_loopback_only() {
        for good in [
            "https://login.example.com/realms/acme",
            "http://127.0.0.1:8080",
            "http://127.0.0.2/issuer",
            "http://[::1]:9000",
            "http://localhost:3000/",
            "http://LOCALHOST",
        ] {
            assert_eq!(check(good, "issuer"), Ok(()), "{good}");
        }
        for bad in [
            "http://login.example.com",
            "http://127.0.0.1.evil.example",
            "http://localhost@evil.example",
            "http://localhost.evil.example",
            "http://10.0.0.1",
            "ftp://login.example.com",
            "file:///etc/keys.json",
            "login.example.com",
        ] {
            let error = check(bad, "issuer").expect_err(bad).to_string();
            assert!(error.contains(&format!("`{bad}`")), "{error}");
        }
        let error = check("http://id.example", "key set (`jwks_uri`)").expect_err("http");
        assert!(
            error
                .to_string()
                .starts_with("the key set (`jwks_uri`) `http://id.example` is not an https:// URL"),
            "{error}"
        );
    }
}
