//! A server's entry in the `lazytool` section: which tools, under what prefix, with which
//! environment and authorization: [`ServerSettings`].

use serde_json::{Map, Value};

use lazytool_mcp::{InheritEnv, OAuth, TokenStore, ToolSelection};

use super::reader::{Reader, child, kind};

pub(super) const SERVER_SETTINGS: &[&str] = &[
    "allow",
    "deny",
    "eager",
    "prefix",
    "inheritEnv",
    "maxDescriptionChars",
    "oauth",
];

/// A server's entry in `lazytool.servers`.
pub(super) struct ServerSettings {
    pub(super) selection: ToolSelection,
    pub(super) prefix: Option<String>,
    pub(super) inherit_env: Option<InheritEnv>,
    pub(super) max_description: u64,
    pub(super) oauth: Option<OAuth>,
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
        let oauth =
            (settings.get("oauth")).map(|oauth| self.oauth(oauth, &child(path, "oauth"), tokens));
        ServerSettings {
            selection,
            prefix,
            inherit_env,
            max_description,
            oauth,
        }
    }
}
