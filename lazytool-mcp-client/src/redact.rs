//! Secrets kept out of every error, log line and report about an upstream: [`Redactor`].

/// What replaces a secret.
const HIDDEN: &str = "***";
/// Values shorter than this (`1`, `true`) are too common to hide wherever they appear.
const SHORTEST_SECRET: usize = 6;

/// Hides an upstream's secrets in text: the values of its headers and environment, and in
/// any URL, the user information and the values of the query.
///
/// Every error and report of an [`McpSource`](crate::McpSource) already goes through its
/// upstream's redactor ([`Upstream::redactor`](crate::Upstream::redactor)); a program that
/// logs what other libraries say about its upstreams (rmcp and reqwest put URLs in their
/// errors) runs its log lines through one too, as `lazytool-gateway` does.
///
/// ```
/// use lazytool_mcp_client::{Redactor, Upstream};
///
/// let github = Upstream::url("https://mcp.example.com/mcp?api_key=k3y-123")
///     .header("Authorization", "Bearer ghp_abcdef");
/// let redactor = Redactor::default().and(&github.redactor());
/// assert_eq!(
///     redactor.apply("sent ghp_abcdef to https://mcp.example.com/mcp?api_key=k3y-123"),
///     "sent *** to https://mcp.example.com/mcp?api_key=***"
/// );
/// ```
#[derive(Clone, Debug, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// Hides `values` (and what URLs carry) wherever they appear; values shorter than six
    /// bytes (`1`, `true`) are too common to hide and are left alone.
    ///
    /// ```
    /// let redactor = lazytool_mcp_client::Redactor::new(["hunter2-secret", "1"]);
    /// assert_eq!(redactor.apply("password hunter2-secret, 1 try"), "password ***, 1 try");
    /// ```
    pub fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Self {
        let mut secrets: Vec<String> = values
            .into_iter()
            .filter(|value| value.len() >= SHORTEST_SECRET)
            .map(str::to_owned)
            .collect();
        // The longest first, so that a secret holding another is hidden whole.
        secrets.sort_by_key(|secret| std::cmp::Reverse(secret.len()));
        secrets.dedup();
        Redactor { secrets }
    }

    /// A redactor that hides the secrets of both.
    ///
    /// ```
    /// use lazytool_mcp_client::Redactor;
    ///
    /// let both = Redactor::new(["first-secret"]).and(&Redactor::new(["second-secret"]));
    /// assert_eq!(both.apply("first-secret second-secret"), "*** ***");
    /// ```
    pub fn and(&self, other: &Redactor) -> Redactor {
        Redactor::new(
            self.secrets
                .iter()
                .chain(&other.secrets)
                .map(String::as_str),
        )
    }

    /// `text` with every secret hidden.
    ///
    /// ```
    /// let redactor = lazytool_mcp_client::Redactor::default();
    /// assert_eq!(
    ///     redactor.apply("cannot reach https://me:pw@host/mcp?key=v"),
    ///     "cannot reach https://***@host/mcp?key=***"
    /// );
    /// ```
    pub fn apply(&self, text: &str) -> String {
        let mut text = redact_urls(text);
        for secret in &self.secrets {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), HIDDEN);
            }
        }
        text
    }
}

/// Every `http://` or `https://` URL in `text` with its user information and query values
/// hidden: `https://u:p@host/mcp?key=v&x` becomes `https://***@host/mcp?key=***&x`.
pub(crate) fn redact_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = find_url(rest) {
        out.push_str(&rest[..start]);
        let url = &rest[start..];
        let end = url
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '<' | '>' | '`' | ')'))
            .unwrap_or(url.len());
        // Punctuation ending a URL belongs to the sentence: `cannot reach URL: refused`.
        let end = url[..end].trim_end_matches([':', ',', '.', ';']).len();
        out.push_str(&redact_url(&url[..end]));
        rest = &url[end..];
    }
    out.push_str(rest);
    out
}

fn find_url(text: &str) -> Option<usize> {
    match (text.find("http://"), text.find("https://")) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

fn redact_url(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = match authority.rsplit_once('@') {
        Some((_, host)) => format!("{HIDDEN}@{host}"),
        None => authority.to_owned(),
    };
    let (path, fragment) = match path.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (path, None),
    };
    let path = match path.split_once('?') {
        Some((path, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) => format!("{key}={HIDDEN}"),
                    None => pair.to_owned(),
                })
                .collect();
            format!("{path}?{}", query.join("&"))
        }
        None => path.to_owned(),
    };
    let fragment = fragment
        .map(|fragment| format!("#{fragment}"))
        .unwrap_or_default();
    format!("{scheme}://{host}{path}{fragment}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_lose_their_user_information_and_query_values() {
        assert_eq!(
            redact_urls(
                "cannot reach https://me:pw@mcp.example.com/mcp?api_key=s3cret&v=2&flag (refused)"
            ),
            "cannot reach https://***@mcp.example.com/mcp?api_key=***&v=***&flag (refused)"
        );
        assert_eq!(
            redact_urls("error sending request for url (http://127.0.0.1:9/mcp?key=abc#frag)"),
            "error sending request for url (http://127.0.0.1:9/mcp?key=***#frag)"
        );
        assert_eq!(redact_urls("no url here"), "no url here");
        assert_eq!(
            redact_urls("cannot reach http://h/mcp?key=v: connection refused."),
            "cannot reach http://h/mcp?key=***: connection refused."
        );
    }

    #[test]
    fn secrets_are_hidden_wherever_they_appear_but_short_values_are_not() {
        let redactor = Redactor::new(["Bearer ghp_abcdef", "ghp_abcdef", "1"]);
        assert_eq!(
            redactor.apply("sent `Bearer ghp_abcdef`, token ghp_abcdef, 1 try"),
            "sent `***`, token ***, 1 try"
        );
    }
}
