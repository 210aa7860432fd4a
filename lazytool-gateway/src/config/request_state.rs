//! `lazytool.requestState`: the key that signs the `requestState` of the gateway's
//! input-required results (the same on every replica that may answer a client's next round),
//! and how long a client may take to answer.

use std::time::Duration;

use serde_json::{Map, Value};

use super::reader::{Reader, child};

const REQUEST_STATE_KEYS: &[&str] = &["key", "ttlMs"];

/// `lazytool.requestState`, as read.
///
/// ```
/// let text = r#"{"mcpServers": {}, "lazytool": {"requestState": {"key": "${KEY}", "ttlMs": 120000}}}"#;
/// let key = "a shared key of at least thirty-two bytes".to_owned();
/// let config = lazytool_gateway::parse(text, |var| (var == "KEY").then(|| key.clone())).unwrap();
/// let settings = config.request_state.unwrap();
/// assert_eq!(settings.key.as_deref(), Some(key.as_str()));
/// assert_eq!(settings.ttl, Some(std::time::Duration::from_secs(120)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestStateSettings {
    /// The signing key (at least 32 bytes); `None`: a random key of this gateway's own.
    pub key: Option<String>,
    /// How long a client may take to answer; `None`: the server's default (10 minutes).
    pub ttl: Option<Duration>,
}

impl Reader<'_> {
    pub(super) fn request_state(&mut self, section: &Map<String, Value>) -> RequestStateSettings {
        let path = "$.lazytool.requestState";
        self.unknown_keys(section, path, REQUEST_STATE_KEYS);
        let key_path = child(path, "key");
        let key = section
            .get("key")
            .and_then(|key| self.string(key, &key_path));
        if let Some(key) = &key
            && key.len() < 32
        {
            self.problem(
                &key_path,
                format!(
                    "the key has {} bytes: it needs at least 32 (e.g. `openssl rand -hex 32`)",
                    key.len()
                ),
            );
        }
        let ttl = section
            .get("ttlMs")
            .map(|ttl| self.millis(Some(ttl), &child(path, "ttlMs"), Duration::ZERO));
        RequestStateSettings { key, ttl }
    }
}
