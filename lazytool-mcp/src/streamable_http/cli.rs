//! The HTTP serving flags both binaries share: [`HttpArgs`] (feature `cli`).

use std::path::PathBuf;
use std::time::Duration;

use super::mcp_http::McpHttp;
use super::origin::OriginPattern;
use super::principals::{Principals, warn_if_readable_by_others};
use crate::server::McpServer;

/// The environment variable that gives the bearer token when neither `--token` nor
/// `--token-file` does.
pub const TOKEN_ENV: &str = "LAZYTOOL_TOKEN";

/// How to serve over HTTP, as command-line flags: flatten it into a binary's arguments
/// (`#[command(flatten)]`) and turn it into an [`McpHttp`] with [`apply`](HttpArgs::apply).
///
/// ```
/// use clap::Parser;
/// use lazytool_mcp::HttpArgs;
///
/// #[derive(Parser)]
/// struct Cli {
///     #[arg(long)]
///     http: Option<String>,
///     #[command(flatten)]
///     serving: HttpArgs,
/// }
///
/// let cli = Cli::parse_from(["server", "--http", "0.0.0.0:8080", "--allowed-host", "tools.example", "--max-sessions", "200", "--drain-timeout", "10s"]);
/// assert_eq!(cli.serving.allowed_hosts, ["tools.example"]);
/// assert_eq!(cli.serving.drain_timeout, Some(std::time::Duration::from_secs(10)));
/// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
/// let http = cli.serving.apply(lazytool_mcp::McpServer::new(registry))?;
/// # Ok::<(), lazytool_mcp::HttpArgsError>(())
/// ```
#[derive(clap::Args, Clone, Debug, Default)]
#[command(next_help_heading = "HTTP serving")]
#[non_exhaustive]
pub struct HttpArgs {
    /// A `Host` clients may name (repeatable): the DNS name or address clients and balancers
    /// use, `NAME` or `NAME:PORT`. Default: localhost, 127.0.0.1 and ::1 only
    #[arg(long = "allowed-host", value_name = "NAME")]
    pub allowed_hosts: Vec<String>,
    /// A browser origin that may call (repeatable): `scheme://host`, `scheme://host:PORT` or
    /// `scheme://host:*`. Local origins are always allowed
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<OriginPattern>,
    /// The most sessions live at once; beyond, the least recently used idle one is closed
    /// (default 1000: a flood of handshakes stays under about 100 MB)
    #[arg(long, value_name = "N")]
    pub max_sessions: Option<usize>,
    /// The most sessions one principal may have at once
    #[arg(long, value_name = "N")]
    pub max_sessions_per_principal: Option<usize>,
    /// The most connections open at once (default 512, at most half the open-file limit);
    /// beyond, the one idle longest is closed, or with none idle the new one gets 503
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,
    /// How long a session may stay without requests (`90s`, `10m`, `1h`; default 10m)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub session_idle_timeout: Option<Duration>,
    /// How long a shutdown (SIGTERM, Ctrl-C) lets running requests finish (default 30s)
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub drain_timeout: Option<Duration>,
    /// Require `Authorization: Bearer SECRET`. Without --token and --token-file, the
    /// environment variable LAZYTOOL_TOKEN gives the token if it is set
    #[arg(long, value_name = "SECRET")]
    pub token: Option<String>,
    /// Require the bearer token held in this file (its first line)
    #[arg(long, value_name = "PATH", conflicts_with = "token")]
    pub token_file: Option<PathBuf>,
    /// Bearer tokens (or their SHA-256) of named principals, each with allow and deny globs
    /// over tool, prompt and resource names: a JSON or TOML file
    #[arg(long, value_name = "FILE")]
    pub principals: Option<PathBuf>,
    /// Also accept bearer tokens that are JWTs of this OpenID Connect issuer (its `iss`, an
    /// https:// URL; http:// on loopback only), checked against its key set; clients learn
    /// it from /.well-known/oauth-protected-resource. Needs --audience
    #[cfg(feature = "oidc")]
    #[arg(long, value_name = "URL", requires = "audience")]
    pub oidc_issuer: Option<String>,
    /// The audience (`aud`) the issuer's tokens must name: this server's identifier there
    #[cfg(feature = "oidc")]
    #[arg(long, value_name = "AUD", requires = "oidc_issuer")]
    pub audience: Option<String>,
    /// The URL clients reach this server at, `https://HOST[:PORT][/PATH]` (behind a proxy
    /// that ends TLS, say): the protected-resource metadata names it followed by /mcp
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// A proxy whose X-Forwarded-For/-Proto/-Host (or Forwarded) headers are read, as an
    /// address or a CIDR range (repeatable); every other peer's are ignored
    #[arg(long = "trusted-proxy", value_name = "CIDR", value_parser = parse_cidr)]
    pub trusted_proxies: Vec<ipnet::IpNet>,
    /// The most failed authentications a client address may have a minute (at once, then
    /// refilled evenly) before it gets 429 without its token being checked; 0: no limit
    /// (default 60)
    #[arg(long, value_name = "N")]
    pub max_failed_auth_per_minute: Option<u32>,
}

