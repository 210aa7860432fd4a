//! The gateway's configuration: the standard `mcpServers` file, plus an optional `lazytool`
//! section. Every problem is collected, each with its JSON path.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use lazytool_mcp::{InheritEnv, McpSource, ToolSelection, Upstream};
use lazytool_runtime::{DiscoveryListing, DiscoveryMode};
use serde_json::{Map, Value};

use crate::expand::expand;

/// A parsed configuration.
///
/// ```
/// use lazytool_runtime::{DiscoveryListing, DiscoveryMode};
///
/// let config = lazytool_gateway::parse(r#"{"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}"#, |_| None).unwrap();
/// assert_eq!(config.servers.len(), 1);
/// assert_eq!(config.mode, DiscoveryMode::Names);
/// assert_eq!(config.listing, DiscoveryListing::GroupedNames);
/// ```
#[derive(Debug)]
pub struct Config {
    /// One source per enabled entry of `mcpServers`, in file order.
    pub servers: Vec<McpSource>,
    /// `lazytool.mode`.
    pub mode: DiscoveryMode,
    /// `lazytool.listing`: how names mode's discovery tool lists the lazy tools.
    pub listing: DiscoveryListing,
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

const SERVER_SETTINGS: &[&str] = &[
    "allow",
    "deny",
    "eager",
    "prefix",
    "inheritEnv",
    "maxDescriptionChars",
];
const LAZYTOOL_KEYS: &[&str] = &[
    "mode",
    "listing",
    "servers",
    "startTimeoutMs",
    "callTimeoutMs",
    "maxDescriptionChars",
];
/// The default of `maxDescriptionChars`.
const MAX_DESCRIPTION_CHARS: usize = 2048;

/// Parses `text` (the file's contents), expanding `${VAR}` through `var`: every problem is
/// collected into one [`ConfigError`] before anything starts.
///
/// ```
/// let text = r#"{
///     "mcpServers": {"github": {"url": "https://api.githubcopilot.com/mcp/", "headers": {"Authorization": "Bearer ${GITHUB_TOKEN}"}}},
///     "lazytool": {"mode": "search", "servers": {"github": {"deny": ["delete_*"]}}}
/// }"#;
/// let config = lazytool_gateway::parse(text, |var| (var == "GITHUB_TOKEN").then(|| "ghp_x".to_owned())).unwrap();
/// assert_eq!(config.servers[0].upstream(), &lazytool_mcp::Upstream::url("https://api.githubcopilot.com/mcp/").header("Authorization", "Bearer ghp_x"));
/// ```
pub fn parse(text: &str, var: impl Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
    let root: Value = serde_json::from_str(text).map_err(|error| ConfigError {
        problems: vec![format!("$: not valid JSON: {error}")],
    })?;
    let mut reader = Reader {
        problems: Vec::new(),
        var: &var,
    };
    let config = reader.config(&root);
    match reader.problems.is_empty() {
        true => Ok(config),
        false => Err(ConfigError {
            problems: reader.problems,
        }),
    }
}

/// A server's entry in `lazytool.servers`.
struct ServerSettings {
    selection: ToolSelection,
    prefix: Option<String>,
    inherit_env: Option<InheritEnv>,
    max_description: u64,
}

struct Reader<'v> {
    problems: Vec<String>,
    var: &'v dyn Fn(&str) -> Option<String>,
}

/// `base.key`, or `base["key"]` for keys that are not plain words.
fn child(base: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        format!("{base}.{key}")
    } else {
        format!("{base}[{}]", Value::from(key))
    }
}

