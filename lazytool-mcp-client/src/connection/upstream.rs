//! Where an upstream MCP server is and how to reach it: [`Upstream`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::connection::child::InheritEnv;
#[cfg(feature = "oauth")]
use crate::oauth::config::OAuth;
use crate::redact::Redactor;

/// An upstream MCP server: a command run as a child process speaking MCP on its stdio, or
/// a streamable HTTP endpoint. The two shapes of an `mcpServers` entry.
///
/// Its `Debug` form hides the values of `env` and `headers` and what a URL carries in its
/// user information and query: they are where secrets are.
///
/// ```
/// use lazytool_mcp_client::Upstream;
///
/// let git = Upstream::command("uvx", ["mcp-server-git"]).env("GIT_AUTHOR_NAME", "bot");
/// let remote = Upstream::url("https://mcp.example.com/mcp").header("Authorization", "Bearer t0ken-123");
/// assert!(!format!("{remote:?}").contains("t0ken-123"));
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Upstream {
    /// A child process, found on `PATH`, with `env` and the parent's variables that
    /// `inherit_env` names.
    Command {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Its own variables.
        env: BTreeMap<String, String>,
        /// Which of the parent's variables it gets (default: [`InheritEnv::Base`]).
        inherit_env: InheritEnv,
        /// Its working directory (default: the parent's).
        cwd: Option<PathBuf>,
    },
    /// A streamable HTTP endpoint.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    Http {
        /// The endpoint, such as `https://host/mcp`.
        url: String,
        /// Headers sent with every request (`Authorization`, say).
        headers: BTreeMap<String, String>,
        /// MCP authorization, when the server requires it.
        #[cfg(feature = "oauth")]
        #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
        oauth: Option<OAuth>,
    },
}

// Without feature `http` a command is the only upstream.
#[cfg_attr(not(feature = "http"), expect(irrefutable_let_patterns))]
impl Upstream {
    /// A child process running `command` with `args`.
    pub fn command<S: Into<String>>(
        command: impl Into<String>,
        args: impl IntoIterator<Item = S>,
    ) -> Self {
        Upstream::Command {
            command: command.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            inherit_env: InheritEnv::default(),
            cwd: None,
        }
    }

    /// A streamable HTTP endpoint at `url`.
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn url(url: impl Into<String>) -> Self {
        Upstream::Http {
            url: url.into(),
            headers: BTreeMap::new(),
            #[cfg(feature = "oauth")]
            oauth: None,
        }
    }

    /// Sets an environment variable of the child process (no effect on an HTTP upstream).
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Upstream::Command { env, .. } = &mut self {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Which of the parent's environment variables the child process gets besides its own
    /// (no effect on an HTTP upstream). Default: [`InheritEnv::Base`].
    pub fn inherit_env(mut self, inherit: InheritEnv) -> Self {
        if let Upstream::Command { inherit_env, .. } = &mut self {
            *inherit_env = inherit;
        }
        self
    }

    /// Sets the working directory of the child process (no effect on an HTTP upstream).
    pub fn cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        if let Upstream::Command { cwd, .. } = &mut self {
            *cwd = Some(dir.into());
        }
        self
    }

    /// Adds a header to every request (no effect on a child process).
    #[cfg(feature = "http")]
    #[cfg_attr(docsrs, doc(cfg(feature = "http")))]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Upstream::Http { headers, .. } = &mut self {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// Reaches the server with MCP authorization (no effect on a child process): tokens
    /// from `oauth`'s store, obtained as it says.
    ///
    /// ```
    /// use lazytool_mcp_client::{OAuth, Upstream};
    ///
    /// let linear = Upstream::url("https://mcp.linear.app/mcp").oauth(OAuth::new().scopes(["read"]));
    /// assert!(matches!(linear, Upstream::Http { oauth: Some(_), .. }));
    /// ```
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    pub fn oauth(mut self, settings: OAuth) -> Self {
        if let Upstream::Http { oauth, .. } = &mut self {
            *oauth = Some(settings);
        }
        self
    }

    /// What hides this upstream's secrets in text about it: the values of its environment or
    /// headers (and a `Bearer` token alone), and what URLs carry.
    ///
    /// ```
    /// let upstream = lazytool_mcp_client::Upstream::command("server", ["--verbose"]).env("API_KEY", "k3y-123456");
    /// assert_eq!(upstream.redactor().apply("API_KEY=k3y-123456"), "API_KEY=***");
    /// ```
    pub fn redactor(&self) -> Redactor {
        match self {
            Upstream::Command { env, .. } => Redactor::new(env.values().map(String::as_str)),
            #[cfg(feature = "http")]
            Upstream::Http {
                headers,
                #[cfg(feature = "oauth")]
                oauth,
                ..
            } => {
                let values = headers.values().map(String::as_str);
                // `Bearer TOKEN`: the token alone may appear too.
                let words = headers
                    .values()
                    .filter_map(|value| value.split_once(' '))
                    .map(|(_, word)| word);
                let secrets = values.chain(words);
                #[cfg(feature = "oauth")]
                let secrets = secrets.chain(oauth.iter().flat_map(OAuth::secrets));
                Redactor::new(secrets)
            }
        }
    }
}

impl std::fmt::Debug for Upstream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hidden = |map: &BTreeMap<String, String>| -> BTreeMap<String, &str> {
            map.keys().map(|key| (key.clone(), "***")).collect()
        };
        match self {
            Upstream::Command {
                command,
                args,
                env,
                inherit_env,
                cwd,
            } => f
                .debug_struct("Command")
                .field("command", command)
                .field("args", args)
                .field("env", &hidden(env))
                .field("inherit_env", inherit_env)
                .field("cwd", cwd)
                .finish(),
            #[cfg(feature = "http")]
            Upstream::Http {
                url,
                headers,
                #[cfg(feature = "oauth")]
                oauth,
            } => {
                let mut http = f.debug_struct("Http");
                http.field("url", &crate::redact::redact_urls(url))
                    .field("headers", &hidden(headers));
                #[cfg(feature = "oauth")]
                http.field("oauth", oauth);
                http.finish()
            }
        }
    }
}
