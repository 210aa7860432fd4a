//! Moving a conversation to a changed catalog: [`CatalogChange`].

use super::Session;
use crate::registry::Registry;
use crate::tool::DISCOVERY_TOOL_NAME;

/// How the lazy tools changed when a conversation moved to a new catalog
/// ([`Session::with_registry`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogChange {
    /// Lazy tools that are new, in name order.
    pub added: Vec<String>,
    /// Lazy tools that are gone, in name order.
    pub removed: Vec<String>,
    /// Discovered tools that are gone (also in `removed`), in discovery order.
    pub dropped: Vec<String>,
}

impl CatalogChange {
    /// Whether the lazy tools are the same.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty()
    }

    /// A message for the model saying which lazy tools appeared and disappeared (send it
    /// before the next request), or `None` when nothing changed.
    pub fn notice(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut notice = String::from("The available tools changed.");
        if !self.added.is_empty() {
            notice.push_str(&format!(
                " New tools you can load with {DISCOVERY_TOOL_NAME}: [{}].",
                self.added.join(", ")
            ));
        }
        if !self.removed.is_empty() {
            notice.push_str(&format!(
                " No longer available: [{}].",
                self.removed.join(", ")
            ));
        }
        Some(notice)
    }
}

impl Session {
    /// Moves the conversation to a changed catalog (tools added or removed between turns):
    /// a new session over `registry` with the same options and the discovered tools that
    /// still exist, and what changed. Discovered tools that vanished are dropped without
    /// error; [`CatalogChange::notice`] tells the model.
    pub fn with_registry(&self, registry: &Registry) -> (Session, CatalogChange) {
        let before = self.lazy_tool_names().to_vec();
        let discovered = self.discovered();
        let session = Session::new(registry, self.shared.options.clone());
        session.restore(discovered.tools.iter().map(String::as_str));
        let after = session.lazy_tool_names();
        let kept = session.discovered().tools;
        let change = CatalogChange {
            added: after
                .iter()
                .filter(|n| !before.contains(n))
                .cloned()
                .collect(),
            removed: before
                .iter()
                .filter(|n| !after.contains(n))
                .cloned()
                .collect(),
            dropped: (discovered.tools.into_iter())
                .filter(|n| !kept.contains(n))
                .collect(),
        };
        (session, change)
    }
}
