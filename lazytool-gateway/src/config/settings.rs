//! A server's entry in the `lazytool` section: which tools, under what prefix, with which
//! environment and authorization, how long it stays up idle and how its lock is held:
//! [`ServerSettings`]; and the [`Defaults`] the `lazytool` section gives every server.

use std::time::Duration;

use serde_json::{Map, Value};

use lazytool_mcp::CallQuota;

use lazytool_mcp_client::{InheritEnv, OAuth, Pin, TokenStore, ToolSelection};

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
    "limits",
];

/// The settings under `lazytool` that every server takes unless its entry in
/// `lazytool.servers` gives its own: `maxDescriptionChars`, `maxDefinitionBytes`,
/// `idleTimeoutMs`, `pin`, `inheritEnv`.
#[derive(Clone)]
pub(super) struct Defaults {
    pub(super) max_description: u64,
    /// `maxDefinitionBytes`: the bound of one tool's definition as a model reads it.
    pub(super) max_definition: u64,
    /// `idleTimeoutMs`: zero keeps the server up.
    pub(super) idle_timeout: Option<Duration>,
    pub(super) pin: Pin,
    pub(super) inherit_env: Option<InheritEnv>,
}

/// A server's entry in `lazytool.servers`.
pub(super) struct ServerSettings {
    pub(super) selection: ToolSelection,
    pub(super) prefix: Option<String>,
    pub(super) oauth: Option<OAuth>,
    /// `limits`: the calls this server takes, whoever makes them.
    pub(super) quota: CallQuota,
    /// The defaults, overridden by what the entry gives.
    pub(super) own: Defaults,
}

impl Reader<'_> {
    /// The defaults of the `lazytool` section at `path`.
    pub(super) fn defaults(&mut self, section: &Map<String, Value>, path: &str) -> Defaults {
        let fallback = Defaults {
            max_description: super::MAX_DESCRIPTION_CHARS as u64,
            max_definition: lazytool_runtime::DEFAULT_MAX_DEFINITION_BYTES as u64,
            idle_timeout: None,
            pin: Pin::Block,
            inherit_env: None,
        };
        self.overrides(section, path, &fallback)
    }

    /// `defaults` with what `settings` (at `path`) gives instead.
    fn overrides(
        &mut self,
        settings: &Map<String, Value>,
        path: &str,
        defaults: &Defaults,
    ) -> Defaults {
        let max_description = self.positive(
            settings.get("maxDescriptionChars"),
            &child(path, "maxDescriptionChars"),
            defaults.max_description,
            "characters",
        );
        let max_definition = self.positive(
            settings.get("maxDefinitionBytes"),
            &child(path, "maxDefinitionBytes"),
            defaults.max_definition,
            "bytes",
        );
        let idle_timeout = match settings.get("idleTimeoutMs") {
            None => defaults.idle_timeout,
            Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().map(Duration::from_millis),
            Some(other) => {
                self.problem(
                    &child(path, "idleTimeoutMs"),
                    format!("expected a whole number of milliseconds (0 keeps the server up), found {other}"),
                );
                defaults.idle_timeout
            }
        };
        let pin = self.one_of(
            settings.get("pin"),
            &child(path, "pin"),
            defaults.pin,
            &[
                ("block", Pin::Block),
                ("warn", Pin::Warn),
                ("off", Pin::Off),
            ],
        );
        let inherit_path = child(path, "inheritEnv");
        let inherit_env = match settings.get("inheritEnv") {
            None => defaults.inherit_env.clone(),
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
                defaults.inherit_env.clone()
            }
        };
        Defaults {
            max_description,
            max_definition,
            idle_timeout,
            pin,
            inherit_env,
        }
    }

    pub(super) fn settings(
        &mut self,
        settings: &Map<String, Value>,
        path: &str,
        defaults: &Defaults,
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
        let oauth =
            (settings.get("oauth")).map(|oauth| self.oauth(oauth, &child(path, "oauth"), tokens));
        let quota = (settings.get("limits")).map_or_else(CallQuota::default, |quota| {
            self.quota(quota, &child(path, "limits"))
        });
        ServerSettings {
            selection,
            prefix,
            oauth,
            quota,
            own: self.overrides(settings, path, defaults),
        }
    }
}