impl Reader<'_> {
    fn problem(&mut self, path: &str, message: impl fmt::Display) {
        self.problems.push(format!("{path}: {message}"));
    }

    fn object<'a>(&mut self, value: &'a Value, path: &str) -> Option<&'a Map<String, Value>> {
        match value {
            Value::Object(map) => Some(map),
            other => {
                self.problem(path, format!("expected an object, found {}", kind(other)));
                None
            }
        }
    }

    fn string(&mut self, value: &Value, path: &str) -> Option<String> {
        match value {
            Value::String(text) => match expand(text, self.var) {
                Ok(text) => Some(text),
                Err(error) => {
                    self.problem(path, error);
                    None
                }
            },
            other => {
                self.problem(path, format!("expected a string, found {}", kind(other)));
                None
            }
        }
    }

    fn strings(&mut self, value: &Value, path: &str) -> Vec<String> {
        match value {
            Value::Array(items) => (items.iter().enumerate())
                .filter_map(|(i, item)| self.string(item, &format!("{path}[{i}]")))
                .collect(),
            other => {
                self.problem(
                    path,
                    format!("expected an array of strings, found {}", kind(other)),
                );
                Vec::new()
            }
        }
    }

    fn string_map(&mut self, value: &Value, path: &str) -> BTreeMap<String, String> {
        let Some(map) = self.object(value, path) else {
            return BTreeMap::new();
        };
        (map.iter())
            .filter_map(|(key, value)| Some((key.clone(), self.string(value, &child(path, key))?)))
            .collect()
    }

    fn millis(&mut self, value: Option<&Value>, path: &str, default: Duration) -> Duration {
        let default_ms = u64::try_from(default.as_millis()).unwrap_or(u64::MAX);
        Duration::from_millis(self.positive(value, path, default_ms, "milliseconds"))
    }

    fn positive(&mut self, value: Option<&Value>, path: &str, default: u64, unit: &str) -> u64 {
        match value {
            None => default,
            Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n > 0) => {
                n.as_u64().unwrap_or(default)
            }
            Some(other) => {
                self.problem(
                    path,
                    format!("expected a positive whole number of {unit}, found {other}"),
                );
                default
            }
        }
    }

    /// The value that the string `value` names among `choices`, `default` when it is absent.
    fn one_of<T: Clone>(
        &mut self,
        value: Option<&Value>,
        path: &str,
        default: T,
        choices: &[(&str, T)],
    ) -> T {
        let Some(value) = value else { return default };
        let chosen = (choices.iter()).find(|(name, _)| value.as_str() == Some(*name));
        if let Some((_, chosen)) = chosen {
            return chosen.clone();
        }
        let names: Vec<String> = (choices.iter())
            .map(|(name, _)| format!("\"{name}\""))
            .collect();
        let expected = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.concat(),
        };
        self.problem(path, format!("expected {expected}, found {value}"));
        default
    }

    fn unknown_keys(&mut self, map: &Map<String, Value>, path: &str, known: &[&str]) {
        for key in map.keys().filter(|key| !known.contains(&key.as_str())) {
            let expected = known.join(", ");
            self.problem(
                &child(path, key),
                format!("unknown key (expected one of: {expected})"),
            );
        }
    }

    fn config(&mut self, root: &Value) -> Config {
        let mut config = Config {
            servers: Vec::new(),
            mode: DiscoveryMode::Names,
            listing: DiscoveryListing::GroupedNames,
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
            DiscoveryListing::GroupedNames,
            &[
                ("grouped", DiscoveryListing::GroupedNames),
                ("names", DiscoveryListing::Names),
                ("firstSentence", DiscoveryListing::FirstSentence),
                ("fullDescription", DiscoveryListing::FullDescription),
            ],
        );
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
        let servers = match root.get("mcpServers") {
            Some(servers) => self.object(servers, "$.mcpServers").unwrap_or(&empty),
            None => {
                self.problem("$", "no `mcpServers` object");
                &empty
            }
        };
        for name in settings.keys().filter(|name| !servers.contains_key(*name)) {
            self.problem(
                &child("$.lazytool.servers", name),
                "no server of this name in `mcpServers`",
            );
        }
        for (name, entry) in servers {
            let path = child("$.mcpServers", name);
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
                .map(|settings| self.settings(settings, &settings_path, max_description));
            let Some(mut upstream) = upstream else {
                continue;
            };
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
                    .max_description_chars(source.max_description as usize);
                if let Some(prefix) = source.prefix {
                    server = server.prefix(prefix);
                }
            }
            config.servers.push(server);
        }
        config
    }

    fn upstream(&mut self, entry: &Map<String, Value>, path: &str) -> Option<Upstream> {
        let kind = entry.get("type").and_then(Value::as_str);
        match (entry.get("command"), entry.get("url")) {
            (Some(_), Some(_)) => {
                self.problem(path, "has both `command` and `url`: give one");
                None
            }
            (None, None) => {
                self.problem(
                    path,
                    "needs `command` (a child process) or `url` (streamable HTTP)",
                );
                None
            }
            (Some(command), None) => {
                let command = self.string(command, &child(path, "command"))?;
                let args = entry
                    .get("args")
                    .map(|args| self.strings(args, &child(path, "args")));
                let env = entry
                    .get("env")
                    .map(|env| self.string_map(env, &child(path, "env")));
                let cwd = entry
                    .get("cwd")
                    .and_then(|cwd| self.string(cwd, &child(path, "cwd")));
                let mut upstream = Upstream::command(command, args.unwrap_or_default());
                for (key, value) in env.unwrap_or_default() {
                    upstream = upstream.env(key, value);
                }
                Some(match cwd {
                    Some(cwd) => upstream.cwd(cwd),
                    None => upstream,
                })
            }
            (None, Some(url)) => {
                if kind == Some("sse") {
                    self.problem(
                        &child(path, "type"),
                        "the deprecated SSE transport is not supported: use a streamable HTTP URL",
                    );
                }
                let url = self.string(url, &child(path, "url"))?;
                if !url.starts_with("http://") && !url.starts_with("https://") {
                    self.problem(
                        &child(path, "url"),
                        format!("`{url}` is not an http:// or https:// URL"),
                    );
                }
                let headers = entry
                    .get("headers")
                    .map(|headers| self.string_map(headers, &child(path, "headers")));
                let mut upstream = Upstream::url(url);
                for (name, value) in headers.unwrap_or_default() {
                    upstream = upstream.header(name, value);
                }
                Some(upstream)
            }
        }
    }

    fn settings(
        &mut self,
        settings: &Map<String, Value>,
        path: &str,
        max_description: u64,
    ) -> ServerSettings {
        self.unknown_keys(settings, path, SERVER_SETTINGS);
        let mut selection = ToolSelection::new();
        for key in ["allow", "deny", "eager"] {
            let Some(value) = settings.get(key) else {
                continue;
            };
            let key_path = child(path, key);
            let patterns = self.strings(value, &key_path);
            let added = match key {
                "allow" => selection.clone().allow(&patterns),
                "deny" => selection.clone().deny(&patterns),
                _ => selection.clone().eager(&patterns),
            };
            match added {
                Ok(added) => selection = added,
                Err(error) => self.problem(&key_path, error),
            }
        }
        let prefix_path = child(path, "prefix");
        let prefix = (settings.get("prefix")).and_then(|prefix| self.string(prefix, &prefix_path));
        if prefix.as_ref().is_some_and(|prefix| prefix.contains("__")) {
            self.problem(
                &prefix_path,
                "a prefix may not hold `__`, which separates it from the tools' names",
            );
        }
        let inherit_path = child(path, "inheritEnv");
        let inherit_env = match settings.get("inheritEnv") {
            None => None,
            Some(Value::Bool(true)) => Some(InheritEnv::All),
            Some(Value::Bool(false)) => Some(InheritEnv::Base),
            Some(names @ Value::Array(_)) => {
                Some(InheritEnv::Base.and(self.strings(names, &inherit_path)))
            }
            Some(other) => {
                self.problem(
                    &inherit_path,
                    format!(
                        "expected true, false or an array of variable names, found {}",
                        kind(other)
                    ),
                );
                None
            }
        };
        let max_description = self.positive(
            settings.get("maxDescriptionChars"),
            &child(path, "maxDescriptionChars"),
            max_description,
            "characters",
        );
        ServerSettings {
            selection,
            prefix,
            inherit_env,
            max_description,
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
