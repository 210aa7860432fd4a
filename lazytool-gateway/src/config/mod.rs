//! The gateway's configuration: the `mcpServers` file an MCP client already has (Claude
//! Desktop, Claude Code, Cursor; VS Code's `servers`; JSON with comments and trailing
//! commas), plus an optional `lazytool` section. Every problem is collected, each with its
//! JSON path.

mod embeddings;
mod expand;
mod jsonc;
mod oauth;
mod reader;
mod settings;
mod shapes;

use std::fmt;

use lazytool_mcp::{McpSource, TokenStore, Upstream};
use lazytool_runtime::{DiscoveryListing, DiscoveryMode};
use serde_json::{Map, Value};

use reader::{Reader, child};

/// A parsed configuration.
///
/// ```
/// use lazytool_runtime::{DiscoveryListing, DiscoveryMode};
///
/// let config = lazytool_gateway::parse(r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#, |_| None).unwrap();
/// assert_eq!(config.servers.len(), 1);
/// assert_eq!(config.mode, DiscoveryMode::Names);
/// assert_eq!(config.listing, DiscoveryListing::Names);
/// ```
#[derive(Debug)]
pub struct Config {
    /// One source per enabled entry of `mcpServers`, in file order.
    pub servers: Vec<McpSource>,
    /// `lazytool.mode`.
    pub mode: DiscoveryMode,
    /// `lazytool.listing`: how names mode's discovery tool lists the lazy tools.
    pub listing: DiscoveryListing,
    /// `lazytool.search.embeddings`: search by meaning as well as by words.
    pub embeddings: Option<lazytool_runtime::Embeddings>,
}

