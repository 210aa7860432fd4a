//! The gateway's configuration: the `mcpServers` file an MCP client already has (Claude
//! Desktop, Claude Code, Cursor; VS Code's `servers`; JSON with comments and trailing
//! commas), plus an optional `lazytool` section. Every problem is collected, each with its
//! JSON path and its line and column, in file order.

mod audit;
mod code;
mod embeddings;
mod expand;
mod fingerprint;
mod identity;
mod jsonc;
mod limits;
mod oauth;
mod reader;
mod request_state;
mod settings;
mod shapes;
mod shared;

use std::fmt;
use std::path::{Path, PathBuf};

use lazytool_mcp::PrincipalLimits;

use lazytool_mcp_client::{McpSource, TokenStore, Upstream};
use lazytool_runtime::{DiscoveryListing, DiscoveryMode};
use serde_json::{Map, Value};

pub use audit::AuditSettings;
pub use fingerprint::Fingerprints;
use reader::{Reader, child};
pub use request_state::RequestStateSettings;

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
    /// `lazytool.mode` (with `"code"`: `lazytool.code.discovery`, names by default, and the
    /// field `code`, with the feature `code-mode`).
    pub mode: DiscoveryMode,
    /// `lazytool.listing`: how names mode's discovery tool lists the lazy tools.
    pub listing: DiscoveryListing,
    /// `lazytool.search.embeddings`: search by meaning as well as by words.
    pub embeddings: Option<lazytool_runtime::Embeddings>,
    /// `lazytool.oidc`: the OpenID Connect issuer whose tokens `--http` accepts, with its
    /// rules (`--oidc-issuer` and `--audience` replace its issuer and audience).
    pub oidc: Option<lazytool_mcp::Oidc>,
    /// `lazytool.limits`: each principal's tool-call limits (HTTP serving).
    pub principal_limits: Option<PrincipalLimits>,
    /// `lazytool.audit`: the audit trail's file and rotation.
    pub audit: Option<AuditSettings>,
    /// `"mode": "code"`: the tools called from scripts through `__lazy__code__`, with the
    /// limits of `lazytool.code` (`None` in any other mode).
    ///
    /// ```
    /// let text = r#"{"mcpServers": {}, "lazytool": {"mode": "code", "code": {"maxToolCalls": 20}}}"#;
    /// let config = lazytool_gateway::parse(text, |_| None).unwrap();
    /// assert_eq!(config.code.unwrap().max_tool_calls, 20);
    /// ```
    #[cfg(feature = "code-mode")]
    pub code: Option<lazytool_runtime::CodeMode>,
    /// `lazytool.requestState`: the key and TTL of input-required results' `requestState`.
    pub request_state: Option<RequestStateSettings>,
    /// `lazytool.shared`: the Redis every replica shares (`redis`, `onFailure`,
    /// `keyPrefix`), where the principals' limits and the servers' limits are counted for
    /// all replicas together. Read only at the start.
    ///
    /// ```
    /// let text = r#"{"mcpServers": {}, "lazytool": {"shared": {"redis": "redis://:${REDIS_PASSWORD}@10.0.0.5:6379", "onFailure": "refuse"}}}"#;
    /// let config = lazytool_gateway::parse(text, |var| (var == "REDIS_PASSWORD").then(|| "s3cret".to_owned())).unwrap();
    /// let store = config.shared.unwrap();
    /// assert_eq!(store.url(), "redis://:***@10.0.0.5:6379");
    /// assert_eq!(store.failure_policy(), lazytool_mcp::FailurePolicy::Refuse);
    /// ```
    pub shared: Option<lazytool_mcp::SharedStore>,
}