/// Why [`HttpArgs`] cannot be applied: a file that cannot be read or is invalid.
///
/// ```
/// use lazytool_mcp::HttpArgs;
///
/// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
/// let mut args = HttpArgs::default();
/// args.token_file = Some("/no/such/file".into());
/// let error = args.apply(lazytool_mcp::McpServer::new(registry)).unwrap_err();
/// assert!(error.to_string().contains("/no/such/file"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpArgsError(String);

impl std::fmt::Display for HttpArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for HttpArgsError {}

impl HttpArgs {
    /// HTTP serving for `server` as the flags say: tokens and principals (restricting
    /// `server` by the principals' globs, on top of its own restrictions), hosts, origins and
    /// bounds.
    ///
    /// ```
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let mut args = lazytool_mcp::HttpArgs::default();
    /// args.token = Some("a-secret".into());
    /// let http = args.apply(lazytool_mcp::McpServer::new(registry))?;
    /// # Ok::<(), lazytool_mcp::HttpArgsError>(())
    /// ```
    pub fn apply(&self, server: McpServer) -> Result<McpHttp, HttpArgsError> {
        Ok(self.prepare()?.apply(server))
    }

    /// Reads the files the flags name (token, principals) now, and checks `--oidc-issuer`'s
    /// URL ([`Oidc::check_issuer_url`](crate::Oidc::check_issuer_url)), so that a binary
    /// reports a bad one before it starts anything; [`PreparedHttp::apply`] then cannot fail.
    ///
    /// ```
    /// let mut args = lazytool_mcp::HttpArgs::default();
    /// args.principals = Some("/no/such/principals.toml".into());
    /// let error = args.prepare().unwrap_err();
    /// assert!(error.to_string().contains("/no/such/principals.toml"));
    /// ```
    pub fn prepare(&self) -> Result<PreparedHttp, HttpArgsError> {
        if let Some(url) = &self.public_url {
            // Checked here so that a bad URL stops the binary before it starts anything.
            super::forwarded::checked_public_url(url)
                .map_err(|error| HttpArgsError(format!("--public-url: {error}")))?;
        }
        let principals = match &self.principals {
            Some(path) => Some(
                Principals::from_file(path).map_err(|error| HttpArgsError(error.to_string()))?,
            ),
            None => None,
        };
        #[cfg(feature = "oidc")]
        if let Some(issuer) = &self.oidc_issuer {
            super::oidc::Oidc::check_issuer_url(issuer)
                .map_err(|error| HttpArgsError(format!("--oidc-issuer: {error}")))?;
        }
        Ok(PreparedHttp {
            args: self.clone(),
            principals,
            token: self.token()?,
            #[cfg(feature = "oidc")]
            oidc: (self.oidc_issuer.clone()).map(|issuer| {
                let oidc = super::oidc::Oidc::issuer(issuer);
                match &self.audience {
                    Some(audience) => oidc.audience(audience.clone()),
                    None => oidc,
                }
            }),
        })
    }

