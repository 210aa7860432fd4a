//! The lock file (`lazytool.lock`): what starts each server and the definitions the user
//! approved, each pinned by the SHA-256 of its canonical JSON: [`Lock`], [`ServerLock`],
//! [`Pinned`], [`LockError`], and how a source stands with it: [`LockState`].

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::connection::upstream::Upstream;
use lazytool_mcp_core::canonical;

/// The version of the lock file's format this crate writes and reads (its `lockVersion`).
///
/// ```
/// assert!(lazytool_mcp_client::Lock::new().to_text().contains(&format!("\"lockVersion\": {}", lazytool_mcp_client::LOCK_VERSION)));
/// ```
pub const LOCK_VERSION: u32 = 1;

/// The fields of a tool that are pinned: what the gateway serves of it.
const TOOL_FIELDS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
];

/// The fields of a prompt that are pinned (its name as the server names it).
const PROMPT_FIELDS: &[&str] = &["name", "title", "description", "arguments"];

/// The fields of a resource that are pinned (not its size or annotations, which change
/// with its content).
const RESOURCE_FIELDS: &[&str] = &["uri", "name", "title", "description", "mimeType"];

/// The fields of a resource template that are pinned.
const TEMPLATE_FIELDS: &[&str] = &["uriTemplate", "name", "title", "description", "mimeType"];

/// A lock file: for each server by name, what starts it and the definitions that were
/// approved. Written with sorted keys and one value per line, so that it diffs well and
/// can be committed.
///
/// ```
/// use lazytool_mcp_client::{Lock, Upstream};
///
/// let text = r#"{"lockVersion": 1, "servers": {}}"#;
/// let lock = Lock::parse(text, "lazytool.lock").unwrap();
/// assert!(lock.server("time").is_none());
/// assert_eq!(lock.stale(["time"]), Vec::<String>::new());
/// assert!(lock.to_text().starts_with("{\n  \"lockVersion\": 1"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lock {
    servers: BTreeMap<String, ServerLock>,
}

/// One server's entry in a [`Lock`].
///
/// `prompts`, `resources` and `resourceTemplates` hold those definitions pinned the same way
/// as `tools`: prompts by their upstream name (as tools are), resources by URI, templates by
/// URI template; each is left out of the file while empty.
///
/// ```
/// use lazytool_mcp_client::{ServerLock, Upstream};
///
/// let time = Upstream::command("uvx", ["mcp-server-time"]);
/// let entry = ServerLock::new(&time);
/// assert!(entry.starts(&time));
/// assert!(!entry.starts(&Upstream::command("uvx", ["mcp-server-time", "--local-timezone", "UTC"])));
/// // Environment values and headers are not part of the fingerprint.
/// assert!(entry.starts(&time.clone().env("TZ", "UTC")));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct ServerLock {
    /// The SHA-256 of what starts the server: its command and arguments, or its URL (never
    /// its environment values or headers).
    pub fingerprint: String,
    /// The protocol version agreed when it was pinned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The `serverInfo` of its answer to `initialize` (name, version, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    /// Its tools by their upstream name.
    #[serde(default)]
    pub tools: BTreeMap<String, Pinned>,
    /// Its prompts by their upstream name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub prompts: BTreeMap<String, Pinned>,
    /// Its resources by URI.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resources: BTreeMap<String, Pinned>,
    /// Its resource templates by URI template.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub resource_templates: BTreeMap<String, Pinned>,
}

/// An approved definition and the SHA-256 of its canonical JSON (keys sorted, no spaces).
///
/// ```
/// use lazytool_mcp_client::Pinned;
/// use serde_json::json;
///
/// let a = Pinned::new(json!({"name": "now", "inputSchema": {"type": "object"}}));
/// let b = Pinned::new(json!({"inputSchema": {"type": "object"}, "name": "now"}));
/// assert_eq!(a.sha256, b.sha256);
/// assert!(a.sha256.starts_with("sha256:"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Pinned {
    /// `sha256:` and the hex digest of the definition's canonical JSON.
    pub sha256: String,
    /// The definition as it is served.
    pub definition: Value,
}

