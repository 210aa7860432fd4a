//! How [`McpHttp`] stands at the edge of a network: the URL clients use, the proxies whose
//! forwarded headers it reads, and how many failed authentications an address may have.

use std::sync::Arc;

use ipnet::IpNet;

use super::failed_auth::FailedAuthentications;
use super::forwarded::{PublicUrlError, checked_public_url};
use super::mcp_http::McpHttp;
use crate::limit::Rate;

impl McpHttp {
    /// The URL clients reach this server at (scheme, host, and a path prefix if a proxy
    /// adds one), e.g. `https://tools.example.com`: the protected-resource metadata's
    /// `resource` is it followed by MCP's path, unless the issuer configures its own
    /// [`Oidc::resource`](crate::Oidc::resource). Without it, the URL is read from the
    /// forwarded headers of a [trusted proxy](McpHttp::trusted_proxy), else `http://` and the
    /// request's checked `Host`.
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().public_url("https://tools.example.com")?;
    /// assert!(lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap())
    ///     .http().public_url("tools.example.com").is_err());
    /// # Ok::<(), lazytool_mcp::PublicUrlError>(())
    /// ```
    pub fn public_url(mut self, url: &str) -> Result<Self, PublicUrlError> {
        self.edge.set_public_url(checked_public_url(url)?);
        Ok(self)
    }

    /// Reads `X-Forwarded-For`, `X-Forwarded-Proto` and `X-Forwarded-Host` (or `Forwarded`)
    /// from connections of `proxies` (repeatable): the client's address for the limit on
    /// failed authentication ([`McpHttp::failed_authentication_limit`]), and the URL for the
    /// protected-resource metadata. The forwarded headers of any other peer are ignored: a
    /// client cannot claim another's address. `X-Forwarded-For` is read from its right end,
    /// skipping trusted proxies.
    ///
    /// ```
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().trusted_proxy("10.0.0.0/8".parse()?).trusted_proxy("127.0.0.1/32".parse()?);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn trusted_proxy(mut self, proxies: IpNet) -> Self {
        self.edge.trust(proxies);
        self
    }

    /// Limits failed authentication per client address (a missing, unknown, expired or
    /// otherwise refused token): past `rate`, an address gets `429` with `Retry-After`
    /// before its token is checked, until its bucket has room again, and its refusals are
    /// written to the audit trail once every 10 s (with the count of those that were not).
    /// `None` lifts the limit. Default: 60 a minute, all at once if they come so, then one a
    /// second. Behind a
    /// proxy, name it with [`trusted_proxy`](McpHttp::trusted_proxy), or every client counts
    /// as the proxy's address.
    ///
    /// ```
    /// use lazytool_mcp::Rate;
    ///
    /// # let server = lazytool_mcp::McpServer::new(lazytool_runtime::Registry::builder().without_inventory().build().unwrap());
    /// let http = server.http().bearer_token("s3cret").failed_authentication_limit(Some(Rate::new(0.5, 10)?));
    /// # Ok::<(), lazytool_mcp::InvalidLimit>(())
    /// ```
    pub fn failed_authentication_limit(mut self, rate: Option<Rate>) -> Self {
        self.failed_auth = Arc::new(FailedAuthentications::new(rate));
        self
    }
}