    /// The first flag given that only HTTP serving reads, for a binary to refuse it without
    /// `--http`.
    ///
    /// ```
    /// let mut args = lazytool_mcp::HttpArgs::default();
    /// assert_eq!(args.given(), None);
    /// args.max_sessions = Some(5);
    /// assert_eq!(args.given(), Some("--max-sessions"));
    /// ```
    pub fn given(&self) -> Option<&'static str> {
        [
            (!self.allowed_hosts.is_empty(), "--allowed-host"),
            (!self.allowed_origins.is_empty(), "--allowed-origin"),
            (self.max_sessions.is_some(), "--max-sessions"),
            (
                self.max_sessions_per_principal.is_some(),
                "--max-sessions-per-principal",
            ),
            (self.max_connections.is_some(), "--max-connections"),
            (
                self.session_idle_timeout.is_some(),
                "--session-idle-timeout",
            ),
            (self.drain_timeout.is_some(), "--drain-timeout"),
            (self.token.is_some(), "--token"),
            (self.token_file.is_some(), "--token-file"),
            (self.principals.is_some(), "--principals"),
            #[cfg(feature = "oidc")]
            (self.oidc_issuer.is_some(), "--oidc-issuer"),
            (self.public_url.is_some(), "--public-url"),
            (!self.trusted_proxies.is_empty(), "--trusted-proxy"),
            (
                self.max_failed_auth_per_minute.is_some(),
                "--max-failed-auth-per-minute",
            ),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }

    /// The drain timeout the flags ask for, or the default.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp::HttpArgs::default().drain(), lazytool_mcp::DEFAULT_DRAIN_TIMEOUT);
    /// ```
    pub fn drain(&self) -> Duration {
        self.drain_timeout
            .unwrap_or(super::limits::DEFAULT_DRAIN_TIMEOUT)
    }

    /// The bearer token of `--token`, `--token-file` or else `LAZYTOOL_TOKEN`.
    fn token(&self) -> Result<Option<String>, HttpArgsError> {
        if let Some(token) = &self.token {
            return Ok(Some(token.clone()));
        }
        let Some(path) = &self.token_file else {
            let from_env = std::env::var(TOKEN_ENV).ok();
            return Ok(from_env.filter(|token| !token.trim().is_empty()));
        };
        let text = std::fs::read_to_string(path)
            .map_err(|error| HttpArgsError(format!("--token-file {}: {error}", path.display())))?;
        warn_if_readable_by_others(path);
        let token = text.lines().next().unwrap_or_default().trim();
        if token.is_empty() {
            return Err(HttpArgsError(format!(
                "--token-file {}: the file is empty; write the token on its first line",
                path.display()
            )));
        }
        Ok(Some(token.to_owned()))
    }
}

/// [`HttpArgs`] with the files they name read: [`HttpArgs::prepare`].
///
/// ```
/// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
/// let mut args = lazytool_mcp::HttpArgs::default();
/// args.max_sessions = Some(50);
/// let prepared = args.prepare()?;
/// // ... start what the server needs; nothing can fail from here on.
/// let http = prepared.apply(lazytool_mcp::McpServer::new(registry));
/// # Ok::<(), lazytool_mcp::HttpArgsError>(())
/// ```
#[derive(Clone)]
pub struct PreparedHttp {
    args: HttpArgs,
    principals: Option<Principals>,
    token: Option<String>,
    #[cfg(feature = "oidc")]
    oidc: Option<super::oidc::Oidc>,
}

impl std::fmt::Debug for PreparedHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedHttp")
            .field("allowed_hosts", &self.args.allowed_hosts)
            .field("principals", &self.principals.is_some())
            .field("token", &self.token.as_ref().map(|_| "(hidden)"))
            .finish_non_exhaustive()
    }
}