/// A lock file that cannot be used: unreadable, not JSON, not a lock, or a digest that does
/// not match its definition. Its message names the file and, for JSON errors, the line and
/// column.
///
/// ```
/// use lazytool_mcp_client::Lock;
///
/// let error = Lock::parse("{\"lockVersion\": 1,\n  \"servers\": [}", "lazytool.lock").unwrap_err();
/// assert_eq!(error.to_string(), "lazytool.lock:2:13: invalid type: sequence, expected a map");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockError {
    pub(super) message: String,
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for LockError {}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct LockFile {
    lock_version: u32,
    servers: BTreeMap<String, ServerLock>,
}

impl Lock {
    /// An empty lock.
    ///
    /// ```
    /// assert!(lazytool_mcp_client::Lock::new().is_empty());
    /// ```
    pub fn new() -> Self {
        Lock::default()
    }

    /// Reads the lock at `path`.
    ///
    /// ```
    /// let error = lazytool_mcp_client::Lock::load("/nonexistent/lazytool.lock").unwrap_err();
    /// assert!(error.to_string().starts_with("cannot read /nonexistent/lazytool.lock: "));
    /// ```
    pub fn load(path: impl AsRef<Path>) -> Result<Lock, LockError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| LockError {
            message: format!("cannot read {}: {error}", path.display()),
        })?;
        Lock::parse(&text, &path.display().to_string())
    }

    /// Parses a lock file's text; `origin` (its path) names it in errors. Each pin's digest
    /// is checked against its definition.
    ///
    /// ```
    /// use lazytool_mcp_client::Lock;
    ///
    /// let text = r#"{"lockVersion": 1, "servers": {"time": {"fingerprint": "sha256:00", "tools": {"now": {"sha256": "sha256:00", "definition": {"name": "now"}}}}}}"#;
    /// let error = Lock::parse(text, "lazytool.lock").unwrap_err();
    /// assert_eq!(error.to_string(), "lazytool.lock: $.servers.time.tools.now: its sha256 does not match its definition (edited by hand?)");
    /// ```
    pub fn parse(text: &str, origin: &str) -> Result<Lock, LockError> {
        let file: LockFile = serde_json::from_str(text).map_err(|error| {
            // serde_json ends its message with the position, which leads ours instead.
            let message = error.to_string();
            let message =
                (message.rsplit_once(" at line ")).map_or(message.as_str(), |(message, _)| message);
            LockError {
                message: format!("{origin}:{}:{}: {message}", error.line(), error.column()),
            }
        })?;
        if file.lock_version != LOCK_VERSION {
            return Err(LockError {
                message: format!(
                    "{origin}: lockVersion {} is not supported (this version reads {LOCK_VERSION})",
                    file.lock_version
                ),
            });
        }
        for (name, server) in &file.servers {
            let lists = [
                ("tools", &server.tools),
                ("prompts", &server.prompts),
                ("resources", &server.resources),
                ("resourceTemplates", &server.resource_templates),
            ];
            for (list, pins) in lists {
                for (key, pinned) in pins {
                    if canonical::digest(&pinned.definition) != pinned.sha256 {
                        return Err(LockError {
                            message: format!(
                                "{origin}: $.servers.{name}.{list}.{key}: its sha256 does not match its definition (edited by hand?)"
                            ),
                        });
                    }
                }
            }
        }
        Ok(Lock {
            servers: file.servers,
        })
    }

    /// The file's text: JSON with sorted keys, indented, ending with a newline.
    ///
    /// ```
    /// let text = lazytool_mcp_client::Lock::new().to_text();
    /// assert_eq!(text, "{\n  \"lockVersion\": 1,\n  \"servers\": {}\n}\n");
    /// ```
    pub fn to_text(&self) -> String {
        let file = LockFile {
            lock_version: LOCK_VERSION,
            servers: self.servers.clone(),
        };
        let value = serde_json::to_value(&file).unwrap_or(Value::Null);
        pretty(&canonical::sorted(&value))
    }

    /// Writes the lock to `path` (a file beside it, then renamed over it: a reader never
    /// sees half a lock).
    ///
    /// ```no_run
    /// lazytool_mcp_client::Lock::new().write("lazytool.lock").unwrap();
    /// ```
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), LockError> {
        let path = path.as_ref();
        let mut partial = PathBuf::from(path);
        partial.as_mut_os_string().push(".partial");
        let failed = |error: std::io::Error| LockError {
            message: format!("cannot write {}: {error}", path.display()),
        };
        std::fs::write(&partial, self.to_text()).map_err(failed)?;
        std::fs::rename(&partial, path).map_err(failed)
    }

    /// The entry of server `name`.
    ///
    /// ```
    /// assert!(lazytool_mcp_client::Lock::new().server("time").is_none());
    /// ```
    pub fn server(&self, name: &str) -> Option<&ServerLock> {
        self.servers.get(name)
    }

    /// Every entry, by server name.
    ///
    /// ```
    /// assert_eq!(lazytool_mcp_client::Lock::new().servers().count(), 0);
    /// ```
    pub fn servers(&self) -> impl Iterator<Item = (&str, &ServerLock)> {
        self.servers
            .iter()
            .map(|(name, entry)| (name.as_str(), entry))
    }

    /// Sets the entry of server `name`, returning the one it replaces.
    ///
    /// ```
    /// use lazytool_mcp_client::{Lock, ServerLock, Upstream};
    ///
    /// let mut lock = Lock::new();
    /// lock.set("time", ServerLock::new(&Upstream::command("uvx", ["mcp-server-time"])));
    /// assert!(lock.server("time").is_some());
    /// ```
    pub fn set(&mut self, name: impl Into<String>, entry: ServerLock) -> Option<ServerLock> {
        self.servers.insert(name.into(), entry)
    }

    /// Removes the entry of server `name`.
    ///
    /// ```
    /// use lazytool_mcp_client::{Lock, ServerLock, Upstream};
    ///
    /// let mut lock = Lock::new();
    /// lock.set("time", ServerLock::new(&Upstream::command("uvx", ["mcp-server-time"])));
    /// assert!(lock.remove("time").is_some());
    /// assert!(lock.is_empty());
    /// ```
    pub fn remove(&mut self, name: &str) -> Option<ServerLock> {
        self.servers.remove(name)
    }

    /// Whether the lock has no entry.
    ///
    /// ```
    /// assert!(lazytool_mcp_client::Lock::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// The names of entries whose server is not among `configured`: stale, and unused.
    ///
    /// ```
    /// use lazytool_mcp_client::{Lock, ServerLock, Upstream};
    ///
    /// let mut lock = Lock::new();
    /// lock.set("old", ServerLock::new(&Upstream::url("http://127.0.0.1:1/mcp")));
    /// assert_eq!(lock.stale(["time"]), ["old"]);
    /// ```
    pub fn stale<'a>(&self, configured: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let configured: std::collections::HashSet<&str> = configured.into_iter().collect();
        (self.servers.keys())
            .filter(|name| !configured.contains(name.as_str()))
            .cloned()
            .collect()
    }
}

