//! Moving a conversation to a changed catalog: [`CatalogChange`].

use std::collections::HashSet;
use std::sync::atomic::Ordering;

use super::{Session, redefined};
use crate::registry::Registry;
use crate::tool::{DISCOVERY_TOOL_NAME, Tool};

/// How the lazy tools changed when a conversation moved to a new catalog
/// ([`Session::with_registry`]).
///
/// ```
/// use lazytool_runtime::CatalogChange;
///
/// let change = CatalogChange { added: vec!["get_alerts".into()], ..CatalogChange::default() };
/// assert!(!change.is_empty());
/// assert_eq!(change.notice().unwrap(), "The available tools changed. \
///     New tools you can load with __lazy__tool__discovery__: [get_alerts].");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CatalogChange {
    /// Lazy tools that are new, in name order.
    pub added: Vec<String>,
    /// Lazy tools that are gone, in name order.
    pub removed: Vec<String>,
    /// Discovered tools that are gone (also in `removed`), in discovery order.
    pub dropped: Vec<String>,
    /// Discovered tools whose definition (name, description, input schema, skill) changed:
    /// refused until discovered again, in discovery order.
    pub changed: Vec<String>,
}

impl CatalogChange {
    /// Whether the lazy tools and the definitions of the discovered ones are the same.
    ///
    /// ```
    /// use lazytool_runtime::CatalogChange;
    ///
    /// assert!(CatalogChange::default().is_empty());
    /// // `dropped` does not count: it is a part of `removed`.
    /// assert!(!CatalogChange { removed: vec!["old".into()], ..CatalogChange::default() }.is_empty());
    /// assert!(!CatalogChange { changed: vec!["report".into()], ..CatalogChange::default() }.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    /// A message for the model saying which lazy tools appeared, disappeared or changed (send
    /// it before the next request), or `None` when nothing changed.
    ///
    /// ```
    /// use lazytool_runtime::CatalogChange;
    ///
    /// assert_eq!(CatalogChange::default().notice(), None);
    /// let change = CatalogChange { removed: vec!["get_forecast".into()], ..CatalogChange::default() };
    /// assert_eq!(change.notice().unwrap(), "The available tools changed. No longer available: [get_forecast].");
    /// let change = CatalogChange { changed: vec!["report".into()], ..CatalogChange::default() };
    /// assert_eq!(change.notice().unwrap(), "The available tools changed. Changed since you \
    ///     loaded them, to load again with __lazy__tool__discovery__: [report].");
    /// ```
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
        if !self.changed.is_empty() {
            notice.push_str(&format!(
                " Changed since you loaded them, to load again with {DISCOVERY_TOOL_NAME}: [{}].",
                self.changed.join(", ")
            ));
        }
        Some(notice)
    }
}

impl Session {
    /// Moves the conversation to a changed catalog (tools added or removed between turns):
    /// a new session over `registry` with the same options and the discovered tools that
    /// still exist, and what changed. Discovered tools that vanished are dropped without
    /// error; [`CatalogChange::notice`] tells the model. A discovered tool whose definition
    /// changed ([`CatalogChange::changed`]) is refused until discovered again, and an eager
    /// one that changed until the tools are listed again
    /// ([`active_tools`](Session::active_tools)): no call runs a definition the model did
    /// not read.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")] async fn main() {
    /// # use lazytool_runtime::{DynamicTool, Registry};
    /// # use serde_json::json;
    /// # let tool = |name: &str, lazy| DynamicTool::new(name.to_owned(), "A tool.", json!({"type": "object"}),
    /// #     |_, _| async { Ok::<_, String>(json!("done")) }).lazy(lazy);
    /// # let registry = Registry::builder().without_inventory()
    /// #     .tools([tool("get_time", false), tool("get_forecast", true)]).build().unwrap();
    /// // `get_time` is eager, `get_forecast` lazy.
    /// use lazytool_runtime::DISCOVERY_TOOL_NAME;
    ///
    /// let session = registry.session();
    /// session.call(DISCOVERY_TOOL_NAME, json!({"toolNames": ["get_forecast"]})).await;
    ///
    /// // The catalog changed between turns: `get_forecast` is gone, `get_alerts` is new.
    /// let changed = Registry::builder().without_inventory()
    ///     .tools([tool("get_time", false), tool("get_alerts", true)]).build().unwrap();
    /// let (session, change) = session.with_registry(&changed);
    /// assert_eq!((change.added, change.removed, change.dropped), (vec!["get_alerts".to_owned()],
    ///     vec!["get_forecast".to_owned()], vec!["get_forecast".to_owned()]));
    /// assert!(session.discovered().tools.is_empty());
    /// # }
    /// ```
    pub fn with_registry(&self, registry: &Registry) -> (Session, CatalogChange) {
        let before = self.lazy_tool_names().to_vec();
        let discovered = self.discovered();
        let session = Session::new(registry, self.shared.options.clone());
        let old = &self.shared.registry;
        let reads_the_same = |name: &str| match (old.get(name), registry.get(name)) {
            (Some(old), Some(new)) => redefined::reads_the_same(old, new),
            _ => true,
        };
        let (kept, changed): (Vec<&String>, Vec<&String>) = (discovered.tools.iter())
            .filter(|name| session.lazy_tool(name).is_some())
            .partition(|name| reads_the_same(name));
        session.restore(kept.into_iter().map(String::as_str));
        let listed: HashSet<&str> = self.shared.eager.iter().map(Tool::name).collect();
        let eager: HashSet<&str> = session.shared.eager.iter().map(Tool::name).collect();
        let unlisted: Vec<&str> = (eager.iter().copied())
            .filter(|name| listed.contains(name) && !reads_the_same(name))
            .collect();
        {
            let (previous, mut state) = (self.lock(), session.lock());
            // What was still to be discovered or listed again stays so.
            let still_lazy = |name: &&String| session.lazy_tool(name).is_some();
            let still_eager = |name: &&String| eager.contains(name.as_str());
            state.redefined = (changed.iter().copied())
                .chain(previous.redefined.iter().filter(still_lazy))
                .cloned()
                .collect();
            state.unlisted = (unlisted.iter().map(|name| (*name).to_owned()))
                .chain(previous.unlisted.iter().filter(still_eager).cloned())
                .collect();
            if !state.unlisted.is_empty() {
                session.live.relisting.store(true, Ordering::Release);
            }
        }
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
            dropped: (discovered.tools.iter())
                .filter(|n| !kept.contains(n) && !changed.contains(n))
                .cloned()
                .collect(),
            changed: changed.into_iter().cloned().collect(),
        };
        (session, change)
    }
}
