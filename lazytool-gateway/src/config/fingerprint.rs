//! What a configuration reload compares: each server's settings, and the `lazytool`
//! sections, as text ([`Fingerprints`]).

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::jsonc;

/// The `lazytool` keys that are not every server's defaults.
const SECTIONS: &[&str] = &[
    "mode", "listing", "search", "code", "oidc", "limits", "audit",
];

/// A configuration's parts as text, for two configurations to be compared part by part:
/// each server's (its `mcpServers` entry, its `lazytool.servers` entry and the defaults of
/// the `lazytool` section, `${VAR}` unexpanded), and each `lazytool` section that is not a
/// server default (`mode`, `listing`, `search`, `code`, `oidc`, `limits`, `audit`).
///
/// ```
/// let old = lazytool_gateway::Fingerprints::of(r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#);
/// let new = lazytool_gateway::Fingerprints::of(r#"{
///     "mcpServers": {"a": {"command": "x"}, "b": {"command": "y", "args": ["-v"]}},
///     "lazytool": {"mode": "search"}
/// }"#);
/// assert_eq!(old.servers["a"], new.servers["a"]);
/// assert_ne!(old.servers["b"], new.servers["b"]);
/// assert_eq!(old.changed_sections(&new), ["mode"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fingerprints {
    /// Each server's settings, by name.
    pub servers: BTreeMap<String, String>,
    /// Each of those sections given.
    sections: BTreeMap<&'static str, String>,
}

impl Fingerprints {
    /// The parts of `text`, a configuration that [`parse`](crate::parse) accepts (anything
    /// else has no parts).
    pub fn of(text: &str) -> Self {
        let Ok((root, _)) = jsonc::read(text) else {
            return Fingerprints::default();
        };
        let empty = Map::new();
        let lazytool = object(root.get("lazytool"), &empty);
        let settings = object(lazytool.get("servers"), &empty);
        let defaults: Map<String, Value> = (lazytool.iter())
            .filter(|(key, _)| *key != "servers" && !SECTIONS.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let servers = object(
            root.get("mcpServers").or_else(|| root.get("servers")),
            &empty,
        );
        Fingerprints {
            servers: (servers.iter())
                .map(|(name, entry)| {
                    let part = json!([entry, settings.get(name), defaults]);
                    (name.clone(), part.to_string())
                })
                .collect(),
            sections: (SECTIONS.iter())
                .filter_map(|key| Some((*key, lazytool.get(*key)?.to_string())))
                .collect(),
        }
    }

    /// The `lazytool` sections (other than server defaults) that differ in `other`.
    pub fn changed_sections(&self, other: &Fingerprints) -> Vec<&'static str> {
        (SECTIONS.iter().copied())
            .filter(|key| self.sections.get(key) != other.sections.get(key))
            .collect()
    }
}

fn object<'a>(value: Option<&'a Value>, empty: &'a Map<String, Value>) -> &'a Map<String, Value> {
    value.and_then(Value::as_object).unwrap_or(empty)
}