impl ServerLock {
    /// An entry for `upstream` with nothing pinned yet.
    pub fn new(upstream: &Upstream) -> Self {
        ServerLock {
            fingerprint: fingerprint(upstream),
            ..ServerLock::default()
        }
    }

    /// Whether this entry was made for `upstream`: the same command and arguments, or the
    /// same URL.
    pub fn starts(&self, upstream: &Upstream) -> bool {
        self.fingerprint == fingerprint(upstream)
    }

    /// This entry as JSON text with sorted keys, one value per line: what a diff shows.
    ///
    /// ```
    /// use lazytool_mcp_client::{ServerLock, Upstream};
    ///
    /// let entry = ServerLock::new(&Upstream::url("http://127.0.0.1:1/mcp"));
    /// assert!(entry.to_text().contains("\"tools\": {}"));
    /// ```
    pub fn to_text(&self) -> String {
        let value = serde_json::to_value(self).unwrap_or(Value::Null);
        pretty(&canonical::sorted(&value))
    }

    pub(crate) fn pin_tools<'a>(&mut self, tools: impl IntoIterator<Item = &'a Tool>) {
        self.tools = (tools.into_iter())
            .map(|tool| (tool.name.to_string(), Pinned::new(definition(tool))))
            .collect();
    }

    pub(crate) fn pin_offers(&mut self, live: &LiveOffers) {
        let pin = |definitions: &BTreeMap<String, Value>| {
            (definitions.iter())
                .map(|(key, definition)| (key.clone(), Pinned::new(definition.clone())))
                .collect()
        };
        self.prompts = pin(&live.prompts);
        self.resources = pin(&live.resources);
        self.resource_templates = pin(&live.templates);
    }
}