impl PreparedHttp {
    /// The OIDC issuer's settings: `--oidc-issuer` and `--audience`, or those of
    /// [`with_oidc`](PreparedHttp::with_oidc). Call [`Oidc::discover`](crate::Oidc::discover)
    /// on them before serving to stop early on a wrong issuer.
    ///
    /// ```
    /// let mut args = lazytool_mcp::HttpArgs::default();
    /// args.oidc_issuer = Some("https://login.example.com".into());
    /// args.audience = Some("lazytool".into());
    /// let prepared = args.prepare()?;
    /// assert_eq!(prepared.oidc().map(|oidc| oidc.issuer_url()), Some("https://login.example.com"));
    /// # Ok::<(), lazytool_mcp::HttpArgsError>(())
    /// ```
    #[cfg(feature = "oidc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oidc")))]
    pub fn oidc(&self) -> Option<&super::oidc::Oidc> {
        self.oidc.as_ref()
    }

    /// Takes `oidc` (from a configuration file, with its rules), its issuer and audience
    /// replaced by `--oidc-issuer` and `--audience` when they are given.
    ///
    /// ```
    /// use lazytool_mcp::{ClaimRule, Oidc};
    ///
    /// let mut args = lazytool_mcp::HttpArgs::default();
    /// args.oidc_issuer = Some("https://id.example".into());
    /// args.audience = Some("tools".into());
    /// let from_file = Oidc::issuer("https://old.example").audience("x").rule(ClaimRule::new().when("groups", "ops"));
    /// let prepared = args.prepare()?.with_oidc(from_file);
    /// assert_eq!(prepared.oidc().map(|oidc| oidc.issuer_url()), Some("https://id.example"));
    /// # Ok::<(), lazytool_mcp::HttpArgsError>(())
    /// ```
    #[cfg(feature = "oidc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oidc")))]
    pub fn with_oidc(mut self, oidc: super::oidc::Oidc) -> Self {
        self.oidc = Some(match &self.args.oidc_issuer {
            Some(issuer) => oidc.with_issuer(issuer.clone(), self.args.audience.clone()),
            None => oidc,
        });
        self
    }

    /// HTTP serving for `server` as the flags say: see [`HttpArgs::apply`].
    ///
    /// ```
    /// # let registry = lazytool_runtime::Registry::builder().without_inventory().build().unwrap();
    /// let http = lazytool_mcp::HttpArgs::default()
    ///     .prepare()?
    ///     .apply(lazytool_mcp::McpServer::new(registry));
    /// # Ok::<(), lazytool_mcp::HttpArgsError>(())
    /// ```
    pub fn apply(self, server: McpServer) -> McpHttp {
        let Self {
            args,
            principals,
            token,
            #[cfg(feature = "oidc")]
            oidc,
        } = self;
        let server = match &principals {
            Some(principals) => principals.restrict(server),
            None => server,
        };
        let mut http = server.http();
        if let Some(principals) = &principals {
            http = principals.accept(http);
        }
        if let Some(token) = token {
            http = http.bearer_token(token);
        }
        #[cfg(feature = "oidc")]
        if let Some(oidc) = oidc {
            http = http.oidc(oidc);
        }
        if !args.allowed_hosts.is_empty() {
            http = http.allowed_hosts(args.allowed_hosts.iter().cloned());
        }
        for origin in &args.allowed_origins {
            http = http.allow_origin(origin.clone());
        }
        if let Some(url) = &args.public_url {
            // `prepare` checked it.
            http = match http.clone().public_url(url) {
                Ok(with_url) => with_url,
                Err(_) => http,
            };
        }
        for proxies in &args.trusted_proxies {
            http = http.trusted_proxy(*proxies);
        }
        if let Some(per_minute) = args.max_failed_auth_per_minute {
            let rate = crate::limit::Rate::new(f64::from(per_minute) / 60.0, per_minute);
            http = http.failed_authentication_limit(rate.ok());
        }
        let mut limits = http.limits;
        if let Some(max) = args.max_sessions {
            limits = limits.max_sessions(max);
        }
        if let Some(max) = args.max_sessions_per_principal {
            limits = limits.max_sessions_per_principal(max);
        }
        if let Some(max) = args.max_connections {
            limits = limits.max_connections(max);
        }
        if let Some(timeout) = args.session_idle_timeout {
            limits = limits.session_idle_timeout(timeout);
        }
        if let Some(timeout) = args.drain_timeout {
            limits = limits.drain_timeout(timeout);
        }
        http.limits(limits)
    }
}