/// Every problem of a configuration, each as `PATH: what is wrong`, in file order, with its
/// line and column; [`ConfigError::in_file`] names the file in front of each, as compilers do.
///
/// ```
/// let text = "{\"mcpServers\": {\n  \"git\": {\"command\": \"uvx\", \"args\": [3]},\n  \"web\": {\"comand\": \"uvx\"}\n}}";
/// let error = lazytool_gateway::parse(text, |_| None).unwrap_err();
/// assert_eq!(error.problems, [
///     "$.mcpServers.git.args[0]: expected a string, found a number",
///     "$.mcpServers.web: needs `command` (a child process) or `url` (streamable HTTP); is `comand` a typo of `command`?",
/// ]);
/// assert_eq!(error.places, [Some((2, 38)), Some((3, 3))]);
/// let error = error.in_file("mcp.json");
/// assert!(error.to_string().starts_with("mcp.json has 2 problems:\n  mcp.json:2:38: $.mcpServers.git.args[0]: "));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The problems, in file order.
    pub problems: Vec<String>,
    /// The 1-based line and column of each problem (of the key whose value is wrong, or of
    /// the array item), when it has a place in the file.
    pub places: Vec<Option<(usize, usize)>>,
    /// The file, once [`ConfigError::in_file`] names it.
    pub file: Option<PathBuf>,
}

impl ConfigError {
    /// The problems of `problems` (JSON path, what is wrong), each placed by its path (or
    /// the nearest enclosing one) in `places`, sorted in file order.
    fn placed(problems: reader::Problems, places: &jsonc::Places) -> Self {
        let mut placed: Vec<(Option<(usize, usize)>, String)> = (problems.into_iter())
            .map(|(path, message)| (place_of(&path, places), format!("{path}: {message}")))
            .collect();
        // Stable: problems at one place keep the order they were found in.
        placed.sort_by_key(|(place, _)| place.unwrap_or((0, 0)));
        let (places, problems) = placed.into_iter().unzip();
        ConfigError {
            problems,
            places,
            file: None,
        }
    }

    /// The same problems, read from `file`: shown as `FILE:LINE:COLUMN: PATH: what is wrong`.
    ///
    /// ```
    /// let error = lazytool_gateway::parse("{\"mcpServers\": {}\n \"lazytool\": {}}", |_| None).unwrap_err();
    /// assert_eq!(
    ///     error.in_file("mcp.json").to_string(),
    ///     "mcp.json has 1 problem:\n  mcp.json:1:18: $: not valid JSON: expected comma"
    /// );
    /// ```
    pub fn in_file(self, file: impl AsRef<Path>) -> Self {
        ConfigError {
            file: Some(file.as_ref().to_path_buf()),
            ..self
        }
    }
}