/// A server's live prompts, resources and templates as they are pinned: each definition by
/// its key in the lock (upstream prompt name, URI, URI template).
#[derive(Clone, Debug, Default)]
pub(crate) struct LiveOffers {
    pub(crate) prompts: BTreeMap<String, Value>,
    pub(crate) resources: BTreeMap<String, Value>,
    pub(crate) templates: BTreeMap<String, Value>,
}

impl LiveOffers {
    /// The definitions of cleaned `prompts` (each with its upstream name), `resources` and
    /// `templates`.
    pub(crate) fn new<'a>(
        prompts: impl IntoIterator<Item = (&'a str, &'a Prompt)>,
        resources: &[Resource],
        templates: &[ResourceTemplate],
    ) -> Self {
        LiveOffers {
            prompts: (prompts.into_iter())
                .map(|(upstream, prompt)| {
                    let mut prompt = prompt.clone();
                    prompt.name = upstream.to_owned();
                    (upstream.to_owned(), kept(&prompt, PROMPT_FIELDS))
                })
                .collect(),
            resources: (resources.iter())
                .map(|resource| (resource.uri.clone(), kept(resource, RESOURCE_FIELDS)))
                .collect(),
            templates: (templates.iter())
                .map(|template| {
                    let key = template.uri_template.clone();
                    (key, kept(template, TEMPLATE_FIELDS))
                })
                .collect(),
        }
    }
}

impl Pinned {
    /// `definition`, pinned by the SHA-256 of its canonical JSON.
    pub fn new(definition: Value) -> Self {
        Pinned {
            sha256: canonical::digest(&definition),
            definition: canonical::sorted(&definition),
        }
    }
}

/// The definition of `tool` that is pinned: its name, title, description, schemas and
/// annotations (not its icons or `_meta`).
pub(crate) fn definition(tool: &Tool) -> Value {
    kept(tool, TOOL_FIELDS)
}

/// The `fields` of `item`'s JSON, keys sorted.
fn kept(item: &impl Serialize, fields: &[&str]) -> Value {
    let Ok(Value::Object(all)) = serde_json::to_value(item) else {
        return Value::Null;
    };
    let kept: Map<String, Value> = all
        .into_iter()
        .filter(|(key, _)| fields.contains(&key.as_str()))
        .collect();
    canonical::sorted(&Value::Object(kept))
}

/// The SHA-256 of what starts `upstream`: command and arguments, or URL.
fn fingerprint(upstream: &Upstream) -> String {
    let what = match upstream {
        Upstream::Command { command, args, .. } => {
            serde_json::json!({"command": command, "args": args})
        }
        #[cfg(feature = "http")]
        Upstream::Http { url, .. } => serde_json::json!({"url": url}),
    };
    canonical::digest(&what)
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_default();
    text.push('\n');
    text
}

/// How a source stands with its lock: what [`McpSource::lock_state`](crate::McpSource::lock_state)
/// says.
///
/// ```
/// use lazytool_mcp_client::{Lock, LockState, McpSource, Upstream};
///
/// let time = McpSource::new("time", Upstream::command("uvx", ["mcp-server-time"]));
/// assert_eq!(time.lock_state(), LockState::Unlocked);
/// let time = time.lock(&Lock::new());
/// assert_eq!(time.lock_state(), LockState::NotInLock);
/// assert_eq!(time.lock_state().to_string(), "not in the lock: started at once");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum LockState {
    /// No lock was given: started at once, its definitions served as they are.
    Unlocked,
    /// The lock has no entry for it: started at once, its definitions served as they are.
    NotInLock,
    /// Its entry was made for another command, arguments or URL: the entry is ignored, the
    /// server started at once.
    Mismatch,
    /// Listed from its entry, started on first use, its definitions held to the entry.
    Locked,
}

impl fmt::Display for LockState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LockState::Unlocked => "no lock: started at once",
            LockState::NotInLock => "not in the lock: started at once",
            LockState::Mismatch => {
                "its lock entry is for another command or URL (stale): ignored, started at once"
            }
            LockState::Locked => "locked: listed from the lock, started on first use",
        })
    }
}