/// Every problem of a configuration, each as `PATH: what is wrong`.
///
/// ```
/// let text = r#"{"mcpServers": {"git": {"command": "uvx", "args": [3]}, "web": {}}}"#;
/// let error = lazytool_gateway::parse(text, |_| None).unwrap_err();
/// assert_eq!(error.problems, [
///     "$.mcpServers.git.args[0]: expected a string, found a number",
///     "$.mcpServers.web: needs `command` (a child process) or `url` (streamable HTTP)",
/// ]);
/// assert!(error.to_string().starts_with("the configuration has 2 problems:"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The problems, in file order.
    pub problems: Vec<String>,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        let noun = if count == 1 { "problem" } else { "problems" };
        write!(f, "the configuration has {count} {noun}:")?;
        for problem in &self.problems {
            write!(f, "\n  {problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigError {}

const LAZYTOOL_KEYS: &[&str] = &[
    "mode",
    "listing",
    "servers",
    "startTimeoutMs",
    "callTimeoutMs",
    "maxDescriptionChars",
    "search",
];
/// The default of `maxDescriptionChars`.
const MAX_DESCRIPTION_CHARS: usize = 2048;

/// Parses `text` (the file's contents: JSON, comments and trailing commas allowed),
/// expanding `${VAR}`, `${env:VAR}` and `${VAR:-default}` through `var`: every problem is
/// collected into one [`ConfigError`] before anything starts. The servers are under
/// `mcpServers` (Claude, Cursor, ...) or `servers` (VS Code), each a `command` or a `url`
/// with an optional `"type": "stdio" | "http"`; a name given twice is a problem naming both
/// lines.
///
/// ```
/// let text = r#"{
///     "mcpServers": {"github": {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}},
///     "lazytool": {"mode": "search", "servers": {"github": {"deny": ["delete_*"]}}}
/// }"#;
/// let config = lazytool_gateway::parse(text, |var| (var == "GITHUB_TOKEN").then(|| "ghp_x".to_owned())).unwrap();
/// assert_eq!(config.servers[0].upstream(), &lazytool_mcp::Upstream::url("https://api.githubcopilot.com/mcp/").header("Authorization", "Bearer ghp_x"));
///
/// // VS Code's .vscode/mcp.json, as it is.
/// let vs_code = r#"{
///     // The servers of this workspace.
///     "servers": {
///         "time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time", "--local-timezone", "${TZNAME:-UTC}"]},
///     },
/// }"#;
/// let config = lazytool_gateway::parse(vs_code, |_| None).unwrap();
/// assert_eq!(config.servers[0].upstream(), &lazytool_mcp::Upstream::command("uvx", ["mcp-server-time", "--local-timezone", "UTC"]));
/// ```
pub fn parse(text: &str, var: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
    parse_with_token_store(text, var, &TokenStore::default_location())
}

/// [`parse`], with the tokens of every server that has `oauth` settings kept in `tokens`
/// (`--token-store PATH`) rather than in [`TokenStore::default_location`].
///
/// ```
/// use lazytool_mcp::{OAuth, TokenStore, Upstream};
///
/// let text = r#"{
///     "mcpServers": {"linear": {"url": "https://mcp.linear.app/mcp"}},
///     "lazytool": {"servers": {"linear": {"oauth": {"clientId": "lazytool", "scopes": ["read"]}}}}
/// }"#;
/// let tokens = TokenStore::file("/tmp/lazytool-doc/tokens.json");
/// let config = lazytool_gateway::parse_with_token_store(text, |_| None, &tokens).unwrap();
/// let oauth = OAuth::new().client_id("lazytool").scopes(["read"]).token_store(tokens);
/// assert_eq!(config.servers[0].upstream(), &Upstream::url("https://mcp.linear.app/mcp").oauth(oauth));
/// ```
pub fn parse_with_token_store(
    text: &str,
    var: impl Fn(&str) -> Option<String>,
    tokens: &TokenStore,
) -> Result<Config, ConfigError> {
    let root = jsonc::read(text).map_err(|problems| ConfigError { problems })?;
    let mut reader = Reader {
        problems: Vec::new(),
        var: &var,
    };
    let config = reader.config(&root, tokens);
    match reader.problems.is_empty() {
        true => Ok(config),
        false => Err(ConfigError {
            problems: reader.problems,
        }),
    }
}

impl Reader<'_> {
    fn config(&mut self, root: &Value, tokens: &TokenStore) -> Config {
        let mut config = Config {
            servers: Vec::new(),
            mode: DiscoveryMode::Names,
            listing: DiscoveryListing::Names,
            embeddings: None,
        };
        let Some(root) = self.object(root, "$") else {
            return config;
        };
        let empty = Map::new();
        let lazytool = match root.get("lazytool") {
            Some(section) => self.object(section, "$.lazytool").unwrap_or(&empty),
            None => &empty,
        };
        self.unknown_keys(lazytool, "$.lazytool", LAZYTOOL_KEYS);
        config.mode = self.one_of(
            lazytool.get("mode"),
            "$.lazytool.mode",
            DiscoveryMode::Names,
            &[
                ("names", DiscoveryMode::Names),
                ("search", DiscoveryMode::Search),
                ("auto", DiscoveryMode::Auto(Default::default())),
            ],
        );
        config.listing = self.one_of(
            lazytool.get("listing"),
            "$.lazytool.listing",
            DiscoveryListing::Names,
            &[
                ("grouped", DiscoveryListing::GroupedNames),
                ("names", DiscoveryListing::Names),
                ("firstSentence", DiscoveryListing::FirstSentence),
                ("fullDescription", DiscoveryListing::FullDescription),
            ],
        );
        config.embeddings = lazytool
            .get("search")
            .and_then(|search| self.search(search));
        let start = self.millis(
            lazytool.get("startTimeoutMs"),
            "$.lazytool.startTimeoutMs",
            lazytool_mcp::DEFAULT_START_TIMEOUT,
        );
        let call = self.millis(
            lazytool.get("callTimeoutMs"),
            "$.lazytool.callTimeoutMs",
            lazytool_mcp::DEFAULT_CALL_TIMEOUT,
        );
        let max_description = self.positive(
            lazytool.get("maxDescriptionChars"),
            "$.lazytool.maxDescriptionChars",
            MAX_DESCRIPTION_CHARS as u64,
            "characters",
        );
        let settings = match lazytool.get("servers") {
            Some(servers) => self.object(servers, "$.lazytool.servers").unwrap_or(&empty),
            None => &empty,
        };
        let (servers_key, servers) = self.servers(root).unwrap_or(("mcpServers", &empty));
        for name in settings.keys().filter(|name| !servers.contains_key(*name)) {
            self.problem(
                &child("$.lazytool.servers", name),
                format!("no server of this name in `{servers_key}`"),
            );
        }
        let servers_path = child("$", servers_key);
        for (name, entry) in servers {
            let path = child(&servers_path, name);
            if !name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                || name.is_empty()
            {
                self.problem(&path, "a server name may hold only letters, digits, `_` and `-` (it prefixes its tools' names)");
            } else if name.contains("__") {
                self.problem(&path, "a server name may not hold `__`, which separates it from its tools' names (`a__b` with tool `c` and `a` with tool `b__c` would both be `a__b__c`)");
            }
            let Some(entry) = self.object(entry, &path) else {
                continue;
            };
            if entry.get("disabled") == Some(&Value::Bool(true)) {
                continue;
            }
            let upstream = self.upstream(entry, &path);
            let settings_path = child("$.lazytool.servers", name);
            let source = settings
                .get(name)
                .and_then(|settings| self.object(settings, &settings_path))
                .map(|settings| self.settings(settings, &settings_path, max_description, tokens));
            let Some(mut upstream) = upstream else {
                continue;
            };
            if let Some(oauth) = source.as_ref().and_then(|source| source.oauth.clone()) {
                if matches!(upstream, Upstream::Http { .. }) {
                    upstream = upstream.oauth(oauth);
                } else {
                    self.problem(
                        &child(&settings_path, "oauth"),
                        "only a `url` server (streamable HTTP) can use OAuth",
                    );
                }
            }
            if let Some(inherit) = source
                .as_ref()
                .and_then(|source| source.inherit_env.clone())
            {
                upstream = upstream.inherit_env(inherit);
            }
            let mut server = McpSource::new(name.as_str(), upstream)
                .start_timeout(start)
                .call_timeout(call)
                .max_description_chars(max_description as usize);
            if let Some(source) = source {
                server = (server.selection(source.selection))
                    .max_description_chars(source.max_description as usize)
                    .pin(source.pin);
                if let Some(idle) = source.idle_timeout {
                    server = server.idle_timeout(idle);
                }
                if let Some(prefix) = source.prefix {
                    server = server.prefix(prefix);
                }
            }
            config.servers.push(server);
        }
        config
    }
}