/// The value of a binary's `--http` flag: `ADDR:PORT`, or a bare `PORT` on the loopback
/// interface only (serving every interface must be asked for).
///
/// ```
/// use lazytool_mcp::parse_listen_addr;
///
/// assert_eq!(parse_listen_addr("8080"), Ok("127.0.0.1:8080".parse().unwrap()));
/// assert_eq!(parse_listen_addr("0.0.0.0:80"), Ok("0.0.0.0:80".parse().unwrap()));
/// assert!(parse_listen_addr("localhost").is_err());
/// ```
pub fn parse_listen_addr(addr: &str) -> Result<std::net::SocketAddr, String> {
    match addr.parse::<u16>() {
        Ok(port) => Ok(std::net::SocketAddr::from((
            std::net::Ipv4Addr::LOCALHOST,
            port,
        ))),
        Err(_) => addr
            .parse()
            .map_err(|_| format!("`{addr}` is not an address like 127.0.0.1:8080 or a port")),
    }
}

/// An address or a CIDR range: `10.0.0.0/8`, `192.0.2.7`, `::1`.
fn parse_cidr(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("`{text}` is neither an address nor a CIDR range like 10.0.0.0/8"))
}

/// A duration: a number and a unit (`ms`, `s`, `m`, `h`), or a number of seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let invalid = || format!("`{text}` is not a duration: write 500ms, 30s, 10m or 1h");
    let number: f64 = number.parse().map_err(|_| invalid())?;
    let seconds = match unit.trim() {
        "ms" => number / 1_000.0,
        "" | "s" => number,
        "m" => number * 60.0,
        "h" => number * 3_600.0,
        _ => return Err(invalid()),
    };
    Duration::try_from_secs_f64(seconds).map_err(|_| invalid())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_states_the_defaults_of_the_bounds() {
        use clap::CommandFactory;

        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            serving: HttpArgs,
        }
        let help = Cli::command().render_long_help().to_string();
        let sessions = format!("default {}", super::super::limits::DEFAULT_MAX_SESSIONS);
        let connections = format!("default {}", super::super::limits::DEFAULT_MAX_CONNECTIONS);
        assert!(help.contains(&sessions), "{help}");
        assert!(help.contains(&connections), "{help}");
    }

    #[test]
    fn durations_take_a_unit_or_seconds() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7_200)));
        for bad in ["", "ten", "5d", "-1s", "1e400s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn proxies_are_addresses_or_ranges_and_a_public_url_is_checked_first() {
        assert_eq!(
            parse_cidr("10.0.0.0/8").map(|net| net.to_string()),
            Ok("10.0.0.0/8".to_owned())
        );
        assert_eq!(
            parse_cidr("192.0.2.7").map(|net| net.to_string()),
            Ok("192.0.2.7/32".to_owned())
        );
        assert!(parse_cidr("10.0.0.0/33").is_err());
        assert!(parse_cidr("proxy.internal").is_err());
        let args = HttpArgs {
            public_url: Some("tools.example.com".to_owned()),
            ..HttpArgs::default()
        };
        let error = args.prepare().expect_err("not a URL clients use");
        assert!(error.to_string().starts_with("--public-url:"), "{error}");
    }

    #[cfg(feature = "oidc")]
    #[test]
    fn an_oidc_issuer_in_the_clear_is_refused_loopback_excepted() {
        let mut args = HttpArgs {
            oidc_issuer: Some("http://login.example.com".into()),
            audience: Some("lazytool".into()),
            ..HttpArgs::default()
        };
        let error = args.prepare().err().map(|error| error.to_string());
        assert!(
            (error.as_deref()).is_some_and(|error| error.starts_with(
                "--oidc-issuer: the issuer `http://login.example.com` is not an https:// URL"
            )),
            "{error:?}"
        );
        for good in ["https://login.example.com", "http://127.0.0.1:9000"] {
            args.oidc_issuer = Some(good.into());
            assert!(args.prepare().is_ok(), "{good}");
        }
    }
}