/// The place of `path`, or of the nearest path that holds it.
fn place_of(path: &str, places: &jsonc::Places) -> Option<(usize, usize)> {
    let mut path = path;
    loop {
        if let Some(place) = places.get(path) {
            return Some(*place);
        }
        path = &path[..path.rfind(['.', '['])?];
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.problems.len();
        let noun = if count == 1 { "problem" } else { "problems" };
        match &self.file {
            Some(file) => write!(f, "{} has {count} {noun}:", file.display())?,
            None => write!(f, "the configuration has {count} {noun}:")?,
        }
        let places = (self.places.iter().copied()).chain(std::iter::repeat(None));
        for (problem, place) in self.problems.iter().zip(places) {
            write!(f, "\n  ")?;
            if let Some(file) = &self.file {
                write!(f, "{}:", file.display())?;
            }
            if let Some((line, column)) = place {
                write!(f, "{line}:{column}:")?;
            }
            if self.file.is_some() || place.is_some() {
                write!(f, " ")?;
            }
            write!(f, "{problem}")?;
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
    "maxDefinitionBytes",
    "idleTimeoutMs",
    "pin",
    "inheritEnv",
    "search",
    "oidc",
    "limits",
    "audit",
    "code",
    "requestState",
    "shared",
];
/// The default of `maxDescriptionChars`.
pub(super) const MAX_DESCRIPTION_CHARS: usize = 2048;

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
/// assert_eq!(config.servers[0].upstream(), &lazytool_mcp_client::Upstream::url("https://api.githubcopilot.com/mcp/").header("Authorization", "Bearer ghp_x"));
///
/// // VS Code's .vscode/mcp.json, as it is.
/// let vs_code = r#"{
///     // The servers of this workspace.
///     "servers": {
///         "time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time", "--local-timezone", "${TZNAME:-UTC}"]},
///     },
/// }"#;
/// let config = lazytool_gateway::parse(vs_code, |_| None).unwrap();
/// assert_eq!(config.servers[0].upstream(), &lazytool_mcp_client::Upstream::command("uvx", ["mcp-server-time", "--local-timezone", "UTC"]));
/// ```
pub fn parse(text: &str, var: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
    parse_with_token_store(text, var, &TokenStore::default_location())
}

/// [`parse`], with the tokens of every server that has `oauth` settings kept in `tokens`
/// (`--token-store PATH`) rather than in [`TokenStore::default_location`].
///
/// ```
/// use lazytool_mcp_client::{OAuth, TokenStore, Upstream};
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
    let (root, places) =
        jsonc::read(text).map_err(|(problems, places)| ConfigError::placed(problems, &places))?;
    let mut reader = Reader {
        problems: Vec::new(),
        var: &var,
    };
    let config = reader.config(&root, tokens);
    match reader.problems.is_empty() {
        true => Ok(config),
        false => Err(ConfigError::placed(reader.problems, &places)),
    }
}

impl Reader<'_> {
    fn config(&mut self, root: &Value, tokens: &TokenStore) -> Config {
        let mut config = Config {
            servers: Vec::new(),
            mode: DiscoveryMode::Names,
            listing: DiscoveryListing::Names,
            embeddings: None,
            oidc: None,
            principal_limits: None,
            audit: None,
            #[cfg(feature = "code-mode")]
            code: None,
            request_state: None,
            shared: None,
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
                ("code", DiscoveryMode::Names),
            ],
        );
        let code = lazytool.get("mode").and_then(Value::as_str) == Some("code");
        #[cfg(feature = "code-mode")]
        if let Some((discovery, options)) = self.code(lazytool, code) {
            config.mode = discovery;
            config.code = Some(options);
        }
        #[cfg(not(feature = "code-mode"))]
        self.code(lazytool, code);
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
        config.oidc = (lazytool.get("oidc")).and_then(|oidc| self.oidc(oidc, "$.lazytool.oidc"));
        if let Some(limits) = lazytool.get("limits")
            && let Some(limits) = self.object(limits, "$.lazytool.limits")
        {
            config.principal_limits = self.principal_limits(limits, "$.lazytool.limits");
        }
        if let Some(audit) = lazytool.get("audit")
            && let Some(audit) = self.object(audit, "$.lazytool.audit")
        {
            config.audit = Some(self.audit(audit, "$.lazytool.audit"));
        }
        if let Some(section) = lazytool.get("requestState")
            && let Some(section) = self.object(section, "$.lazytool.requestState")
        {
            config.request_state = Some(self.request_state(section));
        }
        let start = self.millis(
            lazytool.get("startTimeoutMs"),
            "$.lazytool.startTimeoutMs",
            lazytool_mcp_client::DEFAULT_START_TIMEOUT,
        );
        let call = self.millis(
            lazytool.get("callTimeoutMs"),
            "$.lazytool.callTimeoutMs",
            lazytool_mcp_client::DEFAULT_CALL_TIMEOUT,
        );
        if let Some(section) = lazytool.get("shared")
            && let Some(section) = self.object(section, "$.lazytool.shared")
        {
            config.shared = self.shared(section, "$.lazytool.shared", call);
        }
        let defaults = self.defaults(lazytool, "$.lazytool");
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
                .map(|settings| self.settings(settings, &settings_path, &defaults, tokens));
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
            let own = source.as_ref().map_or(&defaults, |source| &source.own);
            if let Some(inherit) = own.inherit_env.clone() {
                upstream = upstream.inherit_env(inherit);
            }
            let mut server = McpSource::new(name.as_str(), upstream)
                .start_timeout(start)
                .call_timeout(call)
                .max_description_chars(own.max_description as usize)
                .max_definition_bytes(usize::try_from(own.max_definition).unwrap_or(usize::MAX))
                .pin(own.pin);
            if let Some(idle) = own.idle_timeout {
                server = server.idle_timeout(idle);
            }
            if let Some(source) = source {
                server = server.selection(source.selection);
                if let Some(prefix) = source.prefix {
                    server = server.prefix(prefix);
                }
                server = server.call_quota(source.quota);
            }
            config.servers.push(server);
        }
        config
    }
}
