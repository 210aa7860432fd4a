//! rmcp's side of the sessions kept in the [`SharedStore`](super::SharedStore):
//! [`SessionInits`], the client's `initialize` of each session (field `init` of its hash,
//! beside what [`SharedSessions`] keeps).

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};

use super::shared_sessions::SharedSessions;

/// rmcp's side of the store: the client's `initialize`, which rmcp replays to restore the
/// session on a replica that does not hold it. While the store is down, a session not held
/// here is unknown (404: its client starts another), as without a store.
pub(crate) struct SessionInits(pub(crate) Arc<SharedSessions>);

#[async_trait::async_trait]
impl SessionStore for SessionInits {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let hash = self.0.store.key(&["session", id]);
        let init: Result<Option<String>, _> = (self.0.store)
            .run(|mut connection| async move {
                redis::cmd("HGET")
                    .arg(hash)
                    .arg("init")
                    .query_async(&mut connection)
                    .await
            })
            .await;
        match init {
            Ok(Some(init)) => Ok(serde_json::from_str(&init).ok()),
            Ok(None) => Ok(None),
            Err(error) => {
                tracing::warn!(target: "lazytool::mcp", session = id, reason = %error.reason, "cannot read a session from the shared store: answered as unknown");
                Ok(None)
            }
        }
    }

    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        self.0.local().inits.insert(id.to_owned(), state.clone());
        let init = serde_json::to_string(state)?;
        let hash = self.0.store.key(&["session", id]);
        let ttl = self.0.ttl_seconds();
        let written = (self.0.store)
            .run(|mut connection| async move {
                redis::pipe()
                    .cmd("HSET")
                    .arg(&hash)
                    .arg("init")
                    .arg(init)
                    .ignore()
                    .cmd("EXPIRE")
                    .arg(&hash)
                    .arg(ttl)
                    .ignore()
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await;
        if written.is_err() {
            // Written whole once the store answers; the client is served here meanwhile.
            self.0.local().unwritten.insert(id.to_owned());
        }
        Ok(())
    }

    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        self.0.local().forget(id);
        let keys = self.0.keys(id);
        (self.0.store)
            .run(|mut connection| async move {
                redis::cmd("DEL")
                    .arg(&keys[..])
                    .query_async::<()>(&mut connection)
                    .await
            })
            .await
            .map_err(|error| error.reason.into())
    }
}
