//! A connection's stateful session, bound to the principal of its first request: [`Bound`].
//! It follows the catalog as it changes, the tools each request's claims and access rules
//! grant, and what other replicas discovered for it.

use std::sync::{Arc, Mutex, PoisonError};

use lazytool_runtime::{DiscoveredSet, Registry, Session, SessionOptions};
use tokio::sync::watch;

use crate::Principal;
use crate::access_epoch::AccessEpoch;
use crate::server::McpServer;

pub(crate) struct Bound {
    pub(crate) principal: Principal,
    /// Replaced when the catalog changes ([`McpServer::live`](crate::McpServer::live)) and
    /// when a request's claims or access rules grant other tools.
    session: Mutex<Followed>,
}

struct Followed {
    session: Arc<Session>,
    catalog: watch::Receiver<Registry>,
    /// The principal, with the claims, whose request last chose the session's tools, and
    /// under which access rules.
    held_to: (Principal, AccessEpoch),
    /// Which of the registry's tools `held_to` may use, in the registry's order; empty when
    /// the server gates nothing.
    granted: Vec<bool>,
}

/// Whether a request changed what the session lists.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relisted {
    Same,
    Changed,
}

impl Bound {
    pub(crate) fn new(server: &McpServer, principal: &Principal, epoch: AccessEpoch) -> Self {
        let mut catalog = server.catalog();
        let registry = catalog.borrow_and_update().clone();
        let options = server.options_for(principal);
        let granted = granted(server, &registry, &options);
        Bound {
            principal: principal.clone(),
            session: Mutex::new(Followed {
                session: Arc::new(registry.session_with(options)),
                catalog,
                held_to: (principal.clone(), epoch),
                granted,
            }),
        }
    }

    /// The session as it stands, first moved to the current catalog if it changed.
    pub(crate) fn session(&self, server: &McpServer) -> Arc<Session> {
        let mut followed = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        followed.follow_catalog(server);
        Arc::clone(&followed.session)
    }

    /// The session for a request of `principal` (the bound one) under `epoch`: moved to the
    /// current catalog if it changed, and to the tools the request's claims and rules grant
    /// if they grant others than the last request's did, keeping what was discovered and is
    /// still granted.
    pub(crate) fn session_for(
        &self,
        server: &McpServer,
        principal: &Principal,
        epoch: AccessEpoch,
    ) -> (Arc<Session>, Relisted) {
        // Every update is one assignment: consistent even after a panic elsewhere.
        let mut followed = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        followed.follow_catalog(server);
        let (held, held_epoch) = &followed.held_to;
        if *held_epoch == epoch && held.same_claims(principal) {
            return (Arc::clone(&followed.session), Relisted::Same);
        }
        followed.held_to = (principal.clone(), epoch);
        let registry = followed.session.registry().clone();
        let options = server.options_for(principal);
        let granted = granted(server, &registry, &options);
        if granted == followed.granted {
            return (Arc::clone(&followed.session), Relisted::Same);
        }
        let discovered = followed.session.discovered();
        let session = Session::resume(&registry, &discovered, options);
        tracing::info!(target: "lazytool::mcp", principal = principal.name(), "a session's tools changed with its principal's claims or access rules");
        followed.session = Arc::new(session);
        followed.granted = granted;
        (Arc::clone(&followed.session), Relisted::Changed)
    }
}

impl Bound {
    /// Makes `names` (discovered for this session on another replica, or before a restart)
    /// callable too, if the session's principal may use them; whether any was new.
    pub(crate) fn add_discovered(&self, server: &McpServer, names: &[String]) -> bool {
        let mut followed = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        followed.follow_catalog(server);
        let mut discovered = followed.session.discovered();
        let before = discovered.tools.len();
        for name in names {
            if !discovered.tools.contains(name) {
                discovered.tools.push(name.clone());
            }
        }
        if discovered.tools.len() == before {
            return false;
        }
        let registry = followed.session.registry().clone();
        let options = server.options_for(&followed.held_to.0);
        let merged = DiscoveredSet::new(discovered.tools);
        let session = Session::resume(&registry, &merged, options);
        let grew = session.discovered().tools.len() > before;
        followed.session = Arc::new(session);
        grew
    }
}

impl Followed {
    fn follow_catalog(&mut self, server: &McpServer) {
        if self.catalog.has_changed().unwrap_or(false) {
            let registry = self.catalog.borrow_and_update().clone();
            let (session, change) = self.session.with_registry(&registry);
            tracing::info!(target: "lazytool::mcp", added = ?change.added, removed = ?change.removed, changed = ?change.changed, "a connection moved to the changed catalog");
            self.session = Arc::new(session);
            self.granted = granted(server, &registry, &server.options_for(&self.held_to.0));
        }
    }
}

/// Which of `registry`'s tools `options` allow, in the registry's order; empty when the
/// server gates nothing, so that an ungated server never walks its tools per request.
fn granted(server: &McpServer, registry: &Registry, options: &SessionOptions) -> Vec<bool> {
    if !server.is_gated() {
        return Vec::new();
    }
    registry.tools().map(|tool| options.allows(tool)).collect()
}

#[cfg(test)]
mod tests {
    use lazytool_runtime::{DISCOVERY_TOOL_NAME, DynamicTool};
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn a_discovery_made_in_a_replaced_session_reaches_the_current_one() {
        let tool = |name: &str| {
            DynamicTool::new(
                name.to_owned(),
                "A tool.",
                json!({"type": "object"}),
                |_, _| async { Ok::<_, String>(json!("done")) },
            )
            .lazy(true)
        };
        let registry = Registry::builder()
            .without_inventory()
            .tools([tool("mine"), tool("elsewhere")])
            .build()
            .expect("a registry");
        let server = McpServer::new(registry);
        let bound = Bound::new(&server, &Principal::anonymous(), AccessEpoch::default());
        // A discovery runs in the session as it was...
        let running = bound.session(&server);
        // ...while another replica's discovery replaces it.
        assert!(bound.add_discovered(&server, &["elsewhere".to_owned()]));
        running
            .call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["mine"]}))
            .await;
        // What the connection then reports of the discovery it answered.
        assert!(bound.add_discovered(&server, &["mine".to_owned()]));
        let mut discovered = bound.session(&server).discovered().tools;
        discovered.sort();
        assert_eq!(discovered, ["elsewhere", "mine"]);
        assert!(
            !bound.add_discovered(&server, &["mine".to_owned()]),
            "nothing new"
        );
    }
}
