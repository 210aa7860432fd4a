//! A server's `oauth` settings in the `lazytool` section: `clientId`, `clientSecret`,
//! `scopes` and `grant`, read into lazytool-mcp's [`OAuth`].

use serde_json::{Map, Value};

use lazytool_mcp_client::{Grant, OAuth, TokenStore};

use super::reader::{Reader, child};

const OAUTH_KEYS: &[&str] = &["clientId", "clientSecret", "scopes", "grant"];

impl Reader<'_> {
    /// `lazytool.servers.NAME.oauth`, its tokens kept in `store`.
    pub(super) fn oauth(&mut self, value: &Value, path: &str, store: &TokenStore) -> OAuth {
        let mut oauth = OAuth::new().token_store(store.clone());
        let Some(settings) = self.object(value, path) else {
            return oauth;
        };
        self.unknown_keys(settings, path, OAUTH_KEYS);
        if let Some(id) = self.optional_string(settings, "clientId", path) {
            oauth = oauth.client_id(id);
        }
        if let Some(secret) = self.optional_string(settings, "clientSecret", path) {
            oauth = oauth.client_secret(secret);
        }
        if let Some(scopes) = settings.get("scopes") {
            oauth = oauth.scopes(self.strings(scopes, &child(path, "scopes")));
        }
        oauth.grant(self.one_of(
            settings.get("grant"),
            &child(path, "grant"),
            Grant::AuthorizationCode,
            &[
                ("authorization_code", Grant::AuthorizationCode),
                ("client_credentials", Grant::ClientCredentials),
            ],
        ))
    }

    fn optional_string(
        &mut self,
        settings: &Map<String, Value>,
        key: &str,
        path: &str,
    ) -> Option<String> {
        let value = settings.get(key)?;
        self.string(value, &child(path, key))
    }
}
