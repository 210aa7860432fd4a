//! A server's entry in the `lazytool` section: which tools, under what prefix, with which
//! environment and authorization, how long it stays up idle and how its lock is held:
//! [`ServerSettings`].

use std::time::Duration;

use serde_json::{Map, Value};

use lazytool_mcp::{InheritEnv, OAuth, Pin, TokenStore, ToolSelection};

use super::reader::{Reader, child, kind};

pub(super) const SERVER_SETTINGS: &[&str] = &[
    "allow",
    "deny",
    "eager",
    "prefix",
    "inheritEnv",
    "maxDescriptionChars",
    "maxDefinitionBytes",
    "oauth",
    "idleTimeoutMs",
    "pin",
];

/// A server's entry in `lazytool.servers`.
pub(super) struct ServerSettings {
    pub(super) selection: ToolSelection,
    pub(super) prefix: Option<String>,
    pub(super) inherit_env: Option<InheritEnv>,
    pub(super) max_description: u64,
    /// `maxDefinitionBytes`, when the server sets its own.
    pub(super) max_definition: Option<u64>,
    pub(super) oauth: Option<OAuth>,
    /// `idleTimeoutMs`: zero keeps the server up.
    pub(super) idle_timeout: Option<Duration>,
    pub(super) pin: Pin,
}

impl Reader<'_> {
    pub(super) fn settings(
        &mut self,
        settings: &Map<String, Value>,
        path: &str,
        max_description: u64,
        tokens: &TokenStore,
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
        let max_definition = (settings.get("maxDefinitionBytes")).map(|bytes| {
            let path = child(path, "maxDefinitionBytes");
            self.positive(Some(bytes), &path, 0, "bytes")
        });
        let oauth =
            (settings.get("oauth")).map(|oauth| self.oauth(oauth, &child(path, "oauth"), tokens));
        let idle_path = child(path, "idleTimeoutMs");
        let idle_timeout = match settings.get("idleTimeoutMs") {
            None => None,
            Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().map(Duration::from_millis),
            Some(other) => {
                self.problem(
                    &idle_path,
                    format!("expected a whole number of milliseconds (0 keeps the server up), found {other}"),
                );
                None
            }
        };
        let pin = self.one_of(
            settings.get("pin"),
            &child(path, "pin"),
            Pin::Block,
            &[
                ("block", Pin::Block),
                ("warn", Pin::Warn),
                ("off", Pin::Off),
            ],
        );
        ServerSettings {
            selection,
            prefix,
            inherit_env,
            max_description,
            max_definition,
            oauth,
            idle_timeout,
            pin,
        }
    }
}
