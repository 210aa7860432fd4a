//! The shapes of the MCP clients' own files: where the servers are (`mcpServers` for Claude
//! Desktop, Claude Code, Cursor and most others; `servers` for VS Code's `.vscode/mcp.json`)
//! and what one server's entry holds (`command` or `url`, with an optional `type`).

use serde_json::{Map, Value};

use lazytool_mcp_client::Upstream;

use super::reader::{Reader, child, closest};

/// The keys that hold the servers, in the order they are looked for.
pub(super) const SERVER_KEYS: [&str; 2] = ["mcpServers", "servers"];

/// `type`s of an entry, for the error that lists them.
const TYPES: &str = "\"stdio\" (a child process) or \"http\" (streamable HTTP)";

impl Reader<'_> {
    /// The servers object of `root` and the key it is under; a problem when there is none,
    /// or both.
    pub(super) fn servers<'a>(
        &mut self,
        root: &'a Map<String, Value>,
    ) -> Option<(&'static str, &'a Map<String, Value>)> {
        let present: Vec<&'static str> = SERVER_KEYS
            .into_iter()
            .filter(|key| root.contains_key(*key))
            .collect();
        match present.as_slice() {
            [] => {
                self.problem(
                    "$",
                    "no `mcpServers` object (nor VS Code's `servers`): the servers go there, as in `{\"mcpServers\": {\"time\": {\"command\": \"uvx\", \"args\": [\"mcp-server-time\"]}}}`",
                );
                None
            }
            [key] => {
                let servers = root.get(*key)?;
                let servers = self.object(servers, &child("$", key))?;
                Some((*key, servers))
            }
            _ => {
                self.problem(
                    "$",
                    "has both `mcpServers` and `servers`: give the servers in one of them",
                );
                None
            }
        }
    }

    /// The upstream one server's entry describes: `command` (with `args`, `env`, `cwd`) or
    /// `url` (with `headers`), and a `type` that must agree.
    pub(super) fn upstream(&mut self, entry: &Map<String, Value>, path: &str) -> Option<Upstream> {
        let kind = self.entry_type(entry, path);
        if entry.contains_key("envFile") {
            self.problem(
                &child(path, "envFile"),
                "`envFile` is not supported: give the variables in `env` (`${VAR}` reads them from the gateway's environment)",
            );
        }
        match (entry.get("command"), entry.get("url")) {
            (Some(_), Some(_)) => {
                self.problem(path, "has both `command` and `url`: give one");
                None
            }
            (None, None) => {
                let typo = (entry.keys())
                    .find_map(|key| closest(key, &["command", "url"]).map(|near| (key, near)));
                let hint = match typo {
                    Some((key, near)) => format!("; is `{key}` a typo of `{near}`?"),
                    None => String::new(),
                };
                self.problem(
                    path,
                    format!("needs `command` (a child process) or `url` (streamable HTTP){hint}"),
                );
                None
            }
            (Some(command), None) => {
                if matches!(kind, Some(EntryType::Http)) {
                    self.problem(
                        &child(path, "type"),
                        "is \"http\", which needs a `url`, but the entry has a `command`",
                    );
                }
                self.command(command, entry, path)
            }
            (None, Some(url)) => {
                if matches!(kind, Some(EntryType::Stdio)) {
                    self.problem(
                        &child(path, "type"),
                        "is \"stdio\", which needs a `command`, but the entry has a `url`",
                    );
                }
                self.url(url, entry, path)
            }
        }
    }

    /// The entry's `type`, when it has a supported one.
    fn entry_type(&mut self, entry: &Map<String, Value>, path: &str) -> Option<EntryType> {
        let path = child(path, "type");
        match entry.get("type")? {
            Value::String(kind) if kind == "stdio" => Some(EntryType::Stdio),
            Value::String(kind) if kind == "http" || kind == "streamable-http" => {
                Some(EntryType::Http)
            }
            Value::String(kind) if kind == "sse" => {
                self.problem(
                    &path,
                    "the deprecated SSE transport is not supported: use a streamable HTTP URL (\"type\": \"http\")",
                );
                None
            }
            other => {
                self.problem(&path, format!("expected {TYPES}, found {other}"));
                None
            }
        }
    }

    fn command(
        &mut self,
        command: &Value,
        entry: &Map<String, Value>,
        path: &str,
    ) -> Option<Upstream> {
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

    fn url(&mut self, url: &Value, entry: &Map<String, Value>, path: &str) -> Option<Upstream> {
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

enum EntryType {
    Stdio,
    Http,
}
